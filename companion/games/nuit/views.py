"""What each screen of la nuit des vampires may show, its secrets, its log lines and its actions.

Bottles and magic cards in hand are public (N-S5); so are the display, the stacks' sizes and every
fate card once drawn. Nobody sees the magic deck's order, an upcoming fate card (the players must
remember the cycles, N-F6), or a closed tower's content; a Flying Vampire's peek shows one tower to
its peeker alone (N-F5). The children's assist lists the fate cards drawn so far, never the next.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import combinations
from typing import Any

from companion.games.base import Command, Event, Secret, Viewer
from companion.games.lines import log_line
from companion.games.nuit.options import DEFAULTS, ELIXIRS, UNVERIFIED
from companion.games.nuit.rules import GAME_ID, SEAL_NAME, still_to_roll
from companion.games.nuit.state import COURTYARD, OUBLIETTES, NuitState, Player, Tower
from companion.games.nuit.turn import BRIDGE_USES, FOUND, MOVE_SPACES, TEMPO_SPACES, awaits, waiting_for
from companion.games.offers import offered
from companion.games.picture import shared_picture


def _player_json(state: NuitState, player: Player) -> dict[str, Any]:
    return {
        "seat": player.seat,
        "name": player.name,
        "bottles": player.bottles,
        "hand": [state.magic[c].to_json() for c in player.hand],
        "onions": player.onions,
        "location": player.location,
    }


def _tower_json(tower: Tower, shown: bool, placement: bool = False) -> dict[str, Any]:
    """A closed tower says nothing; an opened one what it held (ambiguity 14); at the end every
    tower shows its content (`placement`), which the seal's salt proves."""
    facts: dict[str, Any] = {"tower": tower.number, "opened": tower.opened}
    if shown:
        facts.update(found=tower.found, empty=tower.content is None, token=f"tower-{tower.number}-{tower.found}")
    if placement and tower.content is not None:
        facts.update(content=tower.content, token=tower.token)
    return facts


def _seal_json(state: NuitState) -> dict[str, Any] | None:
    if state.commitment is None:
        return None
    seal: dict[str, Any] = {"game": GAME_ID, "name": SEAL_NAME, "commitment": state.commitment}
    if state.phase == "over":
        # The game is over (the tomato found, or the host ended it): the tomato's tower and the
        # salt open the commitment for anyone to check.
        seal["tomato"] = next(t.number for t in state.towers if "tomato" in (t.content, t.found))
        seal["salt"] = state.salt
    return seal


def _picture(state: NuitState) -> dict[str, Any]:
    return shared_picture(state.wall, lambda: _build_picture(state))


def _build_picture(state: NuitState) -> dict[str, Any]:
    options = state.options
    colours = state.colours
    last = state.fate[state.fate_drawn[-1]].to_json(colours) if state.fate_drawn else None
    over = state.phase == "over"
    picture = {
        "game": GAME_ID,
        "phase": state.phase,
        "current": state.current,
        "turns": state.turns,
        "turn": dict(state.turn),
        "waiting": waiting_for(state),
        "move": dict(state.move),
        "duel": dict(state.duel) if state.duel is not None else None,
        "bridges": state.bridges,
        "last_roll": dict(state.last_roll) if state.last_roll is not None else None,
        "order": list(state.order),
        "start": {"round": state.start.get("round"), "contenders": list(state.start.get("contenders", [])),
                  "rolls": dict(state.start.get("rolls", {})), "last": dict(state.start.get("last", {})),
                  "waiting": still_to_roll(state) if state.phase == "start_roll" else []},
        "players": [_player_json(state, p) for p in state.players],
        "reserve": state.reserve,
        "display": [state.magic[c].to_json() for c in state.display],
        "deck": len(state.deck),
        "fate_stacks": [{"colour": colours[i], "cards": len(stack)} for i, stack in enumerate(state.stacks)],
        "last_fate": last,
        "fate_history": [state.fate[c].to_json(colours) for c in state.fate_drawn]
        if options["childrens_assist"] else None,
        "towers": [_tower_json(t, t.opened, over) for t in state.towers],
        "seal": _seal_json(state),
        "happenings": list(state.happenings),
        "winner": state.winner,
        "colours": list(colours),
        "options": options,
        "unverified": [key for key in UNVERIFIED if options[key] == DEFAULTS[key]],
    }
    return picture


def view(state: NuitState, viewer: Viewer) -> dict[str, Any]:
    picture = _picture(state)
    if viewer.kind != "seat" or viewer.seat is None or not state.seated(viewer.seat):
        return picture
    # N-F5: what this seat saw in a tower with a Flying Vampire, for it alone.
    peeked = [_tower_json(state.tower(n), True) | {"content": state.tower(n).content, "found": None,
                                                    "token": state.tower(n).token}
              for s, n in state.peeks if s == viewer.seat and not state.tower(n).opened]
    return {**picture, "peeked": peeked}


def _only(seats: set[int]) -> Callable[[Viewer], bool]:
    """Visible to these seats alone; to nobody when empty."""
    return lambda viewer: viewer.kind == "seat" and viewer.seat in seats


