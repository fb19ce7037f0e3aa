"""Small scans read on the driver (README "Reading"; ``FloeLocalReadStrategy``).

A Floe scan whose planned files hold at most ``spark.floe.read.local-max-rows`` rows (default
100,000) in at most ``spark.floe.read.local-max-bytes`` bytes (default 32 MiB) is planned, with
the filter and projection above it, as ``FloeLocalRead``: the driver reads the files when the query
runs, and ``collect`` returns without a Spark job. Every answer must be the one the job gives
(``job_scans`` turns the driver read off), whatever the table holds: deletes, partitions, metadata
columns, renamed and added columns, older snapshots.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pytest
from conftest import LOCAL_READ_ROWS, scan_metrics, scan_report, spark_jobs, spark_setting

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyspark.sql import DataFrame, SparkSession

LOCAL_READ_BYTES = "spark.floe.read.local-max-bytes"
LOCAL_AGGREGATE_ROWS = "spark.floe.read.local-aggregate-max-rows"


def _run(spark: SparkSession, query: str | Callable[[], DataFrame]) -> tuple[list[Any], str, int]:
    """The sorted rows of ``query``, its executed plan and the number of Spark jobs it ran."""

    def collect() -> tuple[list[Any], DataFrame]:
        df = spark.sql(query) if isinstance(query, str) else query()
        return sorted((tuple(r) for r in df.collect()), key=repr), df

    (rows, df), jobs = spark_jobs(spark, collect)
    return rows, df._jdf.queryExecution().executedPlan().toString(), len(jobs)


def _with_jobs(spark: SparkSession, query: str) -> list[Any]:
    """The sorted rows of ``query`` read by a Spark job (the driver read turned off)."""
    with spark_setting(spark, LOCAL_READ_ROWS, "0"):
        rows, plan, _ = _run(spark, query)
    assert "BatchScan" in plan and "FloeLocalRead" not in plan, plan
    return rows


def assert_local_and_equal(spark: SparkSession, query: str, jobs: int = 0) -> list[Any]:
    """``query`` reads on the driver, runs ``jobs`` Spark jobs, and answers as the job path does."""
    rows, plan, ran = _run(spark, query)
    assert "FloeLocalRead" in plan and "BatchScan" not in plan, plan
    assert ran == jobs, f"{ran} Spark jobs for {query}\n{plan}"
    assert rows == _with_jobs(spark, query), query
    return rows


@pytest.fixture
def table(spark: SparkSession, namespace: str) -> str:
    name = f"floe.{namespace}.small"
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, s STRING, d DECIMAL(10, 2), p STRING) USING floe "
        "PARTITIONED BY (p)"
    )
    spark.sql(
        f"INSERT INTO {name} SELECT id, IF(id % 10 = 0, NULL, concat('s', id)), "
        "CAST(id / 4 AS DECIMAL(10, 2)), concat('p', id % 3) FROM range(3000)"
    )
    return name


def test_a_lookup_runs_without_a_job_and_explain_names_the_scan(
    spark: SparkSession, table: str
) -> None:
    rows = assert_local_and_equal(spark, f"SELECT * FROM {table} WHERE id = 42")
    assert len(rows) == 1 and rows[0][0] == 42
    explain = spark.sql(f"EXPLAIN SELECT s FROM {table} WHERE id = 42").collect()[0][0]
    assert "FloeLocalRead" in explain and f"FloeScan {table}" in explain, explain
    assert "read on the driver" in explain, explain


def test_the_scan_metrics_are_those_of_the_job(spark: SparkSession, table: str) -> None:
    """Files and manifests planned, skipped and read show on FloeLocalRead as on a BatchScan."""
    query = f"SELECT id FROM {table} WHERE p = 'p1' AND id < 40"
    planning = ("totalManifests", "scannedManifests", "resultDataFiles", "skippedDataFiles",
                "resultDataBytes")  # fmt: skip
    local = spark.sql(query)
    rows = local.collect()
    by_driver = scan_metrics(local, table)
    assert "FloeLocalRead" in local._jdf.queryExecution().executedPlan().toString()
    with spark_setting(spark, LOCAL_READ_ROWS, "0"):
        job = spark.sql(query)
        assert sorted(job.collect()) == sorted(rows)
        by_job = scan_metrics(job, table)
    assert {k: by_driver[k] for k in planning} == {k: by_job[k] for k in planning}, by_driver
    assert by_driver["resultDataFiles"] == 1 and by_driver["skippedDataFiles"] == 2, by_driver
    assert by_driver["resultDataBytes"] > 0 and by_driver["numOutputRows"] == len(rows) == 13


def test_a_scan_that_plans_no_file_returns_without_opening_a_reader(
    spark: SparkSession, table: str
) -> None:
    """When bounds, partitions or an index leave no file to read, the driver returns no row at
    once: no reader factory is made (``ScanReports.readerFactories``, a test hook), no job runs,
    and the scan's metrics still show the planning."""
    hooks = spark.sparkContext._jvm.io.floe.spark.source.ScanReports  # type: ignore[union-attr]
    spark.sql(f"CREATE INDEX small_by_s ON {table} USING inverted (s)")
    for query in (
        f"SELECT * FROM {table} WHERE id = 5000",  # above every file's upper bound
        f"SELECT id, s FROM {table} WHERE p = 'p7'",  # no such partition
        f"SELECT * FROM {table} WHERE s = 's1x'",  # within every file's bounds: the index
    ):
        before = hooks.readerFactories(table)
        rows, plan, jobs = _run(spark, query)
        assert rows == [] and jobs == 0 and "FloeLocalRead" in plan, plan
        assert hooks.readerFactories(table) == before, query
        assert _with_jobs(spark, query) == []
    assert scan_report(spark, table)["index-pruned-files"] == {"small_by_s": 3}
    # an aggregate on the driver over such a read, and a job's aggregate over it (DISTINCT: the
    # read's one task)
    for query, node, answer in (
        (f"SELECT count(*), max(id) FROM {table} WHERE s = 's1x'", "FloeLocalAggregate", (0, None)),
        (f"SELECT count(DISTINCT id) FROM {table} WHERE s = 's1x'", "FloeLocalRead", (0,)),
    ):
        before = hooks.readerFactories(table)
        df = spark.sql(query)
        assert [tuple(r) for r in df.collect()] == [answer], query
        assert node in df._jdf.queryExecution().executedPlan().toString(), query
        assert hooks.readerFactories(table) == before, query
    df = spark.sql(f"SELECT id FROM {table} WHERE id = 5000")
    assert df.collect() == []
    metrics = scan_metrics(df, table)
    assert metrics["skippedDataFiles"] == 3 and metrics["numOutputRows"] == 0, metrics


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM {t}",
        "SELECT id, upper(s) AS u, d * 2 FROM {t} WHERE s IS NULL OR id BETWEEN 100 AND 120",
        "SELECT p, id FROM {t} WHERE p = 'p1' AND id < 40",
        "SELECT _file, _pos, _partition, _spec_id, id FROM {t} WHERE id % 500 = 7",
        "SELECT * FROM {t} WHERE id = -1",
        "SELECT id FROM {t} WHERE s LIKE 's1%' AND d > 10",
    ],
)
def test_answers_equal_the_job(spark: SparkSession, table: str, query: str) -> None:
    assert_local_and_equal(spark, query.format(t=table))


