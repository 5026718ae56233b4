// The day/night sand glass of La chasse au vampire: a real sand glass drawn and run by the page.
//
// The server keeps the glass (view `glass`: side, running, full_us, left_us, since_us, ends_us,
// turns) on its host timeline; the page shows the sand left as the server counts it (C.clock, so a
// page opened late shows the same sand as the others) and lets it run between views on its own.
// Pages draw the whole game again on every view, so this module remembers the glass it saw last:
// a higher turn count means the glass was just turned over (a chime by day, a low bell by night,
// a flash of the new side's colour, and one polite announcement); the first glass a page draws is
// where it came in, never a turn-over.
"use strict";
(function (C) {
  const { el, svg, ui, fill } = C;
  const TICK_MS = 250;
  const FLASH_MS = 1400;  // as long as the turn-over's CSS animations (companion.css)

  // -- the drawing --------------------------------------------------------------------------------
  // viewBox 0 0 64 100: plates at the top and the bottom, two posts, the glass between them; the
  // top bulb from y 10 to the neck at y 50, the bottom bulb its mirror down to y 90.
  const NECK = 50;
  const TOP_FULL = 21;                  // the sand's level in a full top bulb (air above it)
  // The right edge of the top bulb, a cubic from its shoulder to the neck; the rest is its mirror.
  const EDGE = [[50, 10], [50, 31], [34, 40], [33.6, NECK]];
  const GLASS = "M14,10 L50,10 C50,31 34,40 33.6,50 C34,60 50,69 50,90 L14,90 C14,69 30,60 30.4,50 C30,40 14,31 14,10 Z";
  const TOP_BULB = "M14,10 L50,10 C50,31 34,40 33.6,50 L30.4,50 C30,40 14,31 14,10 Z";
  const BOTTOM_BULB = "M30.4,50 L33.6,50 C34,60 50,69 50,90 L14,90 C14,69 30,60 30.4,50 Z";

  // The bulb's half width at each height, sampled along its edge, then the sand's volume (the area
  // of the drawing, what the eye judges) between the neck and each height: a glass half empty
  // shows half its sand, not half its height, as the bulb narrows to the neck.
  const cubic = (t, i) => {
    const u = 1 - t;
    return u * u * u * EDGE[0][i] + 3 * u * u * t * EDGE[1][i] + 3 * u * t * t * EDGE[2][i] + t * t * t * EDGE[3][i];
  };
  const SAMPLES = Array.from({ length: 81 }, (_, k) => [cubic(k / 80, 1), cubic(k / 80, 0) - 32]);  // [y, half width]
  function halfWidth(y) {
    for (let k = 1; k < SAMPLES.length; k += 1) {
      const [y1, w1] = SAMPLES[k];
      const [y0, w0] = SAMPLES[k - 1];
      if (y <= y1) return w0 + ((w1 - w0) * (y - y0)) / Math.max(1e-9, y1 - y0);
    }
    return SAMPLES[SAMPLES.length - 1][1];
  }
  const LEVELS = [];  // [depth above the neck, volume from the neck up to it], every 0.25 unit
  for (let depth = 0, volume = 0; depth <= NECK - 10; depth += 0.25) {
    LEVELS.push([depth, volume]);
    volume += 0.25 * (halfWidth(NECK - depth) + halfWidth(NECK - depth - 0.25));
  }
  const volumeUpTo = (depth) => LEVELS[Math.min(LEVELS.length - 1, Math.round(depth * 4))][1];
  const BULB_VOLUME = LEVELS[LEVELS.length - 1][1];
  const FULL_VOLUME = volumeUpTo(NECK - TOP_FULL);
  // How far from the neck the level of `volume` (counted from the neck) lies.
  function depthFor(volume) {
    const found = LEVELS.find(([, v]) => v >= volume);
    return found ? found[0] : LEVELS[LEVELS.length - 1][0];
  }

  // The sand in the top bulb (`share` of it left): a surface dipping a little over the neck, where
  // it runs out.
  function topSand(share) {
    if (share <= 0) return "M0,0 Z";
    const y = NECK - depthFor(share * FULL_VOLUME);
    const dip = Math.min(2.2, (NECK - y) / 3);
    return `M8,${y.toFixed(2)} Q32,${(y + 2 * dip).toFixed(2)} 56,${y.toFixed(2)} L56,${NECK} L8,${NECK} Z`;
  }
  // The sand fallen into the bottom bulb (`share` of it): a mound, highest under the stream. The
  // bottom bulb is the top one upside down, so its sand from the bottom up is the top bulb's from
  // its shoulder down.
  function bottomSand(share) {
    if (share <= 0) return { d: "M0,0 Z", top: 90 };
    const y = NECK + depthFor(BULB_VOLUME - share * FULL_VOLUME);
    const mound = Math.min(3, (90 - y) / 2);
    return { d: `M8,90 L8,${(y + mound).toFixed(2)} Q32,${(y - 2 * mound).toFixed(2)} 56,${(y + mound).toFixed(2)} L56,90 Z`,
      top: y - mound };
  }

  let drawings = 0;  // each drawing's own clip paths
  function drawing(side) {
    drawings += 1;
    const top = `sg-top-${drawings}`;
    const bottom = `sg-bottom-${drawings}`;
    const sand = `sg-sand-${drawings}`;  // lit from the left: the sand looks heaped, not flat
    return svg("svg", { class: "sg-glass", viewBox: "0 0 64 100", "aria-hidden": "true", focusable: "false" },
      svg("defs", {},
        svg("clipPath", { id: top }, svg("path", { d: TOP_BULB })),
        svg("clipPath", { id: bottom }, svg("path", { d: BOTTOM_BULB })),
        svg("linearGradient", { id: sand, x1: 0, x2: 1, y1: 0, y2: 0 },
          svg("stop", { class: "sg-lit", offset: "0.15" }), svg("stop", { class: "sg-mid", offset: "0.55" }),
          svg("stop", { class: "sg-shade", offset: "0.95" }))),
      svg("path", { class: "sg-bulb", d: GLASS }),
      svg("path", { class: "sg-sand sg-sand-top", "clip-path": `url(#${top})`, fill: `url(#${sand})`, d: "M0,0 Z" }),
      svg("path", { class: "sg-sand sg-sand-bottom", "clip-path": `url(#${bottom})`, fill: `url(#${sand})`, d: "M0,0 Z" }),
      svg("line", { class: "sg-stream", x1: 32, x2: 32, y1: NECK - 1, y2: 88 }),
      svg("path", { class: "sg-shine", d: "M18.5,14 C18.5,27 24,35 28,42 M18.5,86 C18.5,73 24,65 28,58" }),
      svg("path", { class: "sg-outline", d: GLASS }),
      svg("rect", { class: "sg-post", x: 6, y: 8, width: 3.2, height: 84, rx: 1.2 }),
      svg("rect", { class: "sg-post", x: 54.8, y: 8, width: 3.2, height: 84, rx: 1.2 }),
      svg("rect", { class: "sg-plate", x: 2, y: 2, width: 60, height: 8, rx: 2.5 }),
      svg("rect", { class: "sg-plate", x: 2, y: 90, width: 60, height: 8, rx: 2.5 }),
      side === "day" ? sun() : moon());
  }
  // The side's mark on the top plate's middle, so the side never rests on colour alone.
  function sun() {
    const rays = [0, 45, 90, 135, 180, 225, 270, 315].map((a) => {
      const r = (a * Math.PI) / 180;
      return svg("line", { x1: (32 + 2.7 * Math.cos(r)).toFixed(2), y1: (6 + 2.7 * Math.sin(r)).toFixed(2),
        x2: (32 + 3.8 * Math.cos(r)).toFixed(2), y2: (6 + 3.8 * Math.sin(r)).toFixed(2) });
    });
    return svg("g", { class: "sg-mark" }, svg("circle", { cx: 32, cy: 6, r: 1.8 }), rays);
  }
  function moon() {
    return svg("g", { class: "sg-mark" }, svg("path", { d: "M33.6,2.4 A3.8,3.8 0 1 0 34.6,9.4 A3.2,3.2 0 1 1 33.6,2.4 Z" }));
  }
  // A small sun or moon before the side's word (inline, the text's own size).
  function sideIcon(side) {
    const mark = side === "day" ? sun() : moon();
    return svg("svg", { class: "sg-icon", viewBox: "26 0 12 12", "aria-hidden": "true", focusable: "false" }, mark);
  }

  // -- the words ------------------------------------------------------------------------------------
  const sideWord = (side) => (side === "day" ? ui.chasse_glass_day : ui.chasse_glass_night);
  // "2:14" / "2 min 14" from a minute on, "42 s" below (seconds rounded up: 0 only once run out).
  function timeText(leftUs) {
    const s = Math.max(0, Math.ceil(leftUs / 1e6));
    if (s < 60) return fill(ui.chasse_glass_seconds, { s });
    return fill(ui.chasse_glass_clock, { m: Math.floor(s / 60), ss: String(s % 60).padStart(2, "0") });
  }
  // What a screen reader says when it reaches the glass: the side and the minutes (not the seconds,
  // which would change the name under the reader's cursor every second).
  function label(side, running, leftUs) {
    const s = Math.max(0, Math.ceil(leftUs / 1e6));
    const left = running && s === 0 ? ui.chasse_glass_turning
      : s < 60 ? ui.chasse_glass_under_minute : fill(ui.chasse_glass_minutes, { n: Math.round(s / 60) });
    return fill(running ? ui.chasse_glass_label : ui.chasse_glass_label_paused, { side: sideWord(side), left });
  }

  // -- drawing the time left, at first and then every tick -----------------------------------------
  function leftNow(node) {
    const d = node.dataset;
    if (d.running !== "true") return Number(d.leftUs);
    return C.clock.leftUs(Number(d.sinceUs), Number(d.endsUs));
  }
  // Written only when changed: a glass redrawn four times a second repaints only what moved.
  function setText(node, text) { if (node.textContent !== text) node.textContent = text; }
  function setAttr(node, name, value) { if (node.getAttribute(name) !== value) node.setAttribute(name, value); }
  function draw(node) {
    const d = node.dataset;
    const running = d.running === "true";
    const full = Number(d.fullUs);
    const left = Math.max(0, Math.min(full, leftNow(node)));
    const share = full > 0 ? left / full : 0;
    setText(node.querySelector(".sg-time"), fill(ui.chasse_glass_left, { time: timeText(left) }));
    const name = label(d.side, running, left);
    setAttr(node, "aria-label", name);
    setAttr(node.querySelector(".sg-sand-top"), "d", topSand(share));
    const fallen = bottomSand(1 - share);
    setAttr(node.querySelector(".sg-sand-bottom"), "d", fallen.d);
    setAttr(node.querySelector(".sg-stream"), "y2", Math.min(89, fallen.top).toFixed(2));
    node.classList.toggle("flowing", running && share > 0);
    d.share = share.toFixed(4);
  }
  setInterval(() => document.querySelectorAll(".sandglass[data-running='true']").forEach(draw), TICK_MS);

  // -- the turn-over ----------------------------------------------------------------------------------
  let lastTurns = null;       // the turn count of the glass this page drew last (null: none yet)
  let turnedAt = -Infinity;   // performance.now() of the latest turn-over, for the flash across redraws

  // One polite live region for the whole page, outside the game (which is drawn again on every
  // view: a region made anew each time would be read out each time, or never), there from the
  // first glass on, so screen readers follow it before it has anything to say.
  function newsRegion() {
    let region = document.getElementById("sandglass-news");
    if (!region) {
      region = el("p", { id: "sandglass-news", class: "sg-news", role: "status", "aria-live": "polite" });
      document.body.append(region);
    }
    return region;
  }
  function announce(text) {
    const region = newsRegion();
    region.textContent = "";
    setTimeout(() => { region.textContent = text; }, 50);  // a change the reader hears even if the words repeat
  }

  // -- sound: made here (no files) so it works offline; the same switch as the races' cues ----------
  let audio = null;
  const soundOn = () => (C.reactions ? C.reactions.soundOn() : localStorage.getItem("quiz-sound") !== "0");
  // A struck bell: a few sine partials (`ratios` of `freq`, each with its loudness), the higher ones
  // dying sooner.
  function strike(freq, start, length, loud, ratios, gains) {
    const total = gains.reduce((a, b) => a + b, 0);
    ratios.forEach((ratio, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = freq * ratio;
      const t = audio.currentTime + start;
      const decay = length / (1 + 0.6 * i);
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime((loud * gains[i]) / total, t + 0.006);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + decay);
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + decay + 0.05);
    });
  }
  const sounds = {
    // Morning: two bright rising glass chimes.
    day: () => { strike(1318.5, 0, 1.2, 0.25, [1, 2.76, 5.4], [1, 0.3, 0.1]); strike(1975.5, 0.16, 1.4, 0.25, [1, 2.76, 5.4], [1, 0.3, 0.1]); },
    // Nightfall: one low church bell (its hum an octave below, its minor third).
    night: () => strike(196, 0, 2.4, 0.4, [0.5, 1, 1.19, 1.56, 2, 2.74], [0.5, 1, 0.55, 0.35, 0.3, 0.15]),
  };
  function ring(side) {
    if (!soundOn()) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === "suspended") audio.resume();
      (sounds[side] || sounds.day)();
    } catch (err) { /* no audio device: the glass still flashes and the words still change */ }
  }

  // -- the element -----------------------------------------------------------------------------------
  // The glass for a view's `glass`. options.size: "tv" (a tall glass and big words, read from across
  // the room) or "phone" (the default: a one-line badge with a small glass); options.sound: false
  // keeps this page quiet at a turn-over (where another screen in the room rings it).
  function sandglass(glass, options) {
    const opts = options || {};
    const size = opts.size === "tv" ? "tv" : "phone";
    const side = glass.side === "night" ? "night" : "day";
    const running = !!glass.running && glass.ends_us !== null && glass.ends_us !== undefined;
    const tag = size === "tv" ? "div" : "span";
    const node = el(tag, { class: `sandglass ${size} ${side} ${running ? "running" : "paused"}`, role: "timer",
      "aria-live": "off", "data-side": side, "data-turns": String(glass.turns), "data-running": String(running),
      "data-full-us": String(glass.full_us), "data-left-us": String(glass.left_us),
      "data-since-us": String(glass.since_us), "data-ends-us": running ? String(glass.ends_us) : null },
    el("span", { class: "sg-art" }, drawing(side),
      running ? null : el("span", { class: "sg-paused-mark" }, ui.chasse_glass_paused)),
    el("span", { class: "sg-words" },
      el("span", { class: "sg-side" }, sideIcon(side), sideWord(side)),
      el("span", { class: "sg-sep", "aria-hidden": "true" }, "·"),
      running ? null : el("span", { class: "sg-state" }, ui.chasse_glass_paused),
      running ? null : el("span", { class: "sg-sep", "aria-hidden": "true" }, "·"),
      // The time's room, as wide as its longest words (an invisible copy of them in the same grid
      // cell): the glass never changes size as it runs down, "1:00" to "59 s".
      el("span", { class: "sg-time-box" }, el("span", { class: "sg-time" }),
        el("span", { class: "sg-ghost", "aria-hidden": "true" },
          fill(ui.chasse_glass_left, { time: timeText(glass.full_us) })))));
    draw(node);

    newsRegion();
    const turns = Number(glass.turns);
    if (lastTurns !== null && turns > lastTurns) {
      turnedAt = performance.now();
      announce(side === "day" ? ui.chasse_glass_now_day : ui.chasse_glass_now_night);
      try {
        sandglass.onTurnOver(glass, { sound: opts.sound !== false });
      } catch (err) { /* a page's hook must not stop the drawing */ }
    }
    // A lower count (a new game, an undone turn-over) turned nothing: the count goes on from there.
    lastTurns = turns;
    // Drawn again during the flash (the next view, a resize): the flash goes on where it was.
    const since = performance.now() - turnedAt;
    if (since < FLASH_MS) {
      node.classList.add("turned");
      node.style.setProperty("--sg-since", `${-Math.round(since)}ms`);
    }
    return node;
  }
  // Called once for each turn-over this page sees (not for the glass it first drew), with the new
  // glass and { sound } (false when the page asked for none); a page or a test may replace it. By
  // default: the side's sound, if the table's sound switch is on.
  sandglass.onTurnOver = (glass, how) => { if (!how || how.sound) ring(glass.side === "night" ? "night" : "day"); };
  sandglass.ring = ring;
  sandglass.timeText = timeText;

  C.sandglass = sandglass;
})(window.Companion);
