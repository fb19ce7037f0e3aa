"""count(*), count(col), min and max answered from manifest metrics (aggregate push-down).

Every query is checked twice: its answer equals the answer of the same query with push-down
switched off (a real scan), and its plan says whether metadata answered it (the optimized plan's
relation outputs ``count(*)``/``min(col)``, the physical plan is a bare LocalTableScan and no
Spark job runs) or a scan did (a BatchScan).
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

import pytest
from conftest import spark_jobs

# these tests look at the scan node of a Spark job (its partitioning, its plan), which a small
# scan read on the driver (FloeLocalRead) does not have
pytestmark = pytest.mark.usefixtures("job_scans")

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

SWITCH = "spark.sql.floe.aggregate-push-down.enabled"


def _rows(spark: SparkSession, query: str) -> tuple[list[Any], str, str, int]:
    """The rows, optimized and physical plan, and the number of Spark jobs collecting them ran."""

    def collect() -> tuple[list[Any], DataFrame]:
        df = spark.sql(query)
        return df.collect(), df

    (rows, df), jobs = spark_jobs(spark, collect)
    execution = df._jdf.queryExecution()
    optimized, physical = execution.optimizedPlan().toString(), execution.executedPlan().toString()
    return rows, optimized, physical, len(jobs)


def _scanned(spark: SparkSession, query: str) -> list[Any]:
    spark.conf.set(SWITCH, "false")
    try:
        rows, _, physical, _ = _rows(spark, query)
    finally:
        spark.conf.unset(SWITCH)
    assert "BatchScan" in physical, physical
    return rows


def _nan_safe(rows: list[Any]) -> list[Any]:
    return [tuple("NaN" if isinstance(v, float) and v != v else v for v in r) for r in rows]


def check(spark: SparkSession, query: str, *, pushed: bool) -> list[Any]:
    """Runs ``query``; checks its answer against a scan's and whether metadata answered it."""
    rows, optimized, physical, jobs = _rows(spark, query)
    assert _nan_safe(rows) == _nan_safe(_scanned(spark, query)), query
    if pushed:
        assert (
            "RelationV2[count(*)" in optimized
            or "RelationV2[min(" in optimized
            or "RelationV2[max(" in optimized
            or "RelationV2[count(" in optimized
        ), optimized
        assert physical.startswith("LocalTableScan"), physical
        assert jobs == 0, f"{jobs} Spark jobs for a metadata answer: {query}"
    else:
        assert "BatchScan" in physical, physical
    return rows


def test_count_min_max_of_every_exact_type_without_a_job(
    spark: SparkSession, namespace: str
) -> None:
    t = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {t} (id BIGINT, i INT, d DATE, ts TIMESTAMP, dec DECIMAL(10, 2), b BOOLEAN, "
        "x DOUBLE, s STRING, p INT) USING floe PARTITIONED BY (p)"
    )
    for start in (0, 500):
        spark.sql(
            f"INSERT INTO {t} SELECT id, IF(id % 5 = 0, NULL, CAST(id AS INT) - 300), "
            "date_add(DATE '2024-01-01', CAST(id % 97 AS INT)), "
            "TIMESTAMP '2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id * 7), "
            "CAST(id / 8.0 AS DECIMAL(10, 2)), id % 3 = 0, CAST(id AS DOUBLE) - 0.5, "
            "concat('s', CAST(id AS STRING)), CAST(id % 4 AS INT) "
            f"FROM range({start}, {start + 500})"
        )
    every = (
        "count(*), count(i), min(i), max(i), min(id), max(id), min(d), max(d), min(ts), max(ts), "
        "min(dec), max(dec), min(b), max(b), min(x), max(x), count(s)"
    )
    rows = check(spark, f"SELECT {every} FROM {t}", pushed=True)
    assert rows[0][0] == 1000 and rows[0][1] == 800
    # a filter that selects whole partitions is applied exactly by planning: still metadata
    assert check(spark, f"SELECT count(*), min(d) FROM {t} WHERE p = 1", pushed=True)[0][0] == 250
    assert (
        check(spark, f"SELECT count(*) AS n FROM {t} WHERE p IN (1, 2)", pushed=True)[0][0] == 500
    )
    # expressions over the answers are evaluated on the driver
    check(spark, f"SELECT count(*) * 2 + 1 AS n, date_add(max(d), 1) FROM {t}", pushed=True)
    # anything the metrics cannot answer exactly is scanned
    check(spark, f"SELECT count(*) FROM {t} WHERE id > 10", pushed=False)
    check(spark, f"SELECT p, count(*) FROM {t} GROUP BY p ORDER BY p", pushed=False)
    check(spark, f"SELECT count(DISTINCT d), min(id) FROM {t}", pushed=False)
    check(spark, f"SELECT sum(id), max(id) FROM {t}", pushed=False)
    check(
        spark, f"SELECT max(s) FROM {t}", pushed=False
    )  # string bounds truncated to 16 characters


