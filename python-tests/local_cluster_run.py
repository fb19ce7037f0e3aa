"""Run Floe's write, read, row-level and maintenance paths on Spark's ``local-cluster`` master.

Started by test_local_cluster.py as its own process (a JVM holds one SparkContext, and the shared
``spark`` fixture's is ``local[2]``): ``python local_cluster_run.py WAREHOUSE WORKDIR OUT.json``.
The master ``local-cluster[2,1,1024]`` starts two executors in JVMs of their own, so every object a
task needs is serialized to them and no driver-side static state is visible there. Each scenario
records what it read (or the error it raised) in OUT.json, which the test module checks.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

MASTER = "local-cluster[2,1,1024]"
JVM_OPTIONS = "-Duser.timezone=UTC -Duser.language=en -Duser.country=US"
CDS_ENV = "FLOE_TEST_JAVA_OPTIONS"


def start(warehouse: str) -> SparkSession:
    """A Floe session on ``MASTER``; the Floe jar reaches the executors through spark.jars."""
    import pyspark

    import floe

    # local-cluster launches executors with $SPARK_HOME/bin; the pip package of PySpark ships it
    os.environ.setdefault("SPARK_HOME", str(Path(pyspark.__file__).parent))
    return floe.session(
        warehouse,
        app_name="floe-local-cluster",
        master=MASTER,
        conf={
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "4",
            "spark.sql.session.timeZone": "UTC",
            "spark.executor.memory": "512m",
            # with the tests' class-data-sharing archive (python-tests/class_data_sharing.py)
            "spark.driver.extraJavaOptions": f"{JVM_OPTIONS} {os.environ.get(CDS_ENV, '')}",
            "spark.executor.extraJavaOptions": f"{JVM_OPTIONS} {os.environ.get(CDS_ENV, '')}",
        }
        # the archive's class path: the Floe jar first (it reaches executors through spark.jars)
        | ({"spark.driver.extraClassPath": floe.jar_path()} if os.environ.get(CDS_ENV) else {}),
    )


def rows(spark: SparkSession, query: str) -> list[list[Any]]:
    return [list(r) for r in spark.sql(query).collect()]


def executors(spark: SparkSession) -> dict[str, Any]:
    """How many block managers (driver + executors) the context has, and the distinct JVM process
    ids that 16 tasks ran in (ProcessHandle.toString is the pid)."""
    pid = "reflect('java.lang.ProcessHandle', 'current') AS pid"
    task_jvms = sorted({r.pid for r in spark.range(0, 16, 1, 16).selectExpr(pid).collect()})
    # after the tasks: an executor registers its block manager before it runs any task, but the
    # driver can get here before the second executor started
    status = spark.sparkContext._jsc.sc().getExecutorMemoryStatus()
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    driver = str(jvm.java.lang.ProcessHandle.current().pid())
    return {
        "block_managers": status.size(),
        "task_jvms": task_jvms,
        "driver_jvm": driver,
    }


def writes(spark: SparkSession) -> dict[str, Any]:
    t = "floe.db.parts"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p INT, s STRING) PARTITIONED BY (p)")
    data = spark.range(0, 4000, 1, 8)
    data.selectExpr("id", "CAST(id % 4 AS INT) p", "CAST(id AS STRING) s").writeTo(t).append()
    spark.sql(f"INSERT INTO {t} SELECT id, 9, 'x' FROM range(4000, 4100, 1, 3)")
    return {
        "count_sum": rows(spark, f"SELECT count(*), sum(id) FROM {t}")[0],
        "partitions": rows(spark, f"SELECT p, count(*) FROM {t} GROUP BY p ORDER BY p"),
        "data_files": rows(spark, f"SELECT count(*) FROM {t}.data_files")[0][0],
    }


def deletes(spark: SparkSession, version: int) -> dict[str, Any]:
    t = f"floe.db.deletes_v{version}"
    spark.sql(
        f"CREATE TABLE {t} (id BIGINT, p INT) PARTITIONED BY (p) TBLPROPERTIES ("
        f"'format-version' = '{version}', 'write.delete.mode' = 'merge-on-read', "
        "'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')"
    )
    spark.range(0, 2000, 1, 4).selectExpr("id", "CAST(id % 2 AS INT) p").writeTo(t).append()
    spark.sql(f"DELETE FROM {t} WHERE id % 10 = 0")
    spark.sql(f"DELETE FROM {t} WHERE id % 10 = 5")
    return {
        "count_sum": rows(spark, f"SELECT count(*), sum(id) FROM {t}")[0],
        "delete_files": rows(
            spark, f"SELECT content, count(*) FROM {t}.delete_files GROUP BY content"
        ),
        "file_formats": rows(spark, f"SELECT DISTINCT file_format FROM {t}.delete_files"),
    }


def change_feed(spark: SparkSession) -> dict[str, Any]:
    """The change feed of deletes_v3 (an append, then two DELETEs writing deletion vectors)."""
    t = "floe.db.deletes_v3"
    query = f"SELECT _change_type, count(*), sum(id) FROM {t}.changes GROUP BY 1 ORDER BY 1"
    return {"changes": rows(spark, query)}


def row_level(spark: SparkSession) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode in ("merge-on-read", "copy-on-write"):
        t = f"floe.db.rl_{mode.replace('-', '_')}"
        spark.sql(
            f"CREATE TABLE {t} (id BIGINT, v STRING) TBLPROPERTIES ('format-version' = '2', "
            f"'write.delete.mode' = '{mode}', 'write.update.mode' = '{mode}', "
            f"'write.merge.mode' = '{mode}')"
        )
        spark.range(0, 1000, 1, 4).selectExpr("id", "'a' v").writeTo(t).append()
        spark.sql(f"UPDATE {t} SET v = 'u' WHERE id % 3 = 0")
        spark.sql(f"DELETE FROM {t} WHERE id >= 900")
        spark.range(850, 1100, 1, 3).selectExpr("id", "'m' v").createOrReplaceTempView("src")
        spark.sql(
            f"MERGE INTO {t} t USING src s ON t.id = s.id "
            "WHEN MATCHED AND t.id % 2 = 0 THEN DELETE "
            "WHEN MATCHED THEN UPDATE SET v = s.v "
            "WHEN NOT MATCHED THEN INSERT *"
        )
        out[mode] = rows(spark, f"SELECT v, count(*), sum(id) FROM {t} GROUP BY v ORDER BY v")
    return out


def analyze(spark: SparkSession) -> dict[str, Any]:
    t = "floe.db.parts"
    spark.sql(f"ANALYZE TABLE {t} COMPUTE STATISTICS FOR COLUMNS id, p")
    described = rows(spark, f"DESCRIBE EXTENDED {t} p")
    procedure = rows(
        spark, "CALL floe.system.compute_table_stats(table => 'db.parts', columns => array('s'))"
    )
    return {"describe_p": described, "procedure_rows": len(procedure)}


def compaction(spark: SparkSession) -> dict[str, Any]:
    t = "floe.db.deletes_v2"
    before = rows(spark, f"SELECT count(*), sum(id) FROM {t}")[0]
    result = spark.sql(
        "CALL floe.system.rewrite_data_files(table => 'db.deletes_v2', "
        "options => map('min-input-files', '2', 'delete-file-threshold', '1'))"
    ).collect()
    return {
        "before": before,
        "after": rows(spark, f"SELECT count(*), sum(id) FROM {t}")[0],
        "rewritten": result[0]["rewritten_data_files_count"],
        "data_files": rows(spark, f"SELECT count(*) FROM {t}.data_files")[0][0],
        "delete_files": rows(spark, f"SELECT count(*) FROM {t}.delete_files")[0][0],
    }


def index(spark: SparkSession) -> dict[str, Any]:
    t = "floe.db.parts"
    spark.sql(f"CREATE INDEX by_s ON {t} (s)")
    return {
        "indexes": rows(spark, f"SELECT name, problem FROM {t}.indexes"),
        "hit": rows(spark, f"SELECT id, p FROM {t} WHERE s = '1234'"),
        "miss": rows(spark, f"SELECT count(*) FROM {t} WHERE s = 'none'")[0][0],
    }


def streaming(spark: SparkSession, workdir: Path) -> dict[str, Any]:
    spark.sql("CREATE TABLE floe.db.stream_out (id BIGINT, p INT, s STRING)")
    query = (
        spark.readStream.table("floe.db.parts")
        .writeStream.option("checkpointLocation", str(workdir / "checkpoint"))
        .trigger(availableNow=True)
        .toTable("floe.db.stream_out")
    )
    query.awaitTermination(120)
    return {"count_sum": rows(spark, "SELECT count(*), sum(id) FROM floe.db.stream_out")[0]}


def main(warehouse: str, workdir: str, out: str) -> None:
    began = time.monotonic()
    spark = start(warehouse)
    spark.sql("CREATE NAMESPACE floe.db")
    scenarios: list[tuple[str, Callable[[], dict[str, Any]]]] = [
        ("executors", lambda: executors(spark)),
        ("writes", lambda: writes(spark)),
        ("deletes_v2", lambda: deletes(spark, 2)),
        ("deletes_v3", lambda: deletes(spark, 3)),
        ("change_feed", lambda: change_feed(spark)),
        ("row_level", lambda: row_level(spark)),
        ("analyze", lambda: analyze(spark)),
        ("compaction", lambda: compaction(spark)),
        ("index", lambda: index(spark)),
        ("streaming", lambda: streaming(spark, Path(workdir))),
    ]
    results: dict[str, Any] = {}
    for name, run in scenarios:
        started = time.monotonic()
        try:
            results[name] = {"value": run()}
        except Exception:  # recorded for the test to show; the next scenario still runs
            results[name] = {"error": traceback.format_exc()[-6000:]}
        results[name]["seconds"] = round(time.monotonic() - started, 1)
        Path(out).write_text(json.dumps(results, default=str))
    spark.stop()
    results["total_seconds"] = round(time.monotonic() - began, 1)
    Path(out).write_text(json.dumps(results, default=str))


if __name__ == "__main__":
    main(*sys.argv[1:4])
