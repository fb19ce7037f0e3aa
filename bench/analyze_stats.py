#!/usr/bin/env python3
"""NDV statistics, theta sketches into Puffin (W9; docs/benchmarks.md, 'Statistics'): Floe vs
Iceberg vs Spark's ANALYZE.

    python bench/analyze_stats.py [--quick] [--rows 3000000] [--files 8] [--reps 3]
        [--out PATH] [--dir PATH] [--keep]

The 12-column store_sales-like rows of row_level.py (6 BIGINT/INT, 2 DECIMAL, a DATE, 3 STRING;
``--files`` files) are written by the same CTAS as a Floe table, an Iceberg table (the Apache
Iceberg Spark runtime, when its jar is available) and a plain Parquet table in Spark's session
catalog. Spark ``local[2]``, one session, UI off; each rep runs the four statements below one
after the other, in reversed order on odd reps; best and median of ``--reps`` (wall time, and
JVM CPU time, which a busy shared box disturbs less):

* ``floe``: ``CALL floe.system.compute_table_stats`` (every column; a full pass each time);
* ``iceberg``: ``CALL iceberg.system.compute_table_stats``;
* ``spark``: ``ANALYZE TABLE <parquet> COMPUTE STATISTICS FOR ALL COLUMNS``;
* ``scan``: W1a's scan of the same 12 columns of the Floe table (sums and lengths).

Then 1% more rows are appended to the Floe and Iceberg tables, and the procedures run again:
Floe merges the previous file's sketches with sketches of the appended files only
(incremental); Iceberg recomputes. Reported: times, the ratios of W9 with their goals,
every column's relative error against the exact ``count(DISTINCT c)`` (Floe before and after
the append, Iceberg, Spark's ANALYZE), and the Puffin file sizes. ``--quick``: 500,000 rows, 2
reps. Results go to stdout and to ``--out`` (default bench/out/analyze_stats-*.json).
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

from bench_session import DRIVER_MEMORY, progress, spark_conf, write_report
from row_level import JvmCpu
from store_sales import SCANS, source_sql

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parent.parent
MASTER = "local[2]"
COLUMNS = (
    "ss_id", "ss_item_sk", "ss_customer_sk", "ss_store_sk", "ss_quantity", "ss_ticket_number",
    "ss_sales_price", "ss_net_profit", "ss_sold_date", "ss_channel", "ss_promo", "ss_note",
)  # fmt: skip
APPEND_FRACTION = 0.01
#: 2 relative standard errors of a theta sketch with lgK = 12
TOLERANCE = 0.0313
GOALS = {
    "floe_vs_iceberg": 0.5,
    "floe_vs_spark_analyze": 1.0,
    "floe_vs_scan": 1.5,
    "incremental_vs_full": 0.1,
    "columns_within_tolerance": 11,
}
TABLES = {
    "floe": "floe.bench.t",
    "iceberg": "iceberg.bench.t",
    "spark": "spark_catalog.default.p",
}


class Bench:
    def __init__(self, spark: SparkSession, engines: list[str]) -> None:
        self.spark = spark
        self.engines = engines
        self.cpu = JvmCpu(int(spark._jvm.ProcessHandle.current().pid()))  # type: ignore[union-attr]

    def timed(self, sql: str) -> dict[str, Any]:
        before = self.cpu.read()
        start = time.perf_counter()
        rows = self.spark.sql(sql).collect()
        seconds = time.perf_counter() - start
        return {
            "seconds": seconds,
            "cpu_seconds": JvmCpu.seconds(before, self.cpu.read()),
            "rows": [tuple(r) for r in rows],
        }

    def statements(self) -> dict[str, str]:
        found = {
            "floe": "CALL floe.system.compute_table_stats(table => 'bench.t')",
            "iceberg": "CALL iceberg.system.compute_table_stats(table => 'bench.t')",
            "spark": f"ANALYZE TABLE {TABLES['spark']} COMPUTE STATISTICS FOR ALL COLUMNS",
            "scan": SCANS["wide"].format(src=TABLES["floe"]),
        }
        return {k: v for k, v in found.items() if k in self.engines or k == "scan"}

    def measure(self, statements: dict[str, str], reps: int) -> dict[str, Any]:
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in statements}
        for rep in range(reps):
            order = list(statements) if rep % 2 == 0 else list(reversed(statements))
            for name in order:
                run = self.timed(statements[name])
                progress(f"  rep {rep} {name}: {run['seconds']:.2f} s")
                runs[name].append(run)
        return {name: summary(found) for name, found in runs.items()}

    def exact(self, table: str) -> dict[str, int]:
        select = ", ".join(f"count(DISTINCT {c}) AS {c}" for c in COLUMNS)
        row = self.spark.sql(f"SELECT {select} FROM {table}").collect()[0]
        return {c: int(row[c]) for c in COLUMNS}

    def spark_ndv(self) -> dict[str, int]:
        found = {}
        for column in COLUMNS:
            for row in self.spark.sql(f"DESCRIBE EXTENDED {TABLES['spark']} {column}").collect():
                if row[0] == "distinct_count":
                    found[column] = int(row[1])
        return found

    def location(self, table: str) -> str:
        for row in self.spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect():
            if row[0] == "Location":
                return str(row[1])
        raise SystemExit(f"Cannot find the location of {table}")

    def puffin(self, engine: str) -> dict[str, Any]:
        """The NDVs and file size of the current snapshot's statistics file of ``engine``."""
        from floe.inspect import table_statistics

        stats = table_statistics(self.location(TABLES[engine]))
        return {
            "ndv": {c.name: c.ndv for c in stats.columns if c.name is not None},
            "puffin_bytes": stats.file_size,
            "codecs": sorted({c.codec for c in stats.columns}),
        }


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    seconds = [r["seconds"] for r in runs]
    cpu = [r["cpu_seconds"] for r in runs if r["cpu_seconds"] is not None]
    return {
        "best_seconds": min(seconds),
        "median_seconds": statistics.median(seconds),
        "best_cpu_seconds": min(cpu) if cpu else None,
        "seconds": seconds,
    }