def secrets(state: NuitState) -> list[Secret]:
    """Closed towers' contents (a peeker's once peeked) and the seal's salt until the end; the magic
    deck's unseen cards and the fate cards never drawn, always."""
    hidden: list[Secret] = []
    if state.phase != "over":
        for tower in state.towers:
            if tower.opened or tower.content is None:
                continue
            peekers = {s for s, n in state.peeks if n == tower.number}
            hidden.append(Secret(tower.token, _only(peekers), f"tower {tower.number}'s content"))
        if state.salt is not None:
            hidden.append(Secret(state.salt, _only(set()), "the tower seal's salt"))
    for position, number in enumerate(state.deck):
        if number not in state.magic_seen:
            hidden.append(Secret(state.magic[number].token, _only(set()), f"the magic deck's card {position + 1}"))
    drawn = set(state.fate_drawn)
    for colour, stack in enumerate(state.stacks):
        for position, number in enumerate(stack):
            if number not in drawn:
                hidden.append(Secret(state.fate[number].token, _only(set()),
                                     f"{state.colours[colour]} fate card {position + 1}"))
    return hidden


def actions(state: NuitState, viewer: Viewer) -> list[Command]:
    """Everything this viewer might do now; the table marks each allowed or not, with the reason
    (a move too long for the bottles held, a fourth magic card...)."""
    if viewer.kind == "system":
        return []
    if state.phase == "start_roll":
        if viewer.kind == "seat" and viewer.seat not in state.start.get("contenders", []):
            return []
        return [offered("roll")]
    me = viewer.seat
    if state.phase != "turn" or viewer.kind != "seat" or me is None or not state.seated(me):
        return []
    commands = [offered("cash", card=c) for c in state.player(me).hand if state.magic[c].kind in ELIXIRS]
    if not awaits(state, me):
        if state.stage() == "meet" and me in state.turn.get("seats", []):
            commands.insert(0, offered("duel", seat=me))  # N-T2: standing there, call the duel
        return commands
    return _stage_commands(state, me) + commands


def _of_kind(state: NuitState, seat: int, prefix: str) -> list[int]:
    return [c for c in state.player(seat).hand if state.magic[c].kind.startswith(prefix)]


def _takes(state: NuitState) -> list[Command]:
    return [offered("take", card=c) for c in state.display]


@lru_cache(maxsize=64)
def _stops(colours: tuple[str, ...]) -> tuple[Command, ...]:
    """Every place a move may stop at, for each length of move: the same for every move of a game."""
    return tuple(offered("stop", spaces=n, at=at) for at in (*colours, COURTYARD) for n in MOVE_SPACES)


def _plays(state: NuitState, me: int, card: int) -> list[Command]:
    """N-L2: the ways to play one magic card during a move."""
    kind = state.magic[card].kind
    if kind == "tempo":
        return [offered("play", card=card, spaces=n) for n in TEMPO_SPACES]
    if kind == "bridge":
        return [offered("play", card=card, use=use) for use in BRIDGE_USES]
    if kind == "glove":
        return [offered("play", card=card, **{"from": other.seat}, take=taken)
                for other in state.players if other.seat != me for taken in other.hand
                if state.magic[taken].kind != "glove"]
    return []


def _stage_commands(state: NuitState, me: int) -> list[Command]:
    stage = state.stage()
    turn = state.turn
    player = state.player(me)
    skip = offered("skip")
    if stage == "choose":
        if player.location != OUBLIETTES:
            return [offered("move"), offered("replenish")]
        return [offered("move", way="bribe"), offered("move", way="roll"),
                *(offered("move", way="bridge", card=c) for c in _of_kind(state, me, "bridge")),
                offered("replenish")]
    if stage == "moving":
        commands = _takes(state) if state.move.get("bonus", 0) > 0 else []
        for card in player.hand:
            commands += _plays(state, me, card)
        return [*commands, *_stops(tuple(state.colours))]
    if stage == "meet":
        return [*(offered("duel", seat=s) for s in turn["seats"]), skip]
    if stage == "duel":
        return [*(offered("duel_card", card=c) for c in _of_kind(state, me, "duel_")), offered("ready")]
    if stage in ("reward", "pick", "split"):
        return [*_takes(state), skip]
    if stage == "push":
        return [*(offered("push", to=colour) for colour in state.colours), skip]
    if stage == "give_back":
        count = min(turn["count"], len(player.hand))
        return [Command("give_back", {"cards": list(cards)}) for cards in combinations(player.hand, count)]
    if stage == "flying":
        closed = [t.number for t in state.towers if not t.opened]
        return [*(offered("fly", to=colour) for colour in state.colours),
                *(offered("peek", tower=n) for n in closed), skip]
    if stage == "fate":
        return [offered("draw_fate"), skip]
    if stage == "debt":
        return [offered("pay"), skip]
    if stage == "tower":
        closed = [t.number for t in state.towers if not t.opened]
        if state.physical:
            return [offered("open", tower=n, found=found) for n in closed for found in FOUND]
        return [offered("open", tower=n) for n in closed]
    return []


