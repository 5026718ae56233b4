"""Configuration: sensible defaults, and one clear line naming the key for every mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.config import load_config
from companion.errors import ConfigError
from tests.conftest import config_error

EXAMPLE = Path(__file__).resolve().parent.parent / "companion.example.toml"


def test_no_file_gives_the_documented_defaults() -> None:
    config = load_config(None)
    assert (config.server.host, config.server.port) == ("0.0.0.0", 8080)
    assert config.table.seats == 6 and config.table.undo == "host_and_own" and config.table.language == "en"
    assert config.buttons.source == "auto"
    assert config.data_dir == Path("data")


def test_the_shipped_example_is_valid_and_matches_the_defaults() -> None:
    example = load_config(EXAMPLE)
    defaults = load_config(None)
    assert example.server == defaults.server
    assert example.table == defaults.table
    assert example.buttons == defaults.buttons
    assert example.catalogue == defaults.catalogue


def test_command_line_values_override_the_file(tmp_path: Path) -> None:
    path = tmp_path / "companion.toml"
    path.write_text('[server]\nport = 9000\nhost = "127.0.0.1"\n[data]\ndir = "games"\n')
    config = load_config(path, {"server.port": 9100, "server.host": None})
    assert config.server.port == 9100
    assert config.server.host == "127.0.0.1"
    assert config.data_dir == tmp_path / "games", "a relative data folder is relative to the config file"


@pytest.mark.parametrize(
    ("toml", "key", "problem"),
    [
        ("[server]\nport = 'http'\n", "server.port", "whole number from 1 to 65535"),
        ("[server]\nport = 70000\n", "server.port", "from 1 to 65535"),
        ("[server]\nport = true\n", "server.port", "whole number"),
        ("[server]\nthreads = 1\n", "server.threads", "from 4 to 1000"),
        ("[server]\nhost = ''\n", "server.host", "must not be empty"),
        ("[server]\npublic_url = 'pi.local:8080'\n", "server.public_url", "http://"),
        ("[server]\nprot = 8080\n", "server.prot", "did you mean 'port'?"),
        ("[table]\nseats = 1\n", "table.seats", "from 2 to 13"),
        ("[table]\nseats = 14\n", "table.seats", "from 2 to 13"),
        ("[table]\nlanguage = 'de'\n", "table.language", "'en', 'fr'"),
        ("[table]\nundo = 'always'\n", "table.undo", "'off', 'host', 'host_and_own'"),
        ("[table]\ntray = 'yahtzee'\n", "table.tray", "no dice preset called 'yahtzee'"),
        ("[buttons]\nsource = 'morse'\n", "buttons.source", "must be one of"),
        ("[data]\ndir = 5\n", "data.dir", "text in quotes"),
        ("[sever]\nport = 1\n", "sever", "did you mean 'server'?"),
        ("server = 5\n", "server", "must be a table"),
        ("[server\nport = 1\n", "(file)", "not valid TOML"),
    ],
)
def test_a_bad_value_names_its_key_and_problem(tmp_path: Path, toml: str, key: str, problem: str) -> None:
    error = config_error(tmp_path, toml)
    assert error.key == key
    assert problem in error.problem
    assert f": {key}: " in str(error)


def test_a_missing_config_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "absent.toml")


def test_a_bad_command_line_value_is_not_blamed_on_the_file(tmp_path: Path) -> None:
    path = tmp_path / "companion.toml"
    path.write_text("")
    with pytest.raises(ConfigError) as caught:
        load_config(path, {"server.port": 0})
    assert str(caught.value) == "server.port: must be from 1 to 65535 (got 0)"
