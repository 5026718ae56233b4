// Shared by every page: translations, a tiny element builder, commands, and the live stream.
"use strict";
window.Companion = (function () {
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const ui = boot.ui;
  const errors = boot.errors;
  const lang = boot.lang;
  const games = {};

  function $(id) { return document.getElementById(id); }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child);
    return node;
  }

  function text(names) { return (names && (names[lang] || names.en)) || ""; }

  // "{n}" is the parameter; "{n|bottle|bottles}" the word that agrees with it, the first form for
  // the language's plural category "one" (Intl.PluralRules: in French 0 and 1, in English 1 only),
  // the second for every other; "{de:name}" the little word elided before a vowel sound ("d'Alice",
  // "de Bruno"). The twin of companion/i18n.py's fill.
  const plurals = new Intl.PluralRules(lang);
  const ELISIONS = { fr: { de: "d'", De: "D'", que: "qu'", Que: "Qu'", le: "l'", Le: "L'", la: "l'", La: "L'",
    je: "j'", ne: "n'", se: "s'" } };
  const VOWELS = "aeiouàâäéèêëîïôöùûüœæ";
  const VOWEL_SOUND = new RegExp(`^(?:[${VOWELS}]|h[${VOWELS}y]|y[^${VOWELS}y])`, "i");
  function elide(word, following) {
    const short = (ELISIONS[lang] || {})[word];
    return short && VOWEL_SOUND.test(String(following).trim()) ? short + following : `${word} ${following}`;
  }
  function fill(template, params) {
    return String(template).replace(/\{(?:(\w+):)?(\w+)(?:\|([^|}]*)\|([^}]*))?\}/g, (m, word, k, one, many) => {
      if (!params || !(k in params)) return word ? `${word} {${k}}` : (one === undefined ? m : many);
      if (word) return elide(word, String(params[k]));
      if (one === undefined) return String(params[k]);
      return plurals.select(Number(params[k])) === "one" ? one : many;
    });
  }

  function errorText(code, params) { return fill(errors[code] || code, params); }

  function reasonText(reason) { return reason ? errorText(reason.code, reason.params) : ""; }

  // Inline SVG drawing (the games draw their pieces with it: no image files, no emoji).
  const SVG_NS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) node.setAttribute(k, String(v));
    for (const child of children.flat(Infinity)) if (child) node.append(child);
    return node;
  }

  // A seat's player as a game's picture names them (`players`: [{seat, name}]).
  function seatName(g, seat) {
    const p = g.players.find((x) => x.seat === Number(seat));
    return p && p.name ? p.name : `${ui.seat} ${seat}`;
  }
  const mySeat = (view) => (view.you ? view.you.seat : null);

  // A refusal or a failed request, where the player looks: a toast fixed in the viewport (every
  // page's #error), announced by screen readers (role=alert), gone after a while, on a tap, on Escape
  // or at the next command. `box` is a form's own line, which gets the message as well.
  const TOAST_MS = 10000;
  let toastTimer = null;
  function toast() {
    let node = $("error");
    if (!node) {
      node = el("p", { id: "error", class: "error", role: "alert", hidden: true });
      document.body.append(node);
    }
    if (!node.dataset.toast) {
      node.dataset.toast = "on";
      node.classList.add("toast");
      node.addEventListener("click", () => showError(""));
      document.addEventListener("keydown", (e) => { if (e.key === "Escape") showError(""); });
    }
    return node;
  }
  function showError(message, box) {
    for (const target of [toast(), box]) {
      if (!target) continue;
      target.textContent = message || "";
      target.hidden = !message;
    }
    clearTimeout(toastTimer);
    if (message) toastTimer = setTimeout(() => showError(""), TOAST_MS);
  }

  // A request that gets no answer within this long is given up (a silent link would hang it).
  const ANSWER_WITHIN_MS = 10000;
  async function post(path, body) {
    if (navigator.onLine === false) return { ok: false, error: "offline", message: ui.not_sent_offline };
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), ANSWER_WITHIN_MS);
    try {
      const response = await fetch(path, {
        method: "POST", credentials: "same-origin", cache: "no-store", signal: abort.signal,
        headers: { "Content-Type": "application/json", "Accept-Language": lang },
        body: JSON.stringify(body || {}),
      });
      return await response.json();
    } catch (err) {
      if (abort.signal.aborted) return { ok: false, error: "no_answer", message: ui.no_answer };
      return { ok: false, error: "offline", message: ui.not_sent_offline };
    } finally {
      clearTimeout(timer);
    }
  }

  // -- this page's clock and the signal's frame (companion/buzzers/phoneclock.py) ------------------
  // The server maps this page's clock onto its own from the pings' echoes, each carrying
  // performance.now() when the ping came. When a view shows a round being refereed, the frame that
  // first draws it is stamped (requestAnimationFrame's timestamp) and reported: a display's frame is
  // the round's signal, a phone's says how long its press may take to come. A buzz carries its tap's
  // stamp and that frame's, a phone's command the moment it was sent.
  const signal = { round: null, shown: null };
  let lastPing = null;

  function noteSignal(role, view) {
    const round = view.buttons ? view.buttons.round : null;
    // A round that ends keeps its frame: a tap just after the decision is still its late press.
    if (round === null || round === undefined || round === signal.round || role === "host") return;
    signal.round = round;
    signal.shown = null;
    // A frame's timestamp is when the frame began, which in Chromium can come before the callback
    // was asked for (measured: 55 of 300 frames, up to 10.8 ms): the signal was not shown before
    // this page had it, and a reaction counted from then would be that much too long.
    const had = performance.now();
    requestAnimationFrame((frame) => {
      if (signal.round !== round || signal.shown !== null) return;
      signal.shown = Math.max(frame, had);
      post("/api/shown", { round, shown: frame, ping: lastPing });
    });
  }

  // What a buzz says of the tap stamped `tap` (performance.now(), first thing in its handler).
  function tapClaim(tap) {
    const shown = signal.shown !== null && signal.shown <= tap ? signal.shown : null;
    return { tap, round: signal.round, shown };
  }

  // Send a command as this page's role; show the refusal in the player's language.
  async function send(role, name, args, errorBox) {
    const sent = performance.now();
    showError("", errorBox);
    const body = await post("/api/commands", { as: role, name, args: args || {}, ...(role === "me" ? { sent } : {}) });
    if (!body.ok) showError(body.message || errorText(body.error), errorBox);
    return body;
  }

  function setLink(up) {
    const link = $("link");
    if (link) {
      link.textContent = up ? ui.connected : ui.reconnecting;
      link.classList.toggle("down", !up);
    }
    document.body.classList.toggle("offline", !up);
    const offline = $("offline");
    if (offline) offline.hidden = up;
  }

  // The twin of companion/server/patch.py: [path, value] sets, [path] deletes,
  // [path, index, count, items] splices a list.
  function applyPatch(doc, ops) {
    let result = structuredClone(doc);
    for (const op of ops) {
      const path = op[0];
      if (op.length === 4) {
        let list = result;
        for (const key of path) list = list[key];
        list.splice(op[1], op[2], ...structuredClone(op[3]));
        continue;
      }
      if (path.length === 0) { result = op.length === 2 ? structuredClone(op[1]) : null; continue; }
      let target = result;
      for (const key of path.slice(0, -1)) target = target[key];
      if (op.length === 2) target[path[path.length - 1]] = structuredClone(op[1]);
      else delete target[path[path.length - 1]];
    }
    return result;
  }

  // Follow the log: one EventSource per page; resync when the phone wakes or the network returns.
  // The stream sends the whole view first, then patches against the previous message.
  function follow(role, onView, onRevoked) {
    let source = null;
    let current = boot.view || null;
    let position = current ? current.position : -1;
    let retry = null;

    // Once the page has drawn a view, <html data-position> says its log position: what a test or
    // a benchmark (bench/browser_latency.py) watches to know the page shows that state. Set after
    // the drawing, so a view that failed to draw is not claimed.
    function deliver(view) {
      current = view;
      position = view.position;
      setLink(true);
      showUndone(view);
      onView(view);
      document.documentElement.dataset.position = String(view.position);
      noteSignal(role, view);
    }

    // The server says "alive" every `beat` seconds when nothing else happens: a stream quiet for
    // two beats and a second is a link gone silent (the socket may stay open for minutes).
    let beatMs = 5000;
    let heard = Date.now();
    const hear = () => { heard = Date.now(); };
    const tooQuiet = () => Date.now() - heard > 2 * beatMs + 1000;

    async function checkSeat() {
      // A closed stream may mean our credentials are gone (seat rebound, host signed out).
      try {
        const response = await fetch(`/api/view?as=${role}`, { credentials: "same-origin", cache: "no-store" });
        if (response.status === 403) { stop(); onRevoked && onRevoked(); return false; }
        if (response.ok) deliver(await response.json());
        return true;
      } catch (err) {
        return true;
      }
    }

    function stop() {
      if (source) source.close();
      source = null;
      clearTimeout(retry);
    }

    function connect() {
      stop();
      hear();
      source = new EventSource(`/api/stream?as=${role}`);
      source.addEventListener("view", (event) => { hear(); deliver(JSON.parse(event.data)); });
      source.addEventListener("patch", (event) => { hear(); deliver(applyPatch(current, JSON.parse(event.data))); });
      source.addEventListener("revoked", () => { stop(); onRevoked && onRevoked(); });
      source.addEventListener("alive", (event) => {
        hear();
        const beat = Number(event.data);
        if (beat > 0) beatMs = beat * 1000;
        setLink(true);
      });
      // The server times this phone's delay for its buzzer: answer its pings at once.
      source.addEventListener("ping", (event) => {
        const t = performance.now();
        hear();
        lastPing = Number(event.data);
        post("/api/ping", { id: lastPing, t });
      });
      // The server's now after each message: countdowns count to its deadlines (countdown.js).
      source.addEventListener("now", (event) => {
        hear();
        if (window.Companion.clock) window.Companion.clock.heard(Number(event.data));
      });
      source.onopen = () => { hear(); setLink(true); };
      source.onerror = () => {
        setLink(false);
        if (source && source.readyState === EventSource.CLOSED) {
          retry = setTimeout(async () => { if (await checkSeat()) connect(); }, 1500);
        }
      };
    }

    function resync() {
      if (source && source.readyState !== EventSource.CLOSED && !tooQuiet()) { checkSeat(); return; }
      if (source) setLink(false);  // woken after a long sleep: the old stream is not to be trusted
      connect();
    }

    document.addEventListener("visibilitychange", () => { if (!document.hidden) resync(); });
    window.addEventListener("pageshow", (event) => { if (event.persisted) resync(); });
    window.addEventListener("online", resync);
    // The browser knows first: no network, no link (and no stream to trust until it is back).
    window.addEventListener("offline", () => { stop(); setLink(false); });
    // A silent link: say so, and start a new stream (which will answer once the link is back).
    setInterval(() => {
      if (source && !document.hidden && tooQuiet()) { setLink(false); connect(); }
    }, 500);
    // A watchdog for browsers that give up on a stream for good.
    setInterval(() => { if (!source || source.readyState === EventSource.CLOSED) connect(); }, 5000);
    connect();
    return { resync, position: () => position };
  }

  // Every page says what the latest undo took back and who asked, until the next move.
  function undoneText(view) {
    const game = view && view.game;
    const undone = game && game.undone;
    if (!undone) return "";
    const move = ui[`move_${game.game}_${undone.command}`] || undone.command;
    const params = { actor: byWho(undone.actor, view), by: byWho(undone.by, view), move };
    // A seat may take back only its own move; the host anyone's.
    const template = undone.by !== "host" ? ui.undone_own : undone.actor === "host" ? ui.undone_host_own : ui.undone_host;
    return fill(template, params);
  }

  function showUndone(view) {
    const box = $("undone");
    if (!box) return;
    const said = undoneText(view);
    if (box.textContent !== said) box.textContent = said;
    box.hidden = !said;
  }

  function byWho(by, view) {
    if (by === "table") return ui.by_table;
    if (by === "host") return ui.by_host;
    if (by && by.startsWith("seat:")) {
      const n = Number(by.slice(5));
      const seat = view.table.seats.find((s) => s.number === n);
      return seat && seat.name ? seat.name : `${ui.seat} ${n}`;
    }
    return by;
  }

  function initChrome() {
    const contrast = $("contrast");
    const apply = (on) => {
      document.documentElement.classList.toggle("hc", on);
      if (contrast) contrast.setAttribute("aria-pressed", String(on));
    };
    apply(localStorage.getItem("contrast") === "1");
    if (contrast) contrast.addEventListener("click", () => {
      const on = !document.documentElement.classList.contains("hc");
      localStorage.setItem("contrast", on ? "1" : "0");
      apply(on);
    });
    document.cookie = `lang=${lang}; max-age=31536000; SameSite=Strict; path=/`;
  }

  function renderTitle(view) {
    const title = $("game-title");
    if (title) title.textContent = view.game ? text(view.game.title) : "";
    const paused = $("paused");
    if (paused) paused.hidden = !view.table.paused;
  }

  // The game's seed: its fingerprint from the start, the seed itself once the game is over.
  function fairness(view) {
    const game = view.game;
    if (!game || !game.fairness) return null;
    const f = game.fairness;
    const name = (n) => { const s = view.table.seats.find((x) => x.number === n); return s && s.name ? s.name : `${ui.seat} ${n}`; };
    const late = game.entropy.timed_out || [];
    const pending = game.entropy.committed.filter((n) => !game.entropy.revealed.includes(n) && !late.includes(n));
    return el("div", { class: "fairness-box" },
      f.seed
        ? [el("p", {}, el("strong", {}, ui.seed_revealed), " ", el("code", { class: "seed" }, f.seed)),
           el("p", { class: "hint" }, `${ui.check_it} `, el("a", { href: "/verify" }, `${location.origin}/verify`))]
        : [el("p", {}, el("strong", {}, ui.seed_commitment), " ", el("span", { class: "fingerprint" }, f.fingerprint)),
           el("p", { class: "hint commitment" }, f.commitment)],
      f.included.length ? el("p", { class: "hint" }, fill(ui.randomness_players, { names: f.included.map(name).join(", ") })) : null,
      pending.length ? el("p", { class: "hint" }, fill(ui.randomness_pending, { names: pending.map(name).join(", ") })) : null,
      late.length ? el("p", { class: "hint" }, fill(ui.randomness_timed_out, { names: late.map(name).join(", ") })) : null);
  }

  // A button for one of the game's actions, sent from this phone (or as `role`: the host console).
  // When the rules refuse it now it is disabled and says why (beside it, unless `quiet`), the
  // reason being its description for a screen reader. `wrap` is the game's class for the pair.
  let reasons = 0;
  function actionButton(action, label, attrs, wrap, quiet, role = "me") {
    const reason = action.allowed ? "" : reasonText(action.reason);
    const reasonId = reason && !quiet ? `reason-${++reasons}` : null;
    return el("span", { class: wrap },
      el("button", { type: "button", disabled: !action.allowed, title: reason || null, "data-name": action.name,
        "aria-describedby": reasonId, "data-args": JSON.stringify(action.args),
        onclick: () => send(role, action.name, action.args), ...(attrs || {}) },
        label),
      reasonId ? el("span", { class: "hint reason", id: reasonId }, reason) : null);
  }

  initChrome();
  return { boot, ui, lang, games, $, el, svg, text, fill, errorText, reasonText, showError, post, send, follow, tapClaim,
           setLink, byWho, renderTitle, applyPatch, fairness, seatName, mySeat, actionButton };
})();
