"""`companion verify`: an honest export passes; a changed face, a moved event or another seed fails,
and the verdict names the event."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from companion.fairness.contributions import commitment_for
from companion.games.base import HOST, TABLE, Command, seat
from companion.games.registry import GAMES
from companion.sim.service import companion
from companion.store import RecordedEvent
from companion.store.records import GENESIS
from companion.table.export import export_game
from companion.table.session import Table
from companion.table.verify import verify_export


def played(table: Table) -> dict[str, Any]:
    """A finished dice-tray game with players' contributions in the middle of it."""
    table.handle(HOST, Command("start_game", {"game": "dice-tray"}))
    table.handle(TABLE, Command("roll", {"preset": "garlic-slap"}))
    game_id = table.run.game_id  # type: ignore[union-attr]
    for n, value in ((1, "11" * 32), (3, "ab" * 32)):
        assert table.handle(seat(n), Command("commit_entropy", {"commitment": commitment_for(game_id, n, value)})).ok
        assert table.handle(seat(n), Command("reveal_entropy", {"value": value})).ok
    table.handle(seat(2), Command("set_tray", {"preset": "nuit-duel"}))
    for _ in range(5):
        table.handle(seat(2), Command("roll"))
    table.handle(HOST, Command("end_game"))
    data = export_game(table.store, game_id, 0)
    assert data is not None
    return data


def rehashed(export: dict[str, Any]) -> dict[str, Any]:
    """The export with its hash chain recomputed: a forger who rewrites the whole log."""
    previous = GENESIS
    for raw in export["events"]:
        event = RecordedEvent.from_json({**raw, "prev": previous})
        raw["prev"] = previous
        raw["hash"] = event.pending().hashed(previous)
        previous = raw["hash"]
    return export


def test_an_honest_export_verifies(table: Table) -> None:
    verdict = verify_export(played(table), GAMES)
    assert verdict.problems == []
    assert (verdict.random_events, verdict.draws) == (6, 12)
    assert verdict.summary().startswith("verified: 6 random events (12 draws)")


def test_players_randomness_changes_the_rolls_it_joins(table: Table) -> None:
    export = played(table)
    sealed = [e for e in export["events"] if e["type"] == "randomness_sealed"]
    assert [(e["data"]["epoch"], e["data"]["seats"]) for e in sealed] == [(1, [1, 3])]
    draws = [d for e in export["events"] for d in e["draws"]]
    assert [d["epoch"] for d in draws] == [0, 0] + [1] * 10
    assert [d["counter"] for d in draws] == list(range(12))


def find(export: dict[str, Any], kind: str, nth: int = 0) -> dict[str, Any]:
    return [e for e in export["events"] if e["type"] == kind][nth]


def change_face(event: dict[str, Any]) -> None:
    die = event["data"]["dice"][0]
    die["face"] = (die["face"] + 1) % 6


@pytest.mark.parametrize("forger_rehashes", [False, True], ids=["edited", "edited-and-rehashed"])
def test_a_changed_die_face_fails_and_names_the_event(table: Table, forger_rehashes: bool) -> None:
    export = played(table)
    target = find(export, "dice_rolled", 3)
    change_face(target)
    if forger_rehashes:
        rehashed(export)
    verdict = verify_export(export, GAMES)
    assert not verdict.ok
    assert any(problem.startswith(f"event {target['seq']}:") for problem in verdict.problems), verdict.problems


def test_a_changed_draw_fails_even_with_a_consistent_face(table: Table) -> None:
    export = played(table)
    target = find(export, "dice_rolled", 2)
    change_face(target)
    target["draws"][0]["value"] = target["data"]["dice"][0]["face"]
    rehashed(export)
    verdict = verify_export(export, GAMES)
    assert any(p.startswith(f"event {target['seq']}: draw") and "from the seed" in p for p in verdict.problems)


def test_a_reordered_event_fails_and_names_it(table: Table) -> None:
    export = played(table)
    events = export["events"]
    i = events.index(find(export, "dice_rolled", 4))
    events[i], events[i - 1] = events[i - 1], events[i]
    verdict = verify_export(export, GAMES)
    assert any(p.startswith(f"event {events[i]['seq']}:") for p in verdict.problems), verdict.problems


