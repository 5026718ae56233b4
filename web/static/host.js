// The host console: controls only. The host sees what the table sees, never a player's secrets.
"use strict";
(function (C) {
  const { $, el, ui } = C;

  const login = $("login-form");
  if (login) {
    const tryKey = async (key) => {
      const body = await C.post("/api/host/login", { key });
      if (body.ok) window.location.replace("/host");
      else C.showError(body.message);
    };
    // The terminal's QR carries the key after '#': it never reaches the server in a URL or a log.
    const match = window.location.hash.match(/^#k=([A-Za-z0-9_-]+)$/);
    if (match) { history.replaceState(null, "", "/host"); tryKey(match[1]); }
    login.addEventListener("submit", (event) => { event.preventDefault(); tryKey($("key-input").value.trim()); });
    return;
  }

  let current = C.boot.view;
  let games = [];
  let rebindTimer = null;
  let lastSeats = "";
  const send = (name, args) => C.send("host", name, args);

  function seatRow(seat) {
    const input = el("input", { value: seat.name, maxlength: "20", "aria-label": `${ui.seat} ${seat.number}: ${ui.your_name}`,
      placeholder: ui.free_seat });
    const rename = el("form", { class: "inline-form", onsubmit: (e) => { e.preventDefault(); send("name_seat", { seat: seat.number, name: input.value }); } },
      input, el("button", { type: "submit" }, ui.rename));
    return el("li", { class: "host-seat" },
      el("span", { class: "num" }, String(seat.number)),
      rename,
      seat.name ? el("span", { class: "presence " + (seat.connected ? "on" : "off") }, seat.connected ? `● ${ui.online}` : `○ ${ui.away}`) : null,
      seat.name ? el("button", { type: "button", onclick: () => rebind(seat) }, ui.new_phone) : null,
      seat.name ? el("button", { type: "button", class: "danger", onclick: () => {
        if (window.confirm(C.fill(ui.remove_confirm, { name: seat.name }))) send("clear_seat", { seat: seat.number });
      } }, ui.remove) : null);
  }

  async function rebind(seat) {
    const body = await C.post("/api/host/rebind", { seat: seat.number });
    if (!body.ok) { C.showError(body.message); return; }
    $("rebind").hidden = false;
    $("rebind-title").textContent = C.fill(ui.rebind_title, { seat: seat.number, name: seat.name });
    $("rebind-qr").innerHTML = body.qr;  // an SVG our own server drew
    let left = Math.round(body.expires_s);
    clearInterval(rebindTimer);
    const tick = () => {
      $("rebind-help").textContent = left > 0 ? C.fill(ui.rebind_help, { seconds: left }) : ui.rebind_expired;
      if (left <= 0) { clearInterval(rebindTimer); $("rebind-qr").replaceChildren(); }
      left -= 1;
    };
    tick();
    rebindTimer = setInterval(tick, 1000);
  }
  $("rebind-close").addEventListener("click", () => { clearInterval(rebindTimer); $("rebind").hidden = true; $("rebind-qr").replaceChildren(); });

  function renderStartForm(view) {
    const form = $("start-form");
    const running = view.game && !view.game.ended;
    form.hidden = running || games.length === 0;
    if (form.hidden || $("game-select").options.length) return;
    $("game-select").replaceChildren(...games.map((g) => el("option", { value: g.id }, C.text(g.title))));
    renderOptions();
  }

  function renderOptions() {
    const game = games.find((g) => g.id === $("game-select").value);
    $("game-options").replaceChildren(...(game ? game.options : []).map(optionField));
  }

  // One option: a choice from a list, or (kind "counts") a number per key with their total. An
  // option may carry a note (a default no source confirmed, say), shown under it.
  function optionField(option) {
    const noteId = option.note ? `option-note-${option.key}` : null;
    const note = option.note ? el("p", { class: "hint option-note", id: noteId }, C.text(option.note)) : null;
    if (option.kind === "counts") return countsField(option, note, noteId);
    if (option.kind === "list") return listField(option, note, noteId);
    if (option.kind === "fate_stack") return fateStackField(option, note, noteId);
    if (option.kind === "mapping") return mappingField(option, note, noteId);
    // Values may be lists (a die's faces): compared by their JSON.
    const chosen = JSON.stringify(option.default);
    return el("div", { class: "option" }, el("label", {},
      C.text(option.label), " ",
      el("select", { "data-key": option.key, "aria-describedby": noteId }, option.choices.map((choice) =>
        el("option", { value: String(choice.value), selected: JSON.stringify(choice.value) === chosen }, C.text(choice.label))))),
    note);
  }

  // A list typed in from the owner's box (kind "list"): a die's faces, the colours' names; sent as
  // a JSON list of numbers or of trimmed names. The server checks it (bad_options says what is wrong).
  function listField(option, note, noteId) {
    const id = `option-${option.key}`;
    const value = (option.default || []).join(", ");
    const help = option.item === "number" ? ui.nuit_option_numbers : ui.nuit_option_names;
    return el("div", { class: "option option-list" },
      el("label", { for: id }, C.text(option.label)),
      el("input", { id, type: "text", "data-list": option.key, "data-item": option.item, value, autocomplete: "off",
        inputmode: option.item === "number" ? "numeric" : null, "aria-describedby": [`${id}-help`, noteId].filter(Boolean).join(" ") }),
      el("p", { class: "hint", id: `${id}-help` }, option.length ? C.fill(ui.nuit_option_length, { n: option.length, what: help }) : help),
      note);
  }
  function listValue(input) {
    const items = input.value.split(",").map((x) => x.trim()).filter((x) => x !== "");
    return input.dataset.item === "number" ? items.map((x) => (/^-?\d+(\.\d+)?$/.test(x) ? Number(x) : x)) : items;
  }

  // The fate cards of one colour (kind "fate_stack"): a row per card, its kind and, for the kinds
  // that print a number, n ("c" = the colour's number, or a number).
  const NUMBERED = ["lose_magic", "lose_ketchup", "gain_ketchup"];
  function fateStackField(option, note, noteId) {
    const rows = el("ol", { class: "fate-rows" });
    const addRow = (card) => {
      const kind = el("select", { "data-fate": "kind", "aria-label": ui.nuit_option_kind },
        option.kinds.map((k) => el("option", { value: k, selected: k === card.kind }, ui[`nuit_kind_${k}`] || k)));
      const n = el("input", { type: "text", "data-fate": "n", size: "3", value: card.n === undefined ? "c" : String(card.n),
        "aria-label": ui.nuit_option_n, title: ui.nuit_option_n });
      const showN = () => { n.hidden = !NUMBERED.includes(kind.value); };
      kind.addEventListener("change", showN);
      showN();
      const li = el("li", { class: "fate-row" }, kind, n,
        el("button", { type: "button", class: "fate-remove", "aria-label": ui.nuit_option_remove, onclick: () => li.remove() }, "−"));
      rows.append(li);
    };
    for (const card of option.default || []) addRow(card);
    return el("fieldset", { class: "fate-stack", "data-key": option.key, "aria-describedby": noteId },
      el("legend", {}, C.text(option.label)), rows,
      el("button", { type: "button", class: "fate-add", onclick: () => addRow({ kind: option.kinds[0] }) }, ui.nuit_option_add),
      el("p", { class: "hint" }, ui.nuit_option_n), note);
  }
  function fateStackValue(box) {
    return [...box.querySelectorAll(".fate-row")].map((row) => {
      const kind = row.querySelector("[data-fate=kind]").value;
      if (!NUMBERED.includes(kind)) return { kind };
      const raw = row.querySelector("[data-fate=n]").value.trim();
      return { kind, n: /^\d+$/.test(raw) ? Number(raw) : raw };
    });
  }

  // Each key given one of the values (kind "mapping"), each value once: Vampir's colour for each
  // location, as the owner's location cards show it. The server refuses a value used twice.
  function mappingField(option, note, noteId) {
    const chosen = option.default || {};
    const word = (prefix, name) => ui[`${prefix}${name}`] || name;
    return el("fieldset", { class: "mapping", "data-key": option.key, "aria-describedby": noteId },
      el("legend", {}, C.text(option.label)),
      el("div", { class: "mapping-grid" }, option.keys.map((key) => el("label", {},
        el("span", {}, word("vampir_colour_", key)), " ",
        el("select", { "data-map": key }, option.values.map((value) =>
          el("option", { value, selected: chosen[key] === value }, word("vampir_location_", value))))))),
      note);
  }
  function mappingValue(box) {
    const value = {};
    for (const select of box.querySelectorAll("select[data-map]")) value[select.dataset.map] = select.value;
    return value;
  }

  // The cards of each kind in the owner's own box: once the host changes a number, the game
  // is told the deck was counted (`<key>_counted`), and the table keeps the counts as its own.
  function countsField(option, note, noteId) {
    const counts = option.default || {};
    const total = el("output", { class: "counts-total", "aria-live": "polite" });
    const inputs = option.keys.map((key) => el("input", { type: "number", min: "0", max: "40", step: "1", inputmode: "numeric",
      id: `count-${option.key}-${key}`, "data-count": key, value: String(counts[key] === undefined ? 0 : counts[key]) }));
    // Only a game that asks whether its deck was counted (`counted` in its schema) is told so.
    const box = el("fieldset", { class: "counts", "data-key": option.key,
      "data-counted": "counted" in option ? (option.counted ? "1" : "0") : null,
      "aria-describedby": noteId },
    el("legend", {}, C.text(option.label)),
    el("div", { class: "counts-grid" }, option.keys.map((key, i) => el("label", { for: inputs[i].id },
      el("span", {}, ui[`card_${key.replace("-", "_")}`] || ui[`nuit_count_${key}`] || key), inputs[i]))),
    total, "counted" in option ? el("p", { class: "hint" }, option.counted ? ui.deck_counted : ui.deck_count_help) : null, note);
    const update = () => {
      const sum = inputs.reduce((n, input) => n + (Number(input.value) || 0), 0);
      total.textContent = C.fill("counted" in option ? ui.deck_total : ui.nuit_option_total, { n: sum });
    };
    for (const input of inputs) input.addEventListener("input", () => { box.dataset.edited = "1"; update(); });
    update();
    return box;
  }
  $("game-select").addEventListener("change", renderOptions);
  $("start-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const options = {};
    const game = games.find((g) => g.id === $("game-select").value);
    // The choice's own value (a number stays a number), not the select's text.
    for (const select of $("game-options").querySelectorAll("select[data-key]")) {
      const option = game.options.find((o) => o.key === select.dataset.key);
      options[select.dataset.key] = option.choices[select.selectedIndex].value;
    }
    for (const box of $("game-options").querySelectorAll("fieldset.counts")) {
      const counts = {};
      for (const input of box.querySelectorAll("input[data-count]")) counts[input.dataset.count] = Number(input.value);
      options[box.dataset.key] = counts;
      const asks = box.dataset.counted !== undefined;
      if (asks && (box.dataset.edited === "1" || box.dataset.counted === "1")) options[`${box.dataset.key}_counted`] = true;
    }
    for (const input of $("game-options").querySelectorAll("input[data-list]")) options[input.dataset.list] = listValue(input);
    for (const box of $("game-options").querySelectorAll("fieldset.fate-stack")) options[box.dataset.key] = fateStackValue(box);
    for (const box of $("game-options").querySelectorAll("fieldset.mapping")) options[box.dataset.key] = mappingValue(box);
    send("start_game", { game: $("game-select").value, options });
  });

  function render(view) {
    current = view;
    C.renderTitle(view);
    const game = view.game;
    const status = $("game-status");
    if (!game) status.replaceChildren(el("p", {}, ui.no_game));
    else {
      status.replaceChildren(el("p", {}, el("strong", {}, C.text(game.title)), ` · ${game.id} · `,
        game.ended ? ui.game_over : (view.table.paused ? ui.paused : ui.running)));
      const screens = C.games[game.game];
      const detail = el("div");
      if (screens && screens.host) screens.host(detail, game, view);
      status.append(detail, el("p", { class: "hint" }, C.fill(ui.contributions, {
        committed: game.entropy.committed.length, revealed: game.entropy.revealed.length })));
    }
    const running = game && !game.ended;
    $("undo").disabled = !(game && game.undo && game.undo.allowed);
    $("undo-reason").textContent = game && game.undo && !game.undo.allowed ? C.errorText(game.undo.reason) : "";
    $("pause").textContent = view.table.paused ? ui.resume : ui.pause;
    $("pause").disabled = !running;
    $("end-game").disabled = !running;
    const over = !!(game && game.fairness && game.fairness.seed);
    $("export").hidden = !over;
    $("verify").hidden = !over;
    $("export-hint").hidden = !game || over;
    if (over) {
      $("export").href = `/api/games/${encodeURIComponent(game.id)}/export`;
      $("verify").href = `/verify?game=${encodeURIComponent(game.id)}`;
    }
    $("host-fairness").replaceChildren(...[C.fairness(view)].filter(Boolean));
    $("lock").textContent = view.table.joining_locked ? ui.unlock_joining : ui.lock_joining;
    $("lock").setAttribute("aria-pressed", String(view.table.joining_locked));
    const count = $("seat-count");
    if (!count.options.length) {
      for (let n = 2; n <= 13; n++) count.append(el("option", { value: String(n) }, String(n)));
    }
    count.value = String(view.table.seat_count);
    count.disabled = !!running;
    // Someone typing a new name keeps their text: the list is redrawn once they leave it.
    const seatsKey = JSON.stringify(view.table.seats);
    if (seatsKey !== lastSeats && !$("host-seats").contains(document.activeElement)) {
      lastSeats = seatsKey;
      $("host-seats").replaceChildren(...view.table.seats.map(seatRow));
    }
    renderStartForm(view);
    renderButtons(view);
  }

  // Presses redraw this panel often: the host's half-made choice of seat survives it. The card
  // shows only while buttons have a use (a game that uses them, or none running yet).
  function renderButtons(view) {
    $("buttons-card").hidden = !(view.buttons && view.buttons.wanted);
    const box = $("host-buttons");
    if (box.contains(document.activeElement) && document.activeElement.tagName === "SELECT") return;
    const chosen = $("pair-target") ? $("pair-target").value : null;
    box.replaceChildren(...[C.buttons.hostPanel(view)].filter(Boolean));
    if (chosen !== null && $("pair-target")) $("pair-target").value = chosen;
  }

  $("host-seats").addEventListener("focusout", () => setTimeout(() => render(current), 0));
  $("host-buttons").addEventListener("focusout", () => setTimeout(() => renderButtons(current), 0));
  $("undo").addEventListener("click", () => send("undo"));
  $("pause").addEventListener("click", () => send(current.table.paused ? "resume" : "pause"));
  $("end-game").addEventListener("click", () => { if (window.confirm(ui.end_confirm)) send("end_game"); });
  $("lock").addEventListener("click", () => send(current.table.joining_locked ? "unlock_joining" : "lock_joining"));
  $("seat-count").addEventListener("change", (e) => send("set_seat_count", { count: Number(e.target.value) }));
  $("logout").addEventListener("click", async () => { await C.post("/api/host/logout", {}); window.location.replace("/host"); });

  async function loadGames() {
    try {
      const response = await fetch("/api/host/games", { credentials: "same-origin", cache: "no-store" });
      if (response.ok) games = (await response.json()).games;
    } catch (err) { games = []; }
    renderStartForm(current);
  }

  render(current);
  loadGames();
  C.follow("host", render, () => window.location.replace("/host"));
})(window.Companion);
