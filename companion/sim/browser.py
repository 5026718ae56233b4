"""What the browser tests and the screenshot maker share to drive Debian's Chromium (through
Playwright, which the callers import) and to read a page's QR code as a phone's camera would.

Kept free of Playwright and pytest, so that one set of launch flags and one QR reader serve both
the tests and scripts/first_evening_screenshots.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium: Playwright's own browser download is never used."""
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_found() -> bool:
    """CHROMIUM is installed and can be run."""
    return os.path.exists(CHROMIUM) and os.access(CHROMIUM, os.X_OK)


def decode_qr(png: Path) -> str:
    """The text of the one QR code in a picture, read by zbar (Debian's zbar-tools). RuntimeError,
    saying why, when zbarimg is missing or the picture does not hold exactly one code."""
    zbarimg = shutil.which("zbarimg")
    if zbarimg is None:
        raise RuntimeError("zbarimg is missing: install Debian's zbar-tools package (./test installs it)")
    done = subprocess.run([zbarimg, "--raw", "--quiet", str(png)], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise RuntimeError(f"no QR code found in {png}: {done.stderr.strip()}")
    lines = done.stdout.splitlines()
    if len(lines) != 1:
        raise RuntimeError(f"expected one QR code in {png}, read {lines}")
    return lines[0]
