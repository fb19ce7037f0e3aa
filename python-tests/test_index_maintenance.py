"""Keeping secondary indexes current (docs/indexes.md, "Keeping it current"): rewrite_data_files
adds its compacted files to sync indexes in its own commit, commits merge segments once an index
holds floe.index.min-segments-to-merge of them (dropping files no longer live), and commit-time
maintenance covers every indexable type, fields nested in structs and binary columns included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import scan_report
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession

MIN_SEGMENTS = "floe.index.min-segments-to-merge"

# Every indexable type, a field nested in a struct and one nested two levels deep.
COLUMNS = (
    "id BIGINT, part INT, i INT, str STRING, d DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, "
    "dec DECIMAL(12, 3), bin BINARY, flag BOOLEAN, "
    "s STRUCT<a: INT, inner: STRUCT<b: STRING>>"
)

ROW_SQL = """
SELECT id, CAST(id % 3 AS INT) AS part, CAST(id * 7 AS INT) AS i,
       concat('s', lpad(CAST(id AS STRING), 4, '0')) AS str,
       date_add(DATE'2024-01-01', CAST(id AS INT)) AS d,
       timestamp_seconds(1700000000 + id * 60) AS ts,
       CAST(timestamp_seconds(1700000000 + id * 60) AS TIMESTAMP_NTZ) AS ntz,
       CAST(id / 8 AS DECIMAL(12, 3)) AS dec,
       CAST(concat('b', CAST(id AS STRING)) AS BINARY) AS bin,
       id = 1 AS flag,
       CASE WHEN id % 10 = 9 THEN NULL
            ELSE named_struct('a', CAST(id * 3 AS INT),
                              'inner', named_struct('b', concat('n', CAST(id AS STRING)))) END AS s
FROM range({start}, {end})
"""

# index name -> (CREATE INDEX spec, a predicate that holds for exactly the ids in the list)
INDEXES: dict[str, tuple[str, str, list[int]]] = {
    "by_id": ("USING btree (id)", "id = 41", [41]),
    "by_i": ("(i)", "i = 287", [41]),
    "by_str": ("USING btree (str)", "str = 's0041'", [41]),
    "by_d": ("(d)", "d = DATE'2024-02-11'", [41]),
    "by_ts": ("(ts)", "ts = timestamp_seconds(1700000000 + 41 * 60)", [41]),
    "by_ntz": (
        "(ntz)",
        "ntz = CAST(timestamp_seconds(1700000000 + 41 * 60) AS TIMESTAMP_NTZ)",
        [41],
    ),
    "by_dec": ("(dec)", "dec = 5.125", [41]),
    "by_bin": ("USING btree (bin)", "bin = CAST('b41' AS BINARY)", [41]),
    "by_flag": ("(flag)", "flag = true", [1]),
    "by_sa": ("(s.a)", "s.a = 123", [41]),
    "by_sib": ("USING btree (s.inner.b)", "s.inner.b = 'n41'", [41]),
}

def _ids(spark: SparkSession, sql: str) -> list[int]:
    return sorted(int(r[0]) for r in spark.sql(sql).collect())


def _coverage(spark: SparkSession, table: str, index: str) -> tuple[Any, ...]:
    row = spark.sql(
        f"SELECT covered_files, live_files, segments, problem FROM {table}.indexes "
        f"WHERE name = '{index}'"
    ).first()
    assert row is not None
    return tuple(row)


def _listed(spark: SparkSession, table: str, index: str) -> dict[str, Any]:
    """The entry of {index} in the table's current index list file (dead files included)."""
    props = {r[0]: r[1] for r in spark.sql(f"SHOW TBLPROPERTIES {table}").collect()}
    document = json.loads(Path(props["floe.indexes"].replace("file:", "")).read_text())
    entry: dict[str, Any] = next(i for i in document["indexes"] if i["name"] == index)
    return entry


def _append(spark: SparkSession, table: str, start: int, end: int, files: int = 1) -> None:
    spark.sql(ROW_SQL.format(start=start, end=end)).repartition(files).writeTo(table).append()


def test_rewrite_data_files_adds_the_compacted_files_to_sync_indexes(
    spark: SparkSession, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} ({COLUMNS}) USING floe PARTITIONED BY (part)")
    for start in (0, 30):  # two appends, each one file per partition: 6 files
        spark.sql(ROW_SQL.format(start=start, end=start + 30)).sortWithinPartitions(
            "part"
        ).coalesce(1).writeTo(table).append()
    for name in ("by_id", "by_sa", "by_bin"):
        spark.sql(f"CREATE INDEX {name} ON {table} {INDEXES[name][0]}")
    snapshots = spark.sql(f"SELECT count(*) FROM {table}.snapshots").first()
    result = spark.sql(
        f"CALL floe.system.rewrite_data_files(table => '{namespace}.t', "
        "options => map('min-input-files', '2'))"
    ).first()
    assert result is not None and (result[0], result[1]) == (6, 3)  # one file per partition
    after = spark.sql(f"SELECT count(*) FROM {table}.snapshots").first()
    assert snapshots is not None and after is not None and after[0] == snapshots[0] + 1
    for name in ("by_id", "by_sa", "by_bin"):
        covered, live, segments, problem = _coverage(spark, table, name)
        assert (covered, live, segments, problem) == (3, 3, 2, None), name
        _, predicate, expected = INDEXES[name]
        assert _ids(spark, f"SELECT id FROM {table} WHERE {predicate}") == expected
        # the id's partition is not in the filter: only the index can skip the other two files
        assert scan_report(spark, table)["index-pruned-files"][name] == 2, name