def test_a_different_seed_fails(table: Table) -> None:
    export = played(table)
    revealed = find(export, "seed_revealed")
    revealed["data"]["seed"] = "00" * 32
    rehashed(export)
    verdict = verify_export(export, GAMES)
    assert verdict.problems == [
        f"event {revealed['seq']}: the revealed seed does not match the commitment "
        f"{export['events'][0]['data']['seed_commitment']} published at the start (event 1)"
    ]


def test_a_forged_seed_with_a_matching_commitment_still_fails_on_every_draw(table: Table) -> None:
    from companion.fairness.drbg import seed_commitment

    export = played(table)
    fake = "42" * 32
    export["events"][0]["data"]["seed"] = fake
    export["events"][0]["data"]["seed_commitment"] = seed_commitment(export["game_id"], fake)
    find(export, "seed_revealed")["data"]["seed"] = fake
    rehashed(export)
    verdict = verify_export(export, GAMES)
    assert not verdict.ok and all("from the seed" in p for p in verdict.problems)


def test_a_skipped_draw_is_named(table: Table) -> None:
    export = played(table)
    target = find(export, "dice_rolled", 1)
    target["draws"][0]["counter"] += 1
    rehashed(export)
    verdict = verify_export(export, GAMES)
    assert any(p.startswith(f"event {target['seq']}:") and "skipped or redone" in p for p in verdict.problems)


def test_a_running_game_cannot_be_verified_yet(table: Table) -> None:
    table.handle(HOST, Command("start_game", {"game": "dice-tray"}))
    table.handle(TABLE, Command("roll"))
    export = export_game(table.store, table.run.game_id, 0)  # type: ignore[union-attr]
    assert export is not None
    assert verify_export(export, GAMES).problems == [
        "the seed was never revealed: verify the export once the game is over"]


def test_the_cli_says_verified_or_names_the_event_with_its_exit_status(table: Table, tmp_path: Path) -> None:
    honest = played(table)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(honest))
    ok = companion("verify", str(path))
    expected = f"verified: 6 random events (12 draws) in game {honest['game_id']}"
    assert (ok.returncode, ok.stdout.strip()) == (0, expected)
    tampered = copy.deepcopy(honest)
    target = find(tampered, "dice_rolled", 0)
    change_face(target)
    path.write_text(json.dumps(tampered))
    bad = companion("verify", str(path))
    assert bad.returncode == 1
    assert bad.stdout.startswith("NOT verified:") and f"event {target['seq']}:" in bad.stdout
    path.write_text("{not json")
    unreadable = companion("verify", str(path))
    assert unreadable.returncode == 1 and "cannot read" in unreadable.stderr


def test_a_phone_that_never_reveals_times_out_and_is_left_out(table: Table, clock) -> None:
    from companion.fairness.contributions import REVEAL_TIMEOUT_MS

    table.handle(HOST, Command("start_game", {"game": "dice-tray"}))
    game_id = table.run.game_id  # type: ignore[union-attr]
    value = "cd" * 32
    assert table.handle(seat(4), Command("commit_entropy", {"commitment": commitment_for(game_id, 4, value)})).ok
    table.handle(TABLE, Command("roll"))
    assert table.view(TABLE)["game"]["entropy"]["timed_out"] == []
    clock.advance(REVEAL_TIMEOUT_MS * 1000)
    outcome = table.handle(TABLE, Command("roll"))
    assert [e.type for e in outcome.events] == ["entropy_timed_out", "dice_rolled"]
    assert table.view(TABLE)["game"]["entropy"]["timed_out"] == [4]
    late = table.handle(seat(4), Command("reveal_entropy", {"value": value}))
    assert late.rejection is not None and late.rejection.code == "reveal_too_late"
    table.handle(HOST, Command("end_game"))
    export = export_game(table.store, game_id, 0)
    assert export is not None
    assert verify_export(export, GAMES).ok
