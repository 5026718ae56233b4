"""Random complete games of Vampir, played on the pure rules (no table, no store): the property
tests' engine.

Each step sends what the game waits for: the host picks a starter, the current seat draws or
takes a location, then discards or hunts; a physical table ends its round and each seat (or the
host for it) enters random legal hunts. The commands are built from the rules (rules/vampir.md),
not from the game's own code, and `legal` is the test's own reading of those rules: every command
played must be one the rules allow and `validate` accepts. Now and then a malformed or illegal
command is tried first: `legal` and `validate` must agree on it, and a refusal changes nothing.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from companion.fairness.drbg import SeededRandomSource
from companion.fairness.rng import Draw
from companion.games.base import HOST, SYSTEM, TABLE, Command, Event, SeatInfo, Viewer, seat
from companion.games.vampir import VAMPIR as GAME
from companion.games.vampir.options import COLOURS, JOKERS, LOCATIONS, ONE_HEAD, TWO_HEAD, normalize_options
from companion.games.vampir.state import CARDS, COLOUR_OF, VampirState, colour_counts
from companion.sim.players.garlic import Turn, told
from companion.sim.players.nuit import seats_for

Check = Callable[[VampirState, VampirState, Event], None]
TURN_COMMANDS = ("draw", "take", "discard", "hunt", "end_turn")
BUDGET = 1_500
"""Commands a game may take before it counts as never ending (a digital round is about 130)."""


@dataclass
class Played:
    state: VampirState
    options: Mapping[str, Any]
    seats: tuple[SeatInfo, ...]
    setup_draws: tuple[Draw, ...] = ()
    turns: list[Turn] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    tried: Counter[str] = field(default_factory=Counter)
    """The illegal commands tried, by what was wrong, then by the code they were refused with."""


@functools.lru_cache(maxsize=16)
def _names(round_number: int) -> tuple[str, ...]:
    """Every card's token in one round, by card number: the player names cards at nearly every move."""
    return tuple(card.token(round_number) for card in CARDS)


@functools.lru_cache(maxsize=16)
def _cards_named(round_number: int) -> dict[str, int]:
    """The card each token of one round names, for reading a command back."""
    return {name: number for number, name in enumerate(_names(round_number))}


def token(state: VampirState, card: int, round_number: int | None = None) -> str:
    return _names(state.round if round_number is None else round_number)[card]


def tokens(state: VampirState, cards: Sequence[int]) -> list[str]:
    names = _names(state.round)
    return [names[c] for c in cards]


# -- the rules as the test reads them --------------------------------------------------------------

def named_cards(state: VampirState, owner: int, names: Any) -> list[int] | None:
    """The distinct cards of the owner's hand these names give, by this round's tokens; None if any isn't one."""
    if not isinstance(names, list):
        return None
    by_name = _cards_named(state.round)
    hand = state.player(owner).hand
    cards = []
    for name in names:
        card = by_name.get(name) if isinstance(name, str) else None
        if card is None or card not in hand:
            return None
        cards.append(card)
    return cards if len(set(cards)) == len(cards) else None


def _may_lay(state: VampirState, owner: int, colour: str, args: Mapping[str, Any]) -> bool:
    """V-H3 (a second hunt of a colour replaces the first, which the phone must mean) and ambiguity 3."""
    held = state.player(owner).hunt(colour) is not None
    return (not held or args.get("replace") is True) and state.hunts_laid < state.options["hunts_per_turn"]


def legal_entry(hunts: Any) -> bool:
    """A physical player's hunts: per colour at most one, each >= 3 cards with a coloured one, within the box."""
    if not isinstance(hunts, list):
        return False
    colours: set[Any] = set()
    for hunt in hunts:
        if not isinstance(hunt, Mapping) or set(hunt) != {"colour", "one", "two", "jokers"}:
            return False
        counts = [hunt["one"], hunt["two"], hunt["jokers"]]
        if hunt["colour"] not in COLOURS or hunt["colour"] in colours \
                or any(type(n) is not int or n < 0 for n in counts):
            return False
        colours.add(hunt["colour"])
        if hunt["one"] > ONE_HEAD or hunt["two"] > TWO_HEAD or hunt["one"] + hunt["two"] == 0 or sum(counts) < 3:
            return False
    return sum(h["jokers"] for h in hunts) <= JOKERS