def test_every_type_and_nested_and_binary_columns_are_kept_current_at_commit(
    spark: SparkSession, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} ({COLUMNS}) USING floe")
    _append(spark, table, 0, 20)
    for name, (spec, _, _) in INDEXES.items():
        spark.sql(f"CREATE INDEX {name} ON {table} {spec}")
    _append(spark, table, 20, 60, files=2)  # ids 20..59 (41 among them) in two new files
    spark.sql(f"UPDATE {table} SET str = 's0041' WHERE id = 41")  # copy-on-write: a new file
    for name, (_, predicate, expected) in INDEXES.items():
        covered, live, _, problem = _coverage(spark, table, name)
        assert (covered, problem) == (live, None), name
        assert _ids(spark, f"SELECT id FROM {table} WHERE {predicate}") == expected, name
        if name != "by_flag":  # the files' bounds already skip most files for id = 1
            assert sum(scan_report(spark, table)["index-pruned-files"].values()) > 0, name
    # a null struct makes its nested fields null: the index knows which files hold one
    assert _ids(spark, f"SELECT id FROM {table} WHERE s.inner.b IS NULL AND id > 45") == [49, 59]


def test_commit_merges_segments_and_drops_files_no_longer_live(
    spark: SparkSession, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} ({COLUMNS}) USING floe TBLPROPERTIES ('{MIN_SEGMENTS}' = '3')")
    _append(spark, table, 0, 10)
    spark.sql(f"CREATE INDEX by_id ON {table} USING btree (id)")  # segment 1
    _append(spark, table, 10, 20)  # segment 2
    assert _coverage(spark, table, "by_id") == (2, 2, 2, None)
    _append(spark, table, 20, 30)  # segment 3: the commit merges all three
    assert _coverage(spark, table, "by_id") == (3, 3, 1, None)
    # copy-on-write replaces the file of ids 10..19; its new file gets a segment of its own
    spark.sql(f"DELETE FROM {table} WHERE id = 15")
    assert _coverage(spark, table, "by_id") == (3, 3, 2, None)
    assert sum(s["covered-file-count"] for s in _listed(spark, table, "by_id")["segments"]) == 4
    _append(spark, table, 30, 40)  # the third segment again: merged, the replaced file drops out
    assert _coverage(spark, table, "by_id") == (4, 4, 1, None)
    assert [s["covered-file-count"] for s in _listed(spark, table, "by_id")["segments"]] == [4]
    assert _ids(spark, f"SELECT id FROM {table} WHERE id IN (16, 35)") == [16, 35]
    # the new file of ids 10..19 keeps bounds that hold 15: the merged segment says it lacks 15
    assert _ids(spark, f"SELECT id FROM {table} WHERE id = 15") == []
    assert scan_report(spark, table)["index-pruned-files"]["by_id"] == 1


def test_a_small_segment_does_not_keep_larger_ones_from_merging(
    spark: SparkSession, namespace: str
) -> None:
    """A one-row insert's segment is the smallest by far; the next commits still merge (the two
    smallest segments are always merged, however their sizes differ)."""
    table = f"floe.{namespace}.small_first"
    spark.sql(f"CREATE TABLE {table} (id BIGINT) USING floe TBLPROPERTIES ('{MIN_SEGMENTS}' = '3')")
    spark.sql(f"CREATE INDEX by_id ON {table} USING btree (id)")
    spark.sql(f"INSERT INTO {table} VALUES (1)")
    for start in (1_000, 10_000):  # thousands of ids each: segments many times the one-row one
        spark.sql(f"INSERT INTO {table} SELECT id FROM range({start}, {start + 3000}, 1, 1)")
    sizes = [s["file-size-in-bytes"] for s in _listed(spark, table, "by_id")["segments"]]
    assert _coverage(spark, table, "by_id") == (3, 3, 1, None), sizes
    found = _ids(spark, f"SELECT id FROM {table} WHERE id IN (1, 1001, 12999, 5)")
    assert found == [1, 1001, 12999]


def test_min_segments_to_merge_is_validated(spark: SparkSession, namespace: str) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT) USING floe")
    for bad in ("1", "many"):
        with pytest.raises(AnalysisException, match=MIN_SEGMENTS.replace(".", r"\.")):
            spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('{MIN_SEGMENTS}' = '{bad}')")
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('{MIN_SEGMENTS}' = '2')")


def test_unsupported_columns_are_clear_errors_naming_column_and_type(
    spark: SparkSession, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, f FLOAT, x DOUBLE, arr ARRAY<STRUCT<y: INT>>, "
        "m MAP<STRING, STRUCT<v: INT>>, s STRUCT<inner: ARRAY<INT>>) USING floe"
    )
    for column, found in [
        ("f", "type float"),
        ("x", "type double"),
        ("arr", "type list<"),
        ("m", "type map<"),
        ("s.inner", "type list<"),
        ("arr.y", "it is inside arr of type list<"),
        ("m.value.v", "it is inside m of type map<"),
    ]:
        with pytest.raises(AnalysisException) as e:
            spark.sql(
                f"CALL floe.system.create_index(table => '{namespace}.t', name => 'i', "
                f"column => '{column}')"
            )
        message = str(e.value)
        assert f"Cannot index column {column} of table" in message and found in message, message
        assert "supported: int, bigint, string" in message, message
        if "." not in column:  # Spark's parser refuses a path into an array or map itself
            with pytest.raises(AnalysisException, match=f"Cannot index column {column} of table"):
                spark.sql(f"CREATE INDEX i ON {table} ({column})")
    assert spark.sql(f"SELECT * FROM {table}.indexes").collect() == []
