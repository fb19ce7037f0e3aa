"""floe.inspect reads secondary indexes without a JVM (docs/indexes.md): the index listing matches
the ``t.indexes`` metadata table, every lookup answer is checked against what each data file holds
(pyarrow) and against the files Spark's scan reads, and corrupt segments raise IndexFileError
naming the file and the index, never a raw parsing error."""

from __future__ import annotations

import datetime
import itertools
import json
import struct
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from conftest import scan_report, unique_name
from pyspark.sql import SparkSession

from floe import inspect
from floe.errors import FloeError, IndexFileError, NoSuchIndexError
from floe.inspect._blob_bytes import Malformed
from floe.inspect._index_keys import KeyType
from floe.inspect._paths import local_path
from floe.inspect.index_segment import IndexPage
from floe.inspect.roaring import read_roaring_bitmap

FILES = 4  # files written before the indexes are built
APPENDED = 2  # files appended afterwards
ROWS = 30
UTC = datetime.UTC

# ids round-robin over the files; two sentinel rows per file hold every column's global minimum
# and maximum, so min/max bounds never prune and the files Spark reads are the index's answer.
ROW_SQL = """
SELECT id,
       CASE WHEN id % 11 = 0 THEN NULL ELSE CAST(id % 23 AS INT) END AS k,
       CASE WHEN id % 13 = 4 THEN NULL ELSE concat('v', lpad(CAST(id AS STRING), 3, '0')) END AS s,
       date_add(DATE'2024-01-01', CAST(id AS INT)) AS d,
       timestamp_seconds(1700000000 + id * 3600) AS ts,
       CAST(timestamp_seconds(1700000000 + id * 60) AS TIMESTAMP_NTZ) AS tntz,
       CAST(id / 4 AS DECIMAL(10, 2)) AS dec,
       id % 17 = 5 AS b,
       named_struct('x', id * 10) AS n,
       CAST(concat('b', CAST(id AS STRING)) AS BINARY) AS bin
FROM (SELECT id * {files} + {f} AS id FROM range({rows}))
UNION ALL
SELECT {low}, -1000, '', DATE'1990-01-01', TIMESTAMP'1990-01-01 00:00:00',
       TIMESTAMP_NTZ'1990-01-01 00:00:00', CAST(-999 AS DECIMAL(10, 2)), false,
       named_struct('x', -1000000L), X''
UNION ALL
SELECT {high}, 1000, 'zzz', DATE'2100-01-01', TIMESTAMP'2100-01-01 00:00:00',
       TIMESTAMP_NTZ'2100-01-01 00:00:00', CAST(999 AS DECIMAL(10, 2)), true,
       named_struct('x', 1000000L), X'FFFF'
"""

COLUMNS = (
    "id BIGINT, k INT, s STRING, d DATE, ts TIMESTAMP, tntz TIMESTAMP_NTZ, dec DECIMAL(10, 2), "
    "b BOOLEAN, n STRUCT<x: BIGINT>, bin BINARY"
)

INDEXES = {
    "by_k": ("inverted", "k"),
    "by_id": ("btree", "id"),
    "by_s": ("btree", "s"),
    "by_d": ("inverted", "d"),
    "by_ts": ("btree", "ts"),
    "by_tntz": ("inverted", "tntz"),
    "by_dec": ("inverted", "dec"),
    "by_b": ("inverted", "b"),
    "by_nx": ("btree", "n.x"),
    "by_bin": ("btree", "bin"),
}
DEFERRED = "later_k"  # inverted on k, maintenance deferred: appended files stay uncovered


def _ts(hours: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(1700000000 + hours * 3600, UTC)


def _ntz(minutes: int) -> datetime.datetime:
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=1700000000 + minutes * 60)


# (index, lookup, pyarrow truth per column, Spark predicate); ids of the appended files are
# 4 and 5 modulo 6 (FILES + APPENDED files round-robin over the same id formula).
Lookup = Callable[[str], inspect.IndexAnswer]
CASES: list[tuple[str, str, Lookup, Callable[[pa.ChunkedArray], bool], str]] = []


