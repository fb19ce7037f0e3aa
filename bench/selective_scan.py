#!/usr/bin/env python3
"""Selective scans (W2a; docs/benchmarks.md, 'Selective scans'): Floe vs Iceberg vs Hive Parquet.

    python bench/selective_scan.py [--rows 4000000] [--days 100] [--reps 5] [--dir PATH] [--keep]

Two tables of the same generated rows in each system, written with the same codec (zstd):

* ``days``: partitioned by ``days(ts)`` over ``--days`` days (Hive-style: ``partitionBy("dt")``);
  query ``days_1pct`` selects one day, 1% of the partitions (Parquet also names ``dt``, as a
  Hive-style user must);
* ``ids``: ``bucket(16, id)`` of a unique, scattered ``id``, written by 4 appends (Hive-style:
  ``partitionBy("hive_bucket")`` of a hash); query ``point_lookup`` selects one ``id``
  (Parquet also names its bucket, computed by hand).

Each query runs ``--reps`` times per system after one unmeasured warm-up, systems interleaved in
ABC/CBA order, in one Spark session (``local[2]``). Reported per system: wall time (median, min,
max), the part of it spent planning (up to the physical plan), and the data files and bytes the
scan read, from the scan node's metrics after the run (Floe: ``resultDataFiles``/
``resultDataBytes``, Iceberg: ``resultDataFiles``/``totalDataFileSize``, Parquet:
``numFiles``/``filesSize``); bytes are whole files, as all three report them. Goals (W2): Floe
reads no more files than Iceberg and takes at most 0.8x Iceberg's time. Parquet is read by
path for each run (``spark.read.parquet``, so its file listing is timed, as Floe's and Iceberg's
metadata reads are). Iceberg is skipped when its runtime jar (python-tests/iceberg_runtime.py,
cached in ~/.cache/floe) is unavailable. Results go to stdout and bench/out/selective_scan-*.json.
"""

from __future__ import annotations

import argparse
import datetime
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench_session import DRIVER_MEMORY, OUT, only_scan_node, spark_conf, write_report

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ROOT = Path(__file__).resolve().parent.parent
MASTER = "local[2]"
GOAL_TIME_RATIO = 0.8  # Floe / Iceberg
BUCKETS = 16
APPENDS = 4
FIRST_DAY = datetime.date(2024, 1, 1)
# an odd multiplier: a bijection of [0, 2^32), so ids are unique and scattered
ID = "(id * 2654435761) % 4294967296"


def source_sql(rows: int, days: int, start: int = 0, end: int | None = None) -> str:
    """The generated rows [start, end) as SQL: 10 columns, one day in ``days`` per row."""
    return f"""SELECT {ID} AS id,
        TIMESTAMP '{FIRST_DAY} 00:00:00' + make_interval(0, 0, 0, CAST(id % {days} AS INT), 0, 0,
            CAST(id DIV {days} % 86400 AS INT)) AS ts,
        date_add(DATE '{FIRST_DAY}', CAST(id % {days} AS INT)) AS dt,
        pmod(xxhash64({ID}), {BUCKETS}) AS hive_bucket,
        pmod(xxhash64(id, 7), 200000) AS item_sk,
        CAST(id % 97 AS INT) AS qty,
        CAST(pmod(xxhash64(id, 11), 100000) / 100 AS DECIMAL(10, 2)) AS price,
        concat('store-', CAST(id % 500 AS STRING)) AS store,
        hex(xxhash64(id, 13)) AS note
    FROM range({start}, {rows if end is None else end})"""


COLUMNS = """id BIGINT, ts TIMESTAMP, dt DATE, hive_bucket BIGINT, item_sk BIGINT, qty INT,
    price DECIMAL(10, 2), store STRING, note STRING"""


