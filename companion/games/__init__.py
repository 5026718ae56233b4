"""Game definitions: pure rules, importing only the standard library and our pure helpers."""
