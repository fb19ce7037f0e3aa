"""The training run of an engine's class-data-sharing archive (bench/suite_cds.py).

    python suite_cds_training.py ENGINE WORKDIR

Starts ``ENGINE``'s session as the suite's workers do, with the JVM options of
``FLOE_BENCH_JAVA_OPTIONS`` (``-XX:ArchiveClassesAtExit=...``), runs what the workloads run on a
small table (a Parquet write and read, a partitioned table of the engine, a filtered and an
aggregated read, a join, DELETE, UPDATE and MERGE where the engine has them), stops the session
and waits for the JVM to exit, which is when it writes the archive of every class it loaded.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "pyspark-shim"))
sys.path.insert(0, str(BENCH.parent / "python-tests"))  # class_data_sharing

JVM_EXIT_TIMEOUT_S = 240


def statements(engine: str, work: Path) -> list[str]:
    """What the training session runs after writing the Parquet table ``src``."""
    from suite_api import quote_path

    if engine == "parquet":
        return ["SELECT part, count(*), sum(d) FROM src WHERE id > 10 GROUP BY part"]
    if engine == "delta":
        table = f"delta.{quote_path(work / 'delta-t')}"
        create = f"CREATE TABLE {table} USING delta PARTITIONED BY (part)"
        create += " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true') AS SELECT * FROM src"
    else:
        catalog = "iceberg" if engine.startswith("iceberg") else "floe"
        table = f"{catalog}.training.t"
        using = " USING iceberg" if catalog == "iceberg" else ""
        create = f"CREATE TABLE {table}{using} PARTITIONED BY (part) TBLPROPERTIES ("
        create += "'format-version' = '3', 'write.delete.mode' = 'merge-on-read', "
        create += "'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')"
        create += " AS SELECT * FROM src"
        create = f"CREATE NAMESPACE IF NOT EXISTS {catalog}.training; {create}"
    return [
        *create.split("; "),
        f"SELECT count(*), min(id), max(s) FROM {table}",
        f"SELECT part, sum(d) FROM {table} WHERE id BETWEEN 100 AND 900 GROUP BY part",
        f"SELECT count(*) FROM {table} t JOIN src s ON t.id = s.id WHERE s.part = 3",
        f"DELETE FROM {table} WHERE id % 97 = 0",
        f"UPDATE {table} SET d = d + 1 WHERE id % 89 = 0",
        f"MERGE INTO {table} t USING (SELECT * FROM src WHERE id % 83 = 0) s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET t.s = s.s WHEN NOT MATCHED THEN INSERT *",
        f"SELECT count(*), sum(d) FROM {table}",
    ]


def main(argv: list[str]) -> int:
    import os

    from class_data_sharing import stop_and_await_jvm_exit
    from suite_cds import ENV
    from suite_engines import session

    engine, work = argv[0], Path(argv[1])
    work.mkdir(parents=True, exist_ok=True)
    options = {"spark.driver.extraJavaOptions": os.environ.get(ENV, "")}
    spark = session(engine, work, "floe-suite-cds-training", options)
    spark.sparkContext.setLogLevel("ERROR")
    rows = spark.range(0, 20_000).selectExpr(
        "id", "CAST(id % 7 AS INT) AS part", "CAST(id AS STRING) AS s", "id * 0.5 AS d",
        "date_add(DATE '2021-01-01', CAST(id % 30 AS INT)) AS day",
    )  # fmt: skip
    rows.write.mode("overwrite").parquet(str(work / "src"))
    spark.read.parquet(str(work / "src")).createOrReplaceTempView("src")
    for statement in statements(engine, work):
        spark.sql(statement).collect()
    status = stop_and_await_jvm_exit(spark, JVM_EXIT_TIMEOUT_S)
    print("TRAINED", engine, "JVM exit status", status, flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
