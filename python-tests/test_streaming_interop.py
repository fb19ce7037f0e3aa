"""Structured Streaming across engines on one warehouse (docs/streaming.md, section 4): the Apache
Iceberg runtime's streaming reader reads the rows Floe's sink wrote, Floe's streaming source reads
the rows Iceberg's sink wrote, and each sink recognises the other's record of a committed batch
(``spark.sql.streaming.queryId`` / ``epochId`` in the snapshot summary): a batch replayed after a
lost checkpoint commit is skipped by the other engine's sink, never appended twice.

Input is a parquet file source read with ``maxFilesPerTrigger=1`` (one micro-batch per input
file) and ``trigger(availableNow=True)``, so every run makes the same batches; readers take one
file per batch (``streaming-max-files-per-micro-batch=1``) so that commit order is checked too.
Every test skips, saying why, when the Iceberg runtime jar cannot be downloaded (conftest.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from interop_tables import table_location

import floe.inspect as inspect

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming.query import StreamingQuery

COLUMNS = "id BIGINT, p INT, s STRING, d DATE, ts TIMESTAMP, dec DECIMAL(10, 2), v DOUBLE"
#: Rows per input file (one sink batch each); ids of batch k are [k * SIZE, (k + 1) * SIZE).
SIZE = 12
PARTITIONS = 3
QUERY_ID = "spark.sql.streaming.queryId"
EPOCH_ID = "spark.sql.streaming.epochId"


def add_input(spark: SparkSession, source: Path, batch: int) -> None:
    """One parquet file (one micro-batch) of SIZE rows of every column kind, nulls included."""
    start = batch * SIZE
    spark.range(start, start + SIZE, 1, 1).selectExpr(
        "id",
        f"CAST(id % {PARTITIONS} AS INT) AS p",
        "CASE WHEN id % 5 = 0 THEN NULL ELSE concat('wört-', id) END AS s",
        "date_add(DATE'1969-12-30', CAST(id AS INT)) AS d",
        "timestamp_micros(id * 1000003 - 5000000) AS ts",
        "CAST(id * 1.25 - 7 AS DECIMAL(10, 2)) AS dec",
        "CASE WHEN id % 7 = 3 THEN CAST('NaN' AS DOUBLE) ELSE id / 3.0 END AS v",
    ).write.mode("append").parquet(str(source))


def input_rows(spark: SparkSession, source: Path) -> list[tuple[Any, ...]]:
    """Every row of the input files, read in one batch: what each stream must deliver once."""
    return normalized(spark.read.schema(COLUMNS).parquet(str(source)).collect())


def normalized(rows: list[Any]) -> list[tuple[Any, ...]]:
    """Rows as tuples sorted by id, NaN as a marker (NaN != NaN)."""
    out = [tuple("NaN" if isinstance(v, float) and v != v else v for v in r) for r in rows]
    return sorted(out, key=lambda r: int(r[0]))


def sink(
    spark: SparkSession, source: Path, table: str, checkpoint: Path, engine: str
) -> StreamingQuery:
    """Runs ``engine``'s sink over every input file present (one batch per file) into ``table``."""
    frame = spark.readStream.schema(COLUMNS).option("maxFilesPerTrigger", 1).parquet(str(source))
    writer = frame.writeStream.format(engine).trigger(availableNow=True)
    writer = writer.option("checkpointLocation", str(checkpoint))
    if engine == "iceberg":  # Iceberg's documented setting for unsorted streaming input
        writer = writer.option("fanout-enabled", "true")
    query = writer.toTable(table)
    try:
        query.awaitTermination()
    finally:
        query.stop()
    return query