def legal(state: VampirState, actor: Viewer, command: Command) -> bool:
    """Whether the rules allow this command now, read from rules/vampir.md independently of turn.py."""
    if state.phase == "over" or (type(command.args) is not dict and not isinstance(command.args, Mapping)):
        return False
    if actor.kind == "seat" and not state.seated(actor.seat):
        return False
    args, name = command.args, command.name
    if name in TURN_COMMANDS:
        if actor.kind != "seat" or state.phase != "turn" or actor.seat != state.current:
            return False
        me = actor.seat
        assert me is not None  # a seat's actor: its kind was checked just above
        stage = state.stage
        if name == "draw":
            return stage == "choose"
        if name == "end_turn":
            return stage in ("hunting", "done")
        if name == "discard":  # V-T1a
            cards = named_cards(state, me, [args.get("card")])
            if stage != "drawn" or cards is None:
                return False
            colour = CARDS[cards[0]].colour
            return args.get("location") in COLOURS if colour is None else args.get("location") in (None, colour)
        if name == "hunt":  # V-T1b, V-H1
            cards = named_cards(state, me, args.get("cards"))
            if stage not in ("drawn", "hunting") or cards is None:
                return False
            colours = {CARDS[c].colour for c in cards} - {None}
            return len(colours) == 1 and len(cards) >= 3 and _may_lay(state, me, cast(str, colours.pop()), args)
        # take, V-T2: the whole pile and cards of its colour or jokers; its jokers count as its colour,
        # but jokers are never a hunt alone (ambiguity 5).
        location = args.get("location")
        if stage != "choose" or location not in COLOURS or not state.piles[location]:
            return False
        cards = named_cards(state, me, args.get("cards", []))
        return cards is not None and all(CARDS[c].colour in (None, location) for c in cards) \
            and any(CARDS[c].colour == location for c in [*cards, *state.piles[location]]) \
            and len(cards) + len(state.piles[location]) >= 3 and _may_lay(state, me, location, args)
    if name == "choose_starter":
        chosen = args.get("seat")
        return actor.kind == "host" and state.phase == "starter" and type(chosen) is int and state.seated(chosen)
    if actor.kind not in ("host", "seat"):
        return False
    if name == "round_over":
        return state.phase == "playing"
    if name == "next_round":
        return state.phase == "scored"
    if name == "enter_hunts":
        whose = args.get("seat")
        mine = whose in (None, actor.seat) if actor.kind == "seat" else type(whose) is int and state.seated(whose)
        return state.phase == "entering" and mine and legal_entry(args.get("hunts"))
    return False


# -- legal moves -----------------------------------------------------------------------------------

def _hunt_from(rnd: random.Random, own: list[int], jokers: list[int], at_least: int, coloured: bool) -> list[int]:
    """A random choice among these cards: at least `at_least` of them, one coloured if `coloured`."""
    while True:
        chosen = [c for c in own + jokers if rnd.random() < 0.7]
        if len(chosen) >= at_least and (not coloured or any(c in own for c in chosen)):
            rnd.shuffle(chosen)
            return chosen


def _jokers(hand: Sequence[int]) -> list[int]:
    return [c for c in hand if COLOUR_OF[c] is None]


def _with_replace(state: VampirState, rnd: random.Random, colour: str, args: dict[str, Any]) -> dict[str, Any]:
    """V-H3: the phone says it means to replace its hunt of the colour (and sometimes says so needlessly)."""
    assert state.current is not None
    if state.player(state.current).hunt(colour) is not None or rnd.random() < 0.05:
        args["replace"] = True
    return args


DRAW = Command("draw")
END_TURN = Command("end_turn")
"""The moves with no arguments, made once (a command is a value)."""


