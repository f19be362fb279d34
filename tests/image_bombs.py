"""Pixel bombs: PNGs whose few kilobytes declare tens of megapixels of one colour. Written row by
row through zlib, never as a Pillow image, so making one costs the test (or the benchmark) a
fraction of a second and no memory worth measuring."""

from __future__ import annotations

import struct
import zlib

# Pillow's mode, the PNG colour type and the bytes of one pixel.
_MODES = {"L": (0, 1), "RGB": (2, 3), "RGBA": (6, 4)}


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png_bomb(width: int, height: int, mode: str = "L") -> bytes:
    """A valid PNG of ``width`` x ``height`` zero pixels of ``mode`` (L, RGB or RGBA)."""
    colour_type, channels = _MODES[mode]
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    compressor = zlib.compressobj(9)
    row = b"\x00" * (1 + width * channels)  # filter type 0, then the row's samples
    compressed = [compressor.compress(row) for _ in range(height)]
    compressed.append(compressor.flush())
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", b"".join(compressed))
        + _chunk(b"IEND", b"")
    )