def test_session_switch_turns_it_off(spark: SparkSession, namespace: str) -> None:
    t = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT) USING floe")
    spark.sql(f"INSERT INTO {t} SELECT id FROM range(10)")
    check(spark, f"SELECT count(*), max(id) FROM {t}", pushed=True)
    plan = spark.sql(f"EXPLAIN EXTENDED SELECT count(*), max(id) FROM {t}").collect()[0][0]
    assert "RelationV2[count(*)" in plan and "max(id)" in plan, plan
    spark.conf.set(SWITCH, "false")
    try:
        assert "BatchScan" in _rows(spark, f"SELECT count(*) FROM {t}")[2]
    finally:
        spark.conf.unset(SWITCH)
    check(spark, f"SELECT count(*), max(id) FROM {t}", pushed=True)


def test_strings_nan_nulls_and_empty_tables(spark: SparkSession, namespace: str) -> None:
    t = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {t} (s STRING, x DOUBLE, n INT) USING floe "
        "TBLPROPERTIES ('write.metadata.metrics.column.s'='full')"
    )
    check(
        spark, f"SELECT count(*), count(s), max(x), min(n) FROM {t}", pushed=True
    )  # empty: 0, nulls
    spark.sql(
        f"INSERT INTO {t} VALUES ('zzzzzzzzzzzzzzzzzzzz-longer-than-16', 1.5, NULL), "
        "('a', -2.0, NULL), (NULL, NULL, NULL)"
    )
    rows = check(spark, f"SELECT count(s), min(x), max(x), min(n), count(n) FROM {t}", pushed=True)
    assert rows == [(2, -2.0, 1.5, None, 0)]
    # string bounds are never the answer, even in metrics mode full (see the next test)
    rows = check(spark, f"SELECT min(s), max(s) FROM {t}", pushed=False)
    assert rows == [("a", "zzzzzzzzzzzzzzzzzzzz-longer-than-16")]
    spark.sql(f"INSERT INTO {t} VALUES ('b', double('NaN'), 1)")
    assert _nan_safe(check(spark, f"SELECT max(x) FROM {t}", pushed=False)) == [("NaN",)]
    check(spark, f"SELECT min(x) FROM {t}", pushed=False)
    check(spark, f"SELECT count(*), count(s), max(n) FROM {t}", pushed=True)


def test_string_bounds_written_before_the_metrics_mode_became_full(
    spark: SparkSession, namespace: str
) -> None:
    """A file keeps the bounds of the metrics mode it was written with: after the default
    truncate(16) becomes full, the old files' string bounds are still cut (the upper one rounded
    up), so min/max of strings are scanned, as Iceberg decided (apache/iceberg#16320)."""
    t = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, s STRING) USING floe")
    spark.sql(
        f"INSERT INTO {t} SELECT id, concat(repeat('y', 20), CAST(id AS STRING)) FROM range(20)"
    )
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.metadata.metrics.default'='full')")
    spark.sql(f"INSERT INTO {t} VALUES (20, 'a')")
    rows = check(spark, f"SELECT min(s), max(s) FROM {t}", pushed=False)
    assert rows == [("a", "y" * 20 + "9")]
    # count(*), count(col) and the other types' bounds do not depend on the mode
    assert check(spark, f"SELECT count(*), count(s), max(id) FROM {t}", pushed=True) == [
        (21, 21, 20)
    ]
    # a query mixing both is scanned whole
    check(spark, f"SELECT count(*), max(s) FROM {t}", pushed=False)


def test_deletes(spark: SparkSession, namespace: str) -> None:
    dv = f"floe.{namespace}.dv"
    positions = f"floe.{namespace}.positions"
    copied = f"floe.{namespace}.copied"
    for t, props in (
        (dv, "'format-version'='3', 'write.delete.mode'='merge-on-read'"),
        (positions, "'format-version'='2', 'write.delete.mode'='merge-on-read'"),
        (copied, "'format-version'='2', 'write.delete.mode'='copy-on-write'"),
    ):
        spark.sql(f"CREATE TABLE {t} (id BIGINT) USING floe TBLPROPERTIES ({props})")
        spark.sql(f"INSERT INTO {t} SELECT id FROM range(100)")
        spark.sql(f"DELETE FROM {t} WHERE id < 3 OR id = 99")
    # deletion vectors: count(*) subtracts their cardinality; min/max would see deleted rows
    assert check(spark, f"SELECT count(*) FROM {dv}", pushed=True) == [(96,)]
    assert check(spark, f"SELECT count(*), min(id), max(id) FROM {dv}", pushed=False) == [
        (96, 3, 98)
    ]
    # position delete files may repeat positions: scanned
    assert check(spark, f"SELECT count(*) FROM {positions}", pushed=False) == [(96,)]
    assert check(spark, f"SELECT count(*), min(id), max(id) FROM {copied}", pushed=True) == [
        (96, 3, 98)
    ]


