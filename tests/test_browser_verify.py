"""The browser's verifier page agrees with `companion verify` on honest and tampered exports."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from companion.games.registry import GAMES
from companion.sim.service import ServiceProcess
from companion.table.session import Table
from companion.table.verify import verify_export
from tests.test_verify import change_face, find, played, rehashed

pytestmark = pytest.mark.browser


def tamperings(honest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    cases = {"honest": honest}
    face = copy.deepcopy(honest)
    change_face(find(face, "dice_rolled", 3))
    cases["one die face changed"] = face
    moved = copy.deepcopy(honest)
    events = moved["events"]
    i = events.index(find(moved, "dice_rolled", 4))
    events[i], events[i - 1] = events[i - 1], events[i]
    cases["one event reordered"] = moved
    seed = copy.deepcopy(honest)
    find(seed, "seed_revealed")["data"]["seed"] = "00" * 32
    cases["a different seed"] = rehashed(seed)
    draw = copy.deepcopy(honest)
    target = find(draw, "dice_rolled", 2)
    change_face(target)
    target["draws"][0]["value"] = target["data"]["dice"][0]["face"]
    cases["a changed draw, chain rewritten"] = rehashed(draw)
    skipped = copy.deepcopy(honest)
    find(skipped, "dice_rolled", 1)["draws"][0]["counter"] += 1
    cases["a skipped draw"] = rehashed(skipped)
    return cases


def test_the_browser_and_the_cli_give_the_same_verdicts(table: Table, chromium: Browser, tmp_path: Path) -> None:
    service = ServiceProcess(tmp_path / "data").start()
    page = chromium.new_page()
    try:
        page.goto(f"{service.base}/verify")
        for name, export in tamperings(played(table)).items():
            cli = verify_export(export, GAMES)
            browser = page.evaluate("(e) => window.CompanionVerify.verify(e)", export)
            assert browser["ok"] == cli.ok, name
            assert sorted(browser["problems"]) == sorted(cli.problems), name
            if cli.ok:
                assert (browser["randomEvents"], browser["draws"]) == (cli.random_events, cli.draws)
    finally:
        page.close()
        service.stop()


def test_the_page_checks_a_file_a_player_was_given(table: Table, chromium: Browser, tmp_path: Path,
                                                   artifacts: Path) -> None:
    honest = played(table)
    service = ServiceProcess(tmp_path / "data").start()
    page = chromium.new_page()
    try:
        for lang, expected in (("en", "Verified"), ("fr", "Vérifiée")):
            page.goto(f"{service.base}/verify?lang={lang}")
            path = tmp_path / "game.json"
            path.write_text(json.dumps(honest))
            page.set_input_files("#export-file", str(path))
            page.wait_for_selector("#verdict:not([hidden])")
            assert page.locator("#verdict h2").inner_text() == expected
            assert "6" in page.locator("#verdict p").inner_text()
        bad = copy.deepcopy(honest)
        change_face(find(bad, "dice_rolled", 0))
        path.write_text(json.dumps(bad))
        page.goto(f"{service.base}/verify?lang=en")
        page.set_input_files("#export-file", str(path))
        page.wait_for_selector("#verdict.bad")
        assert "Not verified" in page.locator("#verdict h2").inner_text()
        assert f"event {find(bad, 'dice_rolled', 0)['seq']}:" in page.locator(".problems").inner_text()
        page.screenshot(path=str(artifacts / "verify-bad-en.png"), full_page=True)
    finally:
        page.close()
        service.stop()
