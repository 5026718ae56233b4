// Countdowns to the server's deadlines, for every game's pages.
//
// A view's deadlines are on the server's host timeline (µs). The server sends its own now with the
// page (boot.now_us) and after every message of the live stream (event "now"); the page keeps its
// clock's offset to the server's, so a page that connects in the middle of a wait, or draws late,
// shows the time left until the server's deadline, not a full wait counted from when it looked.
"use strict";
(function (C) {
  const { el, ui, fill } = C;
  const RECENT = 8;
  // Server now minus this page's performance.now(), in ms, from the latest messages. Each sample
  // is late by its delivery and never early, so the largest is the closest to the truth.
  let offsets = [];
  const firstSeen = new Map();

  function heard(serverNowUs) {
    if (!Number.isFinite(serverNowUs)) return;
    const sample = serverNowUs / 1000 - performance.now();
    // Far below the others: the server's timeline started again (a reboot). Forget the old one.
    if (offsets.length && sample < Math.max(...offsets) - 1000) offsets = [];
    offsets.push(sample);
    if (offsets.length > RECENT) offsets.shift();
  }

  // The server's now on the host timeline (µs), or null before the page heard it.
  function serverNowUs() {
    return offsets.length ? (performance.now() + Math.max(...offsets)) * 1000 : null;
  }

  // Microseconds left until `endsUs` of a wait that began at `sinceUs` (both host timeline).
  function leftUs(sinceUs, endsUs) {
    let now = serverNowUs();
    if (now === null || sinceUs > now) {
      // No word of the server's time yet, or a wait from before a reboot (the server then gives
      // the whole wait again): count it from when this page first saw it.
      const key = `${sinceUs}:${endsUs}`;
      if (!firstSeen.has(key)) firstSeen.set(key, performance.now());
      now = sinceUs + (performance.now() - firstSeen.get(key)) * 1000;
    }
    return endsUs - now;
  }

  function tick(timer) {
    const since = Number(timer.dataset.sinceUs);
    const ends = Number(timer.dataset.endsUs);
    const left = leftUs(since, ends);
    const seconds = Math.max(0, Math.ceil(left / 1e6));
    // {s}: the seconds left; {m}:{ss} the same as minutes and seconds, for the long waits.
    const text = fill(timer.dataset.template, { s: seconds, m: Math.floor(seconds / 60), ss: String(seconds % 60).padStart(2, "0") });
    const words = timer.querySelector(".countdown");
    if (words.textContent !== text) words.textContent = text;
    words.classList.toggle("low", seconds <= 2);
    timer.dataset.leftMs = String(Math.max(0, Math.round(left / 1000)));
    const share = ends > since ? Math.min(1, Math.max(0, left / (ends - since))) : 0;
    timer.querySelector(".timebar > span").style.transform = `scaleX(${share.toFixed(3)})`;
  }
  setInterval(() => document.querySelectorAll(".timer[data-ends-us]").forEach(tick), 200);

  // "12 s left" (`template`, with {s}), and a bar that empties as the time runs out.
  function countdown(sinceUs, endsUs, template) {
    // Not read out every second by screen readers (the banner around it is a live region).
    const timer = el("span", { class: "timer", "aria-live": "off", "data-since-us": String(sinceUs),
      "data-ends-us": String(endsUs), "data-template": template || ui.countdown_left },
    el("span", { class: "countdown" }), el("span", { class: "timebar", "aria-hidden": "true" }, el("span")));
    tick(timer);
    return timer;
  }

  heard(Number(C.boot.now_us));
  C.clock = { heard, serverNowUs, leftUs };
  C.countdown = countdown;
})(window.Companion);
