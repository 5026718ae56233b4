"""The table companion: a Raspberry Pi service that referees and augments real tabletop games."""

__version__ = "0.1.0"