def turn_move(state: VampirState, rnd: random.Random) -> Command:
    """The current player's move: taking a location or hunting now and then, else drawing and discarding."""
    me = state.current
    assert me is not None
    player = state.player(me)
    counts = colour_counts(player.hand)
    jokers = counts.get(None, 0)
    held = {h.colour for h in player.hunts}
    hunts = [colour for colour in COLOURS if (n := counts.get(colour, 0)) and n + jokers >= 3
             and (colour not in held or rnd.random() < 0.3)]
    if state.stage == "choose":
        # A pile of jokers alone is taken with at least one card of its colour from hand (ambiguity 5).
        piles = state.piles
        takes = [colour for colour in COLOURS if (pile := piles[colour])
                 and len(pile) + counts.get(colour, 0) + jokers >= 3
                 and (colour in counts or colour in map(COLOUR_OF.__getitem__, pile))
                 and (colour not in held or rnd.random() < 0.3)]
        of_jokers = [colour for colour in takes if not any(map(COLOUR_OF.__getitem__, piles[colour]))]
        chosen = of_jokers if of_jokers and rnd.random() < 0.8 else takes if takes and rnd.random() < 0.4 else []
        if chosen:
            colour = rnd.choice(chosen)
            own = [c for c in player.hand if COLOUR_OF[c] == colour]
            coloured = colour in of_jokers
            cards = _hunt_from(rnd, own, _jokers(player.hand), 3 - len(state.piles[colour]), coloured)
            return Command("take", _with_replace(state, rnd, colour, {"location": colour,
                                                                     "cards": tokens(state, cards)}))
        return DRAW
    if hunts and rnd.random() < (0.6 if state.stage == "drawn" else 0.4):
        colour = rnd.choice(hunts)
        cards = _hunt_from(rnd, [c for c in player.hand if COLOUR_OF[c] == colour], _jokers(player.hand), 3, True)
        return Command("hunt", _with_replace(state, rnd, colour, {"cards": tokens(state, cards)}))
    if state.stage != "drawn":
        return END_TURN
    card = rnd.choice(player.hand)
    args: dict[str, Any] = {"card": token(state, card)}
    if CARDS[card].joker:  # often under a location emptied by a take: its jokers alone may make a hunt
        empty = [colour for colour in COLOURS if not state.piles[colour]]
        args["location"] = rnd.choice(empty if empty and rnd.random() < 0.7 else COLOURS)
    elif rnd.random() < 0.3:
        args["location"] = CARDS[card].colour
    return Command("discard", args)


def random_entry(rnd: random.Random) -> list[dict[str, Any]]:
    """A physical player's legal hunts, small enough that the table's supply usually holds them."""
    hunts: list[dict[str, Any]] = []
    for colour in rnd.sample(COLOURS, rnd.randint(0, len(COLOURS))):
        one, two = rnd.randint(0, 3), rnd.randint(0, 2)
        if one + two == 0:
            one = 1
        jokers = max(0, 3 - one - two) + (rnd.random() < 0.2)
        if jokers + sum(h["jokers"] for h in hunts) > JOKERS:
            one, jokers = one + jokers, 0
        hunts.append({"colour": colour, "one": one, "two": two, "jokers": jokers})
    return hunts


@functools.lru_cache(maxsize=16)
def _anyone(seats: tuple[int, ...]) -> tuple[Viewer, ...]:
    """The host and every seat: who may send a command anyone at the table may send."""
    return (HOST, *(seat(s) for s in seats))


def next_move(state: VampirState, rnd: random.Random, steps: int) -> tuple[Viewer, Command]:
    """Who acts now and a legal command they send."""
    players = state.order  # the seats in seat order, as the players are
    anyone = rnd.choice(_anyone(players))
    if state.phase == "starter":
        return HOST, Command("choose_starter", {"seat": rnd.choice(players)})
    if state.phase == "scored":
        return anyone, Command("next_round")
    if state.phase == "playing":
        return anyone, Command("round_over")
    if state.phase == "entering":
        waiting = [p.seat for p in state.players if not p.entered]
        # A supply overrun (all entered, not scored) is put right by someone entering again, smaller.
        whose = rnd.choice(waiting or players)
        hunts = random_entry(rnd) if waiting and steps < 200 else []
        if rnd.random() < 0.3:
            return HOST, Command("enter_hunts", {"seat": whose, "hunts": hunts})
        return seat(whose), Command("enter_hunts", {"hunts": hunts, **({"seat": whose} if rnd.random() < 0.3 else {})})
    assert state.current is not None
    return seat(state.current), turn_move(state, rnd)


# -- illegal commands ------------------------------------------------------------------------------

def _other_card(state: VampirState, me: int | None, rnd: random.Random) -> tuple[str, str]:
    """A card the actor may not name: another seat's, the draw pile's, or its own of another round."""
    others = [c for p in state.players if p.seat != me for c in p.hand]
    mine = state.player(me).hand if me is not None and state.seated(me) else ()
    choices = []
    if others:
        choices.append(("other_hand", token(state, rnd.choice(others))))
    if state.draw_pile:
        choices.append(("draw_pile", token(state, rnd.choice(state.draw_pile))))
    if mine:
        choices.append(("old_round", token(state, rnd.choice(mine), state.round + rnd.choice([-1, 1]))))
    choices.append(("not_a_card", rnd.choice(["vampir-r1-abc", "vampir-r1-106", "castle", "", "vampir"])))
    return rnd.choice(choices)