def test_deletes_updates_and_older_snapshots(spark: SparkSession, table: str) -> None:
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')")
    first = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots").collect()[0][0]
    spark.sql(f"DELETE FROM {table} WHERE id % 7 = 0")
    spark.sql(f"UPDATE {table} SET s = 'updated' WHERE id BETWEEN 10 AND 20")
    rows = assert_local_and_equal(spark, f"SELECT * FROM {table} WHERE id < 30")
    updated = sorted(r[0] for r in rows if r[1] == "updated")
    assert updated == [10, 11, 12, 13, 15, 16, 17, 18, 19, 20]
    assert all(r[0] % 7 for r in rows)
    old = assert_local_and_equal(
        spark, f"SELECT * FROM {table} VERSION AS OF {first} WHERE id < 30"
    )
    assert sorted(r[0] for r in old) == list(range(30))


def test_renamed_and_added_columns(spark: SparkSession, table: str) -> None:
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN s TO label")
    spark.sql(f"ALTER TABLE {table} ADD COLUMN extra INT")
    spark.sql(f"INSERT INTO {table} VALUES (5000, 'new', 1.50, 'p9', 7)")
    rows = assert_local_and_equal(
        spark, f"SELECT id, label, extra FROM {table} WHERE id IN (1, 5000)"
    )
    assert rows == [(1, "s1", None), (5000, "new", 7)]


