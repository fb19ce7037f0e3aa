"""Small literal inserts written on the driver (README "Writing"; ``FloeLocalWriteStrategy``).

An ``INSERT INTO`` / ``INSERT OVERWRITE`` of a Floe table whose rows the statement itself holds
(``VALUES``, a ``SELECT`` of literals), up to ``spark.floe.write.local-max-rows`` rows (default
10,000), is planned as ``FloeLocalWrite``: the driver sorts the rows as the write asks, writes them
with the write's own writer and commits them, without a Spark job. Every table must come out as the
job writes it (``spark.floe.write.local-max-rows=0`` turns the driver write off), and a failed
write must leave the table at its snapshot with no file of the write left behind.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import spark_jobs, spark_setting
from row_level_tables import (
    CommitHold,
    current_snapshot_id,
    error_text,
    interleave,
    location,
    missing_files,
    orphan_files,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOCAL_WRITE_ROWS = "spark.floe.write.local-max-rows"


def _jobs(spark: SparkSession, sql: str) -> int:
    """How many Spark jobs ``sql`` (a command: it runs at ``spark.sql``) started."""
    _, jobs = spark_jobs(spark, lambda: spark.sql(sql))
    return len(jobs)


def _plan(spark: SparkSession, sql: str) -> str:
    return str(spark.sql(f"EXPLAIN {sql}").collect()[0][0])


def _rows(spark: SparkSession, table: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect()), key=repr)


def _files(spark: SparkSession, table: str) -> list[tuple[str, int]]:
    """(partition, record count) of each live data file, sorted (partition "" when unpartitioned:
    the files table of an unpartitioned table has no partition column)."""
    files = spark.table(f"{table}.files")
    partition = "partition" if "partition" in files.columns else "''"
    rows = files.selectExpr(partition, "record_count").collect()
    return sorted((repr(r[0]), int(r[1])) for r in rows)


def test_an_insert_of_values_is_written_on_the_driver(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, s STRING) USING floe")
    insert = f"INSERT INTO {t} VALUES (1, 'a'), (2, NULL), (3, 'c')"
    plan = _plan(spark, insert)
    assert "FloeLocalWrite" in plan and "written on the driver" in plan, plan
    assert "AppendData" not in plan, plan
    assert _jobs(spark, insert) == 0
    assert _rows(spark, t) == [(1, "a"), (2, None), (3, "c")]
    # one file (a job over the VALUES would have written one per task), one snapshot
    assert _files(spark, t) == [("''", 3)]
    summary = spark.sql(f"SELECT operation, summary FROM {t}.snapshots").collect()
    assert [r[0] for r in summary] == ["append"]
    assert summary[0][1]["added-records"] == "3" and summary[0][1]["added-data-files"] == "1"
    # a literal SELECT too, with casts to the column types
    assert _jobs(spark, f"INSERT INTO {t} SELECT 4, 'd'") == 0
    assert _jobs(spark, f"INSERT INTO {t} (s, id) VALUES ('e', 5)") == 0
    assert _rows(spark, t)[3:] == [(4, "d"), (5, "e")]
    data = Path(location(warehouse, namespace, "t").removeprefix("file:")) / "data"
    assert list(data.glob("_floe-writing-*")) == []  # each write's marker is gone
    formatted = _plan(spark, f"FORMATTED INSERT INTO {t} VALUES (6, 'f')")
    assert f"Arguments: {t}, 1 rows" in formatted and "FloeWrite@" not in formatted, formatted


@pytest.mark.parametrize("mode", ["hash", "range", "none"])
def test_a_partitioned_insert_writes_the_files_a_job_writes(
    spark: SparkSession, namespace: str, mode: str
) -> None:
    ddl = (
        "(id BIGINT, d DATE, p STRING, s STRING) USING floe "
        "PARTITIONED BY (bucket(4, id), days(d), p) "
        f"TBLPROPERTIES ('write.distribution-mode' = '{mode}')"
    )
    local, job = f"floe.{namespace}.local", f"floe.{namespace}.job"
    spark.sql(f"CREATE TABLE {local} {ddl}")
    spark.sql(f"CREATE TABLE {job} {ddl}")
    values = [
        f"({i}, DATE'2024-01-0{1 + i % 3}', {'NULL' if i % 7 == 0 else repr('p' + str(i % 2))}, "
        f"'s{i}')"
        for i in range(60)
    ]
    random.Random(7).shuffle(values)  # rows in no partition order: the driver must cluster them
    rows = ", ".join(values)
    assert "FloeLocalWrite" in _plan(spark, f"INSERT INTO {local} VALUES {rows}")
    assert _jobs(spark, f"INSERT INTO {local} VALUES {rows}") == 0
    with spark_setting(spark, LOCAL_WRITE_ROWS, "0"):
        assert "FloeLocalWrite" not in _plan(spark, f"INSERT INTO {job} VALUES {rows}")
        assert _jobs(spark, f"INSERT INTO {job} VALUES {rows}") > 0
    assert _rows(spark, local) == _rows(spark, job)
    assert len(_rows(spark, local)) == 60
    files = _files(spark, local)
    if mode == "none":  # the job's tasks each wrote their own file of a partition
        assert {f[0] for f in files} == {f[0] for f in _files(spark, job)}
    else:
        assert files == _files(spark, job)
    # one file per partition: the clustered writer got the rows grouped by partition
    assert len({f[0] for f in files}) == len(files)
    # partition pruning works on what the driver wrote
    count = spark.sql(f"SELECT count(*) FROM {local} WHERE d = DATE'2024-01-02' AND p = 'p1'")
    assert count.collect()[0][0] == sum(1 for i in range(60) if i % 3 == 1 and i % 7 and i % 2)


def test_insert_overwrite_of_values_static_and_dynamic(spark: SparkSession, namespace: str) -> None:
    t = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING) USING floe PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    assert _jobs(spark, f"INSERT OVERWRITE {t} VALUES (10, 'a'), (20, 'b')") == 0
    assert _rows(spark, t) == [(10, "a"), (20, "b")]
    with spark_setting(spark, "spark.sql.sources.partitionOverwriteMode", "dynamic"):
        sql = f"INSERT OVERWRITE {t} VALUES (30, 'b'), (40, 'c')"
        assert "FloeLocalWrite" in _plan(spark, sql)
        assert _jobs(spark, sql) == 0
    assert _rows(spark, t) == [(10, "a"), (30, "b"), (40, "c")]
    assert _jobs(spark, f"INSERT OVERWRITE {t} PARTITION (p = 'a') VALUES (50)") == 0
    assert _rows(spark, t) == [(30, "b"), (40, "c"), (50, "a")]
    operations = [r[0] for r in spark.sql(f"SELECT operation FROM {t}.snapshots").collect()]
    assert operations == ["append", "overwrite", "overwrite", "overwrite"]


def test_create_and_replace_table_as_values_are_written_on_the_driver(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.t"
    sql = (
        f"CREATE TABLE {t} USING floe PARTITIONED BY (s) "
        "AS SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, 'a') AS v(id, s)"
    )
    assert _jobs(spark, sql) == 0
    assert _rows(spark, t) == [(1, "a"), (2, "b"), (3, "a")]
    assert _files(spark, t) == [("Row(s='a')", 2), ("Row(s='b')", 1)]
    replace = f"CREATE OR REPLACE TABLE {t} USING floe AS SELECT * FROM VALUES (9, 'z') AS v(id, s)"
    assert _jobs(spark, replace) == 0
    assert _rows(spark, t) == [(9, "z")]
    history = spark.sql(f"SELECT count(*) FROM {t}.history").collect()[0][0]
    assert history == 2  # the replacement kept the table's history
    # a value that fails its cast fails the statement: no table, no file
    bad = f"floe.{namespace}.bad"
    with pytest.raises(Exception, match=r"CAST_OVERFLOW|overflow"):
        spark.sql(f"CREATE TABLE {bad} USING floe AS SELECT CAST(300 AS TINYINT) AS x")
    assert not spark.catalog.tableExists(bad)
    assert not Path(location(warehouse, namespace, "bad").removeprefix("file:")).exists()


def test_branches_and_dataframe_writes_go_through_the_same_write(
    spark: SparkSession, namespace: str
) -> None:
    t = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING) USING floe PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a')")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH b")
    assert _jobs(spark, f"INSERT INTO {t}.branch_b VALUES (2, 'b')") == 0
    assert _rows(spark, t) == [(1, "a")]
    assert _rows(spark, f"{t}.branch_b") == [(1, "a"), (2, "b")]
    # the DataFrame API over literal rows, with a write option
    rows = spark.sql("SELECT * FROM VALUES (3L, 'a'), (4L, 'c') AS v(id, p)")
    _, jobs = spark_jobs(
        spark, lambda: rows.writeTo(t).option("distribution-mode", "none").append()
    )
    assert jobs == []
    _, jobs = spark_jobs(spark, lambda: rows.limit(1).writeTo(t).overwritePartitions())
    assert jobs == []
    assert _rows(spark, t) == [(3, "a"), (4, "c")]  # partition a replaced by the one row


def test_inserts_of_computed_or_many_rows_run_a_job(spark: SparkSession, namespace: str) -> None:
    t = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT) USING floe")
    # rows a query computes from a table or a generator: Spark's job
    computed = f"INSERT INTO {t} SELECT id FROM range(5)"
    assert "FloeLocalWrite" not in _plan(spark, computed)
    assert _jobs(spark, computed) > 0
    # more literal rows than the setting allows: Spark's job; within it: the driver
    with spark_setting(spark, LOCAL_WRITE_ROWS, "2"):
        assert "FloeLocalWrite" not in _plan(spark, f"INSERT INTO {t} VALUES (5), (6), (7)")
        assert _jobs(spark, f"INSERT INTO {t} VALUES (5), (6), (7)") > 0
        assert _jobs(spark, f"INSERT INTO {t} VALUES (8), (9)") == 0
    # a value computed by a subquery: the job
    assert "FloeLocalWrite" not in _plan(spark, f"INSERT INTO {t} SELECT (SELECT max(id) FROM {t})")
    # non-deterministic values are computed by the job, as Spark computes them
    assert "FloeLocalWrite" not in _plan(
        spark, f"INSERT INTO {t} SELECT CAST(rand() * 0 AS BIGINT)"
    )
    assert sorted(r[0] for r in spark.sql(f"SELECT id FROM {t}").collect()) == list(range(10))
    invalid = pytest.raises(Exception, match=r"spark\.floe\.write\.local-max-rows=-1")
    with spark_setting(spark, LOCAL_WRITE_ROWS, "-1"), invalid:
        spark.sql(f"INSERT INTO {t} VALUES (10)")
    assert len(_rows(spark, t)) == 10


def test_a_cached_query_of_the_table_sees_the_insert(spark: SparkSession, namespace: str) -> None:
    t = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT) USING floe")
    spark.sql(f"INSERT INTO {t} VALUES (1)")
    spark.sql(f"CACHE TABLE {t}")
    try:
        assert spark.sql(f"SELECT count(*) FROM {t}").collect()[0][0] == 1
        spark.sql(f"INSERT INTO {t} VALUES (2), (3)")
        assert spark.sql(f"SELECT count(*) FROM {t}").collect()[0][0] == 3
    finally:
        spark.sql(f"UNCACHE TABLE {t}")


def test_a_failed_driver_write_leaves_the_table_and_no_file(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    """An insert of literal rows held at its commit, after its data file is written, while the
    table's metadata folder is replaced by a plain file: the commit cannot write its manifest and
    fails, naming the table; the table stays at its snapshot, and the data file the driver wrote is
    deleted."""
    t = f"floe.{namespace}.t"
    loc = location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING) USING floe PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'a'), (3, 'b')")
    before = current_snapshot_id(loc)
    insert = f"INSERT INTO {t} VALUES (10, 'a'), (20, 'c')"
    assert "FloeLocalWrite" in _plan(spark, insert)
    metadata = Path(loc.removeprefix("file:")) / "metadata"
    moved = metadata.with_name("metadata-moved")
    data = Path(loc.removeprefix("file:")) / "data"
    written_before = {p for p in data.rglob("*.parquet")}
    seen: dict[str, Any] = {}

    def break_the_metadata_folder() -> None:
        seen["written"] = {p for p in data.rglob("*.parquet")} - written_before
        metadata.rename(moved)
        metadata.write_text("not a folder")

    try:
        error = interleave(
            CommitHold(spark, t), lambda: spark.sql(insert), break_the_metadata_folder
        )
    finally:
        metadata.unlink()
        moved.rename(metadata)
    assert len(seen["written"]) == 2, seen  # the driver had written its files (a, c) when held
    assert error is not None, "the insert reported success without its metadata folder"
    assert f"{namespace}.t" in error_text(error), error_text(error)
    assert current_snapshot_id(loc) == before
    assert _rows(spark, t) == [(1, "a"), (2, "a"), (3, "b")]
    assert {p for p in data.rglob("*.parquet")} == written_before
    assert missing_files(loc) == [] and orphan_files(loc) == []


def test_a_driver_write_that_fails_midway_leaves_no_file(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    """An insert whose second partition cannot be written (a plain file where its folder goes): the
    statement fails naming that path, the file already written for the first partition and the
    write's marker are deleted, and the table stays at its snapshot."""
    t = f"floe.{namespace}.t"
    loc = location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING) USING floe PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a')")
    before = current_snapshot_id(loc)
    data = Path(loc.removeprefix("file:")) / "data"
    existing = set(data.rglob("*"))
    blocker = data / "p=c"
    blocker.write_text("a file where a partition folder goes")
    insert = f"INSERT INTO {t} VALUES (10, 'a'), (20, 'c')"
    try:
        assert "FloeLocalWrite" in _plan(spark, insert)
        with pytest.raises(Exception) as failed:
            spark.sql(insert)
        assert "p=c" in error_text(failed.value), error_text(failed.value)
        left = set(data.rglob("*")) - existing - {blocker}
        assert left == set(), left  # no data file of the write, no marker
    finally:
        blocker.unlink()
    assert current_snapshot_id(loc) == before
    assert _rows(spark, t) == [(1, "a")]
    assert missing_files(loc) == [] and orphan_files(loc) == []


