"""Simulated tables for trying, testing and measuring the companion without the hardware or the
players: the buzzer box on a pseudo-terminal (`box`), the real firmware in simavr (`simavr`),
random players of each board game on the pure rules (`players`), and `companion serve` as a
subprocess (`service`).

The tests and the benchmarks use them as a user would, in the way gpiozero ships its MockFactory
inside the library. Nothing in the product imports this package: it sits above everything else.
"""
