"""spark.readStream on Floe tables (docs/streaming.md, section 1): appended rows once, in commit
order; admission control; AvailableNow; compaction skipped; delete and overwrite snapshots refused
unless skipped; stream-from-timestamp; restart from the checkpoint; expired snapshots; offsets.

Every query runs with ``trigger(availableNow=True)`` (or ``processAllAvailable``) and is stopped
in a ``finally`` block, so no query outlives its test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming.query import StreamingQuery
    from pyspark.sql.streaming.readwriter import DataStreamReader


@dataclass
class Run:
    """What one query delivered: the ids of each non-empty batch, its columns, its progress."""

    batches: list[list[int]] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    progress: list[dict[str, Any]] = field(default_factory=list)

    def ids(self) -> list[int]:
        return [i for batch in self.batches for i in batch]


def _reader(spark: SparkSession, options: dict[str, str]) -> DataStreamReader:
    reader = spark.readStream
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader


def _start(df: DataFrame, checkpoint: Path, run: Run, available_now: bool = True) -> StreamingQuery:
    def collect(batch: DataFrame, batch_id: int) -> None:
        rows = batch.collect()
        run.columns = batch.columns
        if rows:
            run.batches.append(sorted(int(r["id"]) for r in rows))

    writer = df.writeStream.foreachBatch(collect).option("checkpointLocation", str(checkpoint))
    if available_now:
        return writer.trigger(availableNow=True).start()
    return writer.trigger(processingTime="0 seconds").start()


def _stream(
    spark: SparkSession,
    table: str,
    checkpoint: Path,
    options: dict[str, str] | None = None,
    by_path: bool = False,
) -> Run:
    """Runs ``table``'s stream to the end of what is committed now (Trigger.AvailableNow)."""
    run = Run()
    reader = _reader(spark, options or {})
    df = reader.format("floe").load(table) if by_path else reader.table(table)
    query = _start(df, checkpoint, run)
    try:
        query.awaitTermination()
        run.progress = [json.loads(p.json) for p in query.recentProgress]
    finally:
        query.stop()
    return run


def _append(spark: SparkSession, table: str, first: int, count: int, partitions: int = 1) -> int:
    """Appends ids ``first`` .. ``first + count - 1`` , a file a partition; returns its snapshot."""
    spark.range(first, first + count).selectExpr(
        "id", f"CAST(id % {partitions} AS INT) AS p"
    ).coalesce(1).writeTo(table).append()
    return _current_snapshot(spark, table)


def _current_snapshot(spark: SparkSession, table: str) -> int:
    row = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1")
    return int(row.collect()[0][0])


def _table(spark: SparkSession, namespace: str, partitioned: bool = False) -> str:
    table = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, p INT) USING floe"
        + (" PARTITIONED BY (p)" if partitioned else "")
    )
    return table


