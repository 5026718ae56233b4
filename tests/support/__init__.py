"""The test suite's own helpers: what several test modules share (the browser and HTTP harnesses,
the leak watch, the soak's and the fault tests' service and clients, replay and statistics
checks). The tools a user or a benchmark needs too are in `companion.sim`."""
