// The verifier page: load an export (a file, or the host's game) and show the verdict.
"use strict";
(function (C) {
  const { $, el, ui } = C;

  function show(verdict) {
    const box = $("verdict");
    box.hidden = false;
    box.className = "card verdict " + (verdict.ok ? "good" : "bad");
    box.replaceChildren(...[
      el("h2", {}, verdict.ok ? ui.verify_ok_title : ui.verify_bad_title),
      el("p", {}, verdict.ok
        ? C.fill(ui.verify_ok, { events: verdict.randomEvents, draws: verdict.draws, game: verdict.gameId || "?" })
        : ui.verify_bad),
      verdict.problems.length ? el("ul", { class: "problems" }, verdict.problems.map((p) => el("li", {}, p))) : null,
    ].filter(Boolean));
  }

  function check(text) {
    let data;
    try { data = JSON.parse(text); } catch (err) { show({ ok: false, problems: [ui.verify_not_json], randomEvents: 0, draws: 0 }); return; }
    show(window.CompanionVerify.verify(data));
  }

  $("export-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (file) check(await file.text());
  });
  const game = new URLSearchParams(window.location.search).get("game");
  if (game) {
    fetch(`/api/games/${encodeURIComponent(game)}/export`, { credentials: "same-origin", cache: "no-store" })
      .then(async (response) => {
        const body = await response.text();
        if (response.ok) check(body);
        else show({ ok: false, problems: [JSON.parse(body).message], randomEvents: 0, draws: 0 });
      });
  }
})(window.Companion);
