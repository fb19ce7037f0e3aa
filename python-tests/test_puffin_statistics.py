"""Puffin statistics files written by the JVM, checked without it; and their interop.

Each analyzed table is written by Floe and analyzed by one of: Floe's
``CALL floe.system.compute_table_stats`` (blob codecs zstd by default, lz4 and none through the
``write.statistics.compression-codec`` table property), Floe's ``ANALYZE TABLE ... FOR ALL
COLUMNS``, or the Apache Iceberg runtime's own ``compute_table_stats`` (catalog ``iceberg``).

* The file is parsed here independently of ``floe.inspect`` (magic at both ends, payload size,
  flags, offsets and lengths, codecs), its blobs decoded with ``datasketches`` and compared with
  the table metadata's ``statistics`` entry, the snapshot, and ``count(DISTINCT c)`` (3.1%).
* The sketches hash Iceberg's single-value serialization (a BIGINT's 8 bytes little-endian, a
  STRING's UTF-8 bytes): a sketch built here from the same values has the same hashes.
* ``floe.inspect.table_statistics`` agrees; pyiceberg loads the table and parses the entry; the
  Iceberg runtime reports Floe's NDV to Spark's optimizer and reads Floe's Puffin file; Floe's
  scan reports the NDV Iceberg's procedure wrote.
* Corrupt files: ``floe.inspect`` names the file and the offset; the JVM still reads the table.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import ICEBERG_CATALOG, require_iceberg_runtime, unique_name

import floe.inspect as inspect
from floe.errors import FloeError
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from iceberg_runtime import IcebergRuntime
    from pyspark.sql import SparkSession

MAGIC = b"PFA1"
THETA = "apache-datasketches-theta-v1"
#: 2 relative standard errors of a theta sketch with lgK = 12 (the default, 4096 entries)
TOLERANCE = 0.031
ROWS = 30_000
COLUMNS = """id BIGINT, k BIGINT, i INT, s STRING, u STRING, d DATE, dec DECIMAL(9, 2),
    dbl DOUBLE, ts TIMESTAMP, b BOOLEAN, n INT, bin BINARY, st STRUCT<x: INT>"""
#: top-level primitive columns: the ones analyzed by default (st is a struct)
SKETCHED = ("id", "k", "i", "s", "u", "d", "dec", "dbl", "ts", "b", "n", "bin")


def _rows_sql(start: int, end: int) -> str:
    return f"""SELECT id, id % 3000, CAST(id % 100 AS INT), concat('s', id % 2000),
        hex(xxhash64(id)), date_add(DATE'2020-01-01', CAST(id % 365 AS INT)),
        CAST(id % 777 AS DECIMAL(9, 2)) / 4, (id % 500) / 4.0,
        TIMESTAMP'2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id % 1000),
        id % 2 = 0, IF(id % 3 = 0, NULL, CAST(id % 50 AS INT)),
        CAST(concat('b', id % 300) AS BINARY), named_struct('x', CAST(id % 7 AS INT))
        FROM range({start}, {end}, 1, 2)"""


@dataclass(frozen=True)
class Analyzed:
    """A Floe table, analyzed at its current snapshot by ``writer``."""

    writer: str
    codec: str
    table: str  # floe.<ns>.t
    location: Path
    metadata: dict[str, Any]
    exact: dict[str, int]  # count(DISTINCT c) per column

    @property
    def namespace(self) -> str:
        return self.table.split(".")[1]

    def entry(self) -> dict[str, Any]:
        current = self.metadata["current-snapshot-id"]
        found = [e for e in self.metadata["statistics"] if e["snapshot-id"] == current]
        assert len(found) == 1, self.metadata["statistics"]
        return dict(found[0])

    def field_ids(self) -> dict[str, int]:
        schema = next(
            s
            for s in self.metadata["schemas"]
            if s["schema-id"] == self.metadata["current-schema-id"]
        )
        return {f["name"]: int(f["id"]) for f in schema["fields"]}


def _create(spark: SparkSession, table: str, codec: str | None) -> None:
    props = (
        ""
        if codec is None
        else f" TBLPROPERTIES ('write.statistics.compression-codec' = '{codec}')"
    )
    spark.sql(f"CREATE TABLE {table} ({COLUMNS}) USING floe{props}")
    spark.sql(f"INSERT INTO {table} {_rows_sql(0, ROWS // 2)}")
    spark.sql(f"INSERT INTO {table} {_rows_sql(ROWS // 2, ROWS)}")


def _analyze(spark: SparkSession, writer: str, table: str) -> None:
    ident = table.split(".", 1)[1]
    if writer == "floe":
        spark.sql(f"CALL floe.system.compute_table_stats(table => '{ident}')").collect()
    elif writer == "floe-analyze":
        spark.sql(f"ANALYZE TABLE {table} COMPUTE STATISTICS FOR ALL COLUMNS").collect()
    else:
        spark.sql(
            f"CALL {ICEBERG_CATALOG}.system.compute_table_stats(table => '{ident}')"
        ).collect()


def _exact(spark: SparkSession, table: str) -> dict[str, int]:
    row = spark.sql(
        "SELECT " + ", ".join(f"count(DISTINCT {c}) AS {c}" for c in SKETCHED) + f" FROM {table}"
    ).collect()[0]
    return {c: int(row[c]) for c in SKETCHED}


def _location(spark: SparkSession, table: str) -> Path:
    for row in spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect():
        if row[0] == "Location":
            return local_path(str(row[1]))
    raise AssertionError(f"no location for {table}")


def _analyzed_table(
    spark: SparkSession, runtime: IcebergRuntime, writer: str, codec: str | None
) -> Analyzed:
    if writer == "iceberg":
        require_iceberg_runtime(runtime)
    namespace = unique_name(f"puffin_stats_{writer}_{codec}")
    spark.sql(f"CREATE NAMESPACE floe.{namespace}")
    table = f"floe.{namespace}.t"
    _create(spark, table, codec)
    _analyze(spark, writer, table)
    location = _location(spark, table)
    return Analyzed(
        writer, codec or "zstd", table, location, inspect.load_table_metadata(str(location)),
        _exact(spark, table),
    )  # fmt: skip


WRITERS = [
    pytest.param(("floe", None), id="floe_call_zstd"),
    pytest.param(("floe", "lz4"), id="floe_call_lz4"),
    pytest.param(("floe-analyze", "none"), id="floe_analyze_none"),
    pytest.param(("iceberg", None), id="iceberg_call_zstd"),
]


@pytest.fixture(scope="module", params=WRITERS)
def analyzed(
    request: pytest.FixtureRequest, spark: SparkSession, iceberg_runtime: IcebergRuntime
) -> Analyzed:
    writer, codec = request.param
    return _analyzed_table(spark, iceberg_runtime, writer, codec)


# --- an independent Puffin parser --------------------------------------------------------------


@dataclass(frozen=True)
class Parsed:
    size: int
    footer_offset: int
    payload_size: int
    flags: bytes
    footer: dict[str, Any]


def _parse(data: bytes) -> Parsed:
    """Parse a Puffin file by the spec, asserting its structure."""
    assert data[:4] == MAGIC and data[-4:] == MAGIC
    (payload_size,) = struct.unpack("<i", data[-12:-8])
    flags = data[-8:-4]
    footer_offset = len(data) - 16 - payload_size
    assert footer_offset >= 4 and data[footer_offset : footer_offset + 4] == MAGIC
    assert flags == b"\x00\x00\x00\x00", "footers are written uncompressed (pyiceberg needs it)"
    footer = json.loads(data[footer_offset + 4 : len(data) - 12].decode("utf-8"))
    return Parsed(len(data), footer_offset, payload_size, flags, footer)


def _payload(data: bytes, blob: dict[str, Any]) -> bytes:
    raw = data[blob["offset"] : blob["offset"] + blob["length"]]
    codec = blob.get("compression-codec")
    if codec is None:
        return raw
    if codec == "zstd":
        import zstandard

        return bytes(zstandard.ZstdDecompressor().decompress(raw))
    assert codec == "lz4", codec
    import lz4.frame

    frame = lz4.frame.get_frame_info(raw)
    assert frame["content_size"] > 0, "an LZ4 frame with its content size"
    return bytes(lz4.frame.decompress(raw))


def _estimate(payload: bytes) -> float:
    from datasketches import compact_theta_sketch

    return float(compact_theta_sketch.deserialize(payload).get_estimate())


# --- the files the JVM wrote -------------------------------------------------------------------


def test_statistics_file_follows_the_puffin_spec(analyzed: Analyzed) -> None:
    entry = analyzed.entry()
    snapshot = inspect.find_snapshot(analyzed.metadata)
    assert snapshot is not None
    path = local_path(entry["statistics-path"])
    assert path.parent == analyzed.location / "metadata"
    data = path.read_bytes()
    parsed = _parse(data)

    assert entry["file-size-in-bytes"] == len(data)
    assert entry["file-footer-size-in-bytes"] == parsed.payload_size + 16
    assert parsed.footer["properties"]["created-by"]
    blobs = parsed.footer["blobs"]
    ids = analyzed.field_ids()
    assert sorted(b["fields"][0] for b in blobs) == sorted(ids[c] for c in SKETCHED)
    expected_codec = {"zstd": "zstd", "lz4": "lz4", "none": None}[analyzed.codec]
    offset = 4
    for blob in blobs:
        assert blob["type"] == THETA
        assert len(blob["fields"]) == 1
        assert blob["snapshot-id"] == snapshot["snapshot-id"]
        assert blob["sequence-number"] == snapshot["sequence-number"]
        assert blob.get("compression-codec") == expected_codec
        assert blob["offset"] == offset, "blobs follow each other from offset 4"
        assert blob["length"] > 0
        offset += blob["length"]
    assert offset == parsed.footer_offset, "the last blob ends where the footer starts"

    # the table metadata lists the footer's blobs (without offsets) with the same ndv
    listed = {tuple(b["fields"]): b for b in entry["blob-metadata"]}
    assert len(listed) == len(blobs)
    for blob in blobs:
        meta = listed[tuple(blob["fields"])]
        assert meta["type"] == THETA
        assert meta["snapshot-id"] == blob["snapshot-id"]
        assert meta["sequence-number"] == blob["sequence-number"]
        assert meta["properties"]["ndv"] == blob["properties"]["ndv"]

    # another reader of the spec: pyiceberg's
    from pyiceberg.table.puffin import PuffinFile

    if expected_codec != "lz4":  # pyiceberg decompresses zstd only
        puffin = PuffinFile(data)
        assert [b.fields for b in puffin.footer.blobs] == [b["fields"] for b in blobs]
        for theirs, ours in zip(puffin.footer.blobs, blobs, strict=True):
            assert puffin.get_blob_payload(theirs) == _payload(data, ours)


def test_ndv_within_error_of_count_distinct(analyzed: Analyzed) -> None:
    data = local_path(analyzed.entry()["statistics-path"]).read_bytes()
    by_id = {v: k for k, v in analyzed.field_ids().items()}
    seen = {}
    for blob in _parse(data).footer["blobs"]:
        estimate = _estimate(_payload(data, blob))
        column = by_id[blob["fields"][0]]
        assert int(blob["properties"]["ndv"]) == int(estimate), column
        seen[column] = estimate
    for column, exact in analyzed.exact.items():
        error = abs(seen[column] - exact) / exact
        assert error <= TOLERANCE, f"{column}: estimate {seen[column]}, exact {exact}"
    # small columns are exact (the sketch keeps every hash): n counts no NULL
    assert seen["i"] == 100 and seen["n"] == 50 and seen["b"] == 2 and seen["bin"] == 300


def test_inspect_reports_the_same_statistics(analyzed: Analyzed) -> None:
    stats = inspect.table_statistics(str(analyzed.location))
    entry = analyzed.entry()
    assert stats.snapshot_id == analyzed.metadata["current-snapshot-id"]
    assert stats.path == entry["statistics-path"]
    assert stats.file_size == entry["file-size-in-bytes"]
    data = local_path(stats.path).read_bytes()
    footer = _parse(data).footer
    assert dict(stats.properties) == footer["properties"]
    by_name = stats.by_name()
    assert sorted(by_name) == sorted(SKETCHED)
    ids = analyzed.field_ids()
    for column in SKETCHED:
        ndv = by_name[column]
        assert ndv.field_id == ids[column]
        assert stats.by_field_id()[ids[column]] is ndv
        blob = next(b for b in footer["blobs"] if b["fields"] == [ids[column]])
        assert (ndv.offset, ndv.length) == (blob["offset"], blob["length"])
        assert ndv.codec == (blob.get("compression-codec") or "none")
        assert ndv.ndv == _estimate(_payload(data, blob))
        assert ndv.ndv_property == int(blob["properties"]["ndv"])
        assert ndv.lower_bound <= ndv.ndv <= ndv.upper_bound
        assert ndv.estimation_mode == (column in ("id", "u")), column
        if not ndv.estimation_mode:
            assert ndv.lower_bound == ndv.ndv == ndv.upper_bound == analyzed.exact[column]
    # the metadata file itself may be named too
    assert inspect.table_statistics(str(inspect.metadata_file(str(analyzed.location)))) == stats


def test_sketches_hash_the_single_value_serialization(analyzed: Analyzed) -> None:
    """A BIGINT is hashed as its 8 bytes little-endian, a STRING as its UTF-8 bytes: the same
    hashes as datasketches' update(int) and update(str), so sketches of different writers merge."""
    from datasketches import compact_theta_sketch, theta_a_not_b, update_theta_sketch

    data = local_path(analyzed.entry()["statistics-path"]).read_bytes()
    blobs = {b["fields"][0]: b for b in _parse(data).footer["blobs"]}
    ids = analyzed.field_ids()
    expected: dict[str, list[int] | list[str]] = {
        "k": list(range(3000)),
        "s": [f"s{v}" for v in range(2000)],
        "i": list(range(100)),  # an INT is 4 bytes: must NOT match the 8-byte hashes
    }
    for column, values in expected.items():
        ours = update_theta_sketch()
        for value in values:
            ours.update(value)
        theirs = compact_theta_sketch.deserialize(_payload(data, blobs[ids[column]]))
        only_theirs = theta_a_not_b().compute(theirs, ours.compact())
        if column == "i":
            assert only_theirs.get_estimate() == 100, "INT values hash as 4 bytes"
        else:
            assert theirs.get_estimate() == len(values)
            assert only_theirs.is_empty() or only_theirs.get_estimate() == 0, column


