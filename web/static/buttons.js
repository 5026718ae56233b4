// Wired and simulated buttons: pairing on a phone, health and pairing on the host console.
"use strict";
(function (C) {
  const { el, ui, fill } = C;

  const hasButtons = (b) => b && b.sources.some((s) => s.healthy);

  // A button on a screen acts on touch, not on release (a click would add the finger's whole
  // press to the time), and on Space or Enter, once per key press.
  // `action(at)`: `at` is performance.now() taken first thing in the handler (a buzz's tap time).
  function onPress(node, action) {
    node.addEventListener("pointerdown", (e) => { const at = performance.now(); e.preventDefault(); action(at); });
    node.addEventListener("keydown", (e) => {
      const at = performance.now();
      if ((e.key === " " || e.key === "Enter") && !e.repeat) { e.preventDefault(); action(at); }
    });
    node.addEventListener("contextmenu", (e) => e.preventDefault());
    return node;
  }

  // Keys 1-9 and 0 are simulated buttons 1-10: the button a key press names, or null.
  function simulatedKey(event) {
    if (event.repeat || event.ctrlKey || event.metaKey || event.altKey || !/^[0-9]$/.test(event.key)) return null;
    return event.key === "0" ? 10 : Number(event.key);
  }

  function pressSimulated(button) {
    return C.post("/api/buttons/press", { button }).then((body) => C.showError(body.ok ? "" : body.message));
  }
  const targetName = (target, view) => (target === "arm" ? ui.arm_button_name : C.byWho(`seat:${target}`, view));

  // "Anna: press your button now", on every screen that pairing concerns.
  function pairingBanner(view) {
    const pairing = view.buttons && view.buttons.pairing;
    if (!pairing) return null;
    return el("p", { class: "banner pairing", role: "status" },
      fill(ui.press_now_for, { name: targetName(pairing.target, view) }));
  }

  // A player's own button: pair it (the next press anywhere binds it), see it, forget it; only
  // while a game plays with the players' buttons, or before any game runs.
  function phonePanel(view) {
    const b = view.buttons;
    const running = view.game && !view.game.ended;
    if (!hasButtons(b) || (running && !b.phones)) return null;
    const seat = view.you.seat;
    const mine = b.you.buttons;
    const box = el("section", { class: "card", id: "my-button", "aria-labelledby": "my-button-heading" },
      el("h2", { id: "my-button-heading" }, ui.your_button));
    box.append(el("p", {}, mine.length ? fill(ui.paired_buttons, { buttons: mine.join(", ") }) : ui.no_paired_button));
    const pairing = b.pairing;
    if (pairing && pairing.target === seat) {
      box.append(el("p", { class: "banner pairing", role: "status" }, ui.press_now),
        el("button", { type: "button", onclick: () => C.post("/api/buttons/cancel", {}) }, ui.cancel));
    } else {
      const busy = pairing && pairing.target !== seat;
      box.append(el("div", { class: "button-row" },
        el("button", { type: "button", id: "pair-mine", disabled: !!busy, onclick: async () => {
          const body = await C.post("/api/buttons/pair", {});
          if (!body.ok) C.showError(body.message);
        } }, ui.pair_my_button),
        mine.map((button) => el("button", { type: "button", class: "danger",
          onclick: () => C.post("/api/buttons/unpair", { button }) }, `${ui.forget} ${button}`))));
      if (busy) box.append(el("p", { class: "hint" }, fill(ui.pairing_other, { name: targetName(pairing.target, view) })));
    }
    return box;
  }

  // A working source described in the reader's language; a problem as the system worded it
  // (an operating-system error the maker may search for).
  function detail(h, b) {
    if (!h.healthy) return h.detail;
    if (h.kind === "simulated") return fill(ui.n_virtual_buttons, { n: b.simulated });
    if (h.kind === "gpio") return fill(ui.n_pins, { n: h.buttons.length });
    return h.detail;
  }

  function sourceRows(b) {
    return b.health.filter((h) => h.kind !== "phone").map((h) => el("div", { class: "source" + (h.healthy ? "" : " bad") },
      // A source named after its kind ("simulated") is shown once, by its kind in the reader's language.
      el("p", {}, h.name === h.kind ? el("strong", {}, ui[`source_${h.kind}`] || h.kind)
        : [el("strong", {}, h.name), ` (${ui[`source_${h.kind}`] || h.kind})`], " · ",
        el("span", { class: h.healthy ? "ok" : "problem" }, h.healthy ? ui.source_ok : ui.source_problem),
        ` · ${detail(h, b)}`, h.uncertainty_us ? ` · ±${h.uncertainty_us} µs` : ""),
      h.buttons.length ? el("table", { class: "pins" },
        el("thead", {}, el("tr", {}, [ui.col_button, ui.col_presses, ui.col_bounces, ui.col_noise, ui.col_state]
          .map((t) => el("th", {}, t)))),
        el("tbody", {}, h.buttons.map((p) => el("tr", { class: p.stuck ? "stuck" : "" },
          el("td", {}, p.button), el("td", {}, String(p.presses)), el("td", {}, String(p.bounces)),
          el("td", {}, String(p.noise)),
          el("td", {}, p.stuck ? ui.state_stuck : (p.held ? ui.state_held : ui.state_up)))))) : null));
  }

  function phonesLine(b, view) {
    const measured = Object.entries(b.phone_precision);
    if (!measured.length) return null;
    return el("p", { class: "hint" }, fill(ui.phones_precision_line, {
      list: measured.map(([seat, us]) => `${C.byWho(`seat:${seat}`, view)} ±${us / 1000} ms`
        + ((b.phone_timing || {})[seat] === "arrival" ? ` ${ui.phone_by_arrival}` : "")).join(", ") }));
  }

  // The host's view of every button: is it working, whose is it, what was pressed.
  function hostPanel(view) {
    const b = view.buttons;
    if (!b) return null;
    const box = el("div", {});
    if (b.problem) box.append(el("p", { class: "error", role: "alert" }, b.problem));
    box.append(...sourceRows(b));
    box.append(phonesLine(b, view) || "");
    if (b.pairing) {
      box.append(pairingBanner(view), el("button", { type: "button", onclick: () => C.post("/api/buttons/cancel", {}) }, ui.cancel));
    } else if (hasButtons(b)) {
      const select = el("select", { id: "pair-target", "aria-label": ui.pair_for },
        view.table.seats.map((s) => el("option", { value: String(s.number) }, `${ui.seat} ${s.number}${s.name ? ` · ${s.name}` : ""}`)),
        el("option", { value: "arm" }, ui.arm_button_name));
      box.append(el("form", { class: "inline-form", onsubmit: async (e) => {
        e.preventDefault();
        const seat = select.value === "arm" ? "arm" : Number(select.value);
        const body = await C.post("/api/buttons/pair", { seat });
        if (!body.ok) C.showError(body.message);
      } }, el("label", { for: "pair-target" }, ui.pair_for), select, el("button", { type: "submit" }, ui.pair)));
    }
    const pairs = Object.entries(b.pairs);
    box.append(el("h3", {}, ui.pairs_title), pairs.length
      ? el("ul", { class: "pairs" }, pairs.map(([button, target]) => el("li", {}, el("code", {}, button), " → ",
        targetName(target, view), " ",
        el("button", { type: "button", class: "danger small", onclick: () => C.post("/api/buttons/unpair", { button }) }, ui.forget))))
      : el("p", { class: "hint" }, ui.no_pairs));
    if (b.unmapped.length) {
      box.append(el("h3", {}, ui.unpaired_presses), el("ul", { class: "unmapped" },
        b.unmapped.map((u) => el("li", {}, fill(ui.unpaired_count, { button: u.button, count: u.count })))));
    }
    if (b.recent.length) {
      box.append(el("h3", {}, ui.recent_presses), el("table", { class: "recent" },
        el("thead", {}, el("tr", {}, [ui.col_when, ui.col_button, ui.col_target, ui.col_use].map((t) => el("th", {}, t)))),
        el("tbody", {}, b.recent.map((r) => el("tr", {},
          el("td", {}, new Date(r.wall_ms).toLocaleTimeString(C.lang, { hour12: false }) + `.${String(r.wall_ms % 1000).padStart(3, "0")}`),
          el("td", {}, r.button), el("td", {}, r.target === null ? "—" : targetName(r.target, view)),
          el("td", {}, ui[`use_${r.use}`] || r.use))))));
    }
    if (b.simulated) box.append(el("p", {}, el("a", { href: "/buttons" }, ui.virtual_buttons_link)));
    return box;
  }

  C.buttons = { phonePanel, hostPanel, pairingBanner, onPress, simulatedKey, pressSimulated };
})(window.Companion);