def create_tables(
    spark: SparkSession, systems: list[str], rows: int, days: int, workdir: Path
) -> None:
    per_append = -(-rows // APPENDS)
    for system in systems:
        if system == "parquet":
            days_path = str(workdir / "parquet" / "days")
            spark.sql(source_sql(rows, days)).repartition("dt").write.partitionBy("dt").option(
                "compression", "zstd"
            ).parquet(days_path)
            for a in range(APPENDS):
                start, end = a * per_append, min(rows, (a + 1) * per_append)
                spark.sql(source_sql(rows, days, start, end)).repartition("hive_bucket").write.mode(
                    "append"
                ).partitionBy("hive_bucket").option("compression", "zstd").parquet(
                    str(workdir / "parquet" / "ids")
                )
            continue
        using = "floe" if system == "floe" else "iceberg"
        props = "TBLPROPERTIES ('write.parquet.compression-codec' = 'zstd')"
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {system}.bench")
        spark.sql(
            f"CREATE TABLE {system}.bench.days ({COLUMNS}) USING {using} "
            f"PARTITIONED BY (days(ts)) {props}"
        )
        spark.sql(f"INSERT INTO {system}.bench.days {source_sql(rows, days)}")
        spark.sql(
            f"CREATE TABLE {system}.bench.ids ({COLUMNS}) USING {using} "
            f"PARTITIONED BY (bucket({BUCKETS}, id)) {props}"
        )
        for a in range(APPENDS):
            start, end = a * per_append, min(rows, (a + 1) * per_append)
            spark.sql(f"INSERT INTO {system}.bench.ids {source_sql(rows, days, start, end)}")


def queries(rows: int, days: int) -> dict[str, dict[str, str]]:
    """Query name -> system -> SQL ({src} is the table or the Parquet view)."""
    day = FIRST_DAY + datetime.timedelta(days=days // 2)
    next_day = day + datetime.timedelta(days=1)
    day_filter = f"ts >= TIMESTAMP '{day} 00:00:00' AND ts < TIMESTAMP '{next_day} 00:00:00'"
    day_sql = "SELECT count(*), sum(qty), sum(price), max(note) FROM {src} WHERE "
    needle = ((rows // 2) * 2654435761) % 4294967296
    # named columns: a Hive-style table puts its partition column last
    lookup = "SELECT id, ts, dt, item_sk, qty, price, store, note FROM {src} WHERE id = " + str(
        needle
    )
    return {
        "days_1pct": {
            "floe": day_sql + day_filter,
            "iceberg": day_sql + day_filter,
            "parquet": day_sql + f"dt = DATE '{day}' AND " + day_filter,
        },
        "point_lookup": {
            "floe": lookup,
            "iceberg": lookup,
            "parquet": lookup + f" AND hive_bucket = pmod(xxhash64(CAST({needle} AS BIGINT)), 16)",
        },
    }


def scan_metrics(df: DataFrame) -> dict[str, int]:
    """Files and bytes read by the (single) table scan of ``df``'s executed plan."""
    names = {
        "BatchScanExec": (("resultDataFiles",), ("resultDataBytes", "totalDataFileSize")),
        "FloeLocalReadExec": (("resultDataFiles",), ("resultDataBytes",)),
        "FileSourceScanExec": (("numFiles",), ("filesSize",)),
    }
    node = only_scan_node(df._jdf.queryExecution().executedPlan(), tuple(names))
    metrics = node.metrics()
    out: dict[str, int] = {}
    for label, keys in zip(("files", "bytes"), names[node.getClass().getSimpleName()], strict=True):
        key = next((k for k in keys if metrics.contains(k)), None)
        out[label] = int(metrics.apply(key).value()) if key else -1
    return out


def run_query(spark: SparkSession, system: str, sql: str, workdir: Path, table: str) -> Any:
    """Runs one query; returns (seconds, planning seconds, rows, metrics). Planning is everything
    up to the physical plan: loading the table (listing a Parquet directory), pruning files."""
    start = time.perf_counter()
    if system == "parquet":
        spark.read.parquet(str(workdir / "parquet" / table)).createOrReplaceTempView("bench_src")
        src = "bench_src"
    else:
        src = f"{system}.bench.{table}"
    df = spark.sql(sql.format(src=src))
    df._jdf.queryExecution().executedPlan()
    planned = time.perf_counter()
    rows = [tuple(r) for r in df.collect()]
    end = time.perf_counter()
    return end - start, planned - start, sorted(rows, key=repr), scan_metrics(df)


def run(
    spark: SparkSession, systems: list[str], rows: int, days: int, reps: int, workdir: Path
) -> dict[str, Any]:
    started = time.perf_counter()
    create_tables(spark, systems, rows, days, workdir)
    load_seconds = time.perf_counter() - started
    report: dict[str, Any] = {"queries": {}, "load_seconds": load_seconds}
    tables = {"days_1pct": "days", "point_lookup": "ids"}
    for name, per_system in queries(rows, days).items():
        times: dict[str, list[float]] = {s: [] for s in systems}
        planning: dict[str, list[float]] = {s: [] for s in systems}
        results: dict[str, Any] = {}
        metrics: dict[str, dict[str, int]] = {}
        for s in systems:  # warm-up, unmeasured
            run_query(spark, s, per_system[s], workdir, tables[name])
        for rep in range(reps):
            for s in systems if rep % 2 == 0 else list(reversed(systems)):
                seconds, plan_seconds, results[s], metrics[s] = run_query(
                    spark, s, per_system[s], workdir, tables[name]
                )
                times[s].append(seconds)
                planning[s].append(plan_seconds)
        reference = results[systems[0]]
        for s in systems:
            if results[s] != reference:
                raise SystemExit(f"{name}: {s} returned {results[s]}, {systems[0]} {reference}")
        entry: dict[str, Any] = {
            "sql": per_system,
            "result_rows": len(reference),
            "systems": {
                s: {
                    "median_seconds": statistics.median(times[s]),
                    "min_seconds": min(times[s]),
                    "max_seconds": max(times[s]),
                    "seconds": times[s],
                    "median_planning_seconds": statistics.median(planning[s]),
                    "files_read": metrics[s]["files"],
                    "bytes_read": metrics[s]["bytes"],
                }
                for s in systems
            },
        }
        if "iceberg" in systems:
            floe, iceberg = entry["systems"]["floe"], entry["systems"]["iceberg"]
            ratio = floe["median_seconds"] / iceberg["median_seconds"]
            worst = floe["max_seconds"] / iceberg["max_seconds"]
            entry["goals"] = {
                "files_floe_le_iceberg": floe["files_read"] <= iceberg["files_read"],
                "time_ratio_floe_over_iceberg": ratio,
                "worst_ratio_floe_over_iceberg": worst,
                "time_goal": GOAL_TIME_RATIO,
                "meets_time_goal": ratio <= GOAL_TIME_RATIO and worst <= GOAL_TIME_RATIO * 1.1,
            }
        if "parquet" in systems:
            entry["time_ratio_floe_over_parquet"] = (
                entry["systems"]["floe"]["median_seconds"]
                / entry["systems"]["parquet"]["median_seconds"]
            )
        report["queries"][name] = entry
    return report


def print_report(report: dict[str, Any]) -> None:
    print(f"{'query':<13} {'system':<8} {'median s':>9} {'min s':>7} {'max s':>7} "
          f"{'plan s':>7} {'files':>6} {'bytes':>12}")  # fmt: skip
    for name, entry in report["queries"].items():
        for system, r in entry["systems"].items():
            print(
                f"{name:<13} {system:<8} {r['median_seconds']:>9.3f} {r['min_seconds']:>7.3f} "
                f"{r['max_seconds']:>7.3f} {r['median_planning_seconds']:>7.3f} "
                f"{r['files_read']:>6} {r['bytes_read']:>12,}"
            )
        goals = entry.get("goals")
        if goals:
            verdict = "meets" if goals["meets_time_goal"] else "MISSES"
            print(
                f"  floe/iceberg time {goals['time_ratio_floe_over_iceberg']:.3f} "
                f"(worst {goals['worst_ratio_floe_over_iceberg']:.3f}, goal <= "
                f"{goals['time_goal']}): {verdict}; files floe <= iceberg: "
                f"{goals['files_floe_le_iceberg']}"
            )
    for system, reason in report.get("skipped", {}).items():
        print(f"skipped {system}: {reason}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--days", type=int, default=100, help="days (partitions) of the days table")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument(
        "--dir", type=Path, default=None, help="work directory (default: a temp dir)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the written data")
    parser.add_argument("--no-iceberg", action="store_true", help="skip the Iceberg runtime")
    args = parser.parse_args(argv)

    import pyspark

    import floe

    sys.path.insert(0, str(ROOT / "python-tests"))
    from iceberg_runtime import VERSION, IcebergRuntime, find_iceberg_runtime

    runtime = IcebergRuntime(None, "--no-iceberg") if args.no_iceberg else find_iceberg_runtime()
    systems = ["floe", "parquet"] if runtime.jar is None else ["floe", "iceberg", "parquet"]
    workdir = (args.dir or Path(tempfile.mkdtemp(prefix="floe-bench-"))).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    conf = spark_conf(workdir)
    if runtime.jar is not None:
        conf |= {
            "spark.jars": str(runtime.jar),
            "spark.sql.catalog.iceberg": "org.apache.iceberg.spark.SparkCatalog",
            "spark.sql.catalog.iceberg.type": "hadoop",
            "spark.sql.catalog.iceberg.warehouse": floe.warehouse_uri(
                str(workdir / "iceberg-warehouse")
            ),
        }
    spark = floe.session(
        str(workdir / "warehouse"), app_name="floe-bench-selective-scan", master=MASTER, conf=conf
    )
    try:
        report = run(spark, systems, args.rows, args.days, args.reps, workdir)
    finally:
        spark.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    if runtime.jar is None:
        report["skipped"] = {"iceberg": runtime.problem}
    now = datetime.datetime.now(datetime.UTC)
    report["config"] = {
        "rows": args.rows,
        "days": args.days,
        "buckets": BUCKETS,
        "appends_of_ids_table": APPENDS,
        "reps": args.reps,
        "codec": "zstd",
        "master": MASTER,
        "driver_memory": DRIVER_MEMORY,
        "spark": pyspark.__version__,
        "floe": floe.__version__,
        "iceberg": VERSION if runtime.jar is not None else None,
        "python": sys.version.split()[0],
        "finished_at": now.isoformat(timespec="seconds"),
    }
    print_report(report)
    OUT.mkdir(exist_ok=True)
    out = write_report(report, "selective_scan", now)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
