"""Reading Puffin files (statistics, deletion vectors, indices) and theta-sketch blobs.

Layout (F = the footer's offset, S = the file's size)::

    offset:  0       4                      F       F+4               S-12    S-8     S-4
             | Magic | Blob_1 ... Blob_n    | Magic | FooterPayload   | Size  | Flags | Magic |
                                            '----------- footer: Size + 16 bytes ------------'

Magic is ``PFA1``; Size is the payload length, a little-endian int32; bit 0 of the first Flags byte
marks an LZ4-compressed footer payload (every other flag bit must be 0), which is UTF-8 JSON:
``{"blobs": [...], "properties": {...}}``. Each blob lies in ``[4, F)``. Blob codecs: none,
``lz4`` (one LZ4 frame), ``zstd`` (one Zstandard frame). Every error names the file and the offset.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO

from floe.errors import FloeError
from floe.inspect._paths import local_path

MAGIC = b"PFA1"
_MAGIC_LEN = len(MAGIC)
_SIZE_AND_FLAGS = 4 + 4
_TAIL = _SIZE_AND_FLAGS + _MAGIC_LEN  # payload size, flags, magic
_FOOTER_OVERHEAD = _MAGIC_LEN + _TAIL  # footer = magic | payload | size | flags | magic
_MIN_FILE = _MAGIC_LEN + _FOOTER_OVERHEAD
_FOOTER_COMPRESSED = 0x01  # byte 0, bit 0
CODECS = ("none", "lz4", "zstd")
_REQUIRED_BLOB_FIELDS = ("type", "fields", "snapshot-id", "sequence-number", "offset", "length")


def read_puffin(path: str) -> dict[str, Any]:
    """Return the validated footer of the Puffin file at ``path``:
    ``{"blobs": [...], "properties": {...}}``.

    Checks the magic at offset 0, before the footer and at the end, the payload size, the flags,
    the footer JSON and every blob's fields, codec, offset and length (inside the blob area).
    """
    file = local_path(path)
    with _open(file, path) as f:
        size = _size(f)
        if size < _MIN_FILE:
            raise _invalid(
                path, f"file ends at offset {size}, a Puffin file has at least {_MIN_FILE} bytes"
            )
        _expect_magic(f, path, 0)
        _expect_magic(f, path, size - _MAGIC_LEN)
        payload_size, flags = struct.unpack("<iI", _read_at(f, path, size - _TAIL, _SIZE_AND_FLAGS))
        footer_start = size - _FOOTER_OVERHEAD - payload_size
        if payload_size < 0 or footer_start < _MAGIC_LEN:
            raise _invalid(
                path,
                f"footer payload size {payload_size} at offset {size - _TAIL} does not fit in a "
                f"file of {size} bytes",
            )
        if flags & ~_FOOTER_COMPRESSED:
            raise _invalid(path, f"unknown footer flags 0x{flags:08x} at offset {size - _TAIL + 4}")
        _expect_magic(f, path, footer_start)
        payload_offset = footer_start + _MAGIC_LEN
        payload = _read_at(f, path, payload_offset, payload_size)
    if flags & _FOOTER_COMPRESSED:
        payload = _decompress("lz4", payload, path, payload_offset)
    try:
        footer = json.loads(payload.decode("utf-8"))
    except ValueError as e:
        raise _invalid(path, f"footer payload at offset {payload_offset} is not JSON: {e}") from e
    except RecursionError as e:
        raise _invalid(path, f"footer payload at offset {payload_offset} nests too deeply") from e
    if not isinstance(footer, dict) or not isinstance(footer.get("blobs"), list):
        raise _invalid(path, f"footer payload at offset {payload_offset} has no blobs list")
    properties = footer.setdefault("properties", {})
    if not isinstance(properties, dict):
        raise _invalid(path, f"footer payload at offset {payload_offset}: properties not a map")
    for index, blob in enumerate(footer["blobs"]):
        _check_blob(path, index, blob, footer_start)
    return footer


def read_puffin_blob(path: str, blob: Mapping[str, Any]) -> bytes:
    """Return the decompressed bytes of ``blob`` (an item of ``read_puffin(path)["blobs"]``)."""
    offset, length = int(blob["offset"]), int(blob["length"])
    codec = _codec(path, blob, offset)
    with _open(local_path(path), path) as f:
        size = _size(f)
        if offset < _MAGIC_LEN or length < 0 or offset + length > size:
            raise _invalid(
                path, f"blob at offset {offset} with length {length} lies outside the file "
                f"({size} bytes)"
            )  # fmt: skip
        raw = _read_at(f, path, offset, length)
    return raw if codec == "none" else _decompress(codec, raw, path, offset)


def read_puffin_range(path: str, offset: int, length: int) -> bytes:
    """Return ``length`` raw bytes at ``offset`` of the Puffin file at ``path`` (a part of a blob,
    such as one index page); fails naming the file when they are not all there."""
    with _open(local_path(path), path) as f:
        return _read_at(f, path, offset, length)


def theta_estimate(sketch: bytes) -> float:
    """Return the distinct-count estimate of a serialized compact theta sketch."""
    from datasketches import compact_theta_sketch

    return float(compact_theta_sketch.deserialize(sketch).get_estimate())


def _check_blob(path: str, index: int, blob: Any, footer_start: int) -> None:
    if not isinstance(blob, dict):
        raise _invalid(path, f"blob {index} of the footer is not an object")
    missing = [k for k in _REQUIRED_BLOB_FIELDS if k not in blob]
    if missing:
        raise _invalid(path, f"blob {index} of the footer lacks {', '.join(missing)}")
    numbers = ("snapshot-id", "sequence-number", "offset", "length")
    if not isinstance(blob["type"], str) or not all(_is_int(blob[k]) for k in numbers):
        raise _invalid(path, f"blob {index} of the footer has a field of the wrong type: {blob}")
    if not isinstance(blob["fields"], list) or not all(_is_int(v) for v in blob["fields"]):
        raise _invalid(path, f"blob {index} of the footer: fields must be a list of field ids")
    offset, length = blob["offset"], blob["length"]
    _codec(path, blob, offset)
    if offset < _MAGIC_LEN or length < 0 or offset + length > footer_start:
        raise _invalid(
            path,
            f"blob {index} ({blob['type']}) at offset {offset} with length {length} lies outside "
            f"the blob area [{_MAGIC_LEN}, {footer_start})",
        )
    if "properties" in blob and not isinstance(blob["properties"], dict):
        raise _invalid(path, f"blob {index} at offset {offset}: properties not a map")


def _codec(path: str, blob: Mapping[str, Any], offset: int) -> str:
    codec = blob.get("compression-codec")
    name = "none" if codec is None else str(codec)
    if name not in CODECS:
        raise FloeError(
            f"Unsupported Puffin compression codec {name!r} of the blob at offset {offset} in "
            f"{path} (supported: {', '.join(CODECS)})"
        )
    return name


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _open(file: Path, path: str) -> BinaryIO:
    try:
        return file.open("rb")
    except OSError as e:
        raise FloeError(f"Cannot read Puffin file {path}: {e}") from e


def _size(f: BinaryIO) -> int:
    return f.seek(0, 2)


def _read_at(f: BinaryIO, path: str, offset: int, length: int) -> bytes:
    f.seek(offset)
    data = f.read(length)
    if len(data) != length:
        raise _invalid(path, f"needs {length} bytes at offset {offset}, found {len(data)}")
    return data


def _expect_magic(f: BinaryIO, path: str, offset: int) -> None:
    found = _read_at(f, path, offset, _MAGIC_LEN)
    if found != MAGIC:
        raise _invalid(path, f"expected magic {MAGIC!r} at offset {offset}, found {found!r}")


def _invalid(path: str, problem: str) -> FloeError:
    return FloeError(f"Invalid Puffin file {path}: {problem}")


def _decompress(codec: str, raw: bytes, path: str, offset: int) -> bytes:
    # As the JVM reader: at most 256 times the stored size (16 MiB to 256 MiB), since a few KiB
    # of zstd can hold gigabytes of zeros while sketches and index pages compress a few times.
    limit = min(256 << 20, max(16 << 20, 256 * len(raw)))
    try:
        if codec == "lz4":
            import lz4.frame

            data = bytes(lz4.frame.LZ4FrameDecompressor().decompress(raw, max_length=limit + 1))
        elif codec == "zstd":
            import zstandard

            with zstandard.ZstdDecompressor().stream_reader(raw) as reader:
                data = reader.read(limit + 1)
        else:
            data = None
    except Exception as e:  # lz4 raises RuntimeError, zstandard its ZstdError
        raise _invalid(
            path, f"cannot decompress the {codec} data at offset {offset} ({len(raw)} bytes): {e}"
        ) from e
    if data is None:
        raise FloeError(
            f"Unsupported Puffin compression codec {codec!r} at offset {offset} in {path}"
        )
    if len(data) > limit:
        raise _invalid(
            path,
            f"the {codec} data at offset {offset} ({len(raw)} bytes) expands past {limit} bytes",
        )
    return data