def test_pyiceberg_parses_the_statistics(analyzed: Analyzed) -> None:
    from pyiceberg.table import StaticTable

    table = StaticTable.from_metadata(str(inspect.metadata_file(str(analyzed.location))))
    entry = analyzed.entry()
    (stats,) = [s for s in table.metadata.statistics if s.snapshot_id == entry["snapshot-id"]]
    assert stats.statistics_path == entry["statistics-path"]
    assert stats.file_size_in_bytes == entry["file-size-in-bytes"]
    assert stats.file_footer_size_in_bytes == entry["file-footer-size-in-bytes"]
    ndvs = {b.fields[0]: (b.properties or {})["ndv"] for b in stats.blob_metadata}
    assert {b.type for b in stats.blob_metadata} == {THETA}
    ids = analyzed.field_ids()
    assert int(ndvs[ids["i"]]) == 100
    assert len(table.scan().to_arrow()) == ROWS


# --- interop with the Apache Iceberg runtime ---------------------------------------------------


def _attribute_ndvs(spark: SparkSession, table: str) -> dict[str, int]:
    """The distinct counts the scan of ``table`` reports to Spark's optimizer (CBO on)."""
    previous = spark.conf.get("spark.sql.cbo.enabled")
    spark.conf.set("spark.sql.cbo.enabled", "true")
    try:
        stats = spark.table(table)._jdf.queryExecution().optimizedPlan().stats()
    finally:
        spark.conf.set("spark.sql.cbo.enabled", previous or "false")
    found: dict[str, int] = {}
    entries = stats.attributeStats().iterator()
    while entries.hasNext():
        entry = entries.next()
        distinct = entry._2().distinctCount()
        if distinct.isDefined():
            value = distinct.get()  # a scala.math.BigInt
            found[str(entry._1().name())] = int(value if isinstance(value, int) else value.toLong())
    return found


