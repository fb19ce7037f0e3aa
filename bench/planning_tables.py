"""The synthetic planning tables of bench/planning.py and the suite's W3 (D3): per size, a table of
``REAL_FILES`` real files in the middle of the id range (from ``gap(size)`` on) and ``size``
synthetic manifest entries around them, appended by planning_helper/SyntheticManifests.java
(compiled against the Iceberg runtime, on the building JVM's class path)."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

HELPER = Path(__file__).resolve().parent / "planning_helper" / "SyntheticManifests.java"
PER_MANIFEST = 100
ROWS_PER_FILE = 1000
REAL_FILES = 3
#: The tables' columns (W3's D3 adds the partition column ``p INT``).
COLUMNS = "id BIGINT, ts TIMESTAMP, category STRING, amount DOUBLE"


def table_name(size: int) -> str:
    return f"t_{size}"


def gap(size: int) -> int:
    """The first file index left to the real files (the middle of the id range)."""
    return size // 2


def real_ids(size: int) -> tuple[int, int]:
    """[lo, hi] of the min/max query: ids inside the real files only."""
    lo = gap(size) * ROWS_PER_FILE + 10
    hi = (gap(size) + REAL_FILES - 1) * ROWS_PER_FILE + ROWS_PER_FILE // 2
    return lo, hi


def minmax_sql(table: str, size: int) -> str:
    """The min/max query of ``table`` (of ``size`` entries): it matches the real files only."""
    lo, hi = real_ids(size)
    return f"SELECT count(*), sum(amount) FROM {table} WHERE id BETWEEN {lo} AND {hi}"


def rows_sql(first: int, count: int, partition: int | None = None) -> str:
    """``count`` rows of :data:`COLUMNS` from id ``first`` on, as one file; with ``partition``,
    also the column ``p`` holding it."""
    p = "" if partition is None else f", {partition} AS p"
    return f"""SELECT /*+ REPARTITION(1) */ id,
        timestamp_micros(1700000000000000 + id * 1000000) AS ts,
        concat('cat-', lpad(CAST(id % 100 AS STRING), 3, '0')) AS category,
        CAST(pmod(xxhash64(id), 100000) AS DOUBLE) / 100 AS amount{p}
    FROM range({first}, {first + count})"""


def compile_helper(iceberg_jar: Path, into: Path) -> Path:
    """The helper's classes compiled into ``into`` (javac of $JAVA_HOME, else on the PATH)."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    into.mkdir(parents=True, exist_ok=True)
    java_home = os.environ.get("JAVA_HOME")
    javac = str(Path(java_home) / "bin" / "javac") if java_home else "javac"
    classpath = f"{iceberg_jar}{os.pathsep}{jars}/*"
    subprocess.run([javac, "-nowarn", "-d", str(into), "-cp", classpath, str(HELPER)], check=True)
    return into


def build_table(
    spark: SparkSession, name: str, size: int, create: str, rows_sql: Callable[[int, int], str]
) -> dict[str, Any]:
    """Creates ``name`` (``create``: the text after ``CREATE TABLE name``), inserts the real files
    (``rows_sql(first id, count)``: one file each) and appends ``size`` synthetic entries; returns
    the build's record: entries, manifests, build_seconds."""
    jvm = spark._jvm
    assert jvm is not None
    started = time.perf_counter()
    spark.sql(f"CREATE TABLE {name} {create}")
    for k in range(REAL_FILES):
        spark.sql(f"INSERT INTO {name} {rows_sql((gap(size) + k) * ROWS_PER_FILE, ROWS_PER_FILE)}")
    table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, name)
    manifests = jvm.SyntheticManifests.append(
        table, size, PER_MANIFEST, ROWS_PER_FILE, gap(size), gap(size) + REAL_FILES
    )
    return {
        "entries": size + REAL_FILES,
        "manifests": manifests + REAL_FILES,
        "build_seconds": round(time.perf_counter() - started, 1),
    }


def plan_seconds(spark: SparkSession, sql: str) -> tuple[float, int]:
    """Seconds from the SQL text to the scan's input partitions, and how many there are."""
    from bench_session import only_scan_node

    started = time.perf_counter()
    df = spark.sql(sql)
    scan = only_scan_node(df._jdf.queryExecution().executedPlan())
    if scan.getClass().getSimpleName() == "FloeLocalReadExec":
        partitions = len(scan.productElement(1).planInputPartitions())
    else:
        partitions = int(scan.inputPartitions().size())
    return time.perf_counter() - started, partitions
