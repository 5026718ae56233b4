"""How precisely the buzzer box times presses: our sampler against the hobby-style build.

Runs the same random press script (single presses, and pairs and triples of players 0-20 us apart)
through both firmware builds in simavr, cycle by cycle, and prints each build's timestamp error
(reported minus true, in microseconds) and the ratio of their worst absolute errors. Deterministic:
the figures depend on the seed, not on the machine.

    .venv/bin/python -m bench.firmware_timing [--presses N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import statistics

from companion.buzzers.protocol import Event, FrameParser
from companion.sim.simavr import MS, TCCR1B, US, Script, build_firmware, run


def press_script(presses: int, seed: int) -> tuple[Script, list[tuple[int, int]]]:
    """Groups of 1-3 players, the later ones 0-20 us after the first, groups 60-90 ms apart."""
    rng = random.Random(seed)
    script, at = Script(), 2 * MS
    edges: list[tuple[int, int]] = []
    while len(edges) < presses:
        at += rng.randrange(60 * MS, 90 * MS)
        group = rng.sample(range(1, 9), rng.choice((1, 1, 2, 3)))
        for k, button in enumerate(group):
            when = at + (0 if k == 0 else rng.randrange(0, 20 * US))
            script.press(button, when).release(button, at + 20 * MS + 2 * US)
            edges.append((button, when))
    return script.end(at + 80 * MS), edges


def errors_us(variant: str, script: Script, edges: list[tuple[int, int]]) -> list[float]:
    result = run(build_firmware(variant), script, watch=(TCCR1B,))
    origin = result.timer_origin
    pressed: dict[int, list[int]] = {}
    for frame in FrameParser().feed(result.data):
        if isinstance(frame, Event) and frame.edge == 1:
            pressed.setdefault(frame.button, []).append(frame.ticks)
    errors = []
    seen: dict[int, int] = {}
    for button, cycle in edges:
        index = seen.get(button, 0)
        seen[button] = index + 1
        reported = pressed.get(button, [])
        if index < len(reported):
            errors.append((reported[index] - (cycle - origin)) / US)
    return errors


def describe(name: str, errors: list[float]) -> str:
    ordered = sorted(errors)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    median = statistics.median(ordered)
    return (f"{name:<8} {len(errors):>5} presses  error min {ordered[0]:+7.3f}  median {median:+7.3f}"
            f"  p99 {p99:+7.3f}  max {ordered[-1]:+7.3f} us  (worst |error| {max(abs(e) for e in errors):.3f} us)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=400)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    script, edges = press_script(args.presses, args.seed)
    ours = errors_us("sampler", script, edges)
    hobby = errors_us("hobby", script, edges)
    print(f"firmware timestamp error, {len(edges)} presses (seed {args.seed}), simavr ATmega328P at 16 MHz")
    print(describe("sampler", ours))
    print(describe("hobby", hobby))
    worst_ours, worst_hobby = max(abs(e) for e in ours), max(abs(e) for e in hobby)
    typical = statistics.median(abs(e) for e in hobby) / statistics.median(abs(e) for e in ours)
    print(f"worst-case error ratio hobby/sampler: {worst_hobby / worst_ours:.1f}x; "
          f"median |error| ratio: {typical:.1f}x")
    if len(hobby) < len(edges):
        print(f"the hobby build lost {len(edges) - len(hobby)} of {len(edges)} presses")


if __name__ == "__main__":
    main()