def test_an_insert_of_no_rows_does_what_the_job_does(spark: SparkSession, namespace: str) -> None:
    """A statement whose rows Spark proves empty (a local relation of no row): an append commits no
    snapshot, a static overwrite empties the table, on the driver as with a job."""
    results = {}
    for local in (True, False):
        t = f"floe.{namespace}.t_{'local' if local else 'job'}"
        spark.sql(f"CREATE TABLE {t} (id BIGINT) USING floe")
        spark.sql(f"INSERT INTO {t} VALUES (1), (2)")
        with spark_setting(spark, LOCAL_WRITE_ROWS, "10000" if local else "0"):
            append = f"INSERT INTO {t} SELECT id FROM VALUES (3L) AS v(id) WHERE id > 5"
            assert ("FloeLocalWrite" in _plan(spark, append)) == local
            assert (_jobs(spark, append) == 0) == local
            after_append = _rows(spark, t)
            overwrite = f"INSERT OVERWRITE {t} SELECT id FROM VALUES (3L) AS v(id) WHERE id > 5"
            assert (_jobs(spark, overwrite) == 0) == local
        operations = [r[0] for r in spark.sql(f"SELECT operation FROM {t}.snapshots").collect()]
        results[local] = (after_append, _rows(spark, t), operations)
    assert results[True] == results[False]
    assert results[True][0] == [(1,), (2,)] and results[True][1] == []