@dataclass
class Delivered:
    """What a streaming read delivered: the rows of each non-empty micro-batch, in order."""

    batches: list[list[tuple[Any, ...]]] = field(default_factory=list)

    def rows(self) -> list[tuple[Any, ...]]:
        return normalized([r for batch in self.batches for r in batch])

    def sink_batches(self) -> list[int]:
        """For each delivered micro-batch, the input batch its rows came from (one per file)."""
        found = []
        for batch in self.batches:
            origins = {int(r[0]) // SIZE for r in batch}
            assert len(origins) == 1, f"one data file holds rows of input batches {origins}"
            found.append(origins.pop())
        return found


def read_stream(spark: SparkSession, table: str, checkpoint: Path) -> Delivered:
    """Streams ``table`` (either engine's catalog) with AvailableNow, one data file per batch."""
    delivered = Delivered()

    def collect(batch: DataFrame, _batch_id: int) -> None:
        rows = batch.collect()
        if rows:
            delivered.batches.append([tuple(r) for r in rows])

    frame = spark.readStream.option("streaming-max-files-per-micro-batch", "1").table(table)
    query = (
        frame.writeStream.foreachBatch(collect)
        .trigger(availableNow=True)
        .option("checkpointLocation", str(checkpoint))
        .start()
    )
    try:
        query.awaitTermination()
    finally:
        query.stop()
    return delivered


def streaming_summaries(location: str) -> list[tuple[str, str, str]]:
    """(operation, query id, epoch id) of each snapshot, oldest first."""
    metadata = inspect.load_table_metadata(location)
    snapshots = sorted(metadata["snapshots"], key=lambda s: s["sequence-number"])
    return [
        (s["summary"]["operation"], s["summary"].get(QUERY_ID), s["summary"].get(EPOCH_ID))
        for s in snapshots
    ]


def lose_last_checkpoint_commit(checkpoint: Path, batch: int) -> None:
    """As if the query died after the table commit of ``batch`` but before Spark recorded it in
    the checkpoint: a restart replays that batch."""
    committed = checkpoint / "commits" / str(batch)
    assert committed.is_file(), sorted(p.name for p in (checkpoint / "commits").iterdir())
    committed.unlink()
    (checkpoint / "commits" / f".{batch}.crc").unlink(missing_ok=True)


def check_replay_across_sinks(
    spark: SparkSession,
    source: Path,
    checkpoint: Path,
    query_id: str,
    tables: dict[str, str],
    location: str,
    writer: str,
    other: str,
) -> None:
    """``writer``'s sink committed input batches 0-2; the checkpoint loses batch 2's commit and
    the query restarts on ``other``'s sink with a new input file: ``other`` must skip the replayed
    batch 2 (recognising ``writer``'s summary keys) and commit batch 3 under the same query id."""
    lose_last_checkpoint_commit(checkpoint, 2)
    add_input(spark, source, 3)
    restarted = sink(spark, source, tables[other], checkpoint, other)
    assert str(restarted.id) == query_id
    ran = {int(p.batchId): int(p.numInputRows) for p in restarted.recentProgress}
    assert ran == {2: SIZE, 3: SIZE}  # batch 2 really ran again, on the other sink
    assert streaming_summaries(location) == [("append", query_id, str(b)) for b in range(4)]
    for name in tables.values():  # every input row exactly once, through both catalogs
        assert normalized(spark.table(name).collect()) == input_rows(spark, source)


def test_iceberg_streams_what_floe_sink_wrote(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, tmp_path: Path
) -> None:
    tables = {"floe": f"floe.{namespace}.t", "iceberg": f"{iceberg}.{namespace}.t"}
    location = table_location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {tables['floe']} ({COLUMNS}) PARTITIONED BY (p)")
    source, checkpoint = tmp_path / "in", tmp_path / "sink"
    for batch in range(3):
        add_input(spark, source, batch)
    query = sink(spark, source, tables["floe"], checkpoint, "floe")
    query_id = str(query.id)
    assert streaming_summaries(location) == [("append", query_id, str(b)) for b in range(3)]

    delivered = read_stream(spark, tables["iceberg"], tmp_path / "iceberg-reader")
    assert delivered.rows() == input_rows(spark, source)
    assert delivered.rows() == normalized(spark.table(tables["floe"]).collect())
    assert delivered.sink_batches() == sorted(delivered.sink_batches())  # commit order
    assert len(delivered.batches) == len(inspect.table_files(location))  # one file per batch

    check_replay_across_sinks(
        spark, source, checkpoint, query_id, tables, location, writer="floe", other="iceberg"
    )


def test_floe_streams_what_iceberg_sink_wrote(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, tmp_path: Path
) -> None:
    tables = {"floe": f"floe.{namespace}.t", "iceberg": f"{iceberg}.{namespace}.t"}
    location = table_location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {tables['iceberg']} ({COLUMNS}) USING iceberg PARTITIONED BY (p)")
    source, checkpoint = tmp_path / "in", tmp_path / "sink"
    for batch in range(3):
        add_input(spark, source, batch)
    query = sink(spark, source, tables["iceberg"], checkpoint, "iceberg")
    query_id = str(query.id)
    assert streaming_summaries(location) == [("append", query_id, str(b)) for b in range(3)]

    delivered = read_stream(spark, tables["floe"], tmp_path / "floe-reader")
    assert delivered.rows() == input_rows(spark, source)
    assert delivered.rows() == normalized(spark.table(tables["iceberg"]).collect())
    assert delivered.sink_batches() == sorted(delivered.sink_batches())  # commit order
    assert len(delivered.batches) == len(inspect.table_files(location))  # one file per batch

    check_replay_across_sinks(
        spark, source, checkpoint, query_id, tables, location, writer="iceberg", other="floe"
    )
