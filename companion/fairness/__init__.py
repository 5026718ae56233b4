"""Randomness that enters the rules only through an argument, so every outcome can be recorded."""
