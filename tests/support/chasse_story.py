"""One evening of La chasse au vampire scripted end to end, for the table test and the browser test:
a bite answered by garlic, a transfusion completed, one that runs out at nightfall, and a crypt win.

The script needs a deal that allows it, which no seat may choose: the test looks at the deal with
a god's eye (the test alone reads the stacks, from the state or the log) and has the host start
the game again until the shuffle gives one (about one deal in a hundred):

* G, a traveller whose garlic lies on top of a blood-group card;
* B, a traveller whose blood group lies on top of the stake;
* C, a traveller whose blood group lies on top;
* G's blood may save B and C (so neither is converted at once for want of a donor).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.games.chasse.options import gives_to


@dataclass(frozen=True)
class Cast:
    master: int
    garlic: int
    """G: bites on garlic, then gives blood to B."""
    saved: int
    """B: bitten, saved at the Doctor's House, then deposits the stake."""
    lost: int
    """C: bitten, converted at nightfall."""


def cast_of(options: Mapping[str, Any], cards: Sequence[Mapping[str, Any]], stacks: Mapping[int, Sequence[int]],
            master: int) -> Cast | None:
    """The roles a deal allows, or None. `cards` are the catalogue (kind, group by number) and
    `stacks` each traveller's cards, top first."""
    def kind(number: int) -> str:
        return str(cards[number]["kind"])

    def group(number: int) -> str:
        return str(cards[number]["group"])

    for g, b, c in itertools.permutations(sorted(stacks), 3):
        sg, sb, sc = stacks[g], stacks[b], stacks[c]
        if len(sg) == 2 and len(sb) == 2 and sc \
                and (kind(sg[0]), kind(sg[1]), kind(sb[0]), kind(sb[1]), kind(sc[0])) \
                == ("garlic", "blood", "blood", "stake", "blood") \
                and gives_to(options, group(sg[1]), group(sb[0])) and gives_to(options, group(sg[1]), group(sc[0])):
            return Cast(master, g, b, c)
    return None
