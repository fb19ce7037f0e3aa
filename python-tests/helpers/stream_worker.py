"""One run of the streaming query of the exactly-once kill -9 test, in its own OS process and JVM.

    python stream_worker.py MODE WAREHOUSE TABLE INPUT_DIR CHECKPOINT TRIGGER [PAUSE]

Streams the JSON files of ``INPUT_DIR`` (schema ``id BIGINT, part INT, v STRING``; a file source,
so every restart from ``CHECKPOINT`` sees the same files in the same order) into the Floe table
``TABLE`` with the fixed checkpoint location ``CHECKPOINT``.

- ``MODE`` ``sink``: Floe's streaming sink, ``writeStream.format("floe").toTable(TABLE)``
  (append mode), which must commit each micro-batch exactly once.
- ``MODE`` ``foreach-batch``: the negative control, ``foreachBatch`` running a plain batch append
  per micro-batch, which is only at-least-once: a batch whose append landed but that Spark had not
  recorded in the checkpoint's commit log is appended again after a restart.
- ``TRIGGER`` ``continuous``: one file per micro-batch, back to back, until the process is killed;
  ``available-now``: every file not yet read (8 per micro-batch), then the process exits with 0.
- ``PAUSE`` ``POINT:N:MARKER``: the ``N``-th micro-batch commit to reach ``POINT`` writes the
  file ``MARKER`` and sleeps there until the test kills the process. In ``sink`` mode the points
  are those of ``io.floe.spark.write.StreamingCommitPause``; ``foreach-batch`` has
  ``BEFORE_COMMIT`` (before the append) and ``AFTER_PUBLISH`` (after it returned).

Prints ``STARTED`` once the query runs and ``DONE <batches>`` when an ``available-now`` run ended.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from worker_conf import CDS_ENV, class_data_sharing_conf

import floe

SCHEMA = "id BIGINT, part INT, v STRING"
FOREACH_POINTS = ("BEFORE_COMMIT", "AFTER_PUBLISH")
PAUSE_S = 300.0


def main(argv: list[str]) -> int:
    mode, warehouse, table, input_dir, checkpoint, trigger = argv[:6]
    pause = argv[6] if len(argv) > 6 else ""
    spark = floe.session(
        warehouse,
        app_name="floe-stream-worker",
        master="local[1]",
        conf={
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "1",
            "spark.sql.session.timeZone": "UTC",
            "spark.driver.extraJavaOptions": "-Dfloe.test-hooks=true "
            + os.environ.get(CDS_ENV, ""),
            "spark.sql.streaming.ui.enabled": "false",
            # keep every batch's checkpoint files: the test reads the commit log
            "spark.sql.streaming.minBatchesToRetain": "100000",
        }
        | class_data_sharing_conf(),
    )
    spark.sparkContext.setLogLevel("ERROR")
    available_now = trigger == "available-now"
    source = (
        spark.readStream.schema(SCHEMA)
        .option("maxFilesPerTrigger", 8 if available_now else 1)
        .json(input_dir)
    )
    point, occurrence, marker = pause.split(":", 2) if pause else ("", "0", "")
    writer = source.writeStream.option("checkpointLocation", checkpoint)
    if mode == "sink":
        if point:
            jvm: Any = spark.sparkContext._jvm
            jvm.io.floe.spark.write.StreamingCommitPause.arm(point, int(occurrence), marker)
        writer = writer.format("floe").outputMode("append")
    elif mode == "foreach-batch":
        assert not point or point in FOREACH_POINTS, f"foreach-batch has no pause point {point}"
        writer = writer.foreachBatch(appender(table, point, int(occurrence), marker))
    else:
        raise ValueError(f"unknown mode {mode}")
    writer = (
        writer.trigger(availableNow=True)
        if available_now
        else writer.trigger(processingTime="0 seconds")
    )
    query = writer.toTable(table) if mode == "sink" else writer.start()
    print("STARTED", query.id, flush=True)
    query.awaitTermination()
    print("DONE", len(query.recentProgress), flush=True)
    spark.stop()
    return 0


def appender(table: str, point: str, occurrence: int, marker: str) -> Any:
    """The foreachBatch function of the negative control: a batch append, pausing when asked."""
    seen = {"BEFORE_COMMIT": 0, "AFTER_PUBLISH": 0}

    def reached(at: str) -> None:
        seen[at] += 1
        if at == point and seen[at] == occurrence:
            Path(marker).write_text(at)
            time.sleep(PAUSE_S)

    def append(batch: Any, batch_id: int) -> None:
        reached("BEFORE_COMMIT")
        batch.writeTo(table).append()
        reached("AFTER_PUBLISH")

    return append


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