def test_limit_tail_iterator_aggregate_and_join(spark: SparkSession, table: str) -> None:
    _, plan, jobs = _run(spark, f"SELECT * FROM {table} WHERE id < 100 LIMIT 5")
    assert "FloeLocalRead" in plan and jobs == 0, plan
    assert len(spark.sql(f"SELECT * FROM {table} WHERE id < 100").tail(3)) == 3
    got = sorted(r.id for r in spark.sql(f"SELECT id FROM {table} WHERE id < 50").toLocalIterator())
    assert got == list(range(50))
    # the aggregate above is computed on the driver too (see the FloeLocalAggregate tests below);
    # with it turned off, the read is one partition: one job and no shuffle
    query = f"SELECT p, count(*), sum(d) FROM {table} GROUP BY p"
    rows, plan, jobs = _run(spark, query)
    assert "FloeLocalAggregate" in plan and "FloeLocalRead" in plan and jobs == 0, plan
    with spark_setting(spark, LOCAL_AGGREGATE_ROWS, "0"):
        rows_in_job, plan, jobs = _run(spark, query)
    assert "FloeLocalRead" in plan and "FloeLocalAggregate" not in plan, plan
    assert "Exchange" not in plan and jobs == 1, plan
    assert rows == rows_in_job == _with_jobs(spark, query)
    join = f"SELECT a.id, b.s FROM {table} a JOIN {table} b ON a.id = b.id + 1 WHERE a.id < 20"
    rows, plan, _ = _run(spark, join)
    assert "FloeLocalRead" in plan and "BatchScan" not in plan, plan  # both sides
    assert rows == _with_jobs(spark, join)


def test_scans_that_a_job_reads(spark: SparkSession, table: str) -> None:
    """Over either limit, or with a subquery in its filter: a Spark job reads."""
    query = f"SELECT * FROM {table} WHERE id < 10"
    for key, value in (
        (LOCAL_READ_ROWS, "2999"),
        (LOCAL_READ_BYTES, "1000"),
        (LOCAL_READ_ROWS, "0"),
    ):
        with spark_setting(spark, key, value):
            _, plan, jobs = _run(spark, query)
        assert "BatchScan" in plan and "FloeLocalRead" not in plan, (key, value, plan)
        assert jobs >= 1
    with spark_setting(spark, LOCAL_READ_ROWS, "3000"):  # all of the table's 3,000 rows fit
        assert "FloeLocalRead" in _run(spark, query)[1]
    # a non-deterministic projection: Spark plans the whole read (its scan strategy takes the
    # projection, filter and scan together), as a job
    rows, plan, jobs = _run(spark, f"SELECT id, rand() AS r FROM {table} WHERE id < 10")
    assert sorted(r[0] for r in rows) == list(range(10)) and jobs == 1, plan
    assert "BatchScan" in plan and "FloeLocalRead" not in plan, plan
    sub = f"SELECT id FROM {table} WHERE id = (SELECT max(id) FROM {table} WHERE id < 9)"
    rows, plan, _ = _run(spark, sub)
    assert rows == [(8,)]
    assert "BatchScan" in plan, plan  # the outer filter has a subquery; the inner read is local


