"""What each screen of La chasse au vampire may show, its secrets, its log lines and its actions.

Public (rules 5.5): who is what (pawn colours), where each pawn stands, how many cards each stack
and the chapel pile hold, the crypt's cards, the glass, the transfusions under way. Secret to
everyone, the owner and the host included (C-K1): every card of every stack and of the chapel
pile, until the rules turn it face up (a riposte, a crypt deposit). A volunteer's blood is
answered yes or no, never shown.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import SYSTEM, Command, Deadline, Event, Secret, Viewer
from companion.games.chasse.options import unverified
from companion.games.chasse.rules import PLACES, bitable_at, board_of, may_bite, reachable, still_to_roll
from companion.games.chasse.state import ChasseState, Pawn
from companion.games.chasse.story import square_json
from companion.games.lines import log_line
from companion.games.offers import offered
from companion.games.picture import shared_picture


def _pawn_json(state: ChasseState, pawn: Pawn) -> dict[str, Any]:
    return {"seat": pawn.seat, "name": pawn.name, "role": pawn.role, "place": pawn.place,
            "square": square_json(pawn.square), "cards": len(pawn.stack), "transfused": pawn.transfused,
            "deposited": pawn.deposited}


def _picture(state: ChasseState) -> dict[str, Any]:
    return shared_picture(state.wall, lambda: _build_picture(state))


def _build_picture(state: ChasseState) -> dict[str, Any]:
    crypt = [state.cards[c].kind for c in state.crypt]
    return {
        "phase": state.phase,
        "board_mode": state.options["board_mode"],
        "board": state.options["board"] if board_of(state) is not None else None,
        "glass": state.glass.to_json() if state.glass else None,
        "players": [_pawn_json(state, p) for p in state.players],
        "order": list(state.order),
        "start": {"round": state.start.get("round", 1), "contenders": list(state.start.get("contenders", [])),
                  "rolls": dict(state.start.get("rolls", {})), "last": dict(state.start.get("last", {})),
                  "waiting": still_to_roll(state) if state.phase == "start_roll" else []},
        "current": state.current,
        "stage": state.stage(),
        "roll": state.roll,
        "allowance": state.allowance,
        "chapel_pile": len(state.chapel),
        "crypt": {kind: crypt.count(kind) for kind in ("garlic", "water", "cross", "stake")},
        "transfusions": [t.to_json() for t in state.transfusions],
        "circle_used": state.circle_used,
        "revealed": dict(state.revealed) if state.revealed else None,
        "happenings": [dict(h) for h in state.happenings],
        "winner": state.winner,
        "winners": list(state.winners),
        "options": {k: v for k, v in state.options.items() if k != "board"},
        "unverified": unverified(state.options),
    }


def view(state: ChasseState, viewer: Viewer) -> dict[str, Any]:
    """Everyone sees the same picture; the mover's phone also gets where its pawn may go (the
    companion's board) and whom it may bite. Nobody's view holds a card of a stack."""
    picture = _picture(state)
    if viewer.kind != "seat" or viewer.seat is None or not state.seated(viewer.seat):
        return picture
    me = viewer.seat
    mine: dict[str, Any] = {"me": me}
    if state.stage() == "move" and state.current == me and not state.paused():
        if board_of(state) is not None:
            mine["reach"] = [{"to": square_json(to), "bites": _bites(state, me, victims)}
                             for to, victims in sorted(reachable(state, me).items())]
        elif state.player(me).vampire:
            mine["bites"] = [p.seat for p in state.travellers() if may_bite(state, me, p.seat) is None]
    return {**picture, **mine}


def _bites(state: ChasseState, me: int, victims: frozenset[tuple[int, int] | None]) -> list[int]:
    """The seats this vampire may bite on its way to one square."""
    return sorted(seat for v in victims if v is not None for seat in bitable_at(state, me, v))


def _nobody(viewer: Viewer) -> bool:
    return False


def secrets(state: ChasseState) -> list[Secret]:
    """Every card in a stack or in the chapel pile, for every viewer, owners and host included."""
    hidden = [Secret(state.cards[c].token, _nobody, f"a card in seat {p.seat}'s stack")
              for p in state.players for c in p.stack]
    hidden += [Secret(state.cards[c].token, _nobody, f"the chapel pile's card {i + 1}")
               for i, c in enumerate(state.chapel)]
    return hidden


def waiting_for(state: ChasseState) -> list[int]:
    """The seats the game waits on: the start roll's, then the turn's player (nobody while the
    glass is paused or once the game is over)."""
    if state.phase == "start_roll":
        return still_to_roll(state)
    if state.phase != "play" or state.paused() or state.current is None:
        return []
    return [state.current]


def deadline(state: ChasseState) -> Deadline | None:
    """The glass runs out: the system turns it over (C-M5)."""
    glass = state.glass
    if state.phase != "play" or glass is None or glass.ends_us is None:
        return None
    return Deadline(glass.ends_us, glass.since_us, offered("turn_over", turns=glass.turns))


def runs_in_real_time(state: ChasseState) -> bool:
    return state.phase == "play" and state.glass is not None and state.glass.running


def actions(state: ChasseState, viewer: Viewer) -> list[Command]:
    """Everything this viewer might do now; the table marks each allowed or not, with the reason."""
    if viewer == SYSTEM:
        glass = state.glass
        return [offered("turn_over", turns=glass.turns)] if runs_in_real_time(state) and glass else []
    if state.phase == "start_roll":
        return [offered("roll")]
    if state.phase != "play":
        return []
    if viewer.kind == "host":
        return [offered("resume_glass" if state.paused() else "pause_glass")]
    if viewer.kind == "table":
        return [offered("roll")] if state.stage() == "roll" else []
    me = viewer.seat
    if me is None or not state.seated(me):
        return []
    commands: list[Command] = []
    if state.current == me:
        commands += _turn_actions(state, me)
    pawn = state.player(me)
    if pawn.role == "traveller":
        commands += [offered("offer_blood", victim=t.victim) for t in state.transfusions
                     if t.victim != me and t.donor is None]
    return commands


def _turn_actions(state: ChasseState, me: int) -> list[Command]:
    if state.stage() == "roll":
        return [offered("roll")]
    if board_of(state) is not None:
        moves = [Command("move", {"to": square_json(to), "bite": bite})
                 for to, victims in sorted(reachable(state, me).items())
                 for bite in ([None] if None in victims else []) + _bites(state, me, victims)]
        return moves or [offered("stay")]
    pawn = state.player(me)
    stops = [offered("stop", place=place) for place in PLACES]
    if pawn.vampire:
        stops += [offered("stop", place=place, bite=p.seat) for p in state.travellers()
                  for place in PLACES if may_bite(state, me, p.seat) is None]
    return stops


_WORDS = {
    "en": {
        "start_rolled": "seat {seat} rolled {roll} for the master vampire",
        "start_tied": "a tie at {roll}: seats {seats} roll again",
        "master_chosen": "seat {seat} is the master vampire ({roll})",
        "cards_dealt": "two cards dealt face down to each traveller; {pile} in the chapel pile",
        "glass_turned": "the glass turned: {side}",
        "glass_paused": "the glass paused", "glass_resumed": "the glass runs again",
        "glass_held": "the glass resumed after the service stopped",
        "turn_begun": "seat {seat}'s turn",
        "turn_rolled": "seat {seat} rolled {roll}: {allowance} {allowance|square|squares}",
        "pawn_moved": "seat {seat} stopped at {place}",
        "pawn_blocked": "seat {seat} could not move and stays",
        "bite_answered": "seat {biter} bit seat {victim}, who showed {kind}",
        "bite_unanswered": "seat {biter} bit seat {victim}, who had no card",
        "vampire_sent": "to the cemetery: seats {seats} ({why})",
        "converted": "seat {seat} became a disciple ({why})",
        "transfusion_needed": "seat {victim} needs blood of a donor for group {group}",
        "donor_lost": "seat {donor}, bitten, can no longer give to seat {victim}",
        "blood_offered": "seat {donor} offered blood to seat {victim}: {compatible}",
        "doctor_reached": "seat {seat} reached the Doctor's House for seat {victim}",
        "transfusion_done": "seat {donor} gave blood to seat {victim}: saved",
        "transfusion_failed": "night fell before seat {victim}'s transfusion",
        "card_drawn": "seat {seat} drew a card in the chapel, unseen",
        "chapel_empty": "the chapel pile is empty",
        "card_deposited": "seat {seat} deposited {kind} in the crypt",
        "nothing_to_deposit": "seat {seat} had no card to deposit",
        "circle_used": "seat {seat} stopped on the magic circle",
        "building_closed": "the {place} closed: seats {seats} must leave",
        "game_won": "the game is won: {winner} ({how})",
    },
    "fr": {
        "start_rolled": "la place {seat} a fait {roll} pour le maître vampire",
        "start_tied": "égalité à {roll} : les places {seats} relancent",
        "master_chosen": "la place {seat} est le maître vampire ({roll})",
        "cards_dealt": "deux cartes face cachée pour chaque voyageur ; {pile} dans la pile de la chapelle",
        "glass_turned": "le sablier est retourné : {side}",
        "glass_paused": "sablier en pause", "glass_resumed": "le sablier repart",
        "glass_held": "le sablier repart après l'arrêt du service",
        "turn_begun": "au tour de la place {seat}",
        "turn_rolled": "la place {seat} a fait {roll} : {allowance} {allowance|case|cases}",
        "pawn_moved": "la place {seat} s'est arrêtée : {place}",
        "pawn_blocked": "la place {seat} ne peut pas bouger et reste là",
        "bite_answered": "la place {biter} a mordu la place {victim}, qui a montré {kind}",
        "bite_unanswered": "la place {biter} a mordu la place {victim}, qui n'avait pas de carte",
        "vampire_sent": "au cimetière : places {seats} ({why})",
        "converted": "la place {seat} est devenue disciple ({why})",
        "transfusion_needed": "la place {victim} a besoin d'un donneur pour le groupe {group}",
        "donor_lost": "la place {donor}, mordue, ne peut plus donner à la place {victim}",
        "blood_offered": "la place {donor} a proposé son sang à la place {victim} : {compatible}",
        "doctor_reached": "la place {seat} est chez le docteur pour la place {victim}",
        "transfusion_done": "la place {donor} a donné son sang à la place {victim} : sauvée",
        "transfusion_failed": "la nuit est tombée avant la transfusion de la place {victim}",
        "card_drawn": "la place {seat} a pioché une carte à la chapelle, sans la voir",
        "chapel_empty": "la pile de la chapelle est vide",
        "card_deposited": "la place {seat} a déposé {kind} dans la crypte",
        "nothing_to_deposit": "la place {seat} n'avait pas de carte à déposer",
        "circle_used": "la place {seat} s'est arrêtée sur le cercle magique",
        "building_closed": "{place} fermée : les places {seats} doivent sortir",
        "game_won": "la partie est gagnée : {winner} ({how})",
    },
}


def describe(event: Event, lang: str) -> str:
    """One line for logs and `companion replay`: never a stack's or the pile's cards."""
    data = event.data
    params: dict[str, Any] = {k: v for k, v in data.items() if k not in ("stacks", "chapel", "card", "squares")}
    if event.type == "cards_dealt":
        params["pile"] = len(data["chapel"])
    if event.type == "card_deposited" or event.type == "bite_answered":
        params["kind"] = f"{data['kind']} {data['group']}" if data.get("group") else data["kind"]
    for key in ("seats", "winners"):
        if key in params:
            params[key] = ", ".join(str(s) for s in params[key])
    return log_line(_WORDS, lang, event.type, params, event.type)