def test_partition_evolution_and_time_travel(spark: SparkSession, namespace: str) -> None:
    t = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p INT, q INT) USING floe PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} SELECT id, CAST(id % 3 AS INT), CAST(id % 5 AS INT) FROM range(60)")
    first = spark.sql(f"SELECT snapshot_id FROM {t}.snapshots").collect()[0][0]
    spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD q")
    spark.sql(
        f"INSERT INTO {t} SELECT id, CAST(id % 3 AS INT), CAST(id % 5 AS INT) FROM range(60, 90)"
    )
    assert check(spark, f"SELECT count(*), max(id) FROM {t} WHERE p = 2", pushed=True) == [(30, 89)]
    # q is a partition field of the new spec only: files of the old spec need a row filter
    check(spark, f"SELECT count(*) FROM {t} WHERE q = 1", pushed=False)
    old = check(spark, f"SELECT count(*), max(id) FROM {t} VERSION AS OF {first}", pushed=True)
    assert old == [(60, 59)]


def test_tables_the_iceberg_runtime_wrote(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    """Iceberg's own writer: its default metrics mode truncate(16), its position deletes (v2) and
    deletion vectors (v3); Floe's answers equal a scan's, and follow Iceberg's commits."""
    ice, fl = f"{iceberg}.{namespace}.t", f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {ice} (id BIGINT, s STRING, x DOUBLE, f FLOAT, d DATE, ts TIMESTAMP, "
        "ntz TIMESTAMP_NTZ, dec DECIMAL(20, 4), p INT) USING iceberg PARTITIONED BY (p) "
        "TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')"
    )
    spark.sql(
        f"INSERT INTO {ice} SELECT id, concat(repeat('x', 20), CAST(id AS STRING)), id * 1.5 - 7, "
        "CAST(id AS FLOAT) / 4 + 0.25, date_add(DATE '2024-02-28', CAST(id AS INT)), "
        "TIMESTAMP '2024-03-31 01:30:00' + make_interval(0, 0, 0, 0, id, 0, 0), "
        "TIMESTAMP_NTZ '2024-03-31 01:30:00' + make_interval(0, 0, 0, 0, id, 0, 0), "
        "CAST(id AS DECIMAL(20, 4)) / 3 - 10, CAST(id % 3 AS INT) FROM range(200)"
    )
    every = (
        "count(*), count(s), count(x), min(id), max(id), min(x), max(x), min(f), max(f), "
        "min(d), max(d), min(ts), max(ts), min(ntz), max(ntz), min(dec), max(dec)"
    )
    rows = check(spark, f"SELECT {every} FROM {fl}", pushed=True)
    assert rows[0][:5] == (200, 200, 200, 0, 199)
    check(spark, f"SELECT count(*), max(id) FROM {fl} WHERE p = 1", pushed=True)
    # truncate(16): Iceberg's string bounds are cut (the upper one rounded up), never the answer
    assert check(spark, f"SELECT max(s) FROM {fl}", pushed=False) == [("x" * 20 + "99",)]
    check(spark, f"SELECT min(s) FROM {fl}", pushed=False)
    # Iceberg's position delete files: scanned
    spark.sql(f"DELETE FROM {ice} WHERE id % 7 = 0 OR id = 199")
    assert check(spark, f"SELECT count(*), max(id) FROM {fl}", pushed=False) == [(170, 198)]
    check(spark, f"SELECT {every} FROM {fl}", pushed=False)

    dv, dv_floe = f"{iceberg}.{namespace}.dv", f"floe.{namespace}.dv"
    spark.sql(
        f"CREATE TABLE {dv} (id BIGINT, p INT) USING iceberg PARTITIONED BY (p) "
        "TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read', "
        "'write.update.mode'='merge-on-read')"
    )
    spark.sql(f"INSERT INTO {dv} SELECT id, CAST(id % 2 AS INT) FROM range(100)")
    assert check(spark, f"SELECT count(*) FROM {dv_floe}", pushed=True) == [(100,)]
    # Floe's answer follows Iceberg's commits: no answer of an older snapshot is kept
    spark.sql(f"DELETE FROM {dv} WHERE id < 5")
    assert check(spark, f"SELECT count(*) FROM {dv_floe}", pushed=True) == [(95,)]
    # a second delete in the same files: Iceberg merges the old vector into the new one
    spark.sql(f"DELETE FROM {dv} WHERE id IN (50, 51, 98)")
    assert check(spark, f"SELECT count(*) FROM {dv_floe}", pushed=True) == [(92,)]
    spark.sql(f"UPDATE {dv} SET id = id + 1000 WHERE id = 60")
    assert check(spark, f"SELECT count(*) FROM {dv_floe} WHERE p = 0", pushed=True) == [(45,)]
    assert check(spark, f"SELECT count(*), max(id) FROM {dv_floe}", pushed=False) == [(92, 1060)]
    spark.sql(f"INSERT INTO {dv} VALUES (2000, 1)")
    assert check(spark, f"SELECT count(*) FROM {dv_floe}", pushed=True) == [(93,)]


def test_branches_tags_and_answers_after_other_writers(spark: SparkSession, namespace: str) -> None:
    """Branches, tags and VERSION AS OF a branch are answered from their own snapshot; no answer
    outlives a commit."""
    t = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT) USING floe")
    spark.sql(f"INSERT INTO {t} SELECT id FROM range(10)")
    spark.sql(f"ALTER TABLE {t} CREATE TAG x")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH b")
    spark.sql(f"INSERT INTO {t}.branch_b VALUES (100), (101)")
    spark.sql(f"INSERT INTO {t} VALUES (50)")
    assert check(spark, f"SELECT count(*), max(id) FROM {t}.branch_b", pushed=True) == [(12, 101)]
    assert check(spark, f"SELECT count(*), max(id) FROM {t}.tag_x", pushed=True) == [(10, 9)]
    assert check(spark, f"SELECT count(*), max(id) FROM {t} VERSION AS OF 'b'", pushed=True) == [
        (12, 101)
    ]
    assert check(spark, f"SELECT count(*), max(id) FROM {t}", pushed=True) == [(11, 50)]
    # another session's commit (another catalog instance) is seen by this session's next query
    other = spark.newSession()
    other.sql(f"INSERT INTO {t} VALUES (60)")
    assert check(spark, f"SELECT count(*), max(id) FROM {t}", pushed=True) == [(12, 60)]


