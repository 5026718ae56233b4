"""How precisely the buzzer box times presses: our sampler against the hobby-style build.

Runs the same press set (companion/sim/presses.py: groups of 1-8 players within 20 us of each
other, most presses and releases followed by contact bounce) through both firmware builds in simavr,
cycle by cycle, and prints each build's timestamp error on every press and release (reported minus
true, in microseconds), what it lost, reported extra or moved (dated more than 100 us from the
edge, at a bounce), and the ratio of their errors. Deterministic: the figures depend on the seed,
not on the machine.

    .venv/bin/python -m bench.firmware_timing [--presses N] [--seed S]
"""

from __future__ import annotations

import argparse
import statistics

from companion.sim.presses import Evaluation, PressPlan, PressSet, evaluate, generate, percentile
from companion.sim.simavr import TCCR1B, build_firmware, run

RUN_TIMEOUT_S = 600.0
"""simavr runs 10,000 presses in about 11 s on one core of a desktop machine; a Pi 4 is a few times slower."""


def press_set(presses: int, seed: int) -> PressSet:
    """The acceptance test's kind of press set, `presses` presses long."""
    return generate(PressPlan(presses=presses, seed=seed))


def measure(variant: str, presses: PressSet) -> Evaluation:
    """One build's run of the press set, judged against its truth."""
    result = run(build_firmware(variant), presses.script, watch=(TCCR1B,), timeout=RUN_TIMEOUT_S)
    return evaluate(result, presses.edges)


def counts(evaluation: Evaluation) -> str:
    """What went wrong besides the error: lost, extra and moved edges."""
    return (f"lost {len(evaluation.lost)}, extra {len(evaluation.extra)}, "
            f"moved {len(evaluation.moved)} (>{evaluation.moved_us:.0f} us)")


def describe(name: str, evaluation: Evaluation) -> str:
    errors = evaluation.errors_us
    if not errors:
        return f"{name:<8} no edge reported; {counts(evaluation)}"
    magnitudes = [abs(e) for e in errors]
    return (f"{name:<8} {len(errors):>5} edges  error min {min(errors):+7.3f}  median {statistics.median(errors):+7.3f}"
            f"  max {max(errors):+9.3f} us  |error| p50 {percentile(magnitudes, 50):.3f}"
            f"  p99 {percentile(magnitudes, 99):.3f}  worst {max(magnitudes):.3f} us;  {counts(evaluation)}")


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    presses = press_set(args.presses, args.seed)
    ours = measure("sampler", presses)
    hobby = measure("hobby", presses)
    print(f"firmware timestamp error, {presses.presses} presses + releases in {presses.groups} groups of 1-8 "
          f"within 20 us, {presses.transitions} pin changes with bounces (seed {args.seed}), "
          "simavr ATmega328P at 16 MHz")
    print(describe("sampler", ours))
    print(describe("hobby", hobby))
    if ours.errors_us and hobby.errors_us:
        mine, theirs = [abs(e) for e in ours.errors_us], [abs(e) for e in hobby.errors_us]
        print(f"|error| ratio hobby/sampler: median {ratio(percentile(theirs, 50), percentile(mine, 50)):.1f}x, "
              f"p99 {ratio(percentile(theirs, 99), percentile(mine, 99)):.1f}x, "
              f"worst {ratio(max(theirs), max(mine)):.1f}x")


if __name__ == "__main__":
    main()
