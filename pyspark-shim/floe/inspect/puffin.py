"""Reading Puffin files (statistics, deletion vectors, indices) and theta-sketch blobs.

Layout::

    Magic | Blob_1 ... Blob_n | Magic | FooterPayload | PayloadSize | Flags | Magic
                                      '------------------ footer -----------------'

Magic is ``PFA1``; PayloadSize is a little-endian int32; bit 0 of the first Flags byte marks an
LZ4-compressed footer payload, which is UTF-8 JSON: ``{"blobs": [...], "properties": {...}}``.
Blob codecs: none, ``lz4`` (one LZ4 frame), ``zstd`` (one Zstandard frame).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping
from typing import Any

from floe.errors import FloeError
from floe.inspect._paths import local_path

MAGIC = b"PFA1"
_TAIL = 4 + 4 + len(MAGIC)  # payload size, flags, magic
_FOOTER_COMPRESSED = 0x01


def read_puffin(path: str) -> dict[str, Any]:
    """Return the footer of the Puffin file at ``path``: ``{"blobs": [...], "properties": {}}``."""
    data = local_path(path).read_bytes()
    if len(data) < 2 * len(MAGIC) + _TAIL or data[: len(MAGIC)] != MAGIC:
        raise FloeError(f"Invalid Puffin file {path}: expected magic {MAGIC!r} at offset 0")
    if data[-len(MAGIC) :] != MAGIC:
        raise FloeError(f"Invalid Puffin file {path}: expected magic {MAGIC!r} at the end")
    payload_size, flags = struct.unpack_from("<iI", data, len(data) - _TAIL)
    payload_end = len(data) - _TAIL
    footer_start = payload_end - payload_size - len(MAGIC)
    if payload_size < 0 or footer_start < len(MAGIC):
        raise FloeError(f"Invalid Puffin file {path}: footer payload size {payload_size}")
    if data[footer_start : footer_start + len(MAGIC)] != MAGIC:
        raise FloeError(f"Invalid Puffin file {path}: expected magic at offset {footer_start}")
    payload = data[footer_start + len(MAGIC) : payload_end]
    if flags & _FOOTER_COMPRESSED:
        payload = _decompress("lz4", payload, path)
    footer = json.loads(payload.decode("utf-8"))
    if not isinstance(footer, dict) or not isinstance(footer.get("blobs"), list):
        raise FloeError(f"Invalid Puffin file {path}: footer has no blobs list")
    footer.setdefault("properties", {})
    return footer


def read_puffin_blob(path: str, blob: Mapping[str, Any]) -> bytes:
    """Return the decompressed bytes of ``blob`` (an item of ``read_puffin(path)["blobs"]``)."""
    offset, length = int(blob["offset"]), int(blob["length"])
    with local_path(path).open("rb") as f:
        f.seek(offset)
        raw = f.read(length)
    if len(raw) != length:
        raise FloeError(f"Invalid Puffin file {path}: blob at {offset} needs {length} bytes")
    codec = blob.get("compression-codec")
    return raw if codec in (None, "none") else _decompress(str(codec), raw, path)


def theta_estimate(sketch: bytes) -> float:
    """Return the distinct-count estimate of a serialized compact theta sketch."""
    from datasketches import compact_theta_sketch

    return float(compact_theta_sketch.deserialize(sketch).get_estimate())


def _decompress(codec: str, raw: bytes, path: str) -> bytes:
    if codec == "lz4":
        import lz4.frame

        return bytes(lz4.frame.decompress(raw))
    if codec == "zstd":
        import zstandard

        return bytes(zstandard.ZstdDecompressor().decompressobj().decompress(raw))
    raise FloeError(f"Unsupported Puffin compression codec {codec!r} in {path}")
