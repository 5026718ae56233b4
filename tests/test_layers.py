"""The package's layers, written down: every module sits in one, and imports only from its own
layer or below, with no import cycle anywhere (not even one dodged by an import inside a function),
and no web blueprint imports another.

Every import counts: at the top, inside functions, under `if TYPE_CHECKING:`. A new module or
package fails here until it is given a layer below.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = "companion"
ROOT = Path(__file__).resolve().parent.parent
"""The checkout whose package is checked (a copy of the tree checks itself the same way)."""

LAYERS: list[tuple[str, list[str]]] = [
    # (why it sits here, its files and folders); bottom first. A folder entry ends with "/".
    ("the ground: the version, the one clock, errors, words in two languages, the network, alarms, the heap, "
     "JSON values alike",
     ["companion/__init__.py", "companion/clock.py", "companion/errors.py", "companion/i18n.py",
      "companion/netinfo.py", "companion/alarm.py", "companion/heap.py", "companion/json_values.py"]),
    ("records and randomness: the event store, seeded draws, dice, facts from the rule specs; no game",
     ["companion/store/", "companion/fairness/", "companion/dice.py", "companion/data/"]),
    ("the games' pure rules: only the standard library and the helpers below, so any game replays",
     ["companion/games/"]),
    ("the session at the table: seats, the command pipeline, game runs, deadlines, export, verify",
     ["companion/table/"]),
    ("the buttons: press sources, the buzzer box, the referee, the round keeper; they feed the table",
     ["companion/buzzers/"]),
    ("the config file, which builds each part's own settings",
     ["companion/config.py"]),
    ("the running service, and its installation as a system service",
     ["companion/service.py", "companion/deploy/"]),
    ("the web: the Flask app and its blueprints (the pages' files are in web/, outside the package)",
     ["companion/server/"]),
    ("the command line",
     ["companion/cli.py", "companion/__main__.py"]),
    ("tools for users, tests and benches (simulated box, players, service runner); the product never imports them",
     ["companion/sim/"]),
]


@dataclass(frozen=True, slots=True)
class Module:
    path: str
    """Relative to the checkout, e.g. companion/buzzers/gpio.py."""
    name: str
    """Dotted, e.g. companion.buzzers.gpio (a package's __init__.py is the package)."""


def layer_of(path: str) -> int | None:
    """The layer number (1 at the bottom) of a module's file, or None when no entry holds it."""
    for number, (_, entries) in enumerate(LAYERS, start=1):
        if any(path == entry or (entry.endswith("/") and path.startswith(entry)) for entry in entries):
            return number
    return None


def modules(root: Path) -> dict[str, Module]:
    """Every module of the package under `root`, by dotted name."""
    found = {}
    for file in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(file.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        module = Module(file.relative_to(root).as_posix(), ".".join(parts))
        found[module.name] = module
    return found


def imported(module: Module, root: Path, known: dict[str, Module]) -> Iterator[str]:
    """The package's modules that `module` imports, anywhere in its text."""
    tree = ast.parse((root / module.path).read_text(), module.path)
    package = module.name if module.path.endswith("__init__.py") else module.name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from a import b` imports the module a.b when there is one, else a name of a.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            if target.split(".")[0] == PACKAGE:
                # `import a.b.c` where c is no module of ours still names the module a.b
                while target not in known and "." in target:
                    target = target.rpartition(".")[0]
                yield target


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture
def graph(root: Path) -> dict[str, set[str]]:
    known = modules(root)
    return {name: set(imported(module, root, known)) - {name} for name, module in known.items()}


def test_every_module_has_a_layer(root: Path) -> None:
    unplaced = [m.path for m in modules(root).values() if layer_of(m.path) is None]
    assert not unplaced, "\n".join(f"{path}: in no layer; give it one in LAYERS (tests/test_layers.py)"
                                   for path in unplaced)


def test_every_import_points_down(root: Path, graph: dict[str, set[str]]) -> None:
    known = modules(root)
    upward = []
    for name, targets in sorted(graph.items()):
        source = known[name]
        here = layer_of(source.path)
        for target in sorted(targets):
            there = layer_of(known[target].path)
            if here is not None and there is not None and there > here:
                upward.append(f"{source.path} imports {target} (layer {there} above {here}: "
                              f"{LAYERS[there - 1][0]})")
    assert not upward, "\n".join(upward)


def test_blueprints_share_only_through_common_modules(root: Path, graph: dict[str, set[str]]) -> None:
    """A blueprint (one surface of the web server) never imports another: what two need lives in
    a module both import (companion/server/common.py)."""
    known = modules(root)
    blueprints = {name for name, module in known.items() if _makes_blueprint(root / module.path)}
    assert {"companion.server.api", "companion.server.buttons", "companion.server.pages"} <= blueprints
    borrowed = [f"{known[name].path} imports {target}, another blueprint"
                for name in sorted(blueprints) for target in sorted(graph[name] & blueprints)]
    assert not borrowed, "\n".join(borrowed)


def _makes_blueprint(path: Path) -> bool:
    """Whether the module calls Flask's `Blueprint(...)`."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name == "Blueprint":
                return True
    return False


def test_no_import_cycles(graph: dict[str, set[str]]) -> None:
    cycles = [f"{' -> '.join([*cycle, cycle[0]])} (all that import each other: {', '.join(group)})"
              for group, cycle in import_cycles(graph)]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def import_cycles(graph: dict[str, set[str]]) -> list[tuple[list[str], list[str]]]:
    """Each group of modules that import each other, directly or not, with one cycle through it
    (Tarjan's strongly connected components, then a path around each)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [(group, _cycle_in(group, graph)) for group in groups]


def _cycle_in(group: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A path from the group's first module back to itself, inside the group."""
    members = set(group)
    start = group[0]
    path = [start]
    seen = {start}
    while True:
        step = sorted(t for t in graph[path[-1]] if t in members)
        if start in step and len(path) > 1:
            return path
        fresh = [t for t in step if t not in seen]
        if not fresh:
            return path
        path.append(fresh[0])
        seen.add(fresh[0])


def test_the_checks_see_what_they_should(tmp_path: Path) -> None:
    """The parser and the cycle finder on a tiny package: an import in a function, one under
    TYPE_CHECKING and a relative one all count."""
    package = tmp_path / PACKAGE
    (package / "games").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "clock.py").write_text("def f():\n    from companion.games import rules\n")
    (package / "games" / "__init__.py").write_text("")
    (package / "games" / "rules.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import views\n")
    (package / "games" / "views.py").write_text("import companion.games.rules\n")
    known = modules(tmp_path)
    graph = {name: set(imported(module, tmp_path, known)) for name, module in known.items()}
    assert graph["companion.clock"] == {"companion.games.rules"}
    assert graph["companion.games.rules"] == {"companion.games.views"}
    assert graph["companion.games.views"] == {"companion.games.rules"}
    pair = ["companion.games.rules", "companion.games.views"]
    assert import_cycles(graph) == [(pair, pair)]
    assert layer_of("companion/clock.py") == 1 and layer_of("companion/games/rules.py") == 3
    assert layer_of("companion/nowhere.py") is None