def _iceberg_table(spark: SparkSession, location: Path) -> Any:
    jvm = spark._jvm
    assert jvm is not None
    tables = jvm.org.apache.iceberg.hadoop.HadoopTables(spark._jsc.hadoopConfiguration())
    return tables.load(str(location))


@pytest.mark.parametrize("codec", [None, "lz4"])
def test_iceberg_runtime_reads_floe_statistics(
    spark: SparkSession, iceberg_runtime: IcebergRuntime, iceberg: str, codec: str | None
) -> None:
    floe_stats = _analyzed_table(spark, iceberg_runtime, "floe", codec)
    entry = floe_stats.entry()
    ndv = {
        c: int(n.ndv)
        for c, n in inspect.table_statistics(str(floe_stats.location)).by_name().items()
    }

    # Iceberg's SparkScan reports Floe's ndv (the metadata's ndv property) to the optimizer
    reported = _attribute_ndvs(spark, f"{iceberg}.{floe_stats.namespace}.t")
    assert reported == {c: ndv[c] for c in SKETCHED}
    if codec == "lz4":
        # Iceberg 1.11's Puffin reader has no LZ4 decompressor ("Unsupported codec: LZ4"):
        # files meant for Iceberg readers keep the default zstd
        return

    # Iceberg's Java API lists the file and its Puffin reader reads every blob as written
    table = _iceberg_table(spark, floe_stats.location)
    files = table.statisticsFiles()
    assert files.size() == 1
    listed = files.get(0)
    assert str(listed.path()) == entry["statistics-path"]
    assert int(listed.fileSizeInBytes()) == entry["file-size-in-bytes"]
    jvm = spark._jvm
    assert jvm is not None
    reader = (
        jvm.org.apache.iceberg.puffin.Puffin.read(table.io().newInputFile(listed.path()))
        .withFileSize(listed.fileSizeInBytes())
        .withFooterSize(listed.fileFooterSizeInBytes())
        .build()
    )
    try:
        blobs = reader.fileMetadata().blobs()
        data = local_path(entry["statistics-path"]).read_bytes()
        ours = {b["fields"][0]: _payload(data, b) for b in _parse(data).footer["blobs"]}
        pairs = reader.readAll(blobs).iterator()
        count = 0
        to_bytes = jvm.org.apache.iceberg.util.ByteBuffers.toByteArray
        while pairs.hasNext():
            pair = pairs.next()
            payload = bytes(to_bytes(pair.second()))
            assert payload == ours[int(pair.first().inputFields().get(0))]
            count += 1
        assert count == len(SKETCHED)
    finally:
        reader.close()