def _case(
    name: str,
    index: str,
    lookup: Lookup,
    truth: Callable[[pa.ChunkedArray], Any],
    sql: str,
) -> None:
    CASES.append((name, index, lookup, lambda c: bool(pc.any(truth(c)).as_py()), sql))


def _eq(value: Any) -> Callable[[pa.ChunkedArray], Any]:
    return lambda c: pc.equal(c, pa.scalar(value, c.type))


_case("k=13", "by_k", lambda t: inspect.files_for_value(t, "by_k", 13), _eq(13), "k = 13")
_case(
    "k in",
    "by_k",
    lambda t: inspect.files_for_values(t, "by_k", [3, 30, 7]),
    lambda c: pc.is_in(c, pa.array([3, 30, 7], c.type)),
    "k IN (3, 30, 7)",
)
_case(
    "k null",
    "by_k",
    lambda t: inspect.files_for_value(t, "by_k", None),
    lambda c: pa.array([c.null_count > 0]),
    "k IS NULL",
)
_case(
    "k between",
    "by_k",
    lambda t: inspect.files_in_range(t, "by_k", 4, 5),
    lambda c: pc.and_(pc.greater_equal(c, 4), pc.less_equal(c, 5)),
    "k BETWEEN 4 AND 5",
)
_case(
    "k open range",
    "by_k",
    lambda t: inspect.files_in_range(t, "by_k", 20, 22, lower_inclusive=False),
    lambda c: pc.and_(pc.greater(c, 20), pc.less_equal(c, 22)),
    "k > 20 AND k <= 22",
)
_case("id=77", "by_id", lambda t: inspect.files_for_value(t, "by_id", 77), _eq(77), "id = 77")
_case("id=absent", "by_id", lambda t: inspect.files_for_value(t, "by_id", 100001), _eq(100001),
      "id = 100001")  # fmt: skip
_case(
    "id appended",
    "by_id",
    lambda t: inspect.files_for_value(t, "by_id", 6 * 7 + 5),
    _eq(6 * 7 + 5),
    "id = 47",
)
_case("s=v042", "by_s", lambda t: inspect.files_for_value(t, "by_s", "v042"), _eq("v042"),
      "s = 'v042'")  # fmt: skip
_case(
    "s prefix",
    "by_s",
    lambda t: inspect.files_with_prefix(t, "by_s", "v04"),
    lambda c: pc.starts_with(c, "v04"),
    "s LIKE 'v04%'",
)
_case(
    "s range",
    "by_s",
    lambda t: inspect.files_in_range(t, "by_s", "v100", "v104", upper_inclusive=False),
    lambda c: pc.and_(pc.greater_equal(c, "v100"), pc.less(c, "v104")),
    "s >= 'v100' AND s < 'v104'",
)
_case(
    "d=",
    "by_d",
    lambda t: inspect.files_for_value(t, "by_d", datetime.date(2024, 1, 11)),
    _eq(datetime.date(2024, 1, 11)),
    "d = DATE'2024-01-11'",
)
_case(
    "ts=",
    "by_ts",
    lambda t: inspect.files_for_value(t, "by_ts", _ts(9)),
    _eq(_ts(9)),
    f"ts = TIMESTAMP'{_ts(9).strftime('%Y-%m-%d %H:%M:%S')}'",
)
_case(
    "tntz=",
    "by_tntz",
    lambda t: inspect.files_for_values(t, "by_tntz", [_ntz(14), _ntz(15)]),
    lambda c: pc.is_in(c, pa.array([_ntz(14), _ntz(15)], c.type)),
    f"tntz IN (TIMESTAMP_NTZ'{_ntz(14)}', TIMESTAMP_NTZ'{_ntz(15)}')",
)
_case(
    "dec=",
    "by_dec",
    lambda t: inspect.files_for_value(t, "by_dec", Decimal("2.50")),
    _eq(Decimal("2.50")),
    "dec = 2.50",
)
_case("dec int", "by_dec", lambda t: inspect.files_for_value(t, "by_dec", 3), _eq(Decimal(3)),
      "dec = 3")  # fmt: skip