def illegal_move(state: VampirState, rnd: random.Random) -> tuple[str, Viewer, Command]:
    """A command that breaks one rule (or that a client should never send), and what is wrong with it."""
    players = [p.seat for p in state.players]
    me = state.current if state.current is not None else rnd.choice(players)
    hand = list(state.player(me).hand)
    wrong: list[tuple[str, Viewer, Command]] = [
        ("unknown", seat(me), Command(rnd.choice(["peek", "shuffle", "steal", "hunts"]))),
        ("not_seated", seat(len(players) + 1), Command("draw")),
        ("args_not_a_mapping", seat(me), Command("hunt", ["cards"])),  # type: ignore[arg-type]
        ("not_a_seat", rnd.choice([TABLE, SYSTEM]), Command(rnd.choice([*TURN_COMMANDS, "next_round"]))),
        ("wrong_phase", rnd.choice([HOST, seat(me)]),
         Command(rnd.choice(["round_over", "next_round", "enter_hunts"]), {"hunts": []})),
        ("starter_by_a_seat", seat(me), Command("choose_starter", {"seat": me})),
        ("starter_not_seated", HOST, Command("choose_starter", {"seat": rnd.choice([0, len(players) + 1, True, "1"])})),
    ]
    if state.phase == "entering":
        bad = random_entry(rnd) or [{"colour": "red", "one": 1, "two": 1, "jokers": 1}]
        hunt = bad[0]
        how = rnd.choice(["small", "jokers_only", "twice", "supply", "bool", "negative", "extra_key", "location"])
        if how == "small":
            hunt.update(one=1, two=0, jokers=1)
        elif how == "jokers_only":
            hunt.update(one=0, two=0, jokers=3)
        elif how == "twice":
            bad.append(dict(hunt))
        elif how == "supply":
            hunt.update(rnd.choice([{"one": ONE_HEAD + 1}, {"two": TWO_HEAD + 1}, {"jokers": JOKERS + 1}]))
        elif how == "bool":
            hunt["two"] = True
        elif how == "negative":
            hunt["one"] = -1
        elif how == "extra_key":
            hunt["heads"] = 3
        else:
            hunt["colour"] = rnd.choice(LOCATIONS)
        other = rnd.choice([s for s in players if s != me])
        wrong += [(f"entry_{how}", rnd.choice([seat(me), HOST]), Command("enter_hunts", {"seat": me, "hunts": bad})),
                  ("entry_for_another", seat(me), Command("enter_hunts", {"seat": other, "hunts": []})),
                  ("entry_not_a_list", HOST, Command("enter_hunts", {"seat": me, "hunts": {"red": 3}}))]
    if state.phase == "turn":
        other = rnd.choice([s for s in players if s != me])
        stranger, card_name = _other_card(state, me, rnd)
        legal_now = turn_move(state, rnd)
        wrong += [("out_of_turn", seat(other), legal_now), ("host_plays", HOST, legal_now),
                  ("wrong_stage", seat(me), Command(rnd.choice(TURN_COMMANDS), {}))]
        by_colour: dict[str | None, list[int]] = {}
        for c in hand:
            by_colour.setdefault(CARDS[c].colour, []).append(c)
        colours = [k for k in by_colour if k is not None]
        jokers = by_colour.get(None, [])
        if state.stage in ("drawn", "hunting"):
            mixed = [by_colour[k][0] for k in colours[:2]] + jokers[:1]
            some = (by_colour[colours[0]] if colours else hand)[:2]
            wrong += [("hunt_" + stranger, seat(me), Command("hunt", {"cards": [*tokens(state, hand[:2]), card_name]})),
                      ("hunt_mixed", seat(me), Command("hunt", {"cards": tokens(state, mixed), "replace": True})),
                      ("hunt_two_cards", seat(me), Command("hunt", {"cards": tokens(state, some), "replace": True})),
                      ("hunt_twice_a_card", seat(me), Command("hunt", {"cards": tokens(state, hand[:2] * 2)})),
                      ("hunt_jokers_only", seat(me),
                       Command("hunt", {"cards": tokens(state, jokers), "replace": True})),
                      ("hunt_not_a_list", seat(me), Command("hunt", {"cards": tokens(state, hand)[0]})),
                      ("hunt_not_names", seat(me), Command("hunt", {"cards": [rnd.randrange(106), None, 3]}))]
            for colour in (h.colour for h in state.player(me).hunts):
                own = by_colour.get(colour, [])
                if own and len(own) + len(jokers) >= 3:
                    wrong.append(("hunt_replaces_unsaid", seat(me),
                                  Command("hunt", {"cards": tokens(state, own + jokers),
                                                   "replace": rnd.choice([False, None, "yes", 1])})))
        if state.stage == "drawn":
            coloured = [c for c in hand if not CARDS[c].joker]
            if coloured:
                card = rnd.choice(coloured)
                elsewhere = rnd.choice([c for c in COLOURS if c != CARDS[card].colour])
                wrong.append(("discard_elsewhere", seat(me),
                              Command("discard", {"card": token(state, card), "location": elsewhere})))
            if jokers:
                wrong.append(("joker_nowhere", seat(me), Command("discard", {"card": token(state, jokers[0]), **(
                    {"location": rnd.choice(LOCATIONS)} if rnd.random() < 0.5 else {})})))
            wrong.append(("discard_" + stranger, seat(me), Command("discard", {"card": card_name, "location": "red"})))
        if state.stage == "choose":
            empty = [c for c in COLOURS if not state.piles[c]]
            if empty:
                wrong.append(("take_empty", seat(me), Command("take", {"location": rnd.choice(empty),
                                                                       "cards": tokens(state, hand), "replace": True})))
            for location in COLOURS:
                pile = state.piles[location]
                others = [c for c in hand if CARDS[c].colour not in (None, location)]
                if pile and others:
                    wrong.append(("take_other_colour", seat(me), Command("take", {
                        "location": location, "cards": tokens(state, others[:1] + hand), "replace": True})))
                if pile and all(CARDS[c].joker for c in pile):
                    wrong.append(("take_jokers_only", seat(me), Command("take", {
                        "location": location, "cards": tokens(state, jokers), "replace": True})))
                if pile and len(pile) < 3:
                    wrong.append(("take_too_small", seat(me), Command("take", {"location": location, "cards": [],
                                                                               "replace": True})))
                if pile and state.player(me).hunt(location) is not None:
                    wrong.append(("take_replaces_unsaid", seat(me), Command("take", {
                        "location": location, "cards": tokens(state, [c for c in hand
                                                                     if CARDS[c].colour in (None, location)])})))
            wrong += [("take_" + stranger, seat(me), Command("take", {"location": "red", "cards": [card_name],
                                                                      "replace": True})),
                      ("take_a_location_name", seat(me), Command("take", {"location": rnd.choice(LOCATIONS)}))]
    return rnd.choice(wrong)