def test_floe_scan_reports_the_ndv(spark: SparkSession, analyzed: Analyzed) -> None:
    """Floe's scan reports to the optimizer the ndv of the statistics file, whoever wrote it
    (for the ``iceberg_call_zstd`` table: the file Iceberg's compute_table_stats wrote)."""
    stats = inspect.table_statistics(str(analyzed.location))
    reported = _attribute_ndvs(spark, analyzed.table)
    # an estimate above the row count is capped at it
    assert reported == {c: min(int(n.ndv), ROWS) for c, n in stats.by_name().items()}


# --- snapshots -----------------------------------------------------------------------------------


def test_inspect_picks_the_statistics_of_a_snapshot(spark: SparkSession, namespace: str) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, s STRING) USING floe")
    location = _location(spark, table)
    with pytest.raises(FloeError, match=r"has no snapshot"):
        inspect.table_statistics(str(location))
    spark.sql(f"INSERT INTO {table} SELECT id, concat('s', id % 10) FROM range(100)")
    first = inspect.load_table_metadata(str(location))["current-snapshot-id"]
    with pytest.raises(FloeError, match=rf"{location}.* no statistics file for snapshot {first}"):
        inspect.table_statistics(str(location))
    spark.sql(f"CALL floe.system.compute_table_stats(table => '{namespace}.t')").collect()
    spark.sql(f"INSERT INTO {table} SELECT id, 'new' FROM range(100, 150)")
    spark.sql(f"CALL floe.system.compute_table_stats(table => '{namespace}.t')").collect()
    second = inspect.load_table_metadata(str(location))["current-snapshot-id"]

    old = inspect.table_statistics(str(location), first).by_name()
    new = inspect.table_statistics(str(location), second).by_name()
    assert (old["id"].ndv, old["s"].ndv) == (100, 10)
    assert (new["id"].ndv, new["s"].ndv) == (150, 11)
    assert inspect.table_statistics(str(location)).snapshot_id == second
    paths = [e["statistics-path"] for e in inspect.statistics_files(str(location))]
    assert len(paths) == len(set(paths)) == 2