_case("n.x=", "by_nx", lambda t: inspect.files_for_value(t, "by_nx", 420), _eq(420), "n.x = 420")
_case(
    "n.x appended",
    "by_nx",
    lambda t: inspect.files_for_values(t, "by_nx", [470, 420]),
    lambda c: pc.is_in(c, pa.array([470, 420], c.type)),
    "n.x IN (470, 420)",
)
_case(
    "bin=",
    "by_bin",
    lambda t: inspect.files_for_value(t, "by_bin", b"b17"),
    _eq(b"b17"),
    "bin = CAST('b17' AS BINARY)",
)
_case("b=true", "by_b", lambda t: inspect.files_for_value(t, "by_b", True),
      lambda c: pc.and_(_eq(True)(c), pc.is_valid(c)), "b = true")  # fmt: skip


def _fill(spark: SparkSession, table: str, first: int, count: int, rows: int = ROWS) -> None:
    files = FILES + APPENDED
    for f in range(first, first + count):
        sql = ROW_SQL.format(files=files, f=f, rows=rows, low=-1 - f, high=1_000_000 + f)
        spark.sql(sql).coalesce(1).writeTo(table).append()


def _location(spark: SparkSession, table: str) -> str:
    row = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").where("col_name = 'Location'").first()
    assert row is not None
    return str(row[1])


@pytest.fixture(scope="module")
def indexed(spark: SparkSession) -> Iterator[tuple[str, str]]:
    """A table with every index above built over {FILES} files, then {APPENDED} appended files
    (covered by the sync indexes in their own commits, not by the deferred one)."""
    ns = unique_name("inspect_indexes")
    spark.sql(f"CREATE NAMESPACE floe.{ns}")
    table = f"floe.{ns}.t"
    spark.sql(f"CREATE TABLE {table} ({COLUMNS}) USING floe")
    _fill(spark, table, 0, FILES)
    for name, (kind, column) in INDEXES.items():
        spark.sql(f"CREATE INDEX {name} ON {table} USING {kind} ({column})")
    spark.sql(f"CREATE INDEX {DEFERRED} ON {table} (k) OPTIONS ('maintenance' = 'deferred')")
    _fill(spark, table, FILES, APPENDED)
    yield table, _location(spark, table)


def _field_column(path: str, column: str) -> pa.ChunkedArray:
    data = pq.read_table(local_path(path))
    parts = column.split(".")
    array = data.column(parts[0])
    for part in parts[1:]:
        array = pc.struct_field(array, part)
    return array

@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_answer_matches_the_data_files_and_the_spark_scan(
    spark: SparkSession, indexed: tuple[str, str], case: tuple[Any, ...]
) -> None:
    table, location = indexed
    _, index, lookup, holds, sql = case
    answer = lookup(location)
    column = INDEXES[index][1]
    live = [f["file_path"] for f in inspect.table_files(location) if f["content"] == 0]
    assert len(live) == FILES + APPENDED
    [listed] = [i for i in inspect.table_indexes(location) if i.name == index]
    built = inspect.table_files(location, listed.segments[0].snapshot_id)
    appended = set(live) - {f["file_path"] for f in built}
    assert len(appended) == APPENDED
    covered = set(live)  # every sync index covers the appended files in their own commits
    holders = {p for p in live if holds(_field_column(p, column))}
    # every file holding the value is read; a covered file that does not hold it is skipped
    assert holders <= set(answer.files)
    assert set(answer.may_match) == holders & covered
    assert set(answer.uncovered) == set(live) - covered
    assert set(answer.skipped) == covered - holders
    assert set(answer.files) | set(answer.skipped) == set(live)
    assert answer.column == column and answer.index == index
    spark.sql(f"SELECT * FROM {table} WHERE {sql}").collect()
    report = scan_report(spark, table)
    assert report["result-data-files"] == len(answer.files), report
    assert report["index-pruned-files"].get(index, 0) == len(answer.skipped), report


