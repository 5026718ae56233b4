// The table display: renders the table's view and follows the log by sequence number.
"use strict";
(function () {
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const ui = boot.ui;
  const lang = boot.lang;
  let view = boot.view;
  let shownRoll = null;
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }

  function text(names) { return (names && (names[lang] || names.en)) || ""; }

  function dieNode(die, face, extra) {
    const label = text(face.label);
    const swatch = face.colour ? el("span", { class: "swatch", style: `background:${face.colour}`, "aria-hidden": "true" }) : null;
    const node = el("span", { class: "die" + (die.verified === false ? " unverified" : ""), ...(extra || {}) },
      el("span", { class: "face" }, swatch, label),
      el("span", { class: "name" }, text(die.name),
        die.verified === false ? el("span", { class: "flag", title: ui.unverified_help }, " ⚠") : null));
    node.setAttribute("aria-label", `${text(die.name)}: ${label}` + (die.verified === false ? ` (${ui.unverified})` : ""));
    return node;
  }

  function byWho(by) {
    if (by === "table") return ui.by_table;
    if (by === "host") return ui.by_host;
    if (by.startsWith("seat:")) {
      const n = Number(by.slice(5));
      const seat = view.table.seats.find((s) => s.number === n);
      return seat && seat.name ? seat.name : `${ui.by_seat} ${n}`;
    }
    return by;
  }

  function rollDice(roll, dice) {
    return roll.dice.map((d) => dieNode(dice[d.die] || { name: { en: d.die } }, d));
  }

  function renderSeats() {
    const list = $("seats");
    list.replaceChildren(...view.table.seats.map((s) =>
      el("li", {}, el("span", { class: "num" }, String(s.number)),
        s.name ? el("span", {}, s.name) : el("span", { class: "free" }, ui.free_seat))));
  }

  function renderTray(game) {
    const tray = game.view;
    const dice = Object.fromEntries(tray.catalogue.dice.map((d) => [d.id, d]));
    const last = tray.recent[0];
    const result = $("last-roll");
    if (last) {
      if (shownRoll !== last.number) {
        result.replaceChildren(...rollDice(last, dice));
        result.classList.remove("rolling");
        void result.offsetWidth;
        if (shownRoll !== null) result.classList.add("rolling");
        shownRoll = last.number;
      }
      $("roll-meta").textContent = `#${last.number} · ${byWho(last.by)}`;
      $("last-total").textContent = last.total !== null && last.dice.length > 1 ? `${ui.total}: ${last.total}` : "";
    }
    const trayRow = $("tray");
    if (tray.tray.length === 0) trayRow.replaceChildren(el("span", { class: "muted" }, ui.tray_empty));
    else trayRow.replaceChildren(...tray.tray.map((id, i) => {
      const die = dice[id];
      const node = el("button", { type: "button", class: "die", title: ui.remove_die,
        "aria-label": `${ui.remove_die} ${text(die.name)}`,
        onclick: () => send("set_tray", { dice: tray.tray.filter((_, j) => j !== i) }) },
        el("span", { class: "face" }, text(die.name)));
      if (die.verified === false) node.classList.add("unverified");
      return node;
    }));
    $("roll").disabled = tray.tray.length === 0;
    $("presets").replaceChildren(...tray.catalogue.presets.map((p) =>
      el("button", { type: "button", onclick: () => send("set_tray", { preset: p.id }) }, text(p.name))));
    $("catalogue").replaceChildren(...tray.catalogue.dice.map((d) => {
      const button = el("button", { type: "button", onclick: () => send("set_tray", { dice: tray.tray.concat([d.id]) }) },
        "+ " + text(d.name));
      if (d.verified === false) {
        button.append(el("span", { class: "flag", title: ui.unverified_help }, "⚠ " + ui.unverified));
      }
      return button;
    }));
    $("history").replaceChildren(...tray.recent.slice(1, 12).map((roll) =>
      el("li", {}, el("span", {}, `#${roll.number}`), ...rollDice(roll, dice),
        roll.total !== null && roll.dice.length > 1 ? el("strong", {}, `= ${roll.total}`) : null,
        el("span", {}, byWho(roll.by)))));
  }

  function render() {
    renderSeats();
    const game = view.game;
    const running = game && !game.ended;
    $("game-title").textContent = game ? text(game.title) : "";
    $("no-game").hidden = !!(game && game.game === "dice-tray");
    $("no-game").textContent = game && game.ended ? ui.game_over : ui.no_game;
    $("tray-area").hidden = !(game && game.game === "dice-tray");
    if (game && game.game === "dice-tray") renderTray(game);
    $("roll").disabled = $("roll").disabled || !running;
  }

  function showError(message) {
    const box = $("error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  async function send(name, args) {
    showError("");
    try {
      const response = await fetch("/api/commands", {
        method: "POST", headers: { "Content-Type": "application/json", "Accept-Language": lang },
        body: JSON.stringify({ name, args: args || {} }),
      });
      const body = await response.json();
      if (!body.ok) { showError(body.message); return; }
      if (body.view.position >= view.position) { view = body.view; render(); }
    } catch (err) {
      showError(ui.reconnecting);
    }
  }

  function setLink(up) {
    const link = $("link");
    link.textContent = up ? ui.connected : ui.reconnecting;
    link.classList.toggle("down", !up);
  }

  async function follow() {
    // Long-poll: ask for the view once the log is past what we show; back off while offline.
    let delay = 500;
    for (;;) {
      try {
        const response = await fetch(`/api/view?after=${view.position}&wait=20`, { cache: "no-store" });
        if (!response.ok) throw new Error(String(response.status));
        const next = await response.json();
        setLink(true);
        delay = 500;
        if (next.position !== view.position || JSON.stringify(next) !== JSON.stringify(view)) { view = next; render(); }
      } catch (err) {
        setLink(false);
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  $("roll").addEventListener("click", () => send("roll"));
  document.addEventListener("keydown", (event) => {
    if ((event.key === " " || event.key === "Enter") && event.target === document.body) {
      event.preventDefault();
      if (!$("roll").disabled) send("roll");
    }
  });
  document.cookie = `lang=${lang}; max-age=31536000; SameSite=Strict; path=/`;
  render();
  setLink(true);
  follow();
})();
