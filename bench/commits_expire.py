#!/usr/bin/env python3
"""Commit latency, metadata growth and expire_snapshots (W4-W5; docs/benchmarks.md, 'Commits and
expiry'): Floe vs the Apache Iceberg Spark runtime (hadoop catalog on a local warehouse).

    python bench/commits_expire.py [--commits 2000] [--quick] [--merges 10] [--reps 1]
        [--load-reps 10] [--warmup 50] [--engines floe,iceberg] [--no-expire]
        [--jfr DIR] [--out PATH] [--dir PATH] [--keep]

Each engine runs in a Spark process of its own (``local[2]``, the settings of bench_session.py),
so that neither disturbs the other's JIT, heap or caches; with ``--reps`` > 1 the processes
alternate in ABBA order. In each process:

* W4: ``--warmup`` unmeasured one-row appends into a throwaway table (JIT and Spark warm-up),
  then ``--commits`` sequential ``INSERT INTO t VALUES (<i>, 'row-<i>')`` into a fresh format-v2
  table ``(id BIGINT, v STRING)``: each commit is one snapshot adding one data file (checked on
  disk). Reported: per-commit wall latency (p50/p99 of commits 1-100 and of the last 100), the
  LST-Bench degradation rate ``sum((M_i - M_(i-1)) / M_(i-1)) / (n - 1)`` over phases of 100
  commits (``M_i``: the phase's total time) and late p50 / early p50; the size of the newest
  metadata.json (and per commit) and the bytes of the whole metadata folder by kind; and the
  table-load latency at the end: ``invalidateTable`` + ``loadTable(ident).schema()`` on the
  Spark catalog (best and median of ``--load-reps``), and ``REFRESH TABLE`` +
  ``spark.table(t).schema``.
* W5 (unless ``--no-expire``): ``--merges`` copy-on-write MERGEs, each updating the row of one
  of the oldest commits (``ON t.id = s.id AND t.id = <k>``: one data file replaced), then
  (a) ``CALL <cat>.system.expire_snapshots(table => ..., older_than => <timestamp of the 11th
  snapshot>, retain_last => 1)``: the oldest 10 snapshots; (b) the same with ``older_than`` just
  after the newest snapshot: all but the current one. Reported: wall time, the procedure's output
  row, and the files that disappeared from disk by kind (data, manifest, manifest list, metadata
  json, statistics, other), which must be the same for both engines.

Goals (ratios Floe / Iceberg): late-commit p50 <= 0.5; degradation rate <= 0.25; load-table
latency <= 0.5; metadata.json bytes <= 1.0; expire-10 <= 0.1; expire-all-but-1 <= 0.5.

``--quick`` is a smoke run: 200 commits, 3 MERGEs, 3 load reps. ``--jfr DIR`` records the
last 100 commits, the table loads and the expires of Floe with Java Flight Recorder (settings
"profile", 2 ms sampling) into DIR; it perturbs those timings, so profile in a run of its own.
The Iceberg runtime jar comes from python-tests/iceberg_runtime.py (cached in ~/.cache/floe); the
Floe jar is the bundled one or ``$FLOE_JAR``. Results go to stdout and to ``--out`` (default
bench/out/commits_expire-*.json) with a markdown table next to it (``.md``).
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench_session import (
    DRIVER_MEMORY,
    engine_list,
    gc_seconds,
    progress,
    ratio,
    run_worker_process,
    spark_conf,
    write_report,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parent.parent
MASTER = "local[2]"
ENGINES = ("floe", "iceberg")
NAMESPACE = "bench"
TABLE = "commits"
WINDOW = 100  # commits per latency window and per LST-Bench phase
EXPIRE_OLDEST = 10
GOALS = {
    "late_commit_p50": 0.5,
    "degradation_rate": 0.25,
    "load_table": 0.5,
    "metadata_json_bytes": 1.0,
    "expire_oldest_10": 0.1,
    "expire_all_but_1": 0.5,
}
TABLE_PROPERTIES = {
    "format-version": "2",
    "write.delete.mode": "copy-on-write",
    "write.update.mode": "copy-on-write",
    "write.merge.mode": "copy-on-write",
    "write.parquet.compression-codec": "zstd",
}


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    pos = q * (len(ordered) - 1)
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def degradation_rate(phases: list[float]) -> float:
    """LST-Bench's degradation rate: the mean relative change between consecutive phases."""
    if len(phases) < 2:
        return float("nan")
    changes = [(b - a) / a for a, b in itertools.pairwise(phases)]
    return sum(changes) / (len(phases) - 1)