def test_uncovered_files_are_always_read(indexed: tuple[str, str]) -> None:
    _, location = indexed
    answer = inspect.files_for_value(location, DEFERRED, 13)
    appended = [f["file_path"] for f in inspect.table_files(location) if f["content"] == 0]
    assert len(answer.uncovered) == APPENDED
    assert set(answer.uncovered) <= set(answer.files)
    assert not set(answer.uncovered) & (set(answer.may_match) | set(answer.skipped))
    assert set(answer.files) | set(answer.skipped) == set(appended)
    # the same question through the sync index: covered files only
    synced = inspect.files_for_value(location, "by_k", 13)
    assert set(synced.may_match) <= set(answer.files)


def test_an_older_snapshot_is_answered_for_its_own_files(indexed: tuple[str, str]) -> None:
    _, location = indexed
    [by_id] = [i for i in inspect.table_indexes(location) if i.name == "by_id"]
    built_at = by_id.segments[0].snapshot_id  # before the appends
    older = inspect.files_for_value(location, "by_id", 6 * 7 + 5, snapshot_id=built_at)
    assert (older.snapshot_id, older.files, len(older.skipped)) == (built_at, (), FILES)
    now = inspect.files_for_value(location, "by_id", 6 * 7 + 5)
    assert len(now.files) == 1 and now.files[0] not in older.skipped
    [listed] = [i for i in inspect.table_indexes(location, built_at) if i.name == DEFERRED]
    assert (listed.covered_files, listed.live_files, listed.stale) == (FILES, FILES, False)


def test_listing_matches_the_indexes_metadata_table(
    spark: SparkSession, indexed: tuple[str, str]
) -> None:
    table, location = indexed
    listed = {i.name: i for i in inspect.table_indexes(location)}
    rows = spark.sql(
        "SELECT name, type, columns, built_at_snapshot_id, covered_files, live_files, "
        f"size_in_bytes, segments, problem FROM {table}.indexes"
    ).collect()
    assert set(listed) == {r[0] for r in rows} == {*INDEXES, DEFERRED}
    for row in rows:
        index = listed[row[0]]
        assert (
            index.type,
            list(index.columns),
            index.built_at_snapshot_id,
            index.covered_files,
            index.live_files,
            index.size_in_bytes,
            len(index.segments),
            index.problem,
        ) == tuple(row[1:])
    assert listed["by_k"].segments[0].covered_file_count == FILES
    assert (listed["by_k"].deferred, listed["by_k"].stale) == (False, False)
    deferred = listed[DEFERRED]
    assert (deferred.deferred, deferred.stale, deferred.uncovered_files) == (True, True, APPENDED)
    schema = inspect.load_table_metadata(location)["schemas"][-1]
    n = next(f for f in schema["fields"] if f["name"] == "n")
    assert listed["by_nx"].field_ids == (n["type"]["fields"][0]["id"],)
    assert listed["by_nx"].columns == ("n.x",)


def test_point_lookup_reads_one_page_of_a_many_page_btree(
    spark: SparkSession, namespace: str
) -> None:
    table = f"floe.{namespace}.big"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, tag STRING) USING floe")
    spark.sql(
        f"INSERT INTO {table} SELECT /*+ REPARTITION(3) */ id, concat('tag-', CAST(id AS STRING)) "
        "FROM range(30000)"
    )
    spark.sql(f"CREATE INDEX by_id ON {table} USING btree (id)")
    location = _location(spark, table)
    live = [f["file_path"] for f in inspect.table_files(location)]
    truth = {v: {p for p in live if v in set(_field_column(p, "id").to_pylist())} for v in
             (0, 12345, 29999)}  # fmt: skip
    for value, holders in truth.items():
        answer = inspect.files_for_value(location, "by_id", value)
        assert set(answer.files) == holders and len(holders) == 1
        assert answer.pages_read == 1  # out of several: only the page whose range holds it
    everything = inspect.files_in_range(location, "by_id", 10, 29000)
    assert everything.pages_read > 1 and set(everything.files) == set(live)
    assert inspect.files_for_values(location, "by_id", [40000, -1]).files == ()


