"""The golden Puffin files Floe's Java writer produces (TestPuffinGoldenFiles checks it reproduces
them byte for byte), read without a JVM: by floe.inspect and by pyiceberg.

Layouts (docs/format.md, 'Deletion vectors' and 'Puffin files'): magic at both ends, the footer
JSON, blob offsets, the three codecs, LZ4-compressed footers, and the deletion-vector framing
(big-endian length and CRC-32 around a little-endian portable 64-bit Roaring bitmap).
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

import floe.inspect as inspect

GOLDEN = Path(__file__).resolve().parents[1] / "spark-extension/format/src/test/resources/puffin"
DATA_A = "file:/warehouse/db/t/data/00000-0-a.parquet"
DATA_B = "file:///warehouse/db/t/data/p=1/00001-0-b.parquet"
POSITIONS_A = [0, 1, 2, (1 << 32) + 5]
POSITIONS_B = [*range(100, 5100), *range(6000, 7000, 3), (2 << 32) + 1]
TEXT = b"Floe golden Puffin blob. " * 40


def _golden(name: str) -> str:
    path = GOLDEN / name
    assert path.is_file(), f"missing golden file {path}"
    return str(path)


def _positions(blob: bytes) -> list[int]:
    """Decode a deletion-vector-v1 blob by the spec, checking its framing."""
    from pyroaring import BitMap64

    (length,) = struct.unpack_from(">I", blob, 0)
    assert length == len(blob) - 8
    assert blob[4:8] == bytes([0xD1, 0xD3, 0x39, 0x64])
    (crc,) = struct.unpack_from(">I", blob, 4 + length)
    assert crc == zlib.crc32(blob[4 : 4 + length])
    return list(BitMap64.deserialize(blob[8 : 4 + length]))


def test_floe_inspect_reads_deletion_vectors() -> None:
    path = _golden("floe-deletion-vectors.puffin")
    footer = inspect.read_puffin(path)
    assert footer["properties"] == {"created-by": "Floe golden-file test"}
    blobs: list[dict[str, Any]] = footer["blobs"]
    assert [b["type"] for b in blobs] == ["deletion-vector-v1"] * 2
    assert blobs[0]["offset"] == 4
    assert blobs[1]["offset"] == blobs[0]["offset"] + blobs[0]["length"]
    for blob, data_file, positions in zip(
        blobs, (DATA_A, DATA_B), (POSITIONS_A, POSITIONS_B), strict=True
    ):
        assert blob["fields"] == [2147483645]
        assert blob["snapshot-id"] == -1
        assert blob["sequence-number"] == -1
        assert "compression-codec" not in blob
        assert blob["properties"] == {
            "referenced-data-file": data_file,
            "cardinality": str(len(positions)),
        }
        assert _positions(inspect.read_puffin_blob(path, blob)) == positions
    # the first vector is the hand-built one of TestDeletionVector: two array containers
    first = inspect.read_puffin_blob(path, blobs[0])
    assert first[8:28] == struct.pack("<QII", 2, 0, 12346) + b"\x01\x00\x00\x00"
    # the second has a run container (cookie 12347) and an empty bitmap for key 1
    second = inspect.read_puffin_blob(path, blobs[1])
    assert struct.unpack_from("<QII", second, 8) == (3, 0, 12347)  # one container


def test_pyiceberg_reads_floe_deletion_vectors() -> None:
    from pyiceberg.table.deletion_vector import deletion_vectors_from_puffin_file
    from pyiceberg.table.puffin import PuffinFile

    puffin = PuffinFile(Path(_golden("floe-deletion-vectors.puffin")).read_bytes())
    vectors = {
        dv.referenced_data_file: dv.to_vector().to_pylist()
        for dv in deletion_vectors_from_puffin_file(puffin)
    }
    assert vectors == {DATA_A: POSITIONS_A, DATA_B: POSITIONS_B}


def test_floe_inspect_reads_every_codec() -> None:
    path = _golden("floe-codecs.puffin")
    blobs: list[dict[str, Any]] = inspect.read_puffin(path)["blobs"]
    assert [(b["type"], b.get("compression-codec")) for b in blobs] == [
        ("apache-datasketches-theta-v1", "zstd"),
        ("floe-test-text", "lz4"),
        ("floe-test-bytes", None),
    ]
    assert [b["fields"] for b in blobs] == [[1], [2, 3], []]
    assert all(b["snapshot-id"] == 5 and b["sequence-number"] == 3 for b in blobs)
    assert blobs[0]["properties"] == {"ndv": "1000"}
    assert inspect.theta_estimate(inspect.read_puffin_blob(path, blobs[0])) == 1000.0
    assert inspect.read_puffin_blob(path, blobs[1]) == TEXT
    assert blobs[1]["length"] < len(TEXT)
    assert inspect.read_puffin_blob(path, blobs[2]) == b"\x00\x01\x02\xff"
    # single frames that state their content size (pyiceberg's zstd decoder needs it)
    raw = Path(path).read_bytes()
    lz4 = raw[blobs[1]["offset"] : blobs[1]["offset"] + blobs[1]["length"]]
    assert lz4[:4] == bytes.fromhex("04224d18") and lz4[4] & 0x08
    assert struct.unpack_from("<Q", lz4, 6)[0] == len(TEXT)


def test_pyiceberg_reads_floe_zstd_blobs() -> None:
    from pyiceberg.table.puffin import PuffinFile

    puffin = PuffinFile(Path(_golden("floe-codecs.puffin")).read_bytes())
    assert puffin.footer.properties == {"created-by": "Floe golden-file test"}
    sketch = puffin.get_blob_payload(puffin.footer.blobs[0])
    assert inspect.theta_estimate(sketch) == 1000.0


def test_compressed_footer_reads_like_the_plain_one() -> None:
    compressed = _golden("floe-compressed-footer.puffin")
    raw = Path(compressed).read_bytes()
    assert raw[-8] == 0x01  # flags byte 0, bit 0
    assert inspect.read_puffin(compressed) == inspect.read_puffin(_golden("floe-codecs.puffin"))
    blob = inspect.read_puffin(compressed)["blobs"][1]
    assert inspect.read_puffin_blob(compressed, blob) == TEXT
    # the reason Floe never compresses footers it writes for other engines
    from pyiceberg.table.puffin import PuffinFile

    with pytest.raises(ValueError, match="compressed footer"):
        PuffinFile(raw)
