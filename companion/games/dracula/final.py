# scratch: replaced by the real module
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Final:
    burned: frozenset; dead: frozenset; dracula_burned: bool; points: dict; awards: dict
def final_outcome(vampires, dracula, humans, fighters, fled, points) -> Final:
    burned = frozenset(v for v in fighters.values() if v is not None)
    hit = dracula in burned
    pts = dict(points); awards: dict[int, list[Any]] = {}
    for s in fled: pts[s] += 0.5; awards.setdefault(s, []).append(("fled", 0.5))
    if hit:
        dead = frozenset(vampires)
    else:
        dead = burned | frozenset(fighters)
    for s in dead: pts[s] = 0
    return Final(burned, dead, hit, pts, awards)
