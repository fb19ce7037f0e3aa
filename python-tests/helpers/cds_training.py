"""The training run of the tests' class-data-sharing archive (python-tests/class_data_sharing.py).

    python cds_training.py WORKDIR

Starts a Floe session the way the worker scripts do (local[1], UI off) with the JVM options of
``FLOE_TEST_JAVA_OPTIONS`` (``-XX:ArchiveClassesAtExit=...``), runs what workers run (DDL, inserts,
reads, row-level statements, metadata tables, a procedure, a streaming query into a Floe table and
a foreachBatch append), stops the session and exits normally, which is when the JVM writes the
archive of every class it loaded.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import floe

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # python-tests: class_data_sharing
from class_data_sharing import stop_and_await_jvm_exit

JVM_EXIT_TIMEOUT_S = 240


def main(argv: list[str]) -> int:
    work = Path(argv[0])
    (work / "input").mkdir(parents=True, exist_ok=True)
    for f in range(3):
        rows = "".join(
            json.dumps({"id": i, "part": i % 4, "v": f"r{i}"}) + "\n"
            for i in range(f * 5, f * 5 + 5)
        )
        (work / "input" / f"f{f}.json").write_text(rows)
    spark = floe.session(
        str(work / "warehouse"),
        app_name="floe-cds-training",
        master="local[1]",
        conf={
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "1",
            "spark.sql.session.timeZone": "UTC",
            "spark.driver.extraJavaOptions": os.environ.get("FLOE_TEST_JAVA_OPTIONS", ""),
            # the class path of the Thrift and Connect servers `floe` starts, and of the workers
            "spark.driver.extraClassPath": floe.jar_path(),
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    t = "floe.training.t"
    for statement in (
        "CREATE NAMESPACE floe.training",
        f"CREATE TABLE {t} (id BIGINT, part INT, v STRING) PARTITIONED BY (part)",
        f"INSERT INTO {t} VALUES (1, 1, 'a'), (2, 2, 'b')",
        f"SELECT count(*), sum(id) FROM {t} WHERE part = 1",
        f"DELETE FROM {t} WHERE id = 1",
        f"UPDATE {t} SET v = 'c' WHERE id = 2",
        f"MERGE INTO {t} USING (SELECT 3L AS id, 3 AS part, 'd' AS v) s ON {t}.id = s.id "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
        f"SELECT * FROM {t}.snapshots",
        f"CALL floe.system.expire_snapshots(table => '{t}', retain_last => 1)",
    ):
        spark.sql(statement).collect()
    source = spark.readStream.schema("id BIGINT, part INT, v STRING").json(str(work / "input"))
    sink = (
        source.writeStream.format("floe")
        .option("checkpointLocation", str(work / "checkpoint"))
        .outputMode("append")
        .trigger(availableNow=True)
        .toTable(t)
    )
    sink.awaitTermination()

    def append(batch: Any, batch_id: int) -> None:
        batch.writeTo(t).append()

    batches = (
        source.writeStream.option("checkpointLocation", str(work / "checkpoint-foreach"))
        .foreachBatch(append)
        .trigger(availableNow=True)
        .start()
    )
    batches.awaitTermination()
    count = spark.sql(f"SELECT count(*) FROM {t}").collect()[0][0]
    status = stop_and_await_jvm_exit(spark, JVM_EXIT_TIMEOUT_S)
    print("TRAINED", count, "JVM exit status", status, flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
