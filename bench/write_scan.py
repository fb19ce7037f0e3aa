#!/usr/bin/env python3
"""Write and full-scan throughput of Floe against plain Spark Parquet on the same data.

    python bench/write_scan.py [--rows 10000000] [--reps 3] [--codec zstd] [--dir PATH] [--keep]

Writes N generated rows of 8 columns (bigint, int, double, decimal(12,2), date, timestamp, two
strings) with ``df.writeTo("floe.bench.t_<rep>").create()`` and with ``df.write.parquet``, then
scans each with one aggregate over every column. Each measurement is repeated ``--reps`` times
after one unmeasured warm-up round, best time kept. Ratios are Floe throughput / Parquet
throughput (higher is better); goals: write >= 0.90, scan >= 0.97. Results go to stdout and
bench/out/*.json.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench_session import DRIVER_MEMORY, OUT, spark_conf, write_report

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

GOALS = {"write": 0.90, "scan": 0.97}
MASTER = "local[2]"

COLUMNS = [
    "id AS c_bigint",
    "CAST(id % 1000003 AS INT) AS c_int",
    "CAST(id AS DOUBLE) * 1.5 AS c_double",
    "CAST((id % 100000000) / 100 AS DECIMAL(12, 2)) AS c_decimal",
    "date_add(DATE '2020-01-01', CAST(id % 3650 AS INT)) AS c_date",
    "timestamp_micros(1577836800000000 + id * 1000003) AS c_ts",
    "concat('user-', CAST(id % 100000 AS STRING)) AS c_str1",
    "hex(xxhash64(id)) AS c_str2",
]
SCAN = """SELECT sum(c_bigint), sum(c_int), sum(c_double), sum(c_decimal), sum(unix_date(c_date)),
    sum(unix_micros(c_ts) DIV 1000000), sum(length(c_str1)), sum(length(c_str2)) FROM {source}"""


def generated(spark: SparkSession, rows: int) -> DataFrame:
    return spark.range(rows).selectExpr(*COLUMNS)


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def directory_bytes(path: Path) -> int:
    return sum(
        f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.name.startswith(".")
    )


def warm_up(spark: SparkSession, codec: str, workdir: Path) -> None:
    """One unmeasured write and scan per system: JIT and class loading land in neither's times."""
    rows = 500_000
    generated(spark, rows).writeTo("floe.bench.warmup").tableProperty(
        "write.parquet.compression-codec", codec
    ).create()
    spark.sql(SCAN.format(source="floe.bench.warmup")).collect()
    path = str(workdir / "parquet" / "warmup")
    generated(spark, rows).write.option("compression", codec).parquet(path)
    spark.read.parquet(path).createOrReplaceTempView("bench_warmup")
    spark.sql(SCAN.format(source="bench_warmup")).collect()


def run(spark: SparkSession, rows: int, reps: int, codec: str, workdir: Path) -> dict[str, Any]:
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.bench")
    times: dict[str, dict[str, list[float]]] = {
        "write": {"floe": [], "parquet": []},
        "scan": {"floe": [], "parquet": []},
    }
    systems = ("floe", "parquet")
    warm_up(spark, codec, workdir)
    for rep in range(reps):
        floe_writer = generated(spark, rows).writeTo(f"floe.bench.t_{rep}")
        parquet_writer = generated(spark, rows).write.option("compression", codec)
        parquet_path = str(workdir / "parquet" / f"t_{rep}")
        writes: dict[str, Callable[[], Any]] = {
            "floe": floe_writer.tableProperty("write.parquet.compression-codec", codec).create,
            "parquet": functools.partial(parquet_writer.parquet, parquet_path),
        }
        for system in systems if rep % 2 == 0 else reversed(systems):  # alternate who goes first
            times["write"][system].append(timed(writes[system])[0])

    last = reps - 1
    spark.read.parquet(str(workdir / "parquet" / f"t_{last}")).createOrReplaceTempView("bench_p")
    sources = {"floe": f"floe.bench.t_{last}", "parquet": "bench_p"}
    results: dict[str, Any] = {}
    for rep in range(reps):
        for system in systems if rep % 2 == 0 else reversed(systems):
            seconds, results[system] = timed(spark.sql(SCAN.format(source=sources[system])).collect)
            times["scan"][system].append(seconds)
    if results["floe"] != results["parquet"]:
        raise SystemExit(
            f"Scan results differ: floe {results['floe']} parquet {results['parquet']}"
        )

    report: dict[str, Any] = {"phases": {}}
    for phase, by_system in times.items():
        best = {system: min(values) for system, values in by_system.items()}
        ratio = best["parquet"] / best["floe"]
        report["phases"][phase] = {
            "seconds": by_system,
            "best_seconds": best,
            "rows_per_second": {s: rows / t for s, t in best.items()},
            "ratio_floe_over_parquet": ratio,
            "goal": GOALS[phase],
            "meets_goal": ratio >= GOALS[phase],
        }
    report["bytes"] = {
        "floe": directory_bytes(workdir / "warehouse" / "bench" / f"t_{last}" / "data"),
        "parquet": directory_bytes(workdir / "parquet" / f"t_{last}"),
    }
    return report


def print_report(report: dict[str, Any]) -> None:
    header = f"{'phase':<6} {'floe s':>9} {'parquet s':>10} {'floe Mrow/s':>12} {'parq Mrow/s':>12}"
    print(f"{header} {'ratio':>6} {'goal':>6}  verdict")
    for phase, r in report["phases"].items():
        best, rps = r["best_seconds"], r["rows_per_second"]
        verdict = "meets goal" if r["meets_goal"] else "BELOW GOAL"
        print(
            f"{phase:<6} {best['floe']:>9.2f} {best['parquet']:>10.2f} "
            f"{rps['floe'] / 1e6:>12.2f} {rps['parquet'] / 1e6:>12.2f} "
            f"{r['ratio_floe_over_parquet']:>6.3f} {r['goal']:>6.2f}  {verdict}"
        )
    sizes = report["bytes"]
    print(f"data bytes: floe {sizes['floe']:,}  parquet {sizes['parquet']:,}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--codec", default="zstd", help="Parquet codec for both writers")
    parser.add_argument(
        "--dir", type=Path, default=None, help="work directory (default: a temp dir)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the written data")
    args = parser.parse_args(argv)

    import pyspark

    import floe

    workdir = (args.dir or Path(tempfile.mkdtemp(prefix="floe-bench-"))).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    spark = floe.session(
        str(workdir / "warehouse"),
        app_name="floe-bench-write-scan",
        master=MASTER,
        conf=spark_conf(workdir, shuffle_partitions=None),
    )
    try:
        report = run(spark, args.rows, args.reps, args.codec, workdir)
    finally:
        spark.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    now = datetime.datetime.now(datetime.UTC)
    report["config"] = {
        "rows": args.rows,
        "reps": args.reps,
        "codec": args.codec,
        "master": MASTER,
        "driver_memory": DRIVER_MEMORY,
        "spark": pyspark.__version__,
        "floe": floe.__version__,
        "python": sys.version.split()[0],
        "finished_at": now.isoformat(timespec="seconds"),
    }
    print_report(report)
    OUT.mkdir(exist_ok=True)
    out = write_report(report, "write_scan", now)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
