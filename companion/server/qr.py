"""QR codes of the table's address: SVG for pages, text for the terminal."""

from __future__ import annotations

import html
import io
import re

import qrcode
import qrcode.image.svg


def qr_svg(data: str) -> str:
    """An inline SVG (no external file, works offline) that scales to its container; a screen
    reader reads the address it encodes, which its user can type instead of scanning."""
    code = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_M,
                         image_factory=qrcode.image.svg.SvgPathImage)
    code.add_data(data)
    code.make(fit=True)
    svg = code.make_image().to_string(encoding="unicode")
    # Let the page size it: drop the fixed millimetre size, keep the viewBox.
    label = html.escape(data, quote=True)
    opening = f'<svg role="img" aria-label="{label}"'
    return re.sub(r'^<svg width="[^"]*" height="[^"]*"', lambda _: opening, svg, count=1)


def qr_text(data: str) -> str:
    """Half-block characters, readable by a phone camera from a terminal with a dark background."""
    code = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(data)
    code.make(fit=True)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()