def test_answers_after_rewrite_index_merged_the_segments(
    spark: SparkSession, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} ({COLUMNS}) USING floe")
    _fill(spark, table, 0, 3)
    spark.sql(f"CREATE INDEX by_id ON {table} USING btree (id)")
    spark.sql(f"CREATE INDEX by_bin ON {table} USING btree (bin)")
    _fill(spark, table, 3, 1)  # a second segment of each index
    spark.sql(f"DELETE FROM {table} WHERE id = 6")  # replaces the file of id 6
    for index in ("by_id", "by_bin"):
        spark.sql(f"CALL floe.system.rewrite_index('{namespace}.t', '{index}')")
    location = _location(spark, table)
    live = [f["file_path"] for f in inspect.table_files(location) if f["content"] == 0]
    for index, column, value in [("by_id", "id", 12), ("by_id", "id", 6), ("by_bin", "bin", b"b9")]:
        answer = inspect.files_for_value(location, index, value)
        holders = {p for p in live if value in _field_column(p, column).to_pylist()}
        assert (set(answer.may_match), answer.uncovered) == (holders, ())
        assert set(answer.skipped) == set(live) - holders
    rows = spark.sql(f"SELECT name, covered_files, live_files, segments FROM {table}.indexes")
    listed = {i.name: (i.covered_files, i.live_files, len(i.segments)) for i in
              inspect.table_indexes(location)}  # fmt: skip
    assert listed == {r[0]: tuple(r[1:]) for r in rows.collect()}
    assert listed["by_bin"][0] == listed["by_bin"][1] == len(live)


def test_rename_keeps_the_index_under_the_new_name(spark: SparkSession, namespace: str) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} ({COLUMNS}) USING floe")
    _fill(spark, table, 0, 2)
    spark.sql(f"CREATE INDEX by_k ON {table} (k)")
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN k TO key")
    location = _location(spark, table)
    [index] = inspect.table_indexes(location)
    assert index.columns == ("key",) and index.problem is None
    assert inspect.files_for_value(location, "by_k", 13).column == "key"


