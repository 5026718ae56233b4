"""The session at the table: seats, which game is on, and the command pipeline."""
