// The dice tray's screens: the same public view drawn for the TV, a phone and the host.
"use strict";
(function (C) {
  const { el, text, ui } = C;
  let shownRoll = null;

  function catalogue(view) { return Object.fromEntries(view.catalogue.dice.map((d) => [d.id, d])); }

  function dieNode(die, face) {
    const label = text(face.label);
    const unverified = die.verified === false;
    const node = el("span", { class: "die" + (unverified ? " unverified" : ""), role: "img",
      "aria-label": `${text(die.name)}: ${label}` + (unverified ? ` (${ui.unverified})` : "") },
      el("span", { class: "face" },
        face.colour ? el("span", { class: "swatch", style: `background:${face.colour}` }) : null, label),
      el("span", { class: "name" }, text(die.name), unverified ? el("span", { class: "flag" }, " ⚠") : null));
    return node;
  }

  function rollNodes(roll, dice) {
    return roll.dice.map((d) => dieNode(dice[d.die] || { name: { en: d.die } }, d));
  }

  function lastRoll(game, view, big) {
    const tray = game.view;
    const dice = catalogue(tray);
    const last = tray.recent[0];
    const box = el("div", { class: "result", "aria-live": "polite" });
    box.append(el("h3", {}, ui.last_roll, " ",
      el("span", { class: "meta" }, last ? `#${last.number} · ${C.byWho(last.by, view)}` : "")));
    const row = el("div", { class: "dice-row" + (big ? " big" : " medium") });
    if (last) {
      row.append(...rollNodes(last, dice));
      if (shownRoll !== null && shownRoll !== last.number) row.classList.add("rolling");
      shownRoll = last.number;
    } else {
      row.append(el("p", { class: "muted" }, ui.no_roll_yet));
    }
    box.append(row);
    if (last && last.total !== null && last.dice.length > 1) {
      box.append(el("div", { class: "total" }, C.fill(ui.total_value, { total: last.total })));
    }
    return box;
  }

  function history(game, view, count) {
    const dice = catalogue(game.view);
    return el("ol", { class: "history", "aria-label": ui.history },
      game.view.recent.slice(1, count + 1).map((roll) => el("li", {},
        el("span", {}, `#${roll.number}`), rollNodes(roll, dice),
        roll.total !== null && roll.dice.length > 1 ? el("strong", {}, `= ${roll.total}`) : null,
        el("span", { class: "by" }, C.byWho(roll.by, view)))));
  }

  // The commands this viewer may send, as buttons, disabled with the reason when not allowed now.
  // `short` (the TV): an unverified die is flagged "⚠" alone, and one line under the dice says
  // what the flag means (a screen cannot scroll to a flag repeated on every die that has it).
  function controls(game, role, withCatalogue, short) {
    const tray = game.view;
    const dice = catalogue(tray);
    const wrap = el("div", { class: "controls" });
    const rollAction = game.actions.find((a) => a.name === "roll");
    const trayRow = el("div", { class: "tray-line" }, el("h3", {}, ui.tray));
    const trayDice = el("div", { class: "dice-row small" });
    if (tray.tray.length === 0) trayDice.append(el("span", { class: "muted" }, ui.tray_empty));
    tray.tray.forEach((id, i) => {
      const die = dice[id];
      trayDice.append(el("button", { type: "button", class: "die chip-die" + (die.verified === false ? " unverified" : ""),
        "aria-label": `${ui.remove_die}: ${text(die.name)}`,
        onclick: () => C.send(role, "set_tray", { dice: tray.tray.filter((_, j) => j !== i) }) },
        el("span", { class: "face" }, text(die.name)), el("span", { class: "name" }, "✕")));
    });
    trayRow.append(trayDice);
    const reasonId = `roll-reason-${role}`;
    const rollButton = el("button", { id: `roll-${role}`, class: "roll", type: "button",
      disabled: rollAction && !rollAction.allowed, "aria-describedby": reasonId,
      onclick: () => C.send(role, "roll") }, ui.roll);
    trayRow.append(rollButton);
    wrap.append(trayRow, el("p", { id: reasonId, class: "hint reason" },
      rollAction && !rollAction.allowed ? C.reasonText(rollAction.reason) : ""));
    wrap.append(el("h3", {}, ui.presets));
    wrap.append(el("div", { class: "chips" }, game.actions.filter((a) => a.name === "set_tray").map((a) => {
      const preset = tray.catalogue.presets.find((p) => p.id === a.args.preset);
      return el("button", { type: "button", disabled: !a.allowed, title: a.allowed ? null : C.reasonText(a.reason),
        onclick: () => C.send(role, "set_tray", a.args) }, preset ? text(preset.name) : a.args.preset);
    })));
    if (withCatalogue) {
      wrap.append(el("h3", {}, ui.catalogue));
      wrap.append(el("div", { class: "chips" }, tray.catalogue.dice.map((d) =>
        el("button", { type: "button", disabled: game.ended,
          onclick: () => C.send(role, "set_tray", { dice: tray.tray.concat([d.id]) }) },
          "+ " + text(d.name),
          d.verified === false ? el("span", { class: "flag", title: ui.unverified_help }, short ? " ⚠" : " ⚠ " + ui.unverified) : null))));
      if (short && tray.catalogue.dice.some((d) => d.verified === false)) {
        wrap.append(el("p", { class: "hint" }, el("span", { class: "flag" }, "⚠"), ` ${ui.unverified}`));
      }
    }
    return wrap;
  }

  function historySection(game, view, count) {
    if (game.view.recent.length < 2) return null;
    return el("section", { class: "earlier" }, el("h3", {}, ui.history), history(game, view, count));
  }

  C.games["dice-tray"] = {
    // The TV: one screen, never scrolled. The last roll (who rolled it: the last action) and the
    // tray's controls on the left, the earlier rolls on the right, as many as the screen holds.
    table(container, game, view) {
      const last = lastRoll(game, view, true);
      last.querySelector("h3").classList.add("last-action");
      const earlier = historySection(game, view, 12);
      if (earlier) earlier.querySelector("ol").dataset.fit = "trim";
      container.replaceChildren(el("div", { class: "tray-table" },
        el("div", { class: "tray-main" }, last, controls(game, "table", true, true)), earlier));
    },
    seat(container, game, view) {
      container.replaceChildren(...[lastRoll(game, view, false), controls(game, "me", true),
        historySection(game, view, 5)].filter(Boolean));
    },
    host(container, game, view) {
      container.replaceChildren(el("p", {}, `${ui.rolls_so_far}: ${game.view.rolls_total}`), lastRoll(game, view, false));
    },
  };
})(window.Companion);