@pytest.mark.parametrize("value", ["many", "-1", "1.5"])
def test_an_invalid_limit_names_the_setting(spark: SparkSession, table: str, value: str) -> None:
    error = rf"spark\.floe\.read\.local-max-rows={value}"
    with spark_setting(spark, LOCAL_READ_ROWS, value), pytest.raises(Exception, match=error):
        spark.sql(f"SELECT * FROM {table} WHERE id = 1").collect()
    assert spark.sql(f"SELECT id FROM {table} WHERE id = 1").collect()[0][0] == 1


@pytest.mark.parametrize(
    "query",
    [
        "SELECT count(*), sum(id), avg(d), min(s), max(s), sum(d) FROM {t} WHERE id % 7 = 3",
        "SELECT p, count(s), sum(d), max(id), min(s) FROM {t} GROUP BY p",
        "SELECT upper(p) AS up, count(*) + 1, avg(id) * 2, max(s) FROM {t} WHERE id < 500 "
        "GROUP BY upper(p)",
        "SELECT s, count(*), sum(id) FROM {t} WHERE id < 300 GROUP BY s",  # a NULL group
        "SELECT count(*), count(s), sum(d), min(s), avg(id) FROM {t} WHERE id < 0",  # one row
        "SELECT p, count(*) FROM {t} WHERE id < 0 GROUP BY p",  # no group, no row
        "SELECT first(s), last(id), stddev(id), variance(d), bool_and(id > 3), max(_file) "
        "FROM {t} WHERE p = 'p2'",
    ],
)
def test_aggregates_on_the_driver_equal_the_job(
    spark: SparkSession, table: str, query: str
) -> None:
    """An aggregate with declarative functions over a small read is computed on the driver
    (FloeLocalAggregate): no Spark job, and the job's answer, for every group, empty inputs and
    NULL keys alike."""
    q = query.format(t=table)
    rows, plan, jobs = _run(spark, q)
    assert "FloeLocalAggregate" in plan and "FloeLocalRead" in plan, plan
    assert "HashAggregate" not in plan and jobs == 0, plan
    assert rows == _with_jobs(spark, q), q
    explain = spark.sql(f"EXPLAIN {q}").collect()[0][0]
    assert "FloeLocalAggregate" in explain and "(on the driver)" in explain, explain


@pytest.mark.parametrize(
    "query",
    [
        "SELECT count(DISTINCT p), sum(id) FROM {t}",  # DISTINCT
        "SELECT percentile(id, 0.5) FROM {t} WHERE id < 100",  # not a declarative function
        "SELECT p, collect_list(id) FROM {t} WHERE id < 9 GROUP BY p",
        "SELECT p, count(*) FROM (SELECT p, rand() AS r FROM {t}) WHERE r < 2 GROUP BY p",
        "SELECT sum(id) FILTER (WHERE id > 5) FROM {t}",  # FILTER clause
    ],
)
def test_other_aggregates_run_in_a_job(spark: SparkSession, table: str, query: str) -> None:
    """DISTINCT, FILTER, imperative functions (percentile, collect_list) and non-deterministic
    input: Spark's own aggregation, above the driver read when it qualifies, with the job's
    answer."""
    q = query.format(t=table)
    rows, plan, jobs = _run(spark, q)
    assert "FloeLocalAggregate" not in plan and jobs >= 1, plan
    with spark_setting(spark, LOCAL_READ_ROWS, "0"):
        assert rows == _run(spark, q)[0], q