def _error(excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    return str(excinfo.value)


def test_appends_are_read_once_in_order_and_a_restart_resumes_exactly(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    table = _table(spark, namespace)
    snapshots = [_append(spark, table, 0, 10), _append(spark, table, 10, 10)]
    snapshots.append(_append(spark, table, 20, 10))
    checkpoint = tmp_path / "cp"
    run = _stream(spark, table, checkpoint, {"streaming-max-files-per-micro-batch": "1"})
    assert run.batches == [list(range(0, 10)), list(range(10, 20)), list(range(20, 30))]
    assert run.columns == ["id", "p"]

    # progress shows each batch's offsets as Floe's JSON: snapshot id and file position
    # (a full batch ends before the next unread file: position 0 of the next snapshot)
    ends = [p["sources"][0]["endOffset"] for p in run.progress if p["numInputRows"] > 0]
    assert [(e["snapshot_id"], e["position"], e["snapshot_complete"]) for e in ends] == [
        (snapshots[1], 0, False),
        (snapshots[2], 0, False),
        (snapshots[2], 1, True),
    ]
    assert ends[0] == {
        "version": 1,
        "snapshot_id": snapshots[1],
        "position": 0,
        "scan_all_files": False,
        "snapshot_complete": False,
    }
    assert run.progress[-1]["sources"][0]["latestOffset"]["snapshot_id"] == snapshots[2]
    source = run.progress[0]["sources"][0]
    assert f"FloeMicroBatchStream[floe.{namespace}.t]" in source["description"]

    _append(spark, table, 30, 5)
    _append(spark, table, 35, 5)
    again = _stream(spark, table, checkpoint)
    assert again.ids() == list(range(30, 40)), "a restart reads only what is new"
    assert _stream(spark, table, checkpoint).ids() == [], "nothing new: nothing read"


def test_format_floe_load_streams_the_table_and_takes_the_same_options(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    table = _table(spark, namespace)
    for i in range(4):
        _append(spark, table, i * 10, 10)
    run = _stream(
        spark, table, tmp_path / "cp", {"streaming-max-rows-per-micro-batch": "25"}, by_path=True
    )
    assert [len(b) for b in run.batches] == [20, 20], "at most 25 rows a batch, by whole files"
    assert run.ids() == list(range(40))


def test_max_files_and_max_rows_together_admit_the_smaller_batch(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    table = _table(spark, namespace, partitioned=True)
    _append(spark, table, 0, 30, partitions=3)  # one snapshot of three files, 10 rows each
    _append(spark, table, 30, 30, partitions=3)
    run = _stream(
        spark,
        table,
        tmp_path / "cp",
        {"streaming-max-files-per-micro-batch": "4", "streaming-max-rows-per-micro-batch": "20"},
    )
    assert [len(b) for b in run.batches] == [20, 20, 20]
    assert sorted(run.ids()) == list(range(60))
    # a single file larger than the row limit is read alone, so the stream always progresses
    alone = _stream(spark, table, tmp_path / "cp2", {"streaming-max-rows-per-micro-batch": "5"})
    assert [len(b) for b in alone.batches] == [10] * 6


def test_compaction_is_skipped_and_a_delete_snapshot_is_an_error_unless_skipped(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    table = _table(spark, namespace, partitioned=True)
    _append(spark, table, 0, 10, partitions=2)
    _append(spark, table, 10, 10, partitions=2)
    spark.sql(
        f"CALL floe.system.rewrite_data_files(table => '{namespace}.t', "
        "options => map('min-input-files', '2'))"
    ).collect()
    assert (
        spark.sql(f"SELECT operation FROM {table}.snapshots ORDER BY committed_at").collect()[-1][0]
        == "replace"
    )
    _append(spark, table, 20, 10, partitions=2)
    spark.sql(f"DELETE FROM {table} WHERE p = 1")
    deleted = _current_snapshot(spark, table)
    assert (
        spark.sql(
            f"SELECT operation FROM {table}.snapshots WHERE snapshot_id = {deleted}"
        ).collect()[0][0]
        == "delete"
    )
    _append(spark, table, 30, 10, partitions=2)

    from pyspark.errors import StreamingQueryException

    delivered = Run()
    with pytest.raises(StreamingQueryException) as excinfo:
        query = _start(spark.readStream.table(table), tmp_path / "cp", delivered)
        try:
            query.awaitTermination()
        finally:
            query.stop()
    message = _error(excinfo)
    assert f"from table floe.{namespace}.t: snapshot {deleted} is a 'delete' snapshot" in message
    assert "streaming-skip-delete-snapshots=true" in message
    assert sorted(delivered.ids()) == list(range(30)), "rows before the delete are delivered, once"

    skipped = _stream(spark, table, tmp_path / "cp2", {"streaming-skip-delete-snapshots": "true"})
    assert sorted(skipped.ids()) == list(range(40)), "rows as appended; compaction adds none"


def test_an_overwrite_snapshot_is_an_error_unless_its_option_skips_it(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    table = _table(spark, namespace, partitioned=True)
    _append(spark, table, 0, 10, partitions=2)
    spark.range(100, 104).selectExpr("id", "CAST(0 AS INT) AS p").writeTo(
        table
    ).overwritePartitions()
    overwrite = _current_snapshot(spark, table)
    _append(spark, table, 10, 10, partitions=2)

    from pyspark.errors import StreamingQueryException

    with pytest.raises(StreamingQueryException) as excinfo:
        _stream(spark, table, tmp_path / "cp", {"streaming-skip-delete-snapshots": "true"})
    message = _error(excinfo)
    assert f"snapshot {overwrite} is a 'overwrite' snapshot" in message
    assert "streaming-skip-overwrite-snapshots=true" in message

    run = _stream(spark, table, tmp_path / "cp2", {"streaming-skip-overwrite-snapshots": "true"})
    assert sorted(run.ids()) == list(range(20)), "the overwrite's rows are skipped too"


def test_stream_from_timestamp_starts_at_the_first_snapshot_committed_then(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    table = _table(spark, namespace)
    _append(spark, table, 0, 10)
    second = _append(spark, table, 10, 10)
    _append(spark, table, 20, 10)
    millis = spark.sql(
        f"SELECT CAST(unix_millis(committed_at) AS STRING) FROM {table}.snapshots "
        f"WHERE snapshot_id = {second}"
    ).collect()[0][0]
    run = _stream(spark, table, tmp_path / "cp", {"stream-from-timestamp": millis})
    assert run.ids() == list(range(10, 30))

    from pyspark.errors import AnalysisException, StreamingQueryException

    with pytest.raises((StreamingQueryException, AnalysisException)) as excinfo:
        _stream(spark, table, tmp_path / "cp2", {"stream-from-timestamp": "yesterday"})
    assert "invalid stream-from-timestamp 'yesterday'" in _error(excinfo)


def test_a_snapshot_expired_before_the_stream_read_it_is_an_error_not_silent_loss(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    table = _table(spark, namespace)
    first = _append(spark, table, 0, 10)
    checkpoint = tmp_path / "cp"
    assert _stream(spark, table, checkpoint).ids() == list(range(10))
    _append(spark, table, 10, 10)
    _append(spark, table, 20, 10)
    spark.sql(
        f"CALL floe.system.expire_snapshots(table => '{namespace}.t', "
        "older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1)"
    ).collect()

    from pyspark.errors import StreamingQueryException

    with pytest.raises(StreamingQueryException) as excinfo:
        _stream(spark, table, checkpoint)
    message = _error(excinfo)
    assert f"from snapshot {first}: the snapshot no longer exists" in message
    assert "FLOE_SNAPSHOT_NOT_FOUND" in message
    # a new stream on the table whose early history expired reads its whole contents first
    fresh = _stream(spark, table, tmp_path / "fresh", {"streaming-max-files-per-micro-batch": "2"})
    assert [len(b) for b in fresh.batches] == [20, 10]
    assert sorted(fresh.ids()) == list(range(30))


def test_a_running_stream_reads_a_partitioned_table_with_the_schema_it_started_with(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    table = _table(spark, namespace, partitioned=True)
    _append(spark, table, 0, 30, partitions=3)
    run = Run()
    query = _start(spark.readStream.table(table), tmp_path / "cp", run, available_now=False)
    try:
        query.processAllAvailable()
        spark.sql(f"ALTER TABLE {table} ADD COLUMN extra STRING")
        spark.range(30, 60).selectExpr("id", "CAST(id % 3 AS INT) AS p", "'x' AS extra").writeTo(
            table
        ).append()
        query.processAllAvailable()
        _append(spark, table, 60, 9, partitions=3)
        query.processAllAvailable()
    finally:
        query.stop()
    assert sorted(run.ids()) == list(range(69)), "every appended row once"
    assert run.columns == ["id", "p"], "the columns of the table when the query started"


def test_available_now_stops_at_what_was_committed_when_the_run_started(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    table = _table(spark, namespace)
    _append(spark, table, 0, 10)
    _append(spark, table, 10, 10)
    batches: list[list[int]] = []

    def collect_and_append(batch: DataFrame, batch_id: int) -> None:
        batches.append(sorted(int(r["id"]) for r in batch.collect()))
        if len(batches) == 1:
            _append(spark, table, 20, 10)  # committed while the run is under way

    query = (
        spark.readStream.option("streaming-max-files-per-micro-batch", "1")
        .table(table)
        .writeStream.foreachBatch(collect_and_append)
        .option("checkpointLocation", str(tmp_path / "cp"))
        .trigger(availableNow=True)
        .start()
    )
    try:
        query.awaitTermination()
    finally:
        query.stop()
    assert batches == [list(range(0, 10)), list(range(10, 20))]
    assert _stream(spark, table, tmp_path / "cp").ids() == list(range(20, 30)), (
        "the next run reads it"
    )


def test_a_stream_refuses_time_travel_options(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    from pyspark.errors import StreamingQueryException

    table = _table(spark, namespace)
    snapshot = _append(spark, table, 0, 10)
    with pytest.raises(StreamingQueryException) as excinfo:
        _stream(spark, table, tmp_path / "cp", {"snapshot-id": str(snapshot)})
    message = _error(excinfo)
    assert f"Cannot stream from table floe.{namespace}.t pinned to snapshot {snapshot}" in message
    assert "stream-from-timestamp" in message


def test_sql_stream_relation_reads_the_table_with_options(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    table = _table(spark, namespace)
    _append(spark, table, 0, 10)
    _append(spark, table, 10, 10)
    df = spark.sql(
        f"SELECT id, p FROM STREAM {table} WITH ('streaming-max-files-per-micro-batch' = '1')"
    )
    assert df.isStreaming
    run = Run()
    query = _start(df, tmp_path / "cp", run)
    try:
        query.awaitTermination()
    finally:
        query.stop()
    assert run.batches == [list(range(0, 10)), list(range(10, 20))]


def test_a_table_dropped_while_streaming_fails_the_query_naming_it(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    from pyspark.errors import StreamingQueryException

    table = _table(spark, namespace)
    _append(spark, table, 0, 10)
    run = Run()
    query = _start(spark.readStream.table(table), tmp_path / "cp", run, available_now=False)
    try:
        query.processAllAvailable()
        spark.sql(f"DROP TABLE {table} PURGE")
        with pytest.raises(StreamingQueryException) as excinfo:
            query.awaitTermination(60)
    finally:
        query.stop()
    assert f"Cannot stream from table floe.{namespace}.t: the table no longer exists" in _error(
        excinfo
    )
    assert run.ids() == list(range(10))


def test_a_batch_that_failed_is_replayed_with_the_same_files_after_a_restart(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    from pyspark.errors import StreamingQueryException

    table = _table(spark, namespace)
    for i in range(3):
        _append(spark, table, i * 10, 10)
    seen: list[list[int]] = []

    def fail_second(batch: DataFrame, batch_id: int) -> None:
        seen.append(sorted(int(r["id"]) for r in batch.collect()))
        if len(seen) == 2:
            raise RuntimeError("sink down")

    options = {"streaming-max-files-per-micro-batch": "1"}
    query = (
        _reader(spark, options)
        .table(table)
        .writeStream.foreachBatch(fail_second)
        .option("checkpointLocation", str(tmp_path / "cp"))
        .trigger(availableNow=True)
        .start()
    )
    try:
        with pytest.raises(StreamingQueryException):
            query.awaitTermination()
    finally:
        query.stop()
    assert seen == [list(range(0, 10)), list(range(10, 20))]
    _append(spark, table, 30, 10)  # the replay must not grow the logged batch
    rest = _stream(spark, table, tmp_path / "cp", options)
    assert rest.batches == [list(range(10, 20)), list(range(20, 30)), list(range(30, 40))]


def test_a_floe_to_floe_pipeline_copies_every_row_once_across_restarts(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    source = _table(spark, namespace, partitioned=True)
    target = f"floe.{namespace}.copy"
    spark.sql(f"CREATE TABLE {target} (id BIGINT, p INT) USING floe PARTITIONED BY (p)")
    for run in range(2):
        _append(spark, source, run * 20, 20, partitions=2)
        query = (
            spark.readStream.option("streaming-max-files-per-micro-batch", "1")
            .table(source)
            .writeStream.format("floe")
            .option("checkpointLocation", str(tmp_path / "cp"))
            .trigger(availableNow=True)
            .toTable(target)
        )
        try:
            query.awaitTermination()
        finally:
            query.stop()
    copied = sorted(int(r[0]) for r in spark.sql(f"SELECT id FROM {target}").collect())
    assert copied == list(range(40))
