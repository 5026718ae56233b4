"""Simulated tables for trying, testing and measuring the companion without the hardware or the
players: the buzzer box on a pseudo-terminal (`box`), the real firmware in simavr (`simavr`),
gpiozero's mock pins pressed from stdin (`mock_pins`), random players of each board game on the
pure rules (`players`), and `companion serve` as a subprocess (`service`) with phones and displays
on loopback (`clients`) reading their event streams (`streams`); phones on Wi-Fi against the real
referee (`wifi`), and a delay proxy that puts such a link between a phone and the real service
(`delayproxy`); Chromium's launch flags and a QR code reader for the browser tests and the
screenshot maker (`browser`).

The tests and the benchmarks use them as a user would, in the way gpiozero ships its MockFactory
inside the library. Nothing in the product imports this package: it sits above everything else.
"""