def test_aggregate_limits_deletes_and_a_parent_operator(spark: SparkSession, table: str) -> None:
    query = f"SELECT p, count(*) AS c, sum(d) FROM {table} GROUP BY p"
    # the aggregate limit is in rows of the planned files (the table's 3,000)
    for key, value, node in (
        (LOCAL_AGGREGATE_ROWS, "2999", "FloeLocalRead"),
        (LOCAL_AGGREGATE_ROWS, "3000", "FloeLocalAggregate"),
        (LOCAL_READ_BYTES, "1000", "BatchScan"),
        (LOCAL_READ_ROWS, "0", "BatchScan"),  # 0 turns every driver read off
    ):
        with spark_setting(spark, key, value):
            rows, plan, _ = _run(spark, query)
        assert node in plan, (key, value, plan)
        if node != "FloeLocalAggregate":
            assert "FloeLocalAggregate" not in plan, (key, value, plan)
    # a plain read's limit does not bound the aggregate's
    with spark_setting(spark, LOCAL_READ_ROWS, "10"):
        assert "FloeLocalAggregate" in _run(spark, query)[1]
    for bad in ("many", "-1"):
        error = rf"spark\.floe\.read\.local-aggregate-max-rows={bad}"
        with spark_setting(spark, LOCAL_AGGREGATE_ROWS, bad), pytest.raises(Exception, match=error):
            spark.sql(query).collect()
    # deletes (merge-on-read) and an older snapshot
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')")
    first = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots").collect()[0][0]
    spark.sql(f"DELETE FROM {table} WHERE id % 7 = 0")
    after = f"SELECT p, count(*), sum(id), min(s) FROM {table} GROUP BY p"
    rows, plan, jobs = _run(spark, after)
    assert "FloeLocalAggregate" in plan and jobs == 0 and rows == _with_jobs(spark, after), plan
    assert sum(r[1] for r in rows) == 3000 - 429
    old = f"SELECT count(*), sum(id) FROM {table} VERSION AS OF {first} WHERE id >= 0"
    assert _run(spark, old)[0] == [(3000, sum(range(3000)))]
    # a parent operator (ORDER BY) gets the driver's result as one partition: one job, no shuffle
    ordered = f"{query} ORDER BY c DESC, p"
    df = spark.sql(ordered)
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert "FloeLocalAggregate" in plan, plan
    expected = sorted(_with_jobs(spark, query), key=lambda r: (-r[1], r[0]))
    assert [tuple(r) for r in df.collect()] == expected


def test_a_large_aggregate_answers_as_the_job(spark: SparkSession, namespace: str) -> None:
    """40,000 rows times 13 buffer fields: above the point where the driver compiles its fold
    (200,000 evaluations) rather than interpreting it. Decimal arithmetic inside the functions,
    string minimums and a grouping by an expression answer as in a job."""
    table = f"floe.{namespace}.wide"
    spark.sql(
        f"CREATE TABLE {table} (k INT, price DECIMAL(12, 2), disc DECIMAL(4, 2), s STRING) "
        "USING floe"
    )
    spark.sql(
        f"INSERT INTO {table} SELECT CAST(id % 5 AS INT), CAST(id / 7 AS DECIMAL(12, 2)), "
        "CAST((id % 10) / 100 AS DECIMAL(4, 2)), concat('v', id % 997) FROM range(40000)"
    )
    q = (
        f"SELECT k % 3 AS g, sum(price * (1 - disc)), avg(price), avg(disc), min(s), max(s), "
        f"count(*), sum(k), max(price * 2) FROM {table} GROUP BY k % 3"
    )
    rows, plan, jobs = _run(spark, q)
    assert "FloeLocalAggregate" in plan and jobs == 0, plan
    assert rows == _with_jobs(spark, q)
    assert sum(r[6] for r in rows) == 40000


