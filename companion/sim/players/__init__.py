"""Random players of complete games on the pure rules (no table, no store), one module per board
game: the property tests' engines, the rules' speed in the benchmarks, and a quick way to reach
every corner of a game's rules."""