def file_kind(relative: str) -> str:
    """The kind of a table file, from its path relative to the table directory."""
    name = relative.rsplit("/", 1)[-1]
    if relative.startswith("data/"):
        return "data"
    if name.endswith((".metadata.json", ".metadata.json.gz")):
        return "metadata_json"
    if name.endswith(".avro"):
        return "manifest_list" if name.startswith("snap-") else "manifest"
    if name.endswith((".puffin", ".stats")):
        return "statistics"
    return "other"


def listing(directory: Path) -> dict[str, int]:
    """Every file under ``directory`` (hidden checksum files excluded) -> its size."""
    return {
        str(p.relative_to(directory)): p.stat().st_size
        for p in directory.rglob("*")
        if p.is_file() and not p.name.startswith(".")
    }


def by_kind(files: dict[str, int]) -> dict[str, dict[str, int]]:
    kinds: dict[str, dict[str, int]] = {}
    for path, size in files.items():
        entry = kinds.setdefault(file_kind(path), {"files": 0, "bytes": 0})
        entry["files"] += 1
        entry["bytes"] += size
    return dict(sorted(kinds.items()))


def timestamp_literal(millis: int) -> str:
    moment = datetime.datetime.fromtimestamp(millis / 1000, datetime.UTC)
    return f"TIMESTAMP '{moment.strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]}'"


# ---- one engine, in its own process --------------------------------------------------------