def test_groups_that_bytes_do_not_decide_are_left_to_spark(
    spark: SparkSession, namespace: str
) -> None:
    """Keys whose equal values can differ in bytes (doubles: 0.0 and -0.0, NaNs; collated
    strings) and session windows, whose sessions Spark merges first, are grouped by Spark's own
    aggregation: the same groups as in a job."""
    table = f"floe.{namespace}.keys"
    spark.sql(f"CREATE TABLE {table} (d DOUBLE, s STRING, ts TIMESTAMP) USING floe")
    spark.sql(
        f"INSERT INTO {table} VALUES (0.0, 'a', TIMESTAMP '2024-01-01 10:00:00'), "
        "(-0.0, 'A', TIMESTAMP '2024-01-01 10:01:00'), "
        "(CAST('NaN' AS DOUBLE), 'b', TIMESTAMP '2024-01-01 10:02:00'), "
        "(-CAST('NaN' AS DOUBLE), 'B', TIMESTAMP '2024-01-01 11:00:00')"
    )
    for query, expected in (
        (f"SELECT d, count(*) FROM {table} GROUP BY d", 2),
        (f"SELECT count(*) FROM {table} GROUP BY collate(s, 'UTF8_LCASE')", 2),
        (f"SELECT session_window(ts, '5 minutes'), count(*) FROM {table} GROUP BY 1", 2),
    ):
        rows, plan, _ = _run(spark, query)
        assert "FloeLocalAggregate" not in plan and "FloeLocalRead" in plan, plan
        # repr: NaN is not equal to itself
        assert len(rows) == expected and repr(rows) == repr(_with_jobs(spark, query)), rows
    # a double in an aggregate function (not a key) is computed on the driver
    rows, plan, _ = _run(spark, f"SELECT s, sum(d) FROM {table} GROUP BY s")
    assert "FloeLocalAggregate" in plan, plan


def test_a_grouped_decimal_sum_past_its_precision_is_null_as_in_a_job(
    spark: SparkSession, namespace: str
) -> None:
    """With ANSI mode off, Spark's hash aggregation keeps grouped buffers in fixed-width rows,
    where a decimal sum past 38 digits becomes NULL and stays NULL; the driver's does the same."""
    table = f"floe.{namespace}.dec"
    spark.sql(f"CREATE TABLE {table} (k INT, v DECIMAL(38, 0)) USING floe")
    big = "9" + "0" * 37
    spark.sql(f"INSERT INTO {table} VALUES (1, {big}), (1, {big}), (1, -{big}), (2, 5)")
    query = f"SELECT k, sum(v) FROM {table} GROUP BY k"
    with spark_setting(spark, "spark.sql.ansi.enabled", "false"):
        rows, plan, _ = _run(spark, query)
        job = _with_jobs(spark, query)
    assert "FloeLocalAggregate" in plan, plan
    assert rows == job == [(1, None), (2, Decimal(5))], (rows, job)


def test_an_aggregate_overflow_fails_as_in_a_job(spark: SparkSession, namespace: str) -> None:
    """Spark's ANSI arithmetic holds on the driver: a sum past the largest bigint is an error
    naming the overflow, not a wrapped number; try_sum gives NULL as in a job."""
    table = f"floe.{namespace}.big"
    spark.sql(f"CREATE TABLE {table} (v BIGINT) USING floe")
    spark.sql(f"INSERT INTO {table} VALUES ({2**63 - 1}), ({2**63 - 1}), (1)")
    rows, plan, _ = _run(spark, f"SELECT try_sum(v), max(v) FROM {table} WHERE v > 0")
    assert "FloeLocalAggregate" in plan and rows == [(None, 2**63 - 1)], plan
    ansi = spark_setting(spark, "spark.sql.ansi.enabled", "true")  # Spark 4's default
    with ansi, pytest.raises(Exception, match=r"(?i)overflow"):
        spark.sql(f"SELECT sum(v) FROM {table} WHERE v > 0").collect()


