"""Generates the R4 malformed-input corpus (python-tests/corpus/r4) from the valid seeds.

Every file is derived from a seed in corpus/r4/valid (written once by reliability_corpus_seed.py)
by one named damage; ``manifest.tsv`` lists each file with its kind, the outcome it must have and a
fragment of the message. The generated files are committed: the corpus is fixed, and this script
documents how each was made. Re-run it (no Spark needed) only to change the corpus:

    python python-tests/reliability_corpus.py

manifest.tsv columns: file (relative to corpus/r4), kind, expect (``error`` or ``ok``), fragment
(a part of the error message; the message must also name the file), context (for deletion
vectors: offset:length:cardinality as a manifest entry would give them), case (what was done).
"""

from __future__ import annotations

import json
import shutil
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).parent / "corpus" / "r4"
VALID = CORPUS / "valid"
KINDS = (
    "metadata",
    "version-hint",
    "manifest-list",
    "data-manifest",
    "delete-manifest",
    "puffin",
    "deletion-vector",
    "index-list",
    "index-by_id",
    "index-by_name",
    "parquet",
)


class Corpus:
    """Collects the generated files and their manifest rows."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str, str]] = []

    def add(
        self,
        kind: str,
        name: str,
        data: bytes,
        case: str,
        *,
        expect: str = "error",
        fragment: str = "",
        context: str = "",
    ) -> None:
        path = CORPUS / kind / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.rows.append((f"{kind}/{name}", kind, expect, fragment, context, case))

    def write_manifest(self) -> None:
        lines = ["file\tkind\texpect\tfragment\tcontext\tcase"]
        lines += ["\t".join(row) for row in self.rows]
        (CORPUS / "manifest.tsv").write_text("\n".join(lines) + "\n")


def seed(name: str) -> bytes:
    return (VALID / name).read_bytes()


def truncations(c: Corpus, kind: str, base: str, data: bytes, ext: str) -> None:
    for percent in range(0, 100, 10):
        cut = len(data) * percent // 100
        c.add(
            kind,
            f"{base}-truncated-{percent:02d}pct.{ext}",
            data[:cut],
            f"first {percent}% of the bytes",
        )
    c.add(kind, f"{base}-truncated-last-byte.{ext}", data[:-1], "all but the last byte")


# ---------------------------------------------------------------- metadata JSON


def metadata_cases(c: Corpus) -> None:
    raw = seed("table.metadata.json")
    valid: dict[str, Any] = json.loads(raw)
    kind = "metadata"

    def put(name: str, doc: Any, case: str, expect: str = "error", fragment: str = "") -> None:
        c.add(
            kind,
            f"{name}.metadata.json",
            json.dumps(doc).encode(),
            case,
            expect=expect,
            fragment=fragment,
        )

    def changed(**updates: Any) -> dict[str, Any]:
        doc: dict[str, Any] = json.loads(raw)
        doc.update(updates)
        return doc

    truncations(c, kind, "table", raw, "metadata.json")
    c.add(
        kind,
        "invalid-utf8-in-string.metadata.json",
        raw.replace(b'"location"', b'"loc\xff\xfeation"', 1),
        "bytes FF FE inside a key",
    )
    c.add(
        kind,
        "invalid-utf8-start.metadata.json",
        b"\xc3\x28" + raw,
        "an invalid UTF-8 sequence first",
    )
    c.add(
        kind,
        "duplicate-format-version.metadata.json",
        raw.replace(b"{", b'{"format-version": 1, ', 1),
        "format-version twice (1, then 3)",
    )
    c.add(
        kind,
        "duplicate-snapshots.metadata.json",
        raw.replace(b"{", b'{"snapshots": [], ', 1),
        "snapshots twice (empty, then the real list)",
    )
    for field in (
        "format-version",
        "table-uuid",
        "location",
        "last-sequence-number",
        "last-updated-ms",
        "last-column-id",
        "schemas",
        "current-schema-id",
        "partition-specs",
        "default-spec-id",
        "last-partition-id",
        "sort-orders",
        "default-sort-order-id",
        "next-row-id",
    ):
        doc = json.loads(raw)
        del doc[field]
        put(f"missing-{field}", doc, f"no {field}", fragment=field)
    for version in (0, 4, 999, -1):
        put(
            f"format-version-{version}",
            changed(**{"format-version": version}),
            f"format-version {version}",
            fragment="format-version",
        )
    put("format-version-string", changed(**{"format-version": "3"}), "format-version as a string")
    put("format-version-2.5", changed(**{"format-version": 2.5}), "format-version 2.5")
    snapshots = valid["snapshots"]
    first = snapshots[0]["snapshot-id"]
    last = snapshots[-1]["snapshot-id"]
    doc = json.loads(raw)
    doc["snapshots"][0]["parent-snapshot-id"] = first
    put("snapshot-parent-self", doc, "the first snapshot is its own parent")
    doc = json.loads(raw)
    doc["snapshots"][0]["parent-snapshot-id"] = last
    put("snapshot-parent-cycle", doc, "the first snapshot's parent is the last: a cycle")
    put(
        "current-snapshot-dangling",
        changed(**{"current-snapshot-id": 123456789}),
        "current-snapshot-id names no snapshot",
        fragment="123456789",
    )
    doc = json.loads(raw)
    doc["refs"]["main"]["snapshot-id"] = 987654321
    put("ref-dangling", doc, "refs.main names no snapshot", fragment="987654321")
    put(
        "current-schema-dangling",
        changed(**{"current-schema-id": 77}),
        "current-schema-id 77",
        fragment="77",
    )
    put(
        "default-spec-dangling",
        changed(**{"default-spec-id": 77}),
        "default-spec-id 77",
        fragment="77",
    )
    put("snapshot-id-2^64", changed(**{"current-snapshot-id": 2**64}), "current-snapshot-id 2^64")
    put(
        "snapshots-not-a-list",
        changed(snapshots={"a": 1}),
        "snapshots is an object",
        fragment="snapshots",
    )
    doc = json.loads(raw)
    doc["schemas"][0]["fields"][0]["type"] = "bogus"
    put("unknown-column-type", doc, "a column of type bogus", fragment="bogus")
    doc = json.loads(raw)
    doc["schemas"][0]["fields"][1]["id"] = doc["schemas"][0]["fields"][0]["id"]
    put("duplicate-field-id", doc, "two columns with one field id")
    put(
        "huge-string-10mb",
        changed(properties={"comment": "x" * (10 << 20)}),
        "a 10 MiB property value",
        expect="ok",
    )
    c.add(
        kind,
        "nesting-1000.metadata.json",
        raw.replace(b"{", b'{"x-nested": ' + b"[" * 1000 + b"]" * 1000 + b", ", 1),
        "an unknown key holding 1,000 nested arrays",
    )
    c.add(
        kind,
        "nesting-100000.metadata.json",
        raw.replace(b"{", b'{"x-nested": ' + b"[" * 100_000 + b"]" * 100_000 + b", ", 1),
        "an unknown key holding 100,000 nested arrays",
    )
    for name, location in (
        ("dotdot", "/tmp/t/../../etc"),
        ("pct2e", "/tmp/t/%2e%2e/%2e%2e/etc"),
        ("nul", "/tmp/t\u0000/x"),
        ("file-etc", "file:///etc"),
    ):
        put(f"location-{name}", changed(location=location), f"location {location!r}", expect="ok")
    doc = json.loads(raw)
    doc["snapshots"][-1]["manifest-list"] = "file:///etc/passwd"
    put(
        "manifest-list-etc-passwd",
        doc,
        "a snapshot whose manifest list is /etc/passwd",
        expect="ok",
    )
    doc = json.loads(raw)
    doc["statistics"][0]["statistics-path"] = "../../../../etc/passwd"
    put("statistics-path-dotdot", doc, "a statistics file at ../../../../etc/passwd", expect="ok")
    for name, body in (
        ("array", b"[]"),
        ("string", b'"metadata"'),
        ("null", b"null"),
        ("number", b"42"),
        ("empty", b""),
        ("whitespace", b"  \n\t "),
        ("nan", raw.replace(b'"format-version":3', b'"format-version":NaN')),
    ):
        c.add(kind, f"not-metadata-{name}.metadata.json", body, f"the file holds {name}")
    c.add(
        kind,
        "plain-json-named-gz.gz.metadata.json",
        raw,
        "plain JSON in a file whose name says gzip",
    )
    c.add(
        kind,
        "gzip-bomb.metadata.json.gz",
        gzip_bomb(600 << 20),
        "gzip of 600 MiB of spaces (about 600 KiB)",
    )


def gzip_bomb(size: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b" " * (1 << 20)
    out = [compressor.compress(b"{")]
    for _ in range(size >> 20):
        out.append(compressor.compress(chunk))
    out.append(compressor.flush())
    return b"".join(out)


def version_hint_cases(c: Corpus) -> None:
    for name, body, expect in (
        ("empty", b"", "ok"),
        ("nan", b"NaN", "ok"),
        ("negative", b"-1", "ok"),
        ("2^63", b"9223372036854775808", "ok"),
        ("ahead-of-files", b"5", "error"),
        ("zero", b"0", "ok"),
        ("spaces-and-newline", b" 1 \n", "ok"),
        ("letters", b"abc", "ok"),
        ("binary", bytes(range(256)), "ok"),
        ("million-digits", b"9" * 1_000_000, "ok"),
        ("far-ahead", b"2147483647", "error"),
    ):
        c.add(
            "version-hint",
            f"hint-{name}.text",
            body,
            f"version-hint.text holds {body[:20]!r}",
            expect=expect,
        )


# ---------------------------------------------------------------- Avro


def varint(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)
    z &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = z & 0x7F
        z >>= 7
        if z:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    shift = 0
    raw = 0
    while True:
        b = data[pos]
        pos += 1
        raw |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return (raw >> 1) ^ -(raw & 1), pos


class Avro:
    """An Avro container file taken apart: header metadata, sync marker, decompressed blocks."""

    def __init__(self, data: bytes) -> None:
        assert data[:4] == b"Obj\x01"
        pos = 4
        self.meta: dict[str, bytes] = {}
        while True:
            count, pos = read_varint(data, pos)
            if count == 0:
                break
            for _ in range(count):
                n, pos = read_varint(data, pos)
                key = data[pos : pos + n].decode()
                pos += n
                n, pos = read_varint(data, pos)
                self.meta[key] = data[pos : pos + n]
                pos += n
        self.sync = data[pos : pos + 16]
        pos += 16
        self.blocks: list[tuple[int, bytes]] = []
        while pos < len(data):
            count, pos = read_varint(data, pos)
            size, pos = read_varint(data, pos)
            block = data[pos : pos + size]
            pos += size + 16
            if self.meta.get("avro.codec") == b"deflate":
                block = zlib.decompress(block, -15)
            self.blocks.append((count, block))

    def encode(
        self,
        *,
        codec: str = "null",
        meta: dict[str, bytes] | None = None,
        blocks: list[tuple[int, bytes]] | None = None,
        sync_after: bytes | None = None,
        raw_blocks: bool = False,
    ) -> bytes:
        header = dict(meta if meta is not None else self.meta)
        header["avro.codec"] = codec.encode()
        out = bytearray(b"Obj\x01")
        out += varint(len(header))
        for key, value in header.items():
            out += varint(len(key.encode())) + key.encode() + varint(len(value)) + value
        out += varint(0) + self.sync
        for count, block in blocks if blocks is not None else self.blocks:
            body = block if raw_blocks else compress(codec, block)
            out += varint(count) + varint(len(body)) + body
            out += sync_after if sync_after is not None else self.sync
        return bytes(out)


def compress(codec: str, block: bytes) -> bytes:
    if codec == "deflate":
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        return c.compress(block) + c.flush()
    if codec == "zstandard":
        import zstandard

        return zstandard.ZstdCompressor().compress(block)
    if codec == "snappy":
        raise ValueError("snappy blocks are built by hand")
    return block


def avro_cases(c: Corpus, kind: str, seed_name: str, path_field: str) -> None:
    data = seed(seed_name)
    avro = Avro(data)
    base = kind
    count, block = avro.blocks[0]
    ext = "avro"

    def add(name: str, body: bytes, case: str, expect: str = "error", fragment: str = "") -> None:
        c.add(kind, f"{base}-{name}.{ext}", body, case, expect=expect, fragment=fragment)

    truncations(c, kind, base, data, ext)
    add("bad-magic", b"Obj\x02" + data[4:], "magic Obj 02")
    add("not-avro", b"PAR1" + data[4:], "magic PAR1")
    add(
        "uncompressed",
        avro.encode(codec="null"),
        "the same records without compression",
        expect="ok",
    )
    add(
        "zstandard",
        avro.encode(codec="zstandard"),
        "the same records, zstandard codec",
        expect="ok",
    )
    good = avro.encode(codec="null")
    add(
        "bad-sync",
        avro.encode(codec="null", sync_after=bytes(16)),
        "zeros instead of the sync marker",
    )
    add(
        "block-count-negative",
        avro.encode(codec="null", blocks=[(-1, block)]),
        "block record count -1",
    )
    add(
        "block-count-2^31",
        avro.encode(codec="null", blocks=[(2**31, block)]),
        "block record count 2^31",
    )
    add(
        "block-count-2^62",
        avro.encode(codec="null", blocks=[(2**62, block)]),
        "block record count 2^62",
    )
    add(
        "block-count-plus-one",
        avro.encode(codec="null", blocks=[(count + 1, block)]),
        "one more record than the block holds",
    )
    add(
        "block-count-zero",
        avro.encode(codec="null", blocks=[(0, block)]),
        "zero records declared for a non-empty block",
    )
    head = good[: len(good) - len(block) - 16 - len(varint(len(block))) - len(varint(count))]
    add(
        "block-size-2^31",
        head + varint(count) + varint(2**31) + block + avro.sync,
        "block byte size 2^31",
    )
    add(
        "block-size-negative",
        head + varint(count) + varint(-5) + block + avro.sync,
        "block byte size -5",
    )
    add("unknown-codec", avro.encode(codec="lzma9", raw_blocks=True), "codec lzma9")
    add(
        "codec-lies-deflate",
        avro.encode(codec="deflate", raw_blocks=True),
        "codec deflate over uncompressed bytes",
    )
    add(
        "codec-lies-zstandard",
        avro.encode(codec="zstandard", raw_blocks=True),
        "codec zstandard over uncompressed bytes",
    )
    add(
        "codec-lies-snappy",
        avro.encode(codec="snappy", raw_blocks=True),
        "codec snappy over uncompressed bytes",
    )
    # A snappy block that declares 2^31 - 1 uncompressed bytes (varint), then a crc, no data.
    snappy = bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x07]) + b"\x00" * 4
    add(
        "snappy-declares-2gib",
        avro.encode(codec="snappy", blocks=[(count, snappy)], raw_blocks=True),
        "a snappy block declaring 2 GiB",
    )
    bomb = bytes(300 << 20)
    add(
        "deflate-bomb",
        avro.encode(codec="deflate", blocks=[(count, block + bomb)]),
        "a deflate block of the records plus 300 MiB of zeros (about 300 KiB)",
    )
    add(
        "zstandard-bomb",
        avro.encode(codec="zstandard", blocks=[(count, block + bomb)]),
        "a zstandard block of the records plus 300 MiB of zeros (about 10 KiB)",
    )
    # the string length before the first path, declared as 2^31 - 1 and as 2^31
    path = path_value(block, path_field)
    prefix = varint(len(path)) + path
    at = block.index(prefix)
    for label, length in (
        ("2^31-1", 2**31 - 1),
        ("2^31", 2**31),
        ("2^31-9", 2**31 - 9),
        ("400MiB", 400 << 20),
        ("negative", -7),
    ):
        patched = block[:at] + varint(length) + block[at + len(varint(len(path))) :]
        add(
            f"string-length-{label}",
            avro.encode(codec="null", blocks=[(count, patched)]),
            f"the {path_field} string declares length {length}",
        )
    meta = dict(avro.meta)
    meta["avro.schema"] = (
        b'{"type": "record", "name": "r", "fields": [{"name": "a", "type": "long"}]}'
    )
    add(
        "wrong-schema",
        avro.encode(codec="null", meta=meta),
        "a one-long-field schema over the records",
    )
    meta = dict(avro.meta)
    meta["avro.schema"] = b'"string"'
    add("schema-not-record", avro.encode(codec="null", meta=meta), 'schema "string"')
    meta = dict(avro.meta)
    meta["avro.schema"] = (
        b'{"type": "record", "name": "r", "fields": [{"name": "a", "type": "nope"}]}'
    )
    add("schema-unknown-type", avro.encode(codec="null", meta=meta), "a schema with type nope")
    if kind != "manifest-list":
        meta = dict(avro.meta)
        meta["avro.schema"] = avro.meta["avro.schema"].replace(b'"value"', b'"valuf"')
        add(
            "kv-field-renamed",
            avro.encode(codec="null", meta=meta),
            "the key/value records of the metrics maps have no field named value",
            # a deletion vector's entry has no metrics maps: nothing reads the renamed field
            expect="ok" if kind == "delete-manifest" else "error",
        )
    meta = dict(avro.meta)
    meta["avro.schema"] = b"{not json"
    add("schema-not-json", avro.encode(codec="null", meta=meta), "avro.schema is not JSON")
    meta = dict(avro.meta)
    del meta["avro.schema"]
    add("schema-missing", avro.encode(codec="null", meta=meta), "no avro.schema")
    header_end = 4
    add(
        "header-count-2^31",
        data[:header_end] + varint(2**31) + data[header_end + 1 :],
        "header map count 2^31",
    )
    key_at = header_end + len(varint(len(avro.meta)))
    add(
        "header-key-length-2^31",
        data[:key_at] + varint(2**31 - 1) + data[key_at + 1 :],
        "header key length 2^31 - 1",
    )


def path_value(block: bytes, field: str) -> bytes:
    start = block.index(b"file:")
    end = start
    while end < len(block) and block[end] >= 0x20 and block[end] < 0x7F:
        end += 1
    candidate = block[start:end]
    # the path ends where a plausible next field begins: shrink until its length prefix matches
    while candidate:
        if block[start - len(varint(len(candidate))) : start] == varint(len(candidate)):
            return candidate
        candidate = candidate[:-1]
    raise ValueError(f"no {field} found")


# ---------------------------------------------------------------- Puffin

MAGIC = b"PFA1"


def puffin(
    blobs: bytes,
    footer: Any,
    *,
    flags: bytes = bytes(4),
    payload: bytes | None = None,
    size: int | None = None,
    head: bytes = MAGIC,
    foot: bytes = MAGIC,
) -> bytes:
    body = payload if payload is not None else json.dumps(footer).encode()
    declared = len(body) if size is None else size
    return head + blobs + MAGIC + body + struct.pack("<i", declared) + flags + foot


def split_puffin(data: bytes) -> tuple[bytes, dict[str, Any]]:
    (size,) = struct.unpack("<i", data[-12:-8])
    footer_start = len(data) - 16 - size
    return data[4:footer_start], json.loads(data[footer_start + 4 : footer_start + 4 + size])


def puffin_cases(c: Corpus, kind: str, seed_name: str, context: str = "") -> None:
    data = seed(seed_name)
    blobs, footer = split_puffin(data)
    base = kind

    def add(name: str, body: bytes, case: str, expect: str = "error", ctx: str = context) -> None:
        c.add(kind, f"{base}-{name}.puffin", body, case, expect=expect, context=ctx)

    def with_blob(**changes: Any) -> dict[str, Any]:
        doc: dict[str, Any] = json.loads(json.dumps(footer))
        doc["blobs"][0].update(changes)
        return doc

    truncations(c, kind, base, data, "puffin")
    add("rebuilt", puffin(blobs, footer), "the seed rebuilt from its parts", expect="ok")
    add("bad-head-magic", puffin(blobs, footer, head=b"PFA2"), "head magic PFA2")
    add("bad-foot-magic", puffin(blobs, footer, foot=b"PFA0"), "closing magic PFA0")
    add("bad-footer-magic", data.replace(MAGIC + b"{", b"XXXX{", 1), "footer opening magic XXXX")
    add("payload-size-negative", puffin(blobs, footer, size=-20), "footer payload size -20")
    add(
        "payload-size-past-file",
        puffin(blobs, footer, size=len(data) * 2),
        "footer payload size twice the file",
    )
    add(
        "payload-size-2^31-1", puffin(blobs, footer, size=2**31 - 1), "footer payload size 2^31 - 1"
    )
    add("unknown-flag-bit", puffin(blobs, footer, flags=b"\x02\x00\x00\x00"), "flag byte 0 bit 1")
    add("unknown-flag-byte3", puffin(blobs, footer, flags=b"\x00\x00\x00\x80"), "flag byte 3 bit 7")
    add(
        "compressed-flag-plain-payload",
        puffin(blobs, footer, flags=b"\x01\x00\x00\x00"),
        "compressed flag over a plain JSON payload",
    )
    import lz4.frame

    two_gib_lz4 = bytearray(
        lz4.frame.compress(json.dumps(footer).encode(), content_checksum=False, store_size=True)
    )
    # LZ4 frame descriptor: magic(4) FLG BD content-size(8 LE) HC; declare 2 GiB
    two_gib_lz4[6:14] = struct.pack("<Q", 2 << 30)
    add(
        "compressed-footer-declares-2gib",
        puffin(blobs, footer, flags=b"\x01\x00\x00\x00", payload=bytes(two_gib_lz4)),
        "an LZ4 footer whose frame declares 2 GiB",
    )
    add("footer-not-json", puffin(blobs, None, payload=b"{blobs"), "footer payload {blobs")
    add("footer-array", puffin(blobs, []), "footer payload []")
    add("footer-blobs-object", puffin(blobs, {"blobs": {}}), "blobs is an object")
    add(
        "footer-nesting-5000",
        puffin(blobs, None, payload=b'{"blobs": [], "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"),
        "a footer nesting 5,000 arrays",
    )
    for field in ("type", "fields", "snapshot-id", "sequence-number", "offset", "length"):
        doc = json.loads(json.dumps(footer))
        del doc["blobs"][0][field]
        add(f"blob-missing-{field}", puffin(blobs, doc), f"a blob without {field}")
    end = 4 + len(blobs)
    add("blob-offset-negative", puffin(blobs, with_blob(offset=-4)), "blob offset -4")
    add(
        "blob-past-eof",
        puffin(blobs, with_blob(length=len(data) * 4)),
        "blob offset + length past the file end",
    )
    add(
        "blob-into-footer",
        puffin(blobs, with_blob(offset=end - 2)),
        "a blob overlapping the footer",
    )
    add("blob-length-2^31", puffin(blobs, with_blob(length=2**31)), "blob length 2^31")
    add(
        "blob-length-2^62",
        puffin(blobs, with_blob(offset=2**62, length=2**62)),
        "blob offset and length 2^62",
    )
    doc = json.loads(json.dumps(footer))
    doc["blobs"].append(dict(doc["blobs"][0]))
    doc["blobs"][1]["offset"] = doc["blobs"][0]["offset"] + 1
    doc["blobs"][1]["length"] = doc["blobs"][0]["length"] - 1
    add("overlapping-blobs", puffin(blobs, doc), "two blobs sharing bytes")
    add(
        "unknown-codec",
        puffin(blobs, with_blob(**{"compression-codec": "brotli"})),
        "blob codec brotli",
    )
    add(
        "codec-lies-lz4",
        puffin(blobs, with_blob(**{"compression-codec": "lz4"})),
        "codec lz4 over the seed's zstd bytes",
    )
    import zstandard

    bomb = zstandard.ZstdCompressor(level=19).compress(bytes(600 << 20))
    add(
        "zstd-bomb",
        puffin(bomb, with_blob(**{"compression-codec": "zstd", "length": len(bomb)})),
        "a zstd blob of 600 MiB of zeros (about 20 KiB)",
    )
    declared = bytearray(zstandard.ZstdCompressor(write_content_size=True).compress(b"x" * 100))
    header = zstd_declaring(2 << 30)
    add(
        "zstd-declares-2gib",
        puffin(header, with_blob(**{"compression-codec": "zstd", "length": len(header)})),
        "a zstd frame header declaring 2 GiB and no data",
    )
    del declared
    add("fields-not-list", puffin(blobs, with_blob(fields="x")), "fields is a string")
    add("properties-not-map", puffin(blobs, with_blob(properties=[1])), "properties is a list")
    add("empty", b"", "an empty file")
    add("only-magic", MAGIC, "just PFA1")


def zstd_declaring(size: int) -> bytes:
    """A zstd frame header with a content size field of ``size`` and one empty last raw block."""
    descriptor = 0b11000000 | 0b00100000  # 8-byte content size, single segment
    return (
        b"\x28\xb5\x2f\xfd"
        + bytes([descriptor])
        + struct.pack("<Q", size)
        + bytes([0x01, 0x00, 0x00])
    )


# ---------------------------------------------------------------- deletion vectors

DV_MAGIC = bytes([0xD1, 0xD3, 0x39, 0x64])


def roaring32(values: list[int]) -> bytes:
    """A 32-bit Roaring bitmap of array containers (no run containers), portable format."""
    containers: dict[int, list[int]] = {}
    for v in sorted(values):
        containers.setdefault(v >> 16, []).append(v & 0xFFFF)
    out = bytearray(struct.pack("<II", 12346, len(containers)))
    for key, lows in containers.items():
        out += struct.pack("<HH", key, len(lows) - 1)
    offset = len(out) + 4 * len(containers)
    for lows in containers.values():
        out += struct.pack("<I", offset)
        offset += 2 * len(lows)
    for lows in containers.values():
        out += b"".join(struct.pack("<H", low) for low in lows)
    return bytes(out)


def dv_blob(
    bitmaps: list[tuple[int, bytes]],
    *,
    count: int | None = None,
    magic: bytes = DV_MAGIC,
    length_delta: int = 0,
    crc_delta: int = 0,
) -> bytes:
    vector = struct.pack("<Q", len(bitmaps) if count is None else count)
    vector += b"".join(struct.pack("<I", key) + bitmap for key, bitmap in bitmaps)
    body = magic + vector
    crc = (zlib.crc32(body) + crc_delta) & 0xFFFFFFFF
    return struct.pack(">i", len(body) + length_delta) + body + struct.pack(">I", crc)


def dv_cases(c: Corpus) -> None:
    kind = "deletion-vector"
    data = seed("deletion-vector.puffin")
    _, footer = split_puffin(data)
    blob = footer["blobs"][0]
    referenced = blob["properties"]["referenced-data-file"]
    positions = [3, 5, 30]

    def add(
        name: str,
        dv: bytes,
        case: str,
        *,
        expect: str = "error",
        card: int = 3,
        ref: str = referenced,
        length: int | None = None,
        offset: int = 4,
    ) -> None:
        doc = json.loads(json.dumps(footer))
        doc["blobs"][0]["length"] = len(dv)
        doc["blobs"][0]["properties"]["referenced-data-file"] = ref
        ctx = f"{offset}:{len(dv) if length is None else length}:{card}"
        c.add(kind, f"dv-{name}.puffin", puffin(dv, doc), case, expect=expect, context=ctx)

    good = [(0, roaring32(positions))]
    add("rebuilt", dv_blob(good), "the seed's positions rebuilt", expect="ok")
    add("length-field-plus-one", dv_blob(good, length_delta=1), "the length field one too large")
    add("length-field-negative", dv_blob(good, length_delta=-(2**31)), "the length field negative")
    add("bad-magic", dv_blob(good, magic=b"\xd1\xd3\x39\x65"), "magic D1 D3 39 65")
    add("bad-crc", dv_blob(good, crc_delta=1), "CRC off by one")
    add(
        "cardinality-mismatch",
        dv_blob(good),
        "the manifest says 4 positions, the vector holds 3",
        card=4,
    )
    add(
        "cardinality-mismatch-same-size",
        dv_blob([(0, roaring32([3, 5, 31]))]),
        "positions 3, 5, 31 (3 as said)",
        expect="ok",
    )
    add(
        "msb-set-key",
        dv_blob([(0x80000000, roaring32(positions))]),
        "bitmap key 2^31 (positions >= 2^63)",
    )
    add("unsorted-keys", dv_blob([(2, roaring32([1])), (1, roaring32([1, 2]))]), "keys 2 then 1")
    add("duplicate-keys", dv_blob([(1, roaring32([1])), (1, roaring32([1, 2]))]), "key 1 twice")
    add("bitmap-count-2^63", dv_blob(good, count=2**63), "bitmap count 2^63")
    add("bitmap-count-2^31", dv_blob(good, count=2**31), "bitmap count 2^31")
    bad_cookie = bytearray(roaring32(positions))
    bad_cookie[0] = 0x00
    add(
        "bad-roaring-cookie",
        dv_blob([(0, bytes(bad_cookie))]),
        "roaring cookie 0x3000 instead of 12346",
    )
    huge_containers = bytearray(roaring32(positions))
    huge_containers[4:8] = struct.pack("<I", 2**31 - 1)
    add(
        "container-count-2^31",
        dv_blob([(0, bytes(huge_containers))]),
        "roaring container count 2^31 - 1",
    )
    card_lie = bytearray(roaring32(positions))
    card_lie[10:12] = struct.pack("<H", 4000)
    add(
        "container-cardinality-lie",
        dv_blob([(0, bytes(card_lie))]),
        "an array container claiming 4,001 values",
    )
    add(
        "referenced-file-mismatch",
        dv_blob(good),
        "the blob's referenced-data-file is another file",
        expect="ok",
        ref=referenced.replace(".parquet", "-other.parquet"),
    )
    add(
        "context-length-past-eof",
        dv_blob(good),
        "the manifest's length runs past the file",
        length=4096,
    )
    add("context-length-2^31", dv_blob(good), "the manifest's length is 2^31", length=2**31)
    add(
        "context-offset-past-eof",
        dv_blob(good),
        "the manifest's offset is past the end",
        offset=10_000,
    )
    add("context-offset-negative", dv_blob(good), "the manifest's offset is -1", offset=-1)
    add("context-length-zero", dv_blob(good), "the manifest's length is 0", length=0)


# ---------------------------------------------------------------- index files


def index_cases(c: Corpus) -> None:
    raw = seed("index-list.json")
    kind = "index-list"

    def put(name: str, doc: Any, case: str, expect: str = "error") -> None:
        c.add(kind, f"list-{name}.json", json.dumps(doc).encode(), case, expect=expect)

    def changed(mutate: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        doc: dict[str, Any] = json.loads(raw)
        mutate(doc)
        return doc

    c.add(kind, "list-truncated-half.json", raw[: len(raw) // 2], "the first half")
    c.add(kind, "list-empty.json", b"", "an empty file")
    c.add(
        kind,
        "list-invalid-utf8.json",
        raw.replace(b"by_id", b"by\xff\xfe", 1),
        "bytes FF FE in a name",
    )
    put(
        "format-version-99",
        changed(lambda d: d.update({"format-version": 99})),
        "format-version 99",
    )
    put("missing-indexes", changed(lambda d: d.pop("indexes")), "no indexes")
    put("missing-type", changed(lambda d: d["indexes"][0].pop("type")), "an index without type")
    put("indexes-object", changed(lambda d: d.update({"indexes": {}})), "indexes is an object")
    put(
        "unknown-type",
        changed(lambda d: d["indexes"][0].update({"type": "hash"})),
        "index type hash",
    )
    put(
        "duplicate-name",
        changed(lambda d: d["indexes"][1].update({"name": "by_id"})),
        "two indexes by_id",
    )
    put(
        "two-source-fields",
        changed(lambda d: d["indexes"][0].update({"source-field-ids": [1, 2]})),
        "an index on two fields",
    )
    put(
        "segment-size-negative",
        changed(lambda d: d["indexes"][0]["segments"][0].update({"file-size-in-bytes": -1})),
        "segment file size -1",
    )
    put(
        "segment-count-2^40",
        changed(lambda d: d["indexes"][0]["segments"][0].update({"covered-file-count": 2**40})),
        "covered-file-count 2^40",
    )
    put(
        "segment-missing-path",
        changed(lambda d: d["indexes"][0]["segments"][0].pop("path")),
        "a segment without path",
    )
    put("not-an-object", [1, 2], "a JSON array")
    for name in ("by_id", "by_name"):
        segment_cases(c, name)


def segment_cases(c: Corpus, name: str) -> None:
    kind = f"index-{name}"
    data = seed(f"index-{name}.puffin")
    blobs, footer = split_puffin(data)

    def add(label: str, body: bytes, case: str, expect: str = "error") -> None:
        c.add(kind, f"{name}-{label}.puffin", body, case, expect=expect)

    for percent in (10, 50, 90):
        add(
            f"truncated-{percent:02d}pct",
            data[: len(data) * percent // 100],
            f"first {percent}% of the bytes",
        )
    add("bad-head-magic", b"PFA0" + data[4:], "head magic PFA0")
    add("rebuilt", puffin(blobs, footer), "the seed rebuilt from its parts", expect="ok")
    for i, blob in enumerate(footer["blobs"]):
        doc = json.loads(json.dumps(footer))
        doc["blobs"][i]["length"] = blob["length"] + 10_000
        add(
            f"blob{i}-past-eof", puffin(blobs, doc), f"blob {i} ({blob['type']}) runs past the file"
        )
        start = blob["offset"] - 4
        flipped = bytearray(blobs)
        flipped[start] ^= 0xFF
        add(
            f"blob{i}-first-byte",
            puffin(bytes(flipped), footer),
            f"the first byte of blob {i} inverted",
        )
        doc = json.loads(json.dumps(footer))
        doc["blobs"][i]["length"] = max(1, blob["length"] // 2)
        add(f"blob{i}-half", puffin(blobs, doc), f"blob {i} cut to half its length")
        doc = json.loads(json.dumps(footer))
        doc["blobs"][i]["type"] = "floe-unknown-v1"
        add(f"blob{i}-unknown-type", puffin(blobs, doc), f"blob {i} of an unknown type")
        huge = bytearray(blobs)
        huge[start : start + 4] = b"\xff\xff\xff\x7f"
        add(
            f"blob{i}-huge-first-int",
            puffin(bytes(huge), footer),
            f"blob {i} starting with 2^31 - 1",
        )


# ---------------------------------------------------------------- Parquet


def parquet_cases(c: Corpus) -> None:
    data = seed("data.parquet")
    kind = "parquet"
    (footer_len,) = struct.unpack("<i", data[-8:-4])
    footer_start = len(data) - 8 - footer_len

    def add(name: str, body: bytes, case: str) -> None:
        # Parquet readers check only the closing magic, and some footer bytes are statistics:
        # those files read (the table scan must then succeed, not fail oddly)
        reads = name in ("bad-head-magic", "footer-byte-1", "footer-byte-2")
        c.add(kind, f"data-{name}.parquet", body, case, expect="ok" if reads else "error")

    for percent in (0, 10, 30, 50, 70, 90):
        add(
            f"truncated-{percent:02d}pct",
            data[: len(data) * percent // 100],
            f"first {percent}% of the bytes",
        )
    add("truncated-last-byte", data[:-1], "all but the last byte")
    add("bad-head-magic", b"PAR0" + data[4:], "head magic PAR0")
    add("bad-tail-magic", data[:-4] + b"PAR0", "closing magic PAR0")
    add(
        "footer-length-negative",
        data[:-8] + struct.pack("<i", -100) + b"PAR1",
        "footer length -100",
    )
    add(
        "footer-length-2^31-1",
        data[:-8] + struct.pack("<i", 2**31 - 1) + b"PAR1",
        "footer length 2^31 - 1",
    )
    add("footer-length-zero", data[:-8] + struct.pack("<i", 0) + b"PAR1", "footer length 0")
    add(
        "footer-length-file",
        data[:-8] + struct.pack("<i", len(data) - 8) + b"PAR1",
        "footer length covering the whole file",
    )
    for i, at in enumerate(
        (footer_start, footer_start + footer_len // 3, footer_start + footer_len // 2)
    ):
        flipped = bytearray(data)
        flipped[at] ^= 0xFF
        add(f"footer-byte-{i}", bytes(flipped), f"footer byte {at - footer_start} inverted")
    pages = bytearray(data)
    for at in range(4, min(footer_start, 64)):
        pages[at] ^= 0x5A
    add("page-header-garbage", bytes(pages), "the first page header scrambled")
    add("empty", b"", "an empty file")
    add("only-magic", b"PAR1PAR1", "PAR1PAR1")
    add("text", b"id,name\n1,a\n", "a CSV file named .parquet")


def main() -> None:
    for kind in KINDS:
        shutil.rmtree(CORPUS / kind, ignore_errors=True)
    c = Corpus()
    metadata_cases(c)
    version_hint_cases(c)
    avro_cases(c, "manifest-list", "manifest-list.avro", "manifest_path")
    avro_cases(c, "data-manifest", "data-manifest.avro", "file_path")
    avro_cases(c, "delete-manifest", "delete-manifest.avro", "file_path")
    puffin_cases(c, "puffin", "statistics.puffin")
    dv_cases(c)
    index_cases(c)
    parquet_cases(c)
    c.write_manifest()
    counts: dict[str, int] = {}
    for row in c.rows:
        counts[row[1]] = counts.get(row[1], 0) + 1
    print(len(c.rows), "files:", counts)


if __name__ == "__main__":
    main()