def errors(ndv: dict[str, float], exact: dict[str, int]) -> dict[str, float]:
    return {c: (ndv[c] - exact[c]) / exact[c] for c in COLUMNS if c in ndv}


def ratio(times: dict[str, Any], a: str, b: str, key: str = "best_seconds") -> float | None:
    if a not in times or b not in times or times[b][key] in (None, 0):
        return None
    return float(times[a][key]) / float(times[b][key])


def run(spark: SparkSession, args: argparse.Namespace, engines: list[str]) -> dict[str, Any]:
    bench = Bench(spark, engines)
    report: dict[str, Any] = {}
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.bench")
    if "iceberg" in engines:
        spark.sql("CREATE NAMESPACE IF NOT EXISTS iceberg.bench")
    source = source_sql(args.rows, args.files)
    for engine in engines:
        using = {"floe": "USING floe", "iceberg": "USING iceberg", "spark": "USING parquet"}[engine]
        progress(f"CTAS {TABLES[engine]} ({args.rows} rows)")
        spark.sql(f"CREATE TABLE {TABLES[engine]} {using} AS {source}")
    exact = bench.exact(TABLES["floe"])
    report["exact_ndv"] = exact

    progress("full statistics")
    full = bench.measure(bench.statements(), args.reps)
    report["full"] = full
    accuracy: dict[str, Any] = {}
    puffin: dict[str, Any] = {}
    for engine in ("floe", "iceberg"):
        if engine in engines:
            found = bench.puffin(engine)
            accuracy[engine] = errors(found["ndv"], exact)
            puffin[engine] = {"bytes": found["puffin_bytes"], "codecs": found["codecs"]}
    if "spark" in engines:
        accuracy["spark_analyze"] = errors(
            {k: float(v) for k, v in bench.spark_ndv().items()}, exact
        )

    progress(f"append {APPEND_FRACTION:.0%} and recompute")
    extra = int(args.rows * APPEND_FRACTION)
    append = source_sql(args.rows, args.files, args.rows, args.rows + extra)
    appended = {e: f"INSERT INTO {TABLES[e]} {append}" for e in engines if e != "spark"}
    for engine, sql in appended.items():
        report.setdefault("append", {})[engine] = bench.timed(sql)["seconds"]
    incremental = bench.measure(
        {k: v for k, v in bench.statements().items() if k in ("floe", "iceberg")}, args.reps
    )
    report["after_append"] = incremental
    exact_after = bench.exact(TABLES["floe"])
    for engine in ("floe", "iceberg"):
        if engine in engines:
            found = bench.puffin(engine)
            accuracy[f"{engine}_after_append"] = errors(found["ndv"], exact_after)
            puffin[f"{engine}_after_append"] = {"bytes": found["puffin_bytes"]}
    report["relative_error"] = accuracy
    report["puffin"] = puffin
    report["ratios"] = {
        "floe_vs_iceberg": ratio(full, "floe", "iceberg"),
        "floe_vs_spark_analyze": ratio(full, "floe", "spark"),
        "floe_vs_scan": ratio(full, "floe", "scan"),
        "incremental_vs_full": (
            incremental["floe"]["best_seconds"] / full["floe"]["best_seconds"]
            if "floe" in incremental
            else None
        ),
        "floe_vs_iceberg_cpu": ratio(full, "floe", "iceberg", "best_cpu_seconds"),
        "floe_vs_spark_analyze_cpu": ratio(full, "floe", "spark", "best_cpu_seconds"),
        "floe_vs_scan_cpu": ratio(full, "floe", "scan", "best_cpu_seconds"),
    }
    within = sum(abs(e) <= TOLERANCE for e in accuracy.get("floe", {}).values())
    report["goals"] = {
        name: {
            "goal": goal,
            "value": within if name == "columns_within_tolerance" else report["ratios"][name],
        }
        for name, goal in GOALS.items()
    }
    for item in report["goals"].values():
        value, goal = item["value"], item["goal"]
        item["met"] = None if value is None else (value >= goal if goal == 11 else value <= goal)
    return report