def test_row_level_operations_still_scan_with_a_job(spark: SparkSession, table: str) -> None:
    """DELETE, UPDATE and MERGE on a small table give the answers they gave before (their own
    scans are never read on the driver; a MERGE source from a small table may be)."""
    spark.sql(f"DELETE FROM {table} WHERE id >= 100")
    spark.sql(
        f"MERGE INTO {table} t USING (SELECT id, s FROM {table} WHERE id < 5) u ON t.id = u.id "
        "WHEN MATCHED THEN UPDATE SET t.s = concat(u.s, '!')"
    )
    rows = spark.sql(f"SELECT id, s FROM {table} WHERE id < 6 ORDER BY id").collect()
    assert [tuple(r) for r in rows] == [
        (0, None),
        (1, "s1!"),
        (2, "s2!"),
        (3, "s3!"),
        (4, "s4!"),
        (5, "s5"),
    ]
    assert spark.sql(f"SELECT count(*) FROM {table}").collect()[0][0] == 100


def test_a_small_dimension_read_on_the_driver_still_prunes_the_fact_at_runtime(
    spark: SparkSession, namespace: str
) -> None:
    """Dynamic partition pruning reuses the broadcast of the join's build side, which Spark plans
    again and compares with the join's: a driver-read dimension must compare equal, or the large
    table joined to it reads every partition."""
    fact, dim = f"floe.{namespace}.fact", f"floe.{namespace}.dim"
    spark.sql(f"CREATE TABLE {fact} (id BIGINT, day INT, v STRING) USING floe PARTITIONED BY (day)")
    spark.sql(f"INSERT INTO {fact} SELECT id, CAST(id % 8 AS INT), 'v' FROM range(4000)")
    spark.sql(f"CREATE TABLE {dim} (day INT, flag STRING) USING floe")
    spark.sql(f"INSERT INTO {dim} SELECT id, IF(id IN (2, 5), 'x', 'y') FROM range(8)")
    query = f"SELECT f.id, f.day FROM {fact} f JOIN {dim} d ON f.day = d.day WHERE d.flag = 'x'"
    # the dimension's 8 rows are read on the driver; the fact's 4,000 are not
    with spark_setting(spark, LOCAL_READ_ROWS, "100"):
        df = spark.sql(query)
        rows = sorted(tuple(r) for r in df.collect())
        plan = df._jdf.queryExecution().executedPlan().toString()
        metrics = scan_metrics(df, fact)
    assert rows == [(i, i % 8) for i in range(4000) if i % 8 in (2, 5)]
    assert "FloeLocalRead" in plan and "dynamicpruningexpression(true)" not in plan, plan
    assert "dynamicpruningexpression" in plan, plan
    assert metrics["runtimeSkippedDataFiles"] == 6 and metrics["resultDataFiles"] == 2, metrics


def test_odd_table_and_column_names(spark: SparkSession, namespace: str) -> None:
    """Columns are bound by Spark's attribute ids, never by name: spaces, dots, backticks and
    Unicode in table and column names read as the job reads them."""
    table = f"floe.{namespace}.`odd tåble.x`"
    spark.sql(
        f"CREATE TABLE {table} (`a b` BIGINT, `x.y` STRING, `日付` DATE, `tick``s` INT) "
        "USING floe PARTITIONED BY (`日付`)"
    )
    spark.sql(
        f"INSERT INTO {table} SELECT id, concat('v', id), date_add(DATE '2024-01-01', "
        "CAST(id % 3 AS INT)), CAST(id AS INT) * 2 FROM range(200)"
    )
    rows = assert_local_and_equal(
        spark,
        f"SELECT `a b`, upper(`x.y`), `日付`, `tick``s` FROM {table} "
        "WHERE `日付` = DATE '2024-01-02' AND `a b` < 20 AND `x.y` LIKE 'v1%'",
    )
    assert sorted(r[0] for r in rows) == [1, 10, 13, 16, 19]
    # and grouped on the driver, by the Unicode-named partition column
    aggregate = (
        f"SELECT `日付`, count(*) AS `n n`, sum(`tick``s`), max(`x.y`) FROM {table} "
        "WHERE `a b` >= 10 GROUP BY `日付`"
    )
    rows, plan, jobs = _run(spark, aggregate)
    assert "FloeLocalAggregate" in plan and jobs == 0, plan
    assert rows == _with_jobs(spark, aggregate) and sum(r[1] for r in rows) == 190