def test_odd_table_column_and_partition_names(spark: SparkSession, namespace: str) -> None:
    """A table and a partition column named with a space, non-ASCII letters and ``$``, partition
    values with a slash and a percent sign: the driver writes what the job writes, and a cached
    query of the table sees the insert."""
    local, job = f"floe.{namespace}.`t é $x`", f"floe.{namespace}.`t é $y`"
    for t in (local, job):
        spark.sql(f"CREATE TABLE {t} (id BIGINT, `p q$` STRING) USING floe PARTITIONED BY (`p q$`)")
    rows = "(1, 'a b'), (2, 'é/x'), (3, '100%'), (4, NULL)"
    assert "FloeLocalWrite" in _plan(spark, f"INSERT INTO {local} VALUES {rows}")
    assert _jobs(spark, f"INSERT INTO {local} VALUES {rows}") == 0
    with spark_setting(spark, LOCAL_WRITE_ROWS, "0"):
        spark.sql(f"INSERT INTO {job} VALUES {rows}")
    assert (
        _rows(spark, local) == _rows(spark, job) == [(1, "a b"), (2, "é/x"), (3, "100%"), (4, None)]
    )
    assert _files(spark, local) == _files(spark, job)
    spark.sql(f"CACHE TABLE {local}")
    try:
        spark.sql(f"INSERT INTO {local} VALUES (5, 'a b')")
        count = spark.sql(f"SELECT count(*) FROM {local} WHERE `p q$` = 'a b'").collect()[0][0]
        assert count == 2
    finally:
        spark.sql(f"UNCACHE TABLE {local}")