def print_report(report: dict[str, Any]) -> None:
    print(f"\nW9 NDV statistics, {report['config']['rows']} rows, 12 columns")
    for phase in ("full", "after_append"):
        for name, found in report.get(phase, {}).items():
            cpu = found["best_cpu_seconds"]
            print(
                f"  {phase:13} {name:8} best {found['best_seconds']:7.2f} s  median "
                f"{found['median_seconds']:7.2f} s  cpu {cpu if cpu is None else f'{cpu:.2f}'} s"
            )
    for name, item in report["goals"].items():
        value = item["value"]
        shown = "n/a" if value is None else f"{value:.3f}" if isinstance(value, float) else value
        print(f"  goal {name:26} {shown:>8} (goal {item['goal']}) met={item['met']}")
    print("  relative error vs count(DISTINCT):")
    for who, found in report["relative_error"].items():
        cells = " ".join(f"{c.removeprefix('ss_')}={e:+.2%}" for c, e in found.items())
        print(f"    {who:22} {cells}")
    print(f"  puffin: {report['puffin']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="500,000 rows, 2 reps")
    parser.add_argument("--rows", type=int, default=None, help="rows (default 3,000,000)")
    parser.add_argument("--files", type=int, default=8, help="data files of each table")
    parser.add_argument("--reps", type=int, default=None, help="measured reps (default 3)")
    parser.add_argument("--out", type=Path, default=None, help="JSON results file")
    parser.add_argument("--dir", type=Path, default=None, help="work directory (default: temp)")
    parser.add_argument("--keep", action="store_true", help="keep the written data")
    args = parser.parse_args(argv)
    args.rows = args.rows or (500_000 if args.quick else 3_000_000)
    args.reps = args.reps or (2 if args.quick else 3)

    import pyspark

    import floe

    sys.path.insert(0, str(ROOT / "python-tests"))
    from iceberg_runtime import VERSION, find_iceberg_runtime

    runtime = find_iceberg_runtime()
    workdir = (args.dir or Path(tempfile.mkdtemp(prefix="floe-bench-"))).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    conf = spark_conf(workdir)
    engines = ["floe", "iceberg", "spark"]
    if runtime.jar is not None:
        conf |= {
            "spark.jars": str(runtime.jar),
            "spark.sql.catalog.iceberg": "org.apache.iceberg.spark.SparkCatalog",
            "spark.sql.catalog.iceberg.type": "hadoop",
            "spark.sql.catalog.iceberg.warehouse": floe.warehouse_uri(
                str(workdir / "iceberg-warehouse")
            ),
        }
    else:
        engines.remove("iceberg")
    spark = floe.session(
        str(workdir / "warehouse"), app_name="floe-bench-analyze", master=MASTER, conf=conf
    )
    spark.sparkContext.setLogLevel("ERROR")
    started = time.perf_counter()
    try:
        report = run(spark, args, engines)
    finally:
        spark.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    now = datetime.datetime.now(datetime.UTC)
    if runtime.jar is None:
        report["skipped"] = {"iceberg": runtime.problem}
    report["config"] = {
        "rows": args.rows,
        "files": args.files,
        "reps": args.reps,
        "append_fraction": APPEND_FRACTION,
        "master": MASTER,
        "driver_memory": DRIVER_MEMORY,
        "spark": pyspark.__version__,
        "floe": floe.__version__,
        "floe_jar": floe.jar_path(),
        "iceberg": VERSION if runtime.jar is not None else None,
        "python": sys.version.split()[0],
        "wall_seconds": time.perf_counter() - started,
        "finished_at": now.isoformat(timespec="seconds"),
    }
    print_report(report)
    out = write_report(report, "analyze_stats", now, args.out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
