#!/usr/bin/env python3
"""Planning at scale (W3; docs/benchmarks.md, 'Planning at scale'): Floe vs the Iceberg runtime.

    python bench/planning.py [--sizes 10000,100000] [--large] [--stores local,s3] [--reps 5]
        [--warm 5] [--engines floe,iceberg,iceberg-best] [--dir PATH] [--keep] [--jfr DIR]

One table per size, built once per store and planned by every engine: the very same metadata files.
The table (Iceberg format v2, unpartitioned, columns id bigint, ts timestamp, category string,
amount double) is created with Iceberg's SQL and gets 3 real data files of 1,000 rows each from
three INSERTs, then SIZE synthetic data-file entries in manifests of 100 entries, written through
Iceberg's Java API (bench/planning_helper/SyntheticManifests.java, compiled at run time against the
runtime jar) and added in one fast append: SIZE/100 + 3 manifests, SIZE + 3 entries, each entry
with bounds, value and null counts on every column. Entry ``i`` covers ids ``[1000 i, 1000 i +
1000)``; the real files cover a gap left in the middle, and the query

    SELECT count(*), sum(amount) FROM t WHERE id BETWEEN lo AND hi

touches only those 3 files: no partition to prune by, so every engine must read every manifest
and prune entries by their column bounds (see docs/benchmarks.md, "Planning at scale").

What is timed: from ``spark.sql(query)`` to the scan's input partitions, i.e. parsing, analysis,
table loading, optimization, physical planning and the file planning of the data source
(``BatchScanExec.inputPartitions``, which calls ``Batch.planInputPartitions``: Floe's
``FloeScan`` and Iceberg's ``SparkBatchQueryScan`` task planning). Nothing is executed while
timing; afterwards the query runs once per process and its answer and the number of files it
read are checked equal across engines.

Each measurement runs in a fresh Spark process of its own (``local[2]``), engines interleaved in
ABC/CBA order over ``--reps`` rounds. In that process a query on a tiny table of the same engine
runs first (Spark's and the engine's classes are then loaded, nothing of the big table is), then
the query above is planned once (*cold*: no metadata or manifest of the table in any cache of the
JVM) and ``--warm`` more times (*warm*: the same session, caches as the engine keeps them).
Reported: median cold time over the rounds, median warm time over all warm plans, min and max.
The OS page cache is warm in both cases (the table was just written).

Engines: ``floe`` (catalog ``floe`` on the warehouse), ``iceberg`` (the Iceberg 1.11 runtime's
SparkCatalog, type hadoop, on the same warehouse, at its defaults: table cache on, manifest cache
off) and ``iceberg-best`` (the same with ``io.manifest.cache-enabled=true``). Goals (W3, at 100K
entries and more): Floe at most 0.33x the faster Iceberg cold, 0.2x warm.

Stores: ``local`` (a local directory) and ``s3`` (a moto S3 server on 127.0.0.1 through Hadoop's
S3A, jars from python-tests/s3_runtime.py; ``--s3-sizes`` defaults to ``--sizes``). On S3 the
requests each engine sends for the cold and for the last warm plan are counted from moto's log.
Results go to stdout and bench/out/planning-*.json.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

import planning_tables as tables
from bench_session import DRIVER_MEMORY, engine_list, only_scan_node, spark_conf, write_report

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parent.parent
MASTER = "local[2]"
GOAL_COLD = 0.33
GOAL_WARM = 0.2
BUCKET = "floe-bench"
ENGINES = ("floe", "iceberg", "iceberg-best")
WORKER_TIMEOUT_S = 1800


def query(catalog: str, size: int) -> str:
    return tables.minmax_sql(f"{catalog}.bench.{tables.table_name(size)}", size)


# ----------------------------------------------------------------------------------------------
# Building the tables (one Spark session with Iceberg and the helper on the JVM's class path)


def build_tables(
    warehouse: str, sizes: list[int], iceberg_jar: Path, helper: Path, store_conf: dict[str, str],
    extra_classpath: list[str], workdir: Path,
) -> dict[str, Any]:  # fmt: skip
    from pyspark.sql import SparkSession

    conf = spark_conf(workdir) | store_conf | {
        "spark.driver.extraClassPath": os.pathsep.join(
            [str(iceberg_jar), str(helper), *extra_classpath]
        ),
        "spark.sql.catalog.iceberg": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.iceberg.type": "hadoop",
        "spark.sql.catalog.iceberg.warehouse": warehouse,
        "spark.sql.catalog.iceberg.cache-enabled": "false",
    }  # fmt: skip
    builder = SparkSession.builder.appName("floe-bench-planning-build").master(MASTER)
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    built: dict[str, Any] = {}
    try:
        spark.sql("CREATE NAMESPACE IF NOT EXISTS iceberg.bench")
        # tables kept by an earlier run in the same --dir (--keep) are reused
        existing = {r.tableName for r in spark.sql("SHOW TABLES IN iceberg.bench").collect()}
        props = "TBLPROPERTIES ('format-version' = '2')"
        if "tiny" not in existing:
            spark.sql(f"CREATE TABLE iceberg.bench.tiny ({tables.COLUMNS}) USING iceberg {props}")
            spark.sql(f"INSERT INTO iceberg.bench.tiny {tables.rows_sql(0, 10)}")
        for size in sizes:
            if tables.table_name(size) in existing:
                print(f"reusing iceberg.bench.{tables.table_name(size)}", flush=True)
                continue
            name = f"iceberg.bench.{tables.table_name(size)}"
            create = f"({tables.COLUMNS}) USING iceberg {props}"
            built[str(size)] = tables.build_table(spark, name, size, create, tables.rows_sql)
            print(f"built {name}: {built[str(size)]}", flush=True)
    finally:
        spark.stop()
    return built


# ----------------------------------------------------------------------------------------------
# One measurement: a fresh Spark process per engine and round


def engine_catalog(engine: str) -> str:
    return "floe" if engine == "floe" else "iceberg"


def worker_session(spec: dict[str, Any]) -> SparkSession:
    workdir = Path(spec["workdir"])
    engine = spec["engine"]
    conf = spark_conf(workdir) | spec["store_conf"]
    if spec["extra_classpath"]:
        conf["spark.driver.extraClassPath"] = os.pathsep.join(spec["extra_classpath"])
    if spec.get("jfr"):
        conf["spark.driver.extraJavaOptions"] = (
            f"-XX:StartFlightRecording=filename={spec['jfr']},settings=profile"
        )
    if engine == "floe":
        import floe

        return floe.session(
            spec["warehouse"], app_name="floe-bench-planning", master=MASTER, conf=conf
        )
    from pyspark.sql import SparkSession

    conf |= {
        "spark.jars": spec["iceberg_jar"],
        "spark.sql.catalog.iceberg": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.iceberg.type": "hadoop",
        "spark.sql.catalog.iceberg.warehouse": spec["warehouse"],
    }
    if engine == "iceberg-best":
        conf["spark.sql.catalog.iceberg.io.manifest.cache-enabled"] = "true"
    builder = SparkSession.builder.appName("floe-bench-planning").master(MASTER)
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def files_read(spark: SparkSession, sql: str) -> tuple[list[Any], int]:
    df = spark.sql(sql)
    # sums rounded: engines add the same doubles in different orders
    rows = [[round(v, 6) if isinstance(v, float) else v for v in r] for r in df.collect()]
    scan = only_scan_node(df._jdf.queryExecution().executedPlan())
    metrics = scan.metrics()
    return rows, int(metrics.apply("resultDataFiles").value())


def marker(endpoint: str | None, label: str) -> None:
    """A request moto logs (and answers 404), so that the requests in between can be counted."""
    if endpoint is None:
        return
    with contextlib.suppress(OSError):
        urllib.request.urlopen(f"{endpoint}/floe-bench-marker/{label}", timeout=5).close()


def worker(spec: dict[str, Any]) -> dict[str, Any]:
    spark = worker_session(spec)
    catalog = engine_catalog(spec["engine"])
    endpoint = spec.get("endpoint")
    try:
        spark.sql(f"SELECT count(*), sum(amount) FROM {catalog}.bench.tiny WHERE id < 5").collect()
        sql = query(catalog, spec["size"])
        marker(endpoint, "cold-begin")
        cold, partitions = tables.plan_seconds(spark, sql)
        marker(endpoint, "cold-end")
        warm = []
        for i in range(spec["warm"]):
            if i == spec["warm"] - 1:
                marker(endpoint, "warm-begin")
            warm.append(tables.plan_seconds(spark, sql)[0])
        marker(endpoint, "warm-end")
        rows, files = files_read(spark, sql)
    finally:
        spark.stop()
    return {"cold": cold, "warm": warm, "partitions": partitions, "rows": rows, "files_read": files}


def run_worker(spec: dict[str, Any]) -> dict[str, Any]:
    env = dict(os.environ)
    done = subprocess.run(
        [sys.executable, __file__, "--worker", json.dumps(spec)],
        capture_output=True, text=True, env=env, timeout=WORKER_TIMEOUT_S, check=False,
    )  # fmt: skip
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(
            f"planning worker {spec['engine']} size {spec['size']} failed ({done.returncode}):\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
        )
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    return result


def requests_between(requests: list[str], begin: str, end: str) -> list[str]:
    """The requests logged between the marker requests ``begin`` and ``end``."""
    try:
        i = next(k for k, r in enumerate(requests) if r.endswith(f"/floe-bench-marker/{begin}"))
        j = next(k for k, r in enumerate(requests) if r.endswith(f"/floe-bench-marker/{end}"))
    except StopIteration:
        return []
    return requests[i + 1 : j]


def request_summary(requests: list[str]) -> dict[str, int]:
    """Requests by method, plus HEADs (the per-object existence/status round trips)."""
    out: dict[str, int] = {"total": len(requests)}
    for r in requests:
        method = r.split(" ", 1)[0]
        out[method] = out.get(method, 0) + 1
    return out


# ----------------------------------------------------------------------------------------------
# One store: build, then measure every size


def measure_store(
    store: str, sizes: list[int], engines: list[str], args: argparse.Namespace, iceberg_jar: Path,
    workdir: Path,
) -> dict[str, Any]:  # fmt: skip
    sys.path.insert(0, str(ROOT / "python-tests"))
    workdir.mkdir(parents=True, exist_ok=True)
    moto = None
    store_conf: dict[str, str] = {}
    extra_classpath: list[str] = []
    if store == "s3":
        from s3_runtime import MotoS3, hadoop_s3a_conf, s3_jars

        extra_classpath = [str(j) for j in s3_jars()]
        moto = MotoS3(workdir / "moto-requests.log")
        moto.create_bucket(BUCKET)
        store_conf = {f"spark.hadoop.{k}": v for k, v in hadoop_s3a_conf(moto.endpoint).items()}
        warehouse = f"s3a://{BUCKET}/warehouse"
    else:
        warehouse = "file://" + str(workdir / "warehouse")
    report: dict[str, Any] = {"warehouse": warehouse, "sizes": {}}
    try:
        helper = tables.compile_helper(iceberg_jar, workdir / "helper-classes")
        report["built"] = build_tables(
            warehouse, sizes, iceberg_jar, helper, store_conf, extra_classpath, workdir
        )
        for size in sizes:
            cold: dict[str, list[float]] = {e: [] for e in engines}
            warm: dict[str, list[float]] = {e: [] for e in engines}
            answers: dict[str, Any] = {}
            requests: dict[str, dict[str, Any]] = {}
            for rep in range(args.reps):
                for engine in engines if rep % 2 == 0 else list(reversed(engines)):
                    spec = {
                        "engine": engine, "size": size, "warm": args.warm, "warehouse": warehouse,
                        "workdir": str(workdir), "store_conf": store_conf,
                        "extra_classpath": extra_classpath, "iceberg_jar": str(iceberg_jar),
                        "endpoint": moto.endpoint if moto else None,
                    }  # fmt: skip
                    if args.jfr and engine == "floe" and rep == 0:
                        args.jfr.mkdir(parents=True, exist_ok=True)
                        spec["jfr"] = str(args.jfr.resolve() / f"floe-{store}-{size}.jfr")
                    offset = moto.log_offset() if moto else 0
                    result = run_worker(spec)
                    cold[engine].append(result["cold"])
                    warm[engine].extend(result["warm"])
                    answers[engine] = (result["rows"], result["files_read"], result["partitions"])
                    if moto is not None and rep == 0:
                        logged = moto.requests_since(offset)
                        requests[engine] = {
                            phase: request_summary(
                                requests_between(logged, f"{phase}-begin", f"{phase}-end")
                            )
                            for phase in ("cold", "warm")
                        }
                    print(f"{store} {size} {engine} rep {rep}: cold {result['cold']:.3f} s, warm "
                          f"{statistics.median(result['warm']):.3f} s", flush=True)  # fmt: skip
            reference = answers[engines[0]]
            for e in engines:
                if answers[e][:2] != reference[:2]:
                    raise SystemExit(f"{store} {size}: {e} answered {answers[e]}, "
                                     f"{engines[0]} {reference}")  # fmt: skip
            entry: dict[str, Any] = {
                "answer": reference[0],
                "files_read": reference[1],
                "engines": {
                    e: {
                        "cold_median_s": statistics.median(cold[e]),
                        "cold_min_s": min(cold[e]),
                        "cold_max_s": max(cold[e]),
                        "cold_s": cold[e],
                        "warm_median_s": statistics.median(warm[e]),
                        "warm_min_s": min(warm[e]),
                        "warm_max_s": max(warm[e]),
                        "input_partitions": answers[e][2],
                        **({"s3_requests": requests[e]} if e in requests else {}),
                    }
                    for e in engines
                },
            }
            peers = [e for e in engines if e != "floe"]
            if "floe" in engines and peers:
                floe_r = entry["engines"]["floe"]
                best_cold = min(entry["engines"][p]["cold_median_s"] for p in peers)
                best_warm = min(entry["engines"][p]["warm_median_s"] for p in peers)
                worst_cold = min(entry["engines"][p]["cold_max_s"] for p in peers)
                worst_warm = min(entry["engines"][p]["warm_max_s"] for p in peers)
                entry["goals"] = {
                    "cold_ratio": floe_r["cold_median_s"] / best_cold,
                    "warm_ratio": floe_r["warm_median_s"] / best_warm,
                    "cold_worst_ratio": floe_r["cold_max_s"] / worst_cold,
                    "warm_worst_ratio": floe_r["warm_max_s"] / worst_warm,
                    "cold_goal": GOAL_COLD,
                    "warm_goal": GOAL_WARM,
                }
                g = entry["goals"]
                g["meets_cold"] = g["cold_ratio"] <= GOAL_COLD
                g["meets_warm"] = g["warm_ratio"] <= GOAL_WARM
            report["sizes"][str(size)] = entry
    finally:
        if moto is not None:
            moto.stop()
    return report


def print_report(report: dict[str, Any]) -> None:
    for store, per_store in report["stores"].items():
        print(f"\n{store} ({per_store['warehouse']})")
        print(f"{'entries':>9} {'engine':<13} {'cold med s':>10} {'min':>7} {'max':>7} "
              f"{'warm med s':>10} {'min':>7} {'max':>7} {'requests cold/warm':>19}")  # fmt: skip
        for size, entry in per_store["sizes"].items():
            for engine, r in entry["engines"].items():
                req = r.get("s3_requests")
                req_text = f"{req['cold']['total']}/{req['warm']['total']}" if req else ""
                print(
                    f"{int(size):>9,} {engine:<13} {r['cold_median_s']:>10.3f} "
                    f"{r['cold_min_s']:>7.3f} {r['cold_max_s']:>7.3f} "
                    f"{r['warm_median_s']:>10.3f} {r['warm_min_s']:>7.3f} "
                    f"{r['warm_max_s']:>7.3f} {req_text:>19}"
                )
            g = entry.get("goals")
            if g:
                print(
                    f"  floe / faster Iceberg: cold {g['cold_ratio']:.3f} (goal <= {GOAL_COLD}: "
                    f"{'meets' if g['meets_cold'] else 'MISSES'}), warm {g['warm_ratio']:.3f} "
                    f"(goal <= {GOAL_WARM}: {'meets' if g['meets_warm'] else 'MISSES'}); "
                    f"answer {entry['answer']}, files read {entry['files_read']}"
                )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000", help="data-file entries per table")
    parser.add_argument("--large", action="store_true", help="add 1,000,000 entries")
    parser.add_argument("--s3-sizes", default=None, help="sizes on S3 (default: --sizes)")
    parser.add_argument("--stores", default="local,s3")
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--reps", type=int, default=5, help="fresh processes per engine and size")
    parser.add_argument("--warm", type=int, default=5, help="warm plans per process")
    parser.add_argument("--dir", type=Path, default=None, help="work directory (default: temp)")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the tables (a later run with the same --dir reuses them)",
    )
    parser.add_argument("--jfr", type=Path, default=None, help="record Floe's first process (JFR)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        result = worker(json.loads(args.worker))
        print("RESULT " + json.dumps(result), flush=True)
        return 0

    import pyspark

    import floe

    sys.path.insert(0, str(ROOT / "python-tests"))
    from iceberg_runtime import VERSION, iceberg_runtime_jar

    iceberg_jar = iceberg_runtime_jar()  # the tables are built with Iceberg's API: required
    engines = engine_list(parser, args.engines, ENGINES)
    sizes = [int(s) for s in args.sizes.split(",")] + ([1_000_000] if args.large else [])
    s3_sizes = [int(s) for s in args.s3_sizes.split(",")] if args.s3_sizes else sizes
    workdir = (args.dir or Path(tempfile.mkdtemp(prefix="floe-bench-planning-"))).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"stores": {}}
    started = time.perf_counter()
    try:
        for store in [s.strip() for s in args.stores.split(",") if s.strip()]:
            report["stores"][store] = measure_store(
                store, s3_sizes if store == "s3" else sizes, engines, args, iceberg_jar,
                workdir / store,
            )  # fmt: skip
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    now = datetime.datetime.now(datetime.UTC)
    report["config"] = {
        "command": "python bench/planning.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "entries_per_manifest": tables.PER_MANIFEST,
        "real_files": tables.REAL_FILES,
        "reps": args.reps,
        "warm_plans_per_process": args.warm,
        "engines": engines,
        "master": MASTER,
        "driver_memory": DRIVER_MEMORY,
        "spark": pyspark.__version__,
        "floe": floe.__version__,
        "iceberg": VERSION,
        "python": sys.version.split()[0],
        "seconds": round(time.perf_counter() - started),
        "finished_at": now.isoformat(timespec="seconds"),
    }
    print_report(report)
    out = write_report(report, "planning", now)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
