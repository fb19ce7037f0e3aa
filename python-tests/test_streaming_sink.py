"""The streaming sink: ``df.writeStream.format("floe")`` into a Floe table (docs/streaming.md, 3).

Append and complete output modes, the error for update mode, partitioned tables with many
partitions per batch, the target file size, Iceberg's summary keys
(``spark.sql.streaming.queryId`` / ``epochId``), a replayed batch skipped, a streaming append
racing a DELETE and a compaction (the product's CommitGate holds the batch at its commit), and
``rewrite_data_files`` keeping a running stream's file count bounded. Input is a parquet file
source read with ``maxFilesPerTrigger=1`` (one batch per input file) and
``trigger(availableNow=True)``, so every run makes the same batches.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import row_level_tables as rl

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming.query import StreamingQuery

SCHEMA = "id BIGINT, p INT"


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """The input directory of the file source: each ``add_input`` call adds one parquet file."""
    path = tmp_path / "in"
    path.mkdir()
    return path


def add_input(spark: SparkSession, source: Path, start: int, end: int, partitions: int = 3) -> None:
    """One parquet file with ids [start, end) and p = id % partitions (one micro-batch)."""
    (
        spark.range(start, end, 1, 1)
        .selectExpr("id", f"CAST(id % {partitions} AS INT) AS p")
        .write.mode("append")
        .parquet(str(source))
    )


def stream(spark: SparkSession, source: Path) -> DataFrame:
    return spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(source))


def run_available(
    spark: SparkSession, source: Path, table: str, checkpoint: Path, **options: str
) -> StreamingQuery:
    """Runs the query over every input file present, one batch per file, and waits for it."""
    writer = stream(spark, source).writeStream.format("floe").trigger(availableNow=True)
    writer = writer.option("checkpointLocation", str(checkpoint))
    for key, value in options.items():
        writer = writer.option(key, value)
    query = writer.toTable(table)
    try:
        query.awaitTermination()
    finally:
        query.stop()
    return query


def streaming_snapshots(loc: str) -> list[dict[str, Any]]:
    """The snapshots (oldest first) that carry a streaming batch id."""
    return [s for s in rl.snapshots(loc) if "spark.sql.streaming.epochId" in s["summary"]]


def ids(spark: SparkSession, table: str) -> list[int]:
    return sorted(r.id for r in spark.table(table).select("id").collect())


def live_files(spark: SparkSession, table: str) -> int:
    return int(spark.table(f"{table}.files").count())


def test_append_batches_record_query_and_batch_ids(
    spark: SparkSession, warehouse: Path, namespace: str, source: Path, tmp_path: Path
) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, p INT) PARTITIONED BY (p)")
    for i in range(3):
        add_input(spark, source, i * 10, i * 10 + 10)
    query = run_available(spark, source, table, tmp_path / "ck")
    assert ids(spark, table) == list(range(30))
    snaps = streaming_snapshots(rl.location(warehouse, namespace, "t"))
    assert [s["summary"]["operation"] for s in snaps] == ["append"] * 3
    assert [s["summary"]["spark.sql.streaming.queryId"] for s in snaps] == [str(query.id)] * 3
    assert [s["summary"]["spark.sql.streaming.epochId"] for s in snaps] == ["0", "1", "2"]
    # one file per partition per batch (3 partitions, 3 batches)
    assert live_files(spark, table) == 9

    # the data source's start(name) / option("path") form: a new query appends the rows again
    query2 = (
        stream(spark, source)
        .writeStream.format("floe")
        .trigger(availableNow=True)
        .option("checkpointLocation", str(tmp_path / "ck2"))
        .start(table)
    )
    try:
        query2.awaitTermination()
    finally:
        query2.stop()
    assert ids(spark, table) == sorted(list(range(30)) * 2)
    snaps = streaming_snapshots(rl.location(warehouse, namespace, "t"))
    assert [s["summary"]["spark.sql.streaming.queryId"] for s in snaps[3:]] == [str(query2.id)] * 3


def test_complete_mode_replaces_all_rows_each_batch(
    spark: SparkSession, warehouse: Path, namespace: str, source: Path, tmp_path: Path
) -> None:
    table = f"floe.{namespace}.counts"  # toTable creates it (provider floe)
    for i in range(2):
        add_input(spark, source, i * 6, i * 6 + 6)

    def run() -> None:
        query = (
            stream(spark, source)
            .groupBy("p")
            .count()
            .withColumnRenamed("count", "n")
            .writeStream.format("floe")
            .outputMode("complete")
            .trigger(availableNow=True)
            .option("checkpointLocation", str(tmp_path / "ck"))
            .toTable(table)
        )
        try:
            query.awaitTermination()
        finally:
            query.stop()

    run()
    assert sorted(tuple(r) for r in spark.table(table).collect()) == [(0, 4), (1, 4), (2, 4)]
    add_input(spark, source, 12, 15)
    run()  # the restarted query continues its aggregation state
    assert sorted(tuple(r) for r in spark.table(table).collect()) == [(0, 5), (1, 5), (2, 5)]
    snaps = streaming_snapshots(rl.location(warehouse, namespace, "counts"))
    assert [s["summary"]["spark.sql.streaming.epochId"] for s in snaps] == ["0", "1", "2"]
    # the first batch of an empty table only adds; later ones replace every row
    assert [s["summary"]["operation"] for s in snaps] == ["append", "overwrite", "overwrite"]


def test_update_mode_is_a_clear_error(
    spark: SparkSession, namespace: str, source: Path, tmp_path: Path
) -> None:
    from pyspark.errors import StreamingQueryException

    table = f"floe.{namespace}.counts"
    spark.sql(f"CREATE TABLE {table} (p INT, n BIGINT)")
    add_input(spark, source, 0, 6)
    query = (
        stream(spark, source)
        .groupBy("p")
        .count()
        .withColumnRenamed("count", "n")
        .writeStream.format("floe")
        .outputMode("update")
        .trigger(availableNow=True)
        .option("checkpointLocation", str(tmp_path / "ck"))
        .toTable(table)
    )
    try:
        with pytest.raises(StreamingQueryException) as raised:
            query.awaitTermination()
    finally:
        query.stop()
    message = str(raised.value)
    assert f"to table {table} in update output mode" in message, message
    assert "foreachBatch with MERGE INTO" in message, message
    assert spark.table(table).count() == 0


def test_many_partitions_per_batch_and_target_file_size(
    spark: SparkSession, namespace: str, source: Path, tmp_path: Path
) -> None:
    parts = f"floe.{namespace}.parts"
    spark.sql(f"CREATE TABLE {parts} (id BIGINT, p INT) PARTITIONED BY (p)")
    add_input(spark, source, 0, 4000, partitions=40)
    run_available(spark, source, parts, tmp_path / "ck")
    assert ids(spark, parts) == list(range(4000))
    by_partition = spark.sql(
        f"SELECT partition.p AS p, count(*) AS files, sum(record_count) AS n_rows "
        f"FROM {parts}.files GROUP BY partition.p"
    ).collect()
    assert len(by_partition) == 40
    assert {r.files for r in by_partition} == {1}, "one file per partition in one batch"
    assert {r.n_rows for r in by_partition} == {100}

    target = 64 * 1024
    sized = f"floe.{namespace}.sized"
    spark.sql(
        f"CREATE TABLE {sized} (id BIGINT, s STRING) "
        f"TBLPROPERTIES ('write.target-file-size-bytes'='{target}')"
    )
    big = tmp_path / "big"
    spark.range(0, 60_000, 1, 1).selectExpr("id", "randstr(24, 7) AS s").write.parquet(str(big))
    query = (
        spark.readStream.schema("id BIGINT, s STRING")
        .parquet(str(big))
        .writeStream.format("floe")
        .trigger(availableNow=True)
        .option("checkpointLocation", str(tmp_path / "ck-sized"))
        .toTable(sized)
    )
    try:
        query.awaitTermination()
    finally:
        query.stop()
    sizes = [r.file_size_in_bytes for r in spark.table(f"{sized}.files").collect()]
    assert spark.table(sized).count() == 60_000
    assert len(sizes) >= 10, f"{len(sizes)} files: the target size was not applied"
    assert max(sizes) <= target * 1.1, sorted(sizes)


def test_replayed_batch_is_skipped(
    spark: SparkSession, warehouse: Path, namespace: str, source: Path, tmp_path: Path
) -> None:
    """The last batch committed to the table but its checkpoint commit was lost (as after a crash
    between the two): the restarted query runs the batch again and the sink skips it, leaving the
    table and its files as they were; the next batch commits normally."""
    table = f"floe.{namespace}.t"
    loc = rl.location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {table} (id BIGINT, p INT) PARTITIONED BY (p)")
    checkpoint = tmp_path / "ck"
    add_input(spark, source, 0, 10)
    add_input(spark, source, 10, 20)
    run_available(spark, source, table, checkpoint)
    before = rl.snapshots(loc)
    (checkpoint / "commits" / "1").unlink()
    (checkpoint / "commits" / ".1.crc").unlink(missing_ok=True)
    run_available(spark, source, table, checkpoint)
    assert (checkpoint / "commits" / "1").is_file(), "the batch did not run again"
    assert rl.snapshots(loc) == before
    assert ids(spark, table) == list(range(20))
    assert rl.orphan_files(loc) == [], "the replayed batch's files were not removed"

    add_input(spark, source, 20, 25)
    run_available(spark, source, table, checkpoint)
    assert ids(spark, table) == list(range(25))
    epochs = [s["summary"]["spark.sql.streaming.epochId"] for s in streaming_snapshots(loc)]
    assert epochs == ["0", "1", "2"]


@pytest.mark.parametrize(
    "concurrent",
    [
        "DELETE FROM {table} WHERE id < 5",
        "CALL floe.system.rewrite_data_files(table => '{name}', "
        "options => map('min-input-files', '2'))",
    ],
    ids=["delete", "rewrite_data_files"],
)
def test_streaming_append_and_concurrent_commit_both_succeed(
    spark: SparkSession,
    warehouse: Path,
    namespace: str,
    source: Path,
    tmp_path: Path,
    concurrent: str,
) -> None:
    """A batch held at its commit (CommitGate) while a DELETE or a compaction commits: the batch
    retries on the new base and lands; the concurrent change stays."""
    table = f"floe.{namespace}.t"
    loc = rl.location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {table} (id BIGINT, p INT) PARTITIONED BY (p)")
    for i in range(2):
        spark.sql(
            f"INSERT INTO {table} SELECT id, CAST(id % 3 AS INT) "
            f"FROM range({i * 10}, {i * 10 + 10})"
        )
    add_input(spark, source, 100, 110)
    statement = concurrent.format(table=table, name=f"{namespace}.t")
    gate = rl.CommitHold(spark, table)
    raised = rl.interleave(
        gate,
        lambda: run_available(spark, source, table, tmp_path / "ck"),
        lambda: spark.sql(statement).collect(),
    )
    assert raised is None, raised
    expected = list(range(20)) + list(range(100, 110))
    if concurrent.startswith("DELETE"):
        expected = [i for i in expected if i >= 5]
    assert ids(spark, table) == expected
    ops = [s["summary"]["operation"] for s in rl.snapshots(loc)]
    # the DELETE rewrites files (copy-on-write): an overwrite snapshot
    assert ops[-2:] == ["overwrite" if "DELETE" in concurrent else "replace", "append"], ops
    assert rl.orphan_files(loc) == []


def test_rewrite_data_files_bounds_a_running_streams_files(
    spark: SparkSession, namespace: str, source: Path, tmp_path: Path
) -> None:
    """A running query appends one small file per batch; compacting every 4 batches while it runs
    keeps the live file count bounded, and every row is there once."""
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, p INT)")
    query = (
        stream(spark, source)
        .writeStream.format("floe")
        .trigger(processingTime="0 seconds")
        .option("checkpointLocation", str(tmp_path / "ck"))
        .toTable(table)
    )
    counts = []
    try:
        for i in range(12):
            add_input(spark, source, i * 10, i * 10 + 10)
            query.processAllAvailable()
            if i % 4 == 3:
                spark.sql(
                    f"CALL floe.system.rewrite_data_files(table => '{namespace}.t', "
                    "options => map('min-input-files', '2'))"
                ).collect()
            counts.append(live_files(spark, table))
    finally:
        query.stop()
    assert max(counts) <= 4, counts
    assert counts[-1] == 1, counts
    assert ids(spark, table) == list(range(120))


@pytest.fixture(autouse=True)
def _no_query_left(spark: SparkSession) -> Iterator[None]:
    """Stops any query a failed test left running (it would hold the shared Spark session)."""
    yield
    for q in spark.streams.active:
        q.stop()
