"""Benchmarks (not tests): each module prints figures and asserts nothing; `report` runs them all
into one table. Run them as modules from the repository root, `.venv/bin/python -m bench.report`,
so that they import each other as `bench.*`; the tools they drive the service with are
`companion.sim`'s."""
