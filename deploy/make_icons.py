"""Draws the installable app's icons (issue 49 item 3) with the standard library only:
a silver eye on the night blue of the top bar, full bleed (so a "maskable" crop keeps the
eye, which sits inside the middle 60 %). Run once; the PNGs are committed:

    python deploy/make_icons.py
"""
from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

NIGHT = (0x1D, 0x23, 0x40)
SILVER = (0xC9, 0xCE, 0xD8)
ACCENT = (0x4F, 0x33, 0xAD)
WHITE = (0xFF, 0xFF, 0xFF)


def pixel(x: float, y: float) -> tuple[int, int, int]:
    """The colour at (x, y) in a unit square centred at 0: an eye (two arcs), its iris, a
    pupil and a glint."""
    r = math.hypot(x, y)
    # the eye's outline: the intersection of two discs whose centres sit above and below
    lens = math.hypot(x, y - 0.36) < 0.58 and math.hypot(x, y + 0.36) < 0.58
    if not lens:
        return NIGHT
    if math.hypot(x + 0.06, y + 0.06) < 0.04:
        return WHITE
    if r < 0.085:
        return NIGHT
    if r < 0.19:
        return ACCENT
    return SILVER


def png(size: int) -> bytes:
    rows = []
    for j in range(size):
        row = bytearray([0])
        for i in range(size):
            x, y = (i + 0.5) / size - 0.5, (j + 0.5) / size - 0.5
            row += bytes(pixel(x * 1.25, y * 1.25))
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    here = Path(__file__).resolve().parent.parent / "static" / "icons"
    for size in (192, 512):
        (here / f"icon-{size}.png").write_bytes(png(size))