# --- corrupt files -------------------------------------------------------------------------------


def _rewrite_footer(data: bytes, change: Callable[[dict[str, Any]], None]) -> bytes:
    parsed = _parse(data)
    footer = parsed.footer
    change(footer)
    payload = json.dumps(footer).encode("utf-8")
    return (
        data[: parsed.footer_offset] + MAGIC + payload + struct.pack("<i", len(payload))
        + parsed.flags + MAGIC
    )  # fmt: skip


def _corruptions(data: bytes) -> Iterator[tuple[str, bytes, str]]:
    """(case, corrupt bytes, the message expected: names the offset)."""
    parsed = _parse(data)
    size = len(data)
    first = parsed.footer["blobs"][0]
    yield "truncated", data[: size // 2], rf"expected magic b'PFA1' at offset {size // 2 - 4}"
    yield (
        "bad leading magic",
        b"XXXX" + data[4:],
        r"expected magic b'PFA1' at offset 0, found b'XXXX'",
    )
    footer_magic = parsed.footer_offset
    yield (
        "bad footer magic",
        data[:footer_magic] + b"PFA0" + data[footer_magic + 4 :],
        rf"expected magic b'PFA1' at offset {footer_magic}",
    )
    yield (
        "payload size too large",
        data[:-12] + struct.pack("<i", size) + data[-8:],
        rf"footer payload size {size} at offset {size - 12}",
    )
    yield (
        "unknown flag",
        data[:-8] + b"\x02\x00\x00\x00" + data[-4:],
        rf"unknown footer flags 0x00000002 at offset {size - 8}",
    )

    def blob_past_footer(footer: dict[str, Any]) -> None:
        footer["blobs"][0]["length"] = parsed.footer_offset

    yield (
        "blob beyond the blob area",
        _rewrite_footer(data, blob_past_footer),
        rf"blob 0 \({THETA}\) at offset 4 with length {parsed.footer_offset} lies outside",
    )

    def unknown_codec(footer: dict[str, Any]) -> None:
        footer["blobs"][0]["compression-codec"] = "snappy"

    yield "unknown codec", _rewrite_footer(data, unknown_codec), r"codec 'snappy' .* offset 4"
    yield (
        "garbled blob",
        data[:4] + b"\xff" * first["length"] + data[4 + first["length"] :],
        r"at offset 4",
    )


def test_corrupt_puffin_files_name_the_file_and_offset(analyzed: Analyzed, tmp_path: Path) -> None:
    source = local_path(analyzed.entry()["statistics-path"])
    for case, corrupt, message in _corruptions(source.read_bytes()):
        path = tmp_path / f"{case.replace(' ', '-')}.stats"
        path.write_bytes(corrupt)
        with pytest.raises(FloeError, match=message) as raised:
            inspect.read_theta_blobs(str(path))
        assert str(path) in str(raised.value), case


def _jvm_warnings(spark: SparkSession) -> list[str]:
    jvm = spark._jvm
    assert jvm is not None
    return [str(w) for w in jvm.io.floe.spark.source.StatisticsFileNdvs.recentWarnings()]


def test_inspect_reads_a_compressed_footer(analyzed: Analyzed, tmp_path: Path) -> None:
    """The same file with its footer payload LZ4-compressed (flag bit 0): same blobs; a damaged
    compressed footer names its offset."""
    import lz4.frame

    source = local_path(analyzed.entry()["statistics-path"])
    data = source.read_bytes()
    parsed = _parse(data)
    payload = lz4.frame.compress(data[parsed.footer_offset + 4 : -12], store_size=True)
    compressed = (
        data[: parsed.footer_offset] + MAGIC + payload + struct.pack("<i", len(payload))
        + b"\x01\x00\x00\x00" + MAGIC
    )  # fmt: skip
    path = tmp_path / "compressed-footer.stats"
    path.write_bytes(compressed)
    assert inspect.read_puffin(str(path)) == inspect.read_puffin(str(source))
    assert inspect.read_theta_blobs(str(path)) == inspect.read_theta_blobs(str(source))

    start = parsed.footer_offset + 4
    broken = compressed[:start] + b"\x00" * len(payload) + compressed[start + len(payload) :]
    path.write_bytes(broken)
    with pytest.raises(
        FloeError, match=rf"{path}: cannot decompress the lz4 data at offset {start}"
    ):
        inspect.read_puffin(str(path))


def _current_statistics_file(location: Path) -> Path:
    current = inspect.load_table_metadata(str(location))["current-snapshot-id"]
    (entry,) = [e for e in inspect.statistics_files(str(location)) if e["snapshot-id"] == current]
    return local_path(entry["statistics-path"])


def test_corrupt_statistics_in_a_table(
    spark: SparkSession, iceberg_runtime: IcebergRuntime
) -> None:
    """A table whose statistics file is corrupt or missing: floe.inspect says which file and
    where; the JVM warns naming the file, skips its distinct counts, and still plans (CBO on) and
    answers queries correctly; the next compute_table_stats, which would merge that file's
    sketches with those of an append, computes in full instead."""
    analyzed = _analyzed_table(spark, iceberg_runtime, "floe", None)
    ident = f"{analyzed.namespace}.t"
    other = f"floe.{analyzed.namespace}.other"
    spark.sql(f"CREATE TABLE {other} (k BIGINT, name STRING) USING floe")
    spark.sql(f"INSERT INTO {other} SELECT id, concat('n', id) FROM range(3000)")
    join = (
        f"SELECT count(*), sum(o.k) FROM {analyzed.table} t JOIN {other} o ON t.k = o.k "
        "WHERE t.i < 10"
    )
    expected = [tuple(r) for r in spark.sql(join).collect()]

    def truncated(data: bytes) -> bytes:
        return data[: len(data) // 2]

    def bad_magic(data: bytes) -> bytes:
        return b"XXXX" + data[4:-4] + b"XXXX"

    def bad_footer(data: bytes) -> bytes:
        start = _parse(data).footer_offset + 4
        return data[:start] + b"\xff" * (len(data) - 12 - start) + data[-12:]

    def empty(data: bytes) -> bytes:
        return b""

    previous = spark.conf.get("spark.sql.cbo.enabled")
    try:
        for corrupt in (truncated, bad_magic, bad_footer, empty, None):
            # a new file each time: the JVM caches the files it parsed, by path
            spark.sql(f"CALL floe.system.compute_table_stats(table => '{ident}')").collect()
            path = _current_statistics_file(analyzed.location)
            if corrupt is None:
                path.unlink()
                case = "missing"
            else:
                path.write_bytes(corrupt(path.read_bytes()))
                case = corrupt.__name__
                with pytest.raises(FloeError, match=f"{path}.*offset") as raised:
                    inspect.table_statistics(str(analyzed.location))
                assert "offset" in str(raised.value), case
            spark.conf.set("spark.sql.cbo.enabled", "true")
            assert spark.sql(f"SELECT count(*) FROM {analyzed.table}").collect()[0][0] == ROWS, case
            assert [tuple(r) for r in spark.sql(join).collect()] == expected, case
            spark.sql(f"EXPLAIN COST {join}").collect()
            assert _attribute_ndvs(spark, analyzed.table) == {}, case
            assert any(str(path) in w for w in _jvm_warnings(spark)), case
            spark.conf.set("spark.sql.cbo.enabled", previous or "false")

        # an append after a corrupt file: the next run cannot merge with it and computes in full
        spark.sql(f"CALL floe.system.compute_table_stats(table => '{ident}')").collect()
        path = _current_statistics_file(analyzed.location)
        path.write_bytes(truncated(path.read_bytes()))
        spark.sql(f"INSERT INTO {analyzed.table} {_rows_sql(ROWS, ROWS + 3000)}")
        spark.sql(f"CALL floe.system.compute_table_stats(table => '{ident}')").collect()
        after = inspect.table_statistics(str(analyzed.location)).by_name()
        exact = _exact(spark, analyzed.table)
        for column, count in exact.items():
            assert abs(after[column].ndv - count) / count <= TOLERANCE, column
    finally:
        spark.conf.set("spark.sql.cbo.enabled", previous or "false")