class Worker:
    """W4 and W5 for one engine in this process's Spark session."""

    def __init__(self, spark: SparkSession, engine: str, args: argparse.Namespace) -> None:
        self.spark = spark
        self.engine = engine
        self.args = args
        self.table = f"{engine}.{NAMESPACE}.{TABLE}"
        self.directory = Path()

    @property
    def window(self) -> int:
        """Commits per latency window and LST-Bench phase (``args.window``, default 100)."""
        return int(getattr(self.args, "window", WINDOW))

    @property
    def jvm(self) -> Any:
        return self.spark._jvm

    def sql(self, sql: str) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in self.spark.sql(sql).collect()]

    def create(self, table: str) -> None:
        props = ", ".join(f"'{k}' = '{v}'" for k, v in TABLE_PROPERTIES.items())
        self.spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {self.engine}.{NAMESPACE}")
        self.spark.sql(f"DROP TABLE IF EXISTS {table}")
        self.spark.sql(
            f"CREATE TABLE {table} (id BIGINT, v STRING) USING {self.engine} "
            f"TBLPROPERTIES ({props})"
        )

    def location(self, table: str) -> Path:
        from floe.inspect import metadata_file

        for row in self.spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect():
            if row[0] == "Location":
                return Path(metadata_file(str(row[1])).parent.parent)
        raise SystemExit(f"Cannot find the location of {table}")

    def metadata(self) -> dict[str, Any]:
        from floe.inspect import load_table_metadata

        loaded: dict[str, Any] = load_table_metadata(str(self.directory))
        return loaded

    def snapshots(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.metadata().get("snapshots", [])
        return sorted(found, key=lambda s: (s["timestamp-ms"], s.get("sequence-number", 0)))

    def append(self, table: str, i: int) -> float:
        start = time.perf_counter()
        self.spark.sql(f"INSERT INTO {table} VALUES ({i}, 'row-{i}')")
        return time.perf_counter() - start

    # ---- W4 ------------------------------------------------------------------------------

    def run_commits(self) -> dict[str, Any]:
        n = self.args.commits
        window = self.window
        warm = f"{self.engine}.{NAMESPACE}.warmup"
        self.create(warm)
        for i in range(self.args.warmup):
            self.append(warm, i)
        self.spark.sql(f"DROP TABLE IF EXISTS {warm}")
        self.create(self.table)
        self.directory = self.location(self.table)
        progress(f"{self.engine}: {n} commits into {self.directory}")
        latencies: list[float] = []
        gc_before = gc_seconds(self.spark)
        started = time.perf_counter()
        recording = None
        for i in range(1, n + 1):
            if i == n - window + 1:
                recording = self.start_recording()
            latencies.append(self.append(self.table, i))
            if i % 500 == 0:
                progress(f"{self.engine}: {i} commits, last {latencies[-1] * 1000:.0f} ms")
        total = time.perf_counter() - started
        gc = gc_seconds(self.spark) - gc_before
        self.stop_recording(recording, "late-commits")
        files = listing(self.directory)
        kinds = by_kind(files)
        snapshots = self.snapshots()
        data_files = kinds.get("data", {}).get("files", 0)
        if len(snapshots) != n or data_files != n:
            raise SystemExit(
                f"{self.table}: expected {n} snapshots and {n} data files, found "
                f"{len(snapshots)} snapshots and {data_files} data files"
            )
        count = self.sql(f"SELECT count(*), sum(id) FROM {self.table}")[0]
        if count != (n, n * (n + 1) // 2):
            raise SystemExit(f"{self.table}: count/sum {count}, expected {n} rows")
        from floe.inspect import metadata_file

        newest = metadata_file(str(self.directory))
        early, late = latencies[:window], latencies[-window:]
        phases = [sum(latencies[k : k + window]) for k in range(0, n - n % window, window)]
        ms = 1000.0
        return {
            "commits": n,
            "total_seconds": total,
            "gc_seconds": gc,
            "early_p50_ms": percentile(early, 0.5) * ms,
            "early_p99_ms": percentile(early, 0.99) * ms,
            "late_p50_ms": percentile(late, 0.5) * ms,
            "late_p99_ms": percentile(late, 0.99) * ms,
            "late_over_early_p50": percentile(late, 0.5) / percentile(early, 0.5),
            "degradation_rate": degradation_rate(phases),
            "phase_seconds": phases,
            "latencies_ms": [round(x * ms, 3) for x in latencies],
            "metadata_json_bytes": newest.stat().st_size,
            "metadata_json_bytes_per_commit": newest.stat().st_size / n,
            "metadata_json_name": newest.name,
            "metadata_folder_bytes": sum(s for p, s in files.items() if p.startswith("metadata/")),
            "files_by_kind": kinds,
            "load_table": self.load_latency(),
        }

    def load_latency(self) -> dict[str, Any]:
        """Loading the table fresh through the Spark catalog, and through the session."""
        catalog = self.spark._jsparkSession.sessionState().catalogManager().catalog(self.engine)
        gateway = self.spark.sparkContext._gateway
        assert gateway is not None
        namespace = gateway.new_array(self.jvm.java.lang.String, 1)
        namespace[0] = NAMESPACE
        ident = self.jvm.org.apache.spark.sql.connector.catalog.Identifier.of(namespace, TABLE)
        catalog_ms: list[float] = []
        session_ms: list[float] = []
        # one unmeasured load first, as every case of the suite has its warm-up: the first load in
        # a JVM runs code that 400 commits on a cached table never ran (kept as first_catalog_ms)
        catalog.invalidateTable(ident)
        start = time.perf_counter()
        catalog.loadTable(ident).schema()
        first_ms = (time.perf_counter() - start) * 1000
        self.spark.sql(f"REFRESH TABLE {self.table}")
        _ = self.spark.table(self.table).schema
        recording = self.start_recording()
        for _ in range(self.args.load_reps):
            catalog.invalidateTable(ident)
            start = time.perf_counter()
            catalog.loadTable(ident).schema()
            catalog_ms.append((time.perf_counter() - start) * 1000)
            self.spark.sql(f"REFRESH TABLE {self.table}")
            start = time.perf_counter()
            _ = self.spark.table(self.table).schema
            session_ms.append((time.perf_counter() - start) * 1000)
        self.stop_recording(recording, "load-table")
        return {
            "catalog_best_ms": min(catalog_ms),
            "catalog_median_ms": statistics.median(catalog_ms),
            "session_best_ms": min(session_ms),
            "session_median_ms": statistics.median(session_ms),
            "catalog_ms": catalog_ms,
            "first_catalog_ms": first_ms,
        }

    # ---- W5 ------------------------------------------------------------------------------

    def run_expire(self) -> dict[str, Any]:
        result: dict[str, Any] = {"merges": self.args.merges}
        merge_seconds: list[float] = []
        for k in range(1, self.args.merges + 1):
            start = time.perf_counter()
            self.spark.sql(
                f"MERGE INTO {self.table} t USING (SELECT CAST({k} AS BIGINT) AS id, "
                f"'merged-{k}' AS v) s ON t.id = s.id AND t.id = {k} "
                "WHEN MATCHED THEN UPDATE SET v = s.v"
            )
            merge_seconds.append(time.perf_counter() - start)
        result["merge_seconds"] = merge_seconds
        merged = self.sql(f"SELECT count(*) FROM {self.table} WHERE v LIKE 'merged-%'")[0][0]
        if merged != self.args.merges:
            raise SystemExit(f"{self.table}: {merged} merged rows, expected {self.args.merges}")
        snapshots = self.snapshots()
        result["snapshots_before"] = len(snapshots)
        eleventh = snapshots[EXPIRE_OLDEST]["timestamp-ms"]
        if snapshots[EXPIRE_OLDEST - 1]["timestamp-ms"] >= eleventh:
            raise SystemExit(f"{self.table}: snapshots 10 and 11 have the same timestamp")
        result["expire_oldest_10"] = self.expire(timestamp_literal(eleventh))
        left = len(self.snapshots())
        if left != len(snapshots) - EXPIRE_OLDEST:
            raise SystemExit(f"{self.table}: {left} snapshots left after expiring the oldest 10")
        newest = snapshots[-1]["timestamp-ms"] + 1
        result["expire_all_but_1"] = self.expire(timestamp_literal(newest))
        left = len(self.snapshots())
        if left != 1:
            raise SystemExit(f"{self.table}: {left} snapshots left after expiring all but 1")
        result["after_expire"] = self.check_after_expire()
        return result

    def check_after_expire(self) -> dict[str, int]:
        """Checks that the table still reads all its rows; counts the manifests and data files on
        disk that the current snapshot does not reference (left behind) and the referenced ones
        that are missing (deleted too eagerly): both are 0 after a correct expire of all but the
        current snapshot."""
        from floe.inspect import read_manifest_list, table_files

        n = self.args.commits
        count = self.sql(f"SELECT count(*), sum(id) FROM {self.table}")[0]
        if count != (n, n * (n + 1) // 2):
            raise SystemExit(f"{self.table}: count/sum {count} after expire, expected {n} rows")
        current = self.snapshots()[-1]
        manifests = {
            Path(m["manifest_path"]).name for m in read_manifest_list(current["manifest-list"])
        }
        data = {Path(f["file_path"]).name for f in table_files(str(self.directory))}
        kinds: dict[str, set[str]] = {}
        for path in listing(self.directory):
            kinds.setdefault(file_kind(path), set()).add(Path(path).name)
        on_disk = {k: kinds.get(k, set()) for k in ("manifest", "data")}
        return {
            "referenced_manifests": len(manifests),
            "referenced_data_files": len(data),
            "unreferenced_manifests_left": len(on_disk["manifest"] - manifests),
            "unreferenced_data_files_left": len(on_disk["data"] - data),
            "referenced_manifests_missing": len(manifests - on_disk["manifest"]),
            "referenced_data_files_missing": len(data - on_disk["data"]),
        }

    def expire(self, older_than: str) -> dict[str, Any]:
        before = listing(self.directory)
        sql = (
            f"CALL {self.engine}.system.expire_snapshots(table => '{NAMESPACE}.{TABLE}', "
            f"older_than => {older_than}, retain_last => 1)"
        )
        recording = self.start_recording()
        start = time.perf_counter()
        frame = self.spark.sql(sql)
        rows = frame.collect()
        seconds = time.perf_counter() - start
        self.stop_recording(recording, "expire")
        after = listing(self.directory)
        deleted = {p: s for p, s in before.items() if p not in after}
        added = {p: s for p, s in after.items() if p not in before}
        output = rows[0].asDict() if rows else {}
        return {
            "sql": sql,
            "seconds": seconds,
            "output": {k: int(v) if isinstance(v, int) else v for k, v in output.items()},
            "deleted_by_kind": {k: v["files"] for k, v in by_kind(deleted).items()},
            "added_by_kind": {k: v["files"] for k, v in by_kind(added).items()},
            "snapshots_left": len(self.snapshots()),
        }

    # ---- profiling -----------------------------------------------------------------------

    def start_recording(self) -> Any:
        if self.args.jfr is None or self.engine != "floe":
            return None
        jfr = self.jvm.jdk.jfr
        recording = jfr.Recording(jfr.Configuration.getConfiguration("profile"))
        period = self.jvm.java.time.Duration.ofMillis(2)
        recording.enable("jdk.ExecutionSample").withPeriod(period)
        recording.start()
        return recording

    def stop_recording(self, recording: Any, label: str) -> None:
        if recording is None:
            return
        recording.stop()
        directory: Path = self.args.jfr
        directory.mkdir(parents=True, exist_ok=True)
        target = directory / f"{label}-{self.engine}-{time.time_ns()}.jfr"
        recording.dump(self.jvm.java.io.File(str(target)).toPath())
        recording.close()
        progress(f"{self.engine}: JFR recording {target}")


def worker_session(engine: str, workdir: Path) -> SparkSession:
    import floe

    conf = spark_conf(workdir)
    if engine == "floe":
        session: SparkSession = floe.session(
            str(workdir / "warehouse"), app_name="floe-bench-commits", master=MASTER, conf=conf
        )
        return session
    from pyspark.sql import SparkSession

    sys.path.insert(0, str(ROOT / "python-tests"))
    from iceberg_runtime import find_iceberg_runtime

    runtime = find_iceberg_runtime()
    if runtime.jar is None:
        raise SystemExit(f"Iceberg runtime unavailable: {runtime.problem}")
    conf |= {
        "spark.jars": str(runtime.jar),
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.iceberg": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.iceberg.type": "hadoop",
        "spark.sql.catalog.iceberg.warehouse": floe.warehouse_uri(
            str(workdir / "iceberg-warehouse")
        ),
    }
    builder = SparkSession.builder.appName("iceberg-bench-commits").master(MASTER)
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def run_worker(args: argparse.Namespace) -> int:
    workdir = Path(tempfile.mkdtemp(prefix=f"floe-bench-{args.worker}-", dir=args.dir)).resolve()
    spark = worker_session(args.worker, workdir)
    spark.sparkContext.setLogLevel("ERROR")
    worker = Worker(spark, args.worker, args)
    result: dict[str, Any] = {"engine": args.worker}
    try:
        result["w4"] = worker.run_commits()
        if not args.no_expire:
            try:
                result["w5"] = worker.run_expire()
            except (Exception, SystemExit) as e:  # reported, W4 still counts
                result["w5_error"] = " ".join(str(e).split())[:600]
                progress(f"{args.worker}: W5 failed: {result['w5_error']}")
    finally:
        spark.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    Path(args.result).write_text(json.dumps(result) + "\n", encoding="utf-8")
    return 0


# ---- the harness: one process per engine and rep -------------------------------------------


def summarize(runs: list[dict[str, Any]], engines: list[str]) -> dict[str, Any]:
    """Per engine: the median over reps of each headline metric; then Floe / Iceberg."""

    def med(engine: str, *path: str) -> float | None:
        values: list[float] = []
        for run in runs:
            if run.get("engine") != engine:
                continue
            node: Any = run
            for key in path:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, int | float):
                values.append(float(node))
        return statistics.median(values) if values else None

    metrics = {
        "early_p50_ms": ("w4", "early_p50_ms"),
        "early_p99_ms": ("w4", "early_p99_ms"),
        "late_p50_ms": ("w4", "late_p50_ms"),
        "late_p99_ms": ("w4", "late_p99_ms"),
        "late_over_early_p50": ("w4", "late_over_early_p50"),
        "degradation_rate": ("w4", "degradation_rate"),
        "total_commit_seconds": ("w4", "total_seconds"),
        "load_table_catalog_ms": ("w4", "load_table", "catalog_median_ms"),
        "load_table_session_ms": ("w4", "load_table", "session_median_ms"),
        "metadata_json_bytes": ("w4", "metadata_json_bytes"),
        "metadata_json_bytes_per_commit": ("w4", "metadata_json_bytes_per_commit"),
        "metadata_folder_bytes": ("w4", "metadata_folder_bytes"),
        "expire_oldest_10_seconds": ("w5", "expire_oldest_10", "seconds"),
        "expire_all_but_1_seconds": ("w5", "expire_all_but_1", "seconds"),
    }
    table = {e: {m: med(e, *p) for m, p in metrics.items()} for e in engines}
    out: dict[str, Any] = {"median": table}
    if "floe" in table and "iceberg" in table:
        f, i = table["floe"], table["iceberg"]
        ratios = {m: ratio(f[m], i[m]) for m in metrics}
        out["floe_over_iceberg"] = ratios
        checks = {
            "late_commit_p50": ratios["late_p50_ms"],
            "degradation_rate": ratios["degradation_rate"],
            "load_table": ratios["load_table_catalog_ms"],
            "metadata_json_bytes": ratios["metadata_json_bytes"],
            "expire_oldest_10": ratios["expire_oldest_10_seconds"],
            "expire_all_but_1": ratios["expire_all_but_1_seconds"],
        }
        out["goals"] = {
            name: {
                "ratio": value,
                "goal": GOALS[name],
                "meets": None if value is None else value <= GOALS[name],
            }
            for name, value in checks.items()
        }
        # a rate can be negative (latency falling as the JIT warms): the goal then reads
        # "Floe's rate <= 0.25 x Iceberg's", not a ratio of two signed numbers
        rates = (f["degradation_rate"], i["degradation_rate"])
        if rates[0] is not None and rates[1] is not None:
            out["goals"]["degradation_rate"]["meets"] = (
                rates[0] <= GOALS["degradation_rate"] * rates[1]
            )
        deleted = {}
        for e in engines:
            for run in runs:
                if run.get("engine") == e and "w5" in run:
                    deleted[e] = {
                        case: run["w5"][case]["deleted_by_kind"]
                        for case in ("expire_oldest_10", "expire_all_but_1")
                    }
                    break
        if len(deleted) == 2:
            out["expire_deleted_files_identical"] = deleted["floe"] == deleted["iceberg"]
        out["expire_deleted_files"] = deleted
    return out


def fmt(value: float | None, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def markdown(report: dict[str, Any]) -> str:
    cfg = report["config"]
    summary = report["summary"]
    engines = cfg["engines"]
    lines = [
        f"W4-W5: {cfg['commits']:,} one-row appends, {cfg['merges']} MERGEs, {MASTER}, "
        f"{cfg['reps']} rep(s), one process per engine; Iceberg {cfg['iceberg']}",
        "",
        "| metric | " + " | ".join(engines) + " | floe/iceberg | goal |",
        "|---|" + "---|" * (len(engines) + 2),
    ]
    goal_of = {
        "late_p50_ms": "late_commit_p50",
        "degradation_rate": "degradation_rate",
        "load_table_catalog_ms": "load_table",
        "metadata_json_bytes": "metadata_json_bytes",
        "expire_oldest_10_seconds": "expire_oldest_10",
        "expire_all_but_1_seconds": "expire_all_but_1",
    }
    ratios = summary.get("floe_over_iceberg", {})
    goals = summary.get("goals", {})
    for metric in next(iter(summary["median"].values()), {}):
        cells = [fmt(summary["median"][e][metric], ".4g") for e in engines]
        goal = goals.get(goal_of.get(metric, ""), None)
        goal_text = ""
        if goal is not None:
            verdict = {True: "met", False: "MISSED", None: "n/a"}[goal["meets"]]
            goal_text = f"<= {goal['goal']} {verdict}"
        lines.append(
            f"| {metric} | " + " | ".join(cells) + f" | {fmt(ratios.get(metric), '.3f')} | "
            f"{goal_text} |"
        )
    deleted = summary.get("expire_deleted_files", {})
    for engine, cases in deleted.items():
        for case, kinds in cases.items():
            lines.append(f"\n{engine} {case} deleted files: {json.dumps(kinds)}")
    if "expire_deleted_files_identical" in summary:
        lines.append(f"\ndeleted files identical: {summary['expire_deleted_files_identical']}")
    for run in report["runs"]:
        if "after_expire" in run.get("w5", {}):
            lines.append(f"\n{run['engine']} after expire: {json.dumps(run['w5']['after_expire'])}")
        for key in ("error", "w5_error"):
            if key in run:
                lines.append(f"\n{run['engine']} {key}: {run[key]}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--commits", type=int, default=None, help="appends (default 2000)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 200 commits")
    parser.add_argument("--merges", type=int, default=None, help="MERGEs before W5 (10)")
    parser.add_argument("--reps", type=int, default=1, help="processes per engine, ABBA")
    parser.add_argument("--load-reps", type=int, default=None, help="table loads (10)")
    parser.add_argument("--warmup", type=int, default=None, help="unmeasured appends (200)")
    parser.add_argument("--engines", default="floe,iceberg", help="floe,iceberg")
    parser.add_argument("--no-expire", action="store_true", help="W4 only")
    parser.add_argument("--jfr", type=Path, default=None, help="JFR recordings of Floe")
    parser.add_argument("--out", type=Path, default=None, help="JSON results file")
    parser.add_argument("--dir", type=Path, default=None, help="work directory parent")
    parser.add_argument("--keep", action="store_true", help="keep the tables")
    parser.add_argument("--worker", choices=ENGINES, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--result", default=None, help=argparse.SUPPRESS)
    raw = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(raw)
    if args.commits is None:
        args.commits = 200 if args.quick else 2000
    if args.merges is None:
        args.merges = 3 if args.quick else 10
    if args.load_reps is None:
        args.load_reps = 3 if args.quick else 10
    if args.warmup is None:
        args.warmup = 50 if args.quick else 200
    if args.commits < 2 * WINDOW or args.commits < EXPIRE_OLDEST + 2:
        parser.error(f"--commits must be at least {2 * WINDOW}")
    if args.worker is not None:
        return run_worker(args)

    import pyspark

    import floe

    sys.path.insert(0, str(ROOT / "python-tests"))
    from iceberg_runtime import VERSION

    engines = engine_list(parser, args.engines, ENGINES)
    started = time.perf_counter()
    runs: list[dict[str, Any]] = []
    for rep in range(args.reps):
        order = engines if rep % 2 == 0 else list(reversed(engines))
        for engine in order:
            run = run_worker_process(__file__, engine, raw, [])
            run["rep"] = rep
            runs.append(run)
    now = datetime.datetime.now(datetime.UTC)
    report: dict[str, Any] = {
        "config": {
            "commits": args.commits,
            "merges": 0 if args.no_expire else args.merges,
            "reps": args.reps,
            "load_reps": args.load_reps,
            "warmup": args.warmup,
            "engines": engines,
            "expire": not args.no_expire,
            "jfr": args.jfr is not None,
            "table_properties": TABLE_PROPERTIES,
            "master": MASTER,
            "driver_memory": DRIVER_MEMORY,
            "spark": pyspark.__version__,
            "floe": floe.__version__,
            "floe_jar": floe.jar_path(),
            "iceberg": VERSION,
            "python": sys.version.split()[0],
            "wall_seconds": time.perf_counter() - started,
            "finished_at": now.isoformat(timespec="seconds"),
        },
        "runs": runs,
    }
    report["summary"] = summarize(runs, engines)
    text = markdown(report)
    print("\n" + text)
    out = write_report(report, "commits_expire", now, args.out)
    out.with_suffix(".md").write_text(text, encoding="utf-8")
    print(f"wrote {out} and {out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
