"""The companion as someone installs it: the wheel built from this tree holds every file the product
needs at run time, so a new game's scripts or a new package cannot silently drop out of it; and
installed into a fresh venv, away from the checkout, it serves the pages from its own copy.

The build and the install are offline: the wheel is built with this venv's setuptools (no isolated
build environment to download), and the fresh venv reads its dependencies from this venv's
site-packages."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import urllib.request
import zipfile
from email.message import Message
from pathlib import Path

import pytest

from companion.server.identity import SEAT_COOKIE
from companion.sim.service import ServiceProcess

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
BUILD_INPUTS = ("pyproject.toml", "setup.py", "README.md", "companion", "web")
"""What the build reads. It runs on a copy: a build writes into its source folder, and a stale build/
folder of the checkout could slip old files into the wheel."""
INSTALLED_AS = {"companion": "companion", "web": "companion/frontend"}
"""Where each folder of the tree lands in the wheel (setup.py installs web/ as companion.frontend)."""
CACHES = shutil.ignore_patterns("__pycache__", "*.pyc")


def runtime_files(root: Path) -> dict[str, str]:
    """Every file of companion/ and web/ (bytecode caches aside): the wheel's path -> the tree's path."""
    found: dict[str, str] = {}
    for folder, installed in INSTALLED_AS.items():
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                found[f"{installed}/{path.relative_to(root / folder).as_posix()}"] = path.relative_to(root).as_posix()
    return found


def run(*command: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run([str(word) for word in command], capture_output=True, text=True, cwd=cwd, timeout=300)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def build_wheel(folder: Path) -> Path:
    source = folder / "source"
    for name in BUILD_INPUTS:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=CACHES)
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
        "--wheel-dir", folder / "dist", source)
    (wheel,) = (folder / "dist").glob("*.whl")
    return wheel


def install(wheel: Path, venv: Path) -> Path:
    """A fresh venv holding the wheel; its site-packages path as the new venv sees it."""
    run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", wheel)
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())
    # This venv's site-packages go after the new venv's own, for the dependencies. The .pth files in
    # them (the checkout's editable install among them) are not read from a folder added this way.
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (site / "test-dependencies.pth").write_text("".join(f"{path}\n" for path in ours))
    return site


def fetch(url: str, body: object = None, cookie: str | None = None) -> tuple[str, bytes, Message]:
    """The final address (after redirects), the body and the headers of a 200 answer."""
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode())
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if cookie is not None:
        request.add_header("Cookie", cookie)
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200, (url, response.status)
        return response.url, response.read(), response.headers


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_every_file_of_the_product(wheel: Path) -> None:
    needed = runtime_files(ROOT)
    assert {"companion/frontend/static/live.js", "companion/frontend/translations/fr.json",
            "companion/data/dice.toml", "companion/server/openapi.json"} <= set(needed)
    with zipfile.ZipFile(wheel) as archive:
        held = {name for name in archive.namelist() if ".dist-info/" not in name}
        entry_points = next(archive.read(name).decode() for name in archive.namelist()
                            if name.endswith(".dist-info/entry_points.txt"))
    missing = [tree for path, tree in needed.items() if path not in held]
    assert not missing, ("not in the wheel (add them to [tool.setuptools.package-data] in pyproject.toml,"
                         f" or their package to setup.py): {missing}")
    assert held <= set(needed), f"in the wheel but not in the tree: {sorted(held - set(needed))}"
    assert "companion = companion.cli:main" in entry_points


def test_the_installed_wheel_serves_the_pages_from_its_own_copy(
        wheel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = install(wheel, tmp_path / "venv")
    away = tmp_path / "elsewhere"
    away.mkdir()
    monkeypatch.delenv("PYTHONPATH", raising=False)  # the service's environment is this one's
    imported = run(tmp_path / "venv" / "bin" / "python", "-c",
                   "import companion, companion.frontend as f; print(companion.__file__); print(f.__file__)", cwd=away)
    for path in imported.split():
        assert Path(path).is_relative_to(site), f"imported from {path}, not from the new venv's {site}"

    english = json.loads((ROOT / "web" / "translations" / "en.json").read_text("utf-8"))["ui"]
    service = ServiceProcess(tmp_path / "data", cwd=away, program=(str(tmp_path / "venv" / "bin" / "companion"),))
    service.start()
    try:
        url, table, _ = fetch(service.base + "/table")
        assert url.endswith("/table") and english["scan_to_join"] in table.decode()
        assert '<script src="/static/table.js">' in table.decode()

        code = service.get("/api/view?as=table")["table"]["join_code"]
        _, _, headers = fetch(service.base + "/api/join", {"code": code, "seat": 1, "name": "Ann"})
        cookie = headers["Set-Cookie"].split(";")[0]
        assert cookie.startswith(f"{SEAT_COOKIE}=")
        url, me, _ = fetch(service.base + "/me", cookie=cookie)
        assert url.endswith("/me") and english["hold_to_peek"] in me.decode()

        _, script, _ = fetch(service.base + "/static/live.js")
        assert script == (ROOT / "web" / "static" / "live.js").read_bytes()
    finally:
        service.stop()