_WORDS = {
    "en": {
        "start_rolled": "seat {seat} rolled {red} + {black} = {total} for the start",
        "start_tied": "tie at {total}: seats {seats} roll again", "start_decided": "seat {seat} starts",
        "bottles_taken": "seat {seat} took {taken} of {count} {count|bottle|bottles} ({cause})",
        "bottles_paid": "seat {seat} paid {paid} {paid|bottle|bottles} ({cause})",
        "magic_taken": "seat {seat} took a magic card from the display ({cause})",
        "display_refilled": "the display was refilled",
        "magic_returned": "seat {seat} put {number} magic {number|card|cards} under the deck ({cause})",
        "fate_drawn": "seat {seat} drew a {colour} fate card: {kind} {n}",
        "tower_peeked": "seat {seat} looked into tower {tower}",
        "tower_opened": "seat {seat} opened tower {tower}: {content}", "onion_taken": "seat {seat} took the onion",
        "player_moved": "seat {seat} went to {to}", "game_won": "seat {seat} found the tomato and wins",
        "turn_passed": "seat {seat}'s turn", "asked": "seat {seat} to choose: {choice}",
        "move_begun": "seat {seat} moves", "magic_played": "seat {seat} played a {kind} card",
        "magic_stolen": "seat {seat} stole a magic card from seat {from}",
        "dice_rolled": "seat {seat} rolled {red} + {black} = {total} ({purpose})",
        "duel_begun": "seat {attacker} duels seat {defender}", "duel_ready": "seat {seat} is ready to roll",
        "duel_rolled": "duel round {round}: {totals}", "duel_tied": "the duel is tied at {total}: dice swapped",
        "duel_won": "seat {winner} won the duel against seat {loser}", "flew": "seat {seat} flew to {to}",
        "oubliettes_left": "seat {seat} left the oubliettes ({way})",
        "escape_failed": "seat {seat} could not pay {needed} {needed|bottle|bottles} and stays in the oubliettes",
        "tax_unpaid": "seat {seat} could not pay the {tax} bottle tax",
    },
    "fr": {
        "start_rolled": "la place {seat} a fait {red} + {black} = {total} pour commencer",
        "start_tied": "égalité à {total} : les places {seats} relancent", "start_decided": "la place {seat} commence",
        "bottles_taken": "la place {seat} a pris {taken} {taken|bouteille|bouteilles} sur {count} ({cause})",
        "bottles_paid": "la place {seat} a payé {paid} {paid|bouteille|bouteilles} ({cause})",
        "magic_taken": "la place {seat} a pris une carte magique exposée ({cause})",
        "display_refilled": "les cartes exposées ont été complétées",
        "magic_returned": ("la place {seat} a remis {number} {number|carte magique|cartes magiques} sous la pioche"
                           " ({cause})"),
        "fate_drawn": "la place {seat} a tiré une carte destin {colour} : {kind} {n}",
        "tower_peeked": "la place {seat} a regardé dans la tour {tower}",
        "tower_opened": "la place {seat} a ouvert la tour {tower} : {content}",
        "onion_taken": "la place {seat} a pris l'oignon", "player_moved": "la place {seat} va vers {to}",
        "game_won": "la place {seat} a trouvé la tomate et gagne",
        "turn_passed": "au tour de la place {seat}", "asked": "la place {seat} choisit : {choice}",
        "move_begun": "la place {seat} se déplace", "magic_played": "la place {seat} a joué une carte {kind}",
        "magic_stolen": "la place {seat} a volé une carte magique à la place {from}",
        "dice_rolled": "la place {seat} a fait {red} + {black} = {total} ({purpose})",
        "duel_begun": "la place {attacker} provoque la place {defender} en duel",
        "duel_ready": "la place {seat} est prête à lancer",
        "duel_rolled": "duel, manche {round} : {totals}", "duel_tied": "duel à égalité ({total}) : on échange les dés",
        "duel_won": "la place {winner} a gagné le duel contre la place {loser}",
        "flew": "la place {seat} s'est envolée vers {to}",
        "oubliettes_left": "la place {seat} est sortie des oubliettes ({way})",
        "escape_failed": ("la place {seat} ne peut pas payer {needed} {needed|bouteille|bouteilles} et reste"
                          " aux oubliettes"),
        "tax_unpaid": "la place {seat} ne peut pas payer la taxe de {tax} {tax|bouteille|bouteilles}",
    },
}
_NEVER = ("card", "salt", "commitment")
"""Event fields no log line names (a peeked content is left out by the templates)."""


def describe(event: Event, lang: str) -> str:
    """One line for logs and `companion replay`: never a peeked tower's content nor the salt."""
    params: dict[str, Any] = {k: v for k, v in event.data.items() if k not in _NEVER}
    if event.type == "tower_peeked":
        params.pop("content", None)
    if event.type == "magic_returned":
        params["number"] = len(event.data["cards"])
    if event.type == "duel_rolled":
        params["totals"] = ", ".join(f"{seat}: {roll['total']}" for seat, roll in event.data["rolls"].items())
    return log_line(_WORDS, lang, event.type, params, event.type)