def test_odd_names_nested_fields_null_columns_and_signed_zeros(
    spark: SparkSession, namespace: str
) -> None:
    """Columns named with dots, backticks, spaces and non-ASCII letters are answered; nested
    fields are scanned; a column of only nulls has count 0 and min/max NULL; a float/double min
    or max of zero is scanned (a scan may return either sign)."""
    t = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {t} (`a.b` INT, `we``ird` BIGINT, `sp ace` DATE, `ünï` DOUBLE, "
        "st STRUCT<x: INT, `y.z`: INT>, n INT, f FLOAT, z DOUBLE) USING floe"
    )
    empty = "count(*), count(`a.b`), min(`ünï`), count(n), min(n)"
    assert check(spark, f"SELECT {empty} FROM {t}", pushed=True) == [(0, 0, None, 0, None)]
    check(spark, f"SELECT max(st.x) FROM {t}", pushed=False)
    spark.sql(
        f"INSERT INTO {t} VALUES (1, 2, DATE '2024-01-01', 0.5, named_struct('x', 1, 'y.z', 2), "
        "NULL, CAST(-0.0 AS FLOAT), -0.0), "
        "(NULL, -2, NULL, 1.5, NULL, NULL, CAST(3 AS FLOAT), 2.0), "
        "(7, NULL, DATE '2023-01-01', NULL, named_struct('x', NULL, 'y.z', 5), NULL, 0.0, 0.0)"
    )
    rows = check(
        spark,
        f"SELECT count(`a.b`), min(`a.b`), max(`we``ird`), min(`sp ace`), max(`ünï`), "
        f"count(`ünï`), count(n), min(n), max(n), max(f), max(z) FROM {t}",
        pushed=True,
    )
    assert rows == [(2, 1, 2, datetime.date(2023, 1, 1), 1.5, 2, 0, None, None, 3.0, 2.0)]
    check(spark, f"SELECT min(st.x) FROM {t}", pushed=False)
    check(spark, f"SELECT count(st.x) FROM {t}", pushed=False)
    check(spark, f"SELECT count(st.`y.z`) FROM {t}", pushed=False)
    check(spark, f"SELECT count(st) FROM {t}", pushed=False)
    check(spark, f"SELECT min(f) FROM {t}", pushed=False)
    check(spark, f"SELECT min(z) FROM {t}", pushed=False)
    # metadata tables are projected on the driver too: same rows as Spark's projection
    snaps = spark.sql(f"SELECT snapshot_id, operation FROM {t}.snapshots").collect()
    proj = spark.sql(f"SELECT snapshot_id + 1, upper(operation) AS o FROM {t}.snapshots").collect()
    assert [(r[0] + 1, r[1].upper()) for r in snaps] == [tuple(r) for r in proj]