# -- the game --------------------------------------------------------------------------------------

def play_game(players: int, options: Mapping[str, Any], key: bytes, rnd: random.Random,
              check: Check | None = None, limit: int = BUDGET, illegal: float = 0.05,
              offered: float = 0.05) -> Played:
    """One game to its end (or `limit` commands). `illegal`: how often an illegal command is tried
    first; `offered`: how often the move is one of `VAMPIR.actions` that validate allows instead
    (and every offered action's verdict is checked against the rules)."""
    rng = SeededRandomSource(key)
    normalized = normalize_options(options)
    seats = seats_for(players)
    state = GAME.setup(normalized, seats, rng)
    played = Played(state, normalized, seats, tuple(rng.draws))
    for steps in range(limit):
        if GAME.is_over(state):
            break
        if rnd.random() < illegal:
            # (A few of these turn out legal, say a hunt "of mixed colours" drawn from a one-colour
            # hand: the rules and validate must agree on those too, and they are not played.)
            what, actor, command = illegal_move(state, rnd)
            before = replace(state)
            refusal = GAME.validate(state, actor, command)
            assert (refusal is None) == legal(state, actor, command), \
                f"{what}: {actor} {command} in {state.phase}/{state.stage}: validate says {refusal}"
            assert state == before
            if refusal is not None:
                played.tried[what] += 1
                played.tried[f"refused:{refusal.code}"] += 1
        actor, command = next_move(state, rnd, steps)
        if rnd.random() < offered:
            viewer = rnd.choice([HOST, *(seat(p.seat) for p in state.players)]) if rnd.random() < 0.2 else actor
            allowed = []
            for action in GAME.actions(state, viewer):
                verdict = GAME.validate(state, viewer, action)
                assert (verdict is None) == legal(state, viewer, action), (viewer, action, verdict)
                if verdict is None:
                    allowed.append(action)
            if allowed:
                actor, command = viewer, rnd.choice(allowed)
        assert legal(state, actor, command), f"the player built an illegal {command}"
        refusal = GAME.validate(state, actor, command)
        assert refusal is None, f"{actor} {command} is legal but was refused: {refusal}"
        state, turn = told(GAME, state, actor, command, rng, check)
        played.turns.append(turn)
        played.events += turn.events
    played.state = state
    return played