def test_floe_indexes_command(indexed: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    from floe.cli import main

    _, location = indexed
    assert main(["indexes", location]) == 0
    listed = {i["name"]: i for i in json.loads(capsys.readouterr().out)}
    assert listed[DEFERRED]["uncovered_files"] == APPENDED and listed[DEFERRED]["stale"]
    assert listed["by_d"]["columns"] == ["d"] and listed["by_d"]["problem"] is None
    lookups = {
        ("by_d", "2024-01-11"): inspect.files_for_value(
            location, "by_d", datetime.date(2024, 1, 11)
        ),
        ("by_dec", "2.50"): inspect.files_for_value(location, "by_dec", Decimal("2.50")),
        ("by_id", "77"): inspect.files_for_value(location, "by_id", 77),
        ("by_b", "true"): inspect.files_for_value(location, "by_b", True),
        ("by_ts", _ts(9).isoformat()): inspect.files_for_value(location, "by_ts", _ts(9)),
    }
    for (index, text), expected in lookups.items():
        assert main(["indexes", location, "--index", index, "--value", text]) == 0
        printed = json.loads(capsys.readouterr().out)
        assert printed["files"] == list(expected.files), (index, text)
    assert main(["indexes", location, "--index", "by_s", "--prefix", "v04"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["files"] == list(inspect.files_with_prefix(location, "by_s", "v04").files)
    assert main(["indexes", location, "--index", "by_k", "--value", "x"]) == 1
    assert (
        "Cannot read 'x' as a value of type int for index by_k on column k"
        in capsys.readouterr().err
    )
    assert main(["indexes", location, "--value", "1"]) == 1
    assert "--value and --prefix need --index" in capsys.readouterr().err


def test_bad_arguments_are_clear(indexed: tuple[str, str]) -> None:
    _, location = indexed
    with pytest.raises(NoSuchIndexError, match=r"Index nope does not exist on table .*by_k"):
        inspect.files_for_value(location, "nope", 1)
    with pytest.raises(FloeError, match=r"Cannot look up 'x' \(str\) in index by_k on column k"):
        inspect.files_for_value(location, "by_k", "x")
    with pytest.raises(FloeError, match=r"takes datetime\.date"):
        inspect.files_for_value(location, "by_d", datetime.datetime(2024, 1, 1))
    with pytest.raises(FloeError, match="prefixes need a string column"):
        inspect.files_with_prefix(location, "by_k", "1")


# --- corrupt segments -------------------------------------------------------------------------


def _segment_path(location: str, index: str) -> Path:
    [listed] = [i for i in inspect.table_indexes(location) if i.name == index]
    return local_path(listed.segments[0].path)


@contextmanager
def _restored(*paths: Path) -> Iterator[None]:
    saved = {p: p.read_bytes() for p in paths}
    try:
        yield
    finally:
        for p, data in saved.items():
            p.write_bytes(data)


def _index_list_path(location: str) -> Path:
    metadata = inspect.load_table_metadata(location)
    return local_path(metadata["properties"]["floe.indexes"])


def _rewrite_segment(
    location: str, index: str, change: Callable[[list[tuple[dict[str, Any], bytes]]], None]
) -> None:
    """Re-writes the first segment of ``index`` with its blobs (decompressed, stored without a
    codec) changed by ``change``, and the index list's file size to match."""
    path = _segment_path(location, index)
    footer = inspect.read_puffin(str(path))
    blobs = [(dict(b), inspect.read_puffin_blob(str(path), b)) for b in footer["blobs"]]
    change(blobs)
    out = bytearray(b"PFA1")
    entries = []
    for blob, data in blobs:
        entry = {k: v for k, v in blob.items() if k != "compression-codec"}
        entry.update(offset=len(out), length=len(data))
        entries.append(entry)
        out += data
    payload = json.dumps({"blobs": entries, "properties": footer["properties"]}).encode()
    out += b"PFA1" + payload + struct.pack("<iI", len(payload), 0) + b"PFA1"
    path.write_bytes(bytes(out))
    listing = _index_list_path(location)
    document = json.loads(listing.read_text())
    for entry in document["indexes"]:
        for segment in entry["segments"]:
            if local_path(segment["path"]) == path:
                segment["file-size-in-bytes"] = len(out)
    listing.write_text(json.dumps(document))


def _blob(blobs: list[tuple[dict[str, Any], bytes]], kind: str) -> int:
    return next(i for i, (b, _) in enumerate(blobs) if b["type"] == kind)


def _set_directory_byte(
    at: int, value: int
) -> Callable[[list[tuple[dict[str, Any], bytes]]], None]:
    def change(blobs: list[tuple[dict[str, Any], bytes]]) -> None:
        i = _blob(blobs, "floe-index-directory-v1")
        data = bytearray(blobs[i][1])
        data[at] = value
        blobs[i] = (blobs[i][0], bytes(data))

    return change


def _more_files(blobs: list[tuple[dict[str, Any], bytes]]) -> None:
    i = _blob(blobs, "floe-index-files-v1")
    (n,) = struct.unpack_from("<i", blobs[i][1])
    blobs[i] = (blobs[i][0], struct.pack("<i", n + 1) + blobs[i][1][4:])


def _extra_blob(blobs: list[tuple[dict[str, Any], bytes]]) -> None:
    blobs.append(({**blobs[0][0], "type": "floe-index-bloom-v9"}, b"x"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            _set_directory_byte(0, 9),
            r"floe-index-directory-v1 at byte 1 \(version\), expected version 1, found version 9",
        ),
        (_set_directory_byte(1, 1), r"expected index type inverted, found btree"),
        (_more_files, r"floe-index-files-v1 at byte \d+ \(path of file \d+\)"),
        (_extra_blob, r"found floe-index-bloom-v9 \(a newer Floe\?\)"),
    ],
    ids=["directory version", "index type", "file count", "unknown blob"],
)
def test_corrupt_segment_names_the_file_and_the_index(
    indexed: tuple[str, str], change: Callable[..., None], message: str
) -> None:
    _, location = indexed
    path = _segment_path(location, "by_k")
    before = inspect.files_for_value(location, "by_k", 13)
    with _restored(path, _index_list_path(location)):
        _rewrite_segment(location, "by_k", change)
        with pytest.raises(IndexFileError, match=message) as raised:
            inspect.files_for_value(location, "by_k", 13)
        assert raised.value.index == "by_k" and local_path(raised.value.path) == path
        assert str(path) in str(raised.value) and "index by_k on table" in str(raised.value)
        [listed] = [i for i in inspect.table_indexes(location) if i.name == "by_k"]
        assert listed.covered_files is None and listed.problem is not None
        assert "by_k" in listed.problem and str(path) in listed.problem
    assert inspect.files_for_value(location, "by_k", 13) == before  # restored


def test_truncated_and_missing_segments(indexed: tuple[str, str]) -> None:
    _, location = indexed
    path = _segment_path(location, "by_s")
    with _restored(path):
        path.write_bytes(path.read_bytes()[:-10])
        with pytest.raises(IndexFileError, match=r"Invalid segment .* of index by_s .*file size"):
            inspect.files_for_value(location, "by_s", "v042")
        path.unlink()
        with pytest.raises(IndexFileError, match=r"Cannot read segment .* of index by_s"):
            inspect.files_for_value(location, "by_s", "v042")


@pytest.mark.parametrize("index", ["by_k", "by_id"])
def test_every_flipped_byte_gives_an_index_error_or_an_answer(
    indexed: tuple[str, str], index: str
) -> None:
    """Flip each byte of a segment in turn: a lookup raises IndexFileError naming the file and
    the index, or (for a byte whose change the layout cannot detect) answers; never anything
    else. Index lookups and the listing read every blob of the segment."""
    _, location = indexed
    path = _segment_path(location, index)
    original = path.read_bytes()
    errors = 0
    with _restored(path):
        for at in range(len(original)):
            flipped = bytearray(original)
            flipped[at] ^= 0xFF
            path.write_bytes(bytes(flipped))
            try:
                inspect.files_in_range(location, index, None, None)
            except IndexFileError as e:
                assert e.index == index and str(path) in str(e), e
                errors += 1
    assert errors > len(original) // 2


# --- byte layouts against the JVM's RoaringBitmap and hand-made pages ----------------------------


@pytest.mark.parametrize(
    "values",
    [
        [],
        [0, 3, 7, 65535, 65536, 1 << 20],
        [*range(5000), 70000],  # a bitset container
        [*range(100, 3000), *range(200000, 200100)],  # run containers
        [5, *range(10, 20), *range(65536, 65536 + 9000, 2), *range(1 << 18, (1 << 18) + 10)],
    ],
    ids=["empty", "arrays", "bitset", "runs", "mixed"],
)
@pytest.mark.parametrize("run_optimize", [False, True])
def test_roaring_reader_reads_what_the_jvm_writes(
    spark: SparkSession, values: list[int], run_optimize: bool
) -> None:
    jvm = spark._jvm
    assert jvm is not None
    bitmap = jvm.org.roaringbitmap.RoaringBitmap()
    for v in values:
        bitmap.add(v)
    if run_optimize:
        bitmap.runOptimize()
    buffer = jvm.java.nio.ByteBuffer.allocate(bitmap.serializedSizeInBytes())
    bitmap.serialize(buffer)
    data = bytes(buffer.array())
    assert read_roaring_bitmap(data, "test") == sorted(values)
    for cut in {1, len(data) // 2, len(data) - 1} - {0}:
        with pytest.raises(Malformed):
            read_roaring_bitmap(data[:cut], "test")
    with pytest.raises(Malformed, match="Roaring bitmap of"):
        read_roaring_bitmap(data + b"\0", "test")


def test_roaring_reader_refuses_bad_cookies_and_unordered_values() -> None:
    with pytest.raises(Malformed, match="cookie"):
        read_roaring_bitmap(struct.pack("<II", 999, 0), "t")
    unordered = struct.pack("<II", 12346, 1) + struct.pack("<HH", 0, 1) + struct.pack("<I", 16)
    with pytest.raises(Malformed, match="ascending array values"):
        read_roaring_bitmap(unordered + struct.pack("<HH", 5, 3), "t")
    with pytest.raises(Malformed, match="offset of container 0"):
        bad_offset = unordered[:-4] + struct.pack("<I", 17)
        read_roaring_bitmap(bad_offset + struct.pack("<HH", 3, 5), "t")


@pytest.mark.parametrize("cut", [3, 8, 13, 20])
def test_truncated_deletion_vector_bitmap_is_a_floe_error(tmp_path: Path, cut: int) -> None:
    """Deletion vectors share the Roaring reader: a bitmap cut short (with a valid length and
    CRC around it) is a FloeError naming the file, not a struct.error."""
    one = struct.pack("<II", 12346, 1) + struct.pack("<HHI", 0, 1, 16) + struct.pack("<HH", 3, 9)
    roaring64 = (struct.pack("<QI", 1, 0) + one)[:cut]
    vector = bytes([0xD1, 0xD3, 0x39, 0x64]) + roaring64
    blob = struct.pack(">i", len(vector)) + vector + struct.pack(">I", zlib.crc32(vector))
    path = tmp_path / "dv.bin"
    path.write_bytes(blob)
    with pytest.raises(FloeError, match=r"Invalid deletion vector .*dv\.bin@0: .*truncated"):
        inspect.read_deletion_vector(str(path), 0, len(blob))
    whole = struct.pack("<QI", 1, 0) + one
    vector = bytes([0xD1, 0xD3, 0x39, 0x64]) + whole
    blob = struct.pack(">i", len(vector)) + vector + struct.pack(">I", zlib.crc32(vector))
    path.write_bytes(blob)
    assert inspect.read_deletion_vector(str(path), 0, len(blob)) == {3, 9}


def _page(*entries: bytes) -> bytes:
    return struct.pack("<i", len(entries)) + b"".join(entries)


def _btree_entry(key: int, *ordinals: int) -> bytes:
    gaps = [ordinals[0], *(b - a for a, b in itertools.pairwise(ordinals))]
    return bytes([8]) + struct.pack("<q", key) + bytes([len(ordinals), *gaps])


def test_page_layout_checks() -> None:
    long = KeyType("long")
    page = IndexPage.decode("btree", long, _page(_btree_entry(1, 0, 2), _btree_entry(5, 1)), 3, "p")
    assert (page.keys, page.files) == ((1, 5), ((0, 2), (1,)))
    cases = {
        "a key above 5": _page(_btree_entry(5, 0), _btree_entry(5, 1)),
        "ordinal 3": _page(_btree_entry(1, 3)),
        "gap 0": _page(_btree_entry(1, 1, 1)),
        "more bytes": _page(_btree_entry(1, 0)) + b"\0",
        "truncated": _page(_btree_entry(1, 0))[:-1],
        "expected 4 or 8 bytes": _page(bytes([2, 1, 1, 1, 0])),
    }
    for message, body in cases.items():
        with pytest.raises(Malformed, match=message):
            IndexPage.decode("btree", long, body, 3, "p")
