#!/usr/bin/env python3
"""Structured Streaming sink and source (issue 15; docs/streaming.md, section 4): Floe vs the
Apache Iceberg Spark runtime (hadoop catalog), on one local warehouse.

    python bench/streaming.py [--quick] [--rate 20000] [--latency-seconds 90]
        [--step-rates 100000,150000,...] [--step-seconds 30] [--all-steps]
        [--appends 1000] [--rows-per-append 100] [--read-reps 3]
        [--engines floe,iceberg] [--no-sink] [--no-read] [--out PATH] [--dir PATH] [--keep]

Each engine runs in a Spark process of its own (``local[2]``, the settings of bench_session.py)
with a 1 s processing-time trigger; a preparing process (Iceberg runtime) writes the table the
read benchmark streams, so that both engines read the same files.

* Sink: Spark's ``rate`` source (2 partitions) -> ``(id BIGINT, ts TIMESTAMP, p INT, payload
  STRING) PARTITIONED BY (p)``, ``p = id % 8`` (every batch writes every partition, so each of
  the 2 tasks fans out to 8 files), ``writeStream.toTable`` in append mode (Iceberg with
  ``fanout-enabled=true``, as its documentation asks for unsorted streaming input).
  (1) Latency: ``--rate`` rows/s for ``--latency-seconds``; per micro-batch (the first
  ``WARMUP_BATCHES`` excluded): the batch duration (``durationMs.triggerExecution``), the sink
  phase (``durationMs.addBatch``: planning the write, its Spark jobs, the commit), the commit
  latency = from the completion of the batch's last Spark job (Spark's status store; a
  streaming job's description names the run and the batch) to the end of ``addBatch`` (the
  trigger's end, ``timestamp + triggerExecution``, minus ``commitOffsets``, the checkpoint
  write that follows it): the driver-side ``StreamingWrite.commit`` (refresh, manifests,
  snapshot, metadata), and the sink's driver time = ``addBatch`` minus the jobs' wall time
  (the commit plus building the write and planning its jobs). Reported: p50/p99 of each, data
  files and snapshots created, rows.
  (2) Sustained throughput: ``--step-rates`` in order, ``--step-seconds`` each (a fresh query
  per step on the same table), until a step falls behind (unless ``--all-steps``).
  A step keeps up when at most 10% of its batches (after the first) take longer than the trigger
  (the rate source always offers ``rate x elapsed`` rows, so a sink that cannot keep up shows as
  batches longer than the trigger that grow). Sustained rows/s is the highest rate that kept up;
  also reported: the median of a batch's rows / its duration (capacity). Default: 90 s at
  20,000 rows/s, then up to 7 steps of 30 s from 100,000 to 400,000 rows/s: 5 minutes per engine.
* Source: a table with ``--appends`` snapshots of ``--rows-per-append`` rows each (one Parquet
  file per append, committed through Iceberg's Java API), read by ``spark.readStream.table`` with
  ``Trigger.AvailableNow`` into the ``noop`` sink; wall time from ``start()`` to termination,
  with the default options (one batch) and with ``streaming-max-files-per-micro-batch=100``,
  after one unmeasured read (warm-up). Every read must deliver every row once.

Goals (Floe / Iceberg): sustained rows/s >= 1.0; commit latency p50 (and p99) <= 0.5. The
catch-up time is reported as a ratio without a goal. ``--quick`` is a smoke run (about 30 s of
streaming per engine: 12 s at the fixed rate, 2 steps of 6 s; 100 appends, one read rep).
The Iceberg runtime jar comes from python-tests/iceberg_runtime.py (cached in ~/.cache/floe);
the Floe jar is the bundled one or ``$FLOE_JAR``. Results go to stdout and to ``--out`` (default
bench/out/streaming-*.json) with a markdown table next to it (``.md``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
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
    progress,
    ratio,
    run_worker_process,
    spark_conf,
    write_report,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.streaming.query import StreamingQuery

ROOT = Path(__file__).resolve().parent.parent
MASTER = "local[2]"
ENGINES = ("floe", "iceberg")
TRIGGER_MS = 1000
PARTITIONS = 8
RATE_PARTITIONS = 2
#: Batches with rows left out of the figures: of the fixed-rate phase (the JVM warms up) ...
WARMUP_BATCHES = 3
#: ... and of each step (a fresh query: its first batch plans the query).
STEP_WARMUP_BATCHES = 1
#: A step keeps up when at most this share of its batches overran the trigger.
OVERRUN_SHARE = 0.10
READ_NAMESPACE = "bench_read"
READ_TABLE = "appends"
READ_VARIANTS: dict[str, dict[str, str]] = {
    "default": {},
    "max_files_100": {"streaming-max-files-per-micro-batch": "100"},
}
GOALS = {"sustained_rows_per_second": 1.0, "commit_p50_ms": 0.5, "commit_p99_ms": 0.5}
TABLE_PROPERTIES = {"format-version": "2", "write.parquet.compression-codec": "zstd"}
#: Ids of phase k start at k * ID_STRIDE, so that one table holds every phase's rows once.
ID_STRIDE = 10**12
BATCH_IN_DESCRIPTION = re.compile(r"batch = (\d+)")


def percentile(values: list[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) by linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return None
    pos = q * (len(ordered) - 1)
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def commit_milliseconds(
    batch: dict[str, Any], jobs: dict[int, tuple[float, float]]
) -> float | None:
    """The sink's commit phase of a micro-batch: from the end of its last Spark job (the write
    tasks) to the end of ``addBatch``, which is the trigger's end minus the phases after it
    (``commitOffsets``: the checkpoint's commit log)."""
    found = jobs.get(int(batch["batchId"]))
    if found is None:
        return None
    durations = batch["durationMs"]
    started = datetime.datetime.fromisoformat(str(batch["timestamp"]).replace("Z", "+00:00"))
    trigger_end = started.timestamp() * 1000 + float(durations.get("triggerExecution", 0))
    add_batch_end = trigger_end - float(durations.get("commitOffsets", 0))
    return max(0.0, add_batch_end - found[1])


def data_files(directory: Path) -> int:
    return sum(1 for p in (directory / "data").rglob("*.parquet") if p.is_file())


def snapshot_count(directory: Path) -> int:
    from floe.inspect import load_table_metadata

    metadata: dict[str, Any] = load_table_metadata(str(directory))
    return len(metadata.get("snapshots", []))


# ---- one engine, in its own process --------------------------------------------------------


class Worker:
    """The sink and source benchmarks for one engine in this process's Spark session."""

    def __init__(
        self, spark: SparkSession, engine: str, args: argparse.Namespace, warehouse: Path
    ) -> None:
        self.spark = spark
        self.engine = engine
        self.args = args
        self.warehouse = warehouse
        self.namespace = f"bench_{engine}"
        self.checkpoints = Path(tempfile.mkdtemp(prefix="checkpoints-", dir=warehouse.parent))
        self.phase = 0

    @property
    def jvm(self) -> Any:
        return self.spark._jvm

    # ---- sink ----------------------------------------------------------------------------

    def run_sink(self) -> dict[str, Any]:
        table = f"{self.engine}.{self.namespace}.sink"
        props = ", ".join(f"'{k}' = '{v}'" for k, v in TABLE_PROPERTIES.items())
        self.spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {self.engine}.{self.namespace}")
        self.spark.sql(
            f"CREATE TABLE {table} (id BIGINT, ts TIMESTAMP, p INT, payload STRING) "
            f"USING {self.engine} PARTITIONED BY (p) TBLPROPERTIES ({props})"
        )
        directory = self.warehouse / self.namespace / "sink"
        result: dict[str, Any] = {}
        progress(f"{self.engine}: {self.args.rate} rows/s for {self.args.latency_seconds} s")
        result["latency"] = self.stream(
            table, directory, self.args.rate, self.args.latency_seconds, WARMUP_BATCHES
        )
        steps: list[dict[str, Any]] = []
        sustained = 0
        for rate in self.args.step_rates:
            progress(f"{self.engine}: step {rate} rows/s for {self.args.step_seconds} s")
            step = self.stream(table, directory, rate, self.args.step_seconds, STEP_WARMUP_BATCHES)
            steps.append(step)
            progress(
                f"{self.engine}: step {rate} rows/s: kept up {step['kept_up']}, "
                f"p50 batch {step['batch_p50_ms']} ms, overruns {step['overruns']}"
            )
            if step["kept_up"]:
                sustained = max(sustained, rate)
            elif not self.args.all_steps:
                break
        result["steps"] = steps
        result["sustained_rows_per_second"] = sustained
        result["max_processed_rows_per_second"] = max(
            (s["processed_rows_per_second"] for s in steps), default=None
        )
        result["table_rows"] = self.check_rows_once(table)
        result["data_files"] = data_files(directory)
        result["snapshots"] = snapshot_count(directory)
        return result

    def check_rows_once(self, table: str) -> int:
        """Each phase's rows are the rate source's values 0..n-1 (plus the phase's base id), so
        every phase must hold a gap-free id range once: count = max - min + 1, min = base."""
        rows = self.spark.sql(
            f"SELECT id DIV {ID_STRIDE} AS phase, count(*), min(id), max(id) FROM {table} "
            "GROUP BY 1 ORDER BY 1"
        ).collect()
        for phase, count, low, high in (tuple(int(v) for v in r) for r in rows):
            if low != phase * ID_STRIDE or count != high - low + 1:
                raise SystemExit(
                    f"{table}: phase {phase} holds {count} rows for ids {low}..{high}: "
                    "rows lost or duplicated"
                )
        if len(rows) != self.phase:
            raise SystemExit(f"{table}: {len(rows)} phases hold rows, expected {self.phase}")
        return sum(int(r[1]) for r in rows)

    def stream(
        self, table: str, directory: Path, rate: int, seconds: float, warmup: int
    ) -> dict[str, Any]:
        """Streams the rate source at ``rate`` rows/s into ``table`` for ``seconds``."""
        self.phase += 1
        first_id = self.phase * ID_STRIDE
        frame = (
            self.spark.readStream.format("rate")
            .option("rowsPerSecond", str(rate))
            .option("numPartitions", str(RATE_PARTITIONS))
            .load()
            .selectExpr(
                f"value + {first_id} AS id",
                "timestamp AS ts",
                f"CAST(value % {PARTITIONS} AS INT) AS p",
                "concat('payload-', CAST(value AS STRING)) AS payload",
            )
        )
        writer = (
            frame.writeStream.outputMode("append")
            .trigger(processingTime=f"{TRIGGER_MS} milliseconds")
            .option("checkpointLocation", str(self.checkpoints / f"sink-{self.phase}"))
        )
        if self.engine == "iceberg":
            writer = writer.option("fanout-enabled", "true")
        files_before, snapshots_before = data_files(directory), snapshot_count(directory)
        query = writer.toTable(table)
        try:
            self.wait(query, seconds)
        finally:
            query.stop()
        batches = [json.loads(p.json) for p in query.recentProgress]
        jobs = self.jobs(str(query.runId))
        return self.summarize_stream(
            rate,
            seconds,
            batches,
            jobs,
            warmup,
            files=data_files(directory) - files_before,
            snapshots=snapshot_count(directory) - snapshots_before,
        )

    def wait(self, query: StreamingQuery, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not query.isActive:
                error = query.exception()
                raise SystemExit(f"{self.engine}: the streaming query stopped: {error}")
            time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))

    def jobs(self, run_id: str) -> dict[int, tuple[float, float]]:
        """Batch id -> (summed wall time of the Spark jobs the query ran in that batch, completion
        time of its last job in epoch ms), from Spark's status store (a streaming job's
        description names the run id and the batch)."""
        jobs = self.spark._jsc.sc().statusStore().jobsList(None)
        found: dict[int, tuple[float, float]] = {}
        iterator = jobs.iterator()
        while iterator.hasNext():
            job = iterator.next()
            description = job.description()
            submitted, completed = job.submissionTime(), job.completionTime()
            if description.isEmpty() or submitted.isEmpty() or completed.isEmpty():
                continue
            text = str(description.get())
            match = BATCH_IN_DESCRIPTION.search(text)
            if match is None or run_id not in text:
                continue
            end = float(completed.get().getTime())
            millis = end - float(submitted.get().getTime())
            batch = int(match.group(1))
            wall, last = found.get(batch, (0.0, 0.0))
            found[batch] = (wall + millis, max(last, end))
        return found

    @staticmethod
    def summarize_stream(
        rate: int,
        seconds: float,
        batches: list[dict[str, Any]],
        jobs: dict[int, tuple[float, float]],
        warmup: int,
        files: int,
        snapshots: int,
    ) -> dict[str, Any]:
        rows = sum(int(b.get("numInputRows", 0)) for b in batches)
        measured = [b for b in batches if int(b.get("numInputRows", 0)) > 0][warmup:]
        durations = [float(b["durationMs"].get("triggerExecution", 0)) for b in measured]
        add_batch = [float(b["durationMs"].get("addBatch", 0)) for b in measured]
        overhead = [
            float(b["durationMs"].get("addBatch", 0)) - jobs.get(int(b["batchId"]), (0.0, 0.0))[0]
            for b in measured
        ]
        commits = [c for c in (commit_milliseconds(b, jobs) for b in measured) if c is not None]
        offsets = [float(b["durationMs"].get("commitOffsets", 0)) for b in measured]
        overruns = sum(1 for d in durations if d > TRIGGER_MS)
        processed = [
            int(b["numInputRows"]) * 1000.0 / max(1.0, float(b["durationMs"]["triggerExecution"]))
            for b in measured
        ]
        kept_up = len(durations) >= 2 and overruns <= OVERRUN_SHARE * len(durations)
        return {
            "rate": rate,
            "seconds": seconds,
            "batches": len(batches),
            "measured_batches": len(measured),
            "rows": rows,
            "rows_per_second": rows / seconds,
            "processed_rows_per_second": statistics.median(processed) if processed else None,
            "kept_up": kept_up,
            "overruns": overruns,
            "batch_p50_ms": percentile(durations, 0.5),
            "batch_p99_ms": percentile(durations, 0.99),
            "add_batch_p50_ms": percentile(add_batch, 0.5),
            "add_batch_p99_ms": percentile(add_batch, 0.99),
            "commit_p50_ms": percentile(commits, 0.5),
            "commit_p99_ms": percentile(commits, 0.99),
            "sink_driver_p50_ms": percentile(overhead, 0.5),
            "sink_driver_p99_ms": percentile(overhead, 0.99),
            "commit_offsets_p50_ms": percentile(offsets, 0.5),
            "data_files": files,
            "snapshots": snapshots,
            "files_per_batch": files / len(measured) if measured else None,
            "duration_ms": [int(d) for d in durations],
            "commit_ms": [round(c, 1) for c in commits],
        }

    # ---- source --------------------------------------------------------------------------

    def run_read(self) -> dict[str, Any]:
        table = f"{self.engine}.{READ_NAMESPACE}.{READ_TABLE}"
        expected = self.args.appends * self.args.rows_per_append
        result: dict[str, Any] = {}
        warmup = self.read_once(table, "warmup", {}, expected)  # JIT of the read path
        progress(f"{self.engine}: read warm-up: {warmup['seconds']:.2f} s")
        for variant, options in READ_VARIANTS.items():
            runs: list[dict[str, Any]] = []
            for rep in range(self.args.read_reps):
                runs.append(self.read_once(table, f"{variant}-{rep}", options, expected))
                progress(f"{self.engine}: read {variant} rep {rep}: {runs[-1]['seconds']:.2f} s")
            result[variant] = {
                "median_seconds": statistics.median(r["seconds"] for r in runs),
                "runs": runs,
            }
        return result

    def read_once(
        self, table: str, label: str, options: dict[str, str], expected: int
    ) -> dict[str, Any]:
        """Streams all of ``table`` with AvailableNow into the noop sink from a fresh checkpoint."""
        reader = self.spark.readStream
        for key, value in options.items():
            reader = reader.option(key, value)
        started = time.perf_counter()
        query = (
            reader.table(table)
            .writeStream.format("noop")
            .trigger(availableNow=True)
            .option("checkpointLocation", str(self.checkpoints / f"read-{label}"))
            .start()
        )
        try:
            query.awaitTermination()
        finally:
            query.stop()
        seconds = time.perf_counter() - started
        batches = [json.loads(p.json) for p in query.recentProgress]
        rows = sum(int(b.get("numInputRows", 0)) for b in batches)
        if rows != expected:
            raise SystemExit(f"{table} ({label}): read {rows} rows, expected {expected}")
        non_empty = sum(1 for b in batches if int(b.get("numInputRows", 0)) > 0)
        return {"seconds": seconds, "batches": non_empty, "rows": rows}


def prepare_read_table(spark: SparkSession, args: argparse.Namespace, scratch: Path) -> None:
    """``--appends`` snapshots of one file each in ``iceberg.bench_read.appends``: the files are
    written by Spark in one job (with Parquet field ids) and appended one per commit through
    Iceberg's Java API, so that preparing 1,000 snapshots takes seconds, not minutes."""
    from pyspark.sql import functions as sf

    n, per = args.appends, args.rows_per_append
    table = f"iceberg.{READ_NAMESPACE}.{READ_TABLE}"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS iceberg.{READ_NAMESPACE}")
    spark.sql(f"CREATE TABLE {table} (id BIGINT NOT NULL, v STRING) USING iceberg")
    staging = scratch / "staging"
    frame = spark.range(0, n * per, 1, n).select(
        sf.col("id").alias("id", metadata={"parquet.field.id": 1}),
        sf.concat(sf.lit("value-"), sf.col("id").cast("string")).alias(
            "v", metadata={"parquet.field.id": 2}
        ),
    )
    frame.write.option("compression", "zstd").parquet(str(staging))
    files = sorted(staging.glob("part-*.parquet"))
    if len(files) != n:
        raise SystemExit(f"expected {n} staged files, found {len(files)}")
    jvm: Any = spark._jvm
    catalog = spark._jsparkSession.sessionState().catalogManager().catalog("iceberg")
    gateway = spark.sparkContext._gateway
    assert gateway is not None
    namespace = gateway.new_array(jvm.java.lang.String, 1)
    namespace[0] = READ_NAMESPACE
    ident = jvm.org.apache.spark.sql.connector.catalog.Identifier.of(namespace, READ_TABLE)
    iceberg_table = catalog.loadTable(ident).table()
    data_dir = Path(str(iceberg_table.location()).removeprefix("file:")) / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for i, staged in enumerate(files):
        target = data_dir / f"append-{i:05d}.parquet"
        shutil.move(staged, target)
        data_file = (
            jvm.org.apache.iceberg.DataFiles.builder(iceberg_table.spec())
            .withPath(target.as_uri())
            .withFileSizeInBytes(target.stat().st_size)
            .withRecordCount(per)
            .withFormat(jvm.org.apache.iceberg.FileFormat.PARQUET)
            .build()
        )
        iceberg_table.newAppend().appendFile(data_file).commit()
    progress(f"prepared {n} appends in {time.perf_counter() - started:.1f} s")
    rows = spark.sql(f"SELECT count(*), count(DISTINCT id) FROM {table}").collect()[0]
    if tuple(rows) != (n * per, n * per):
        raise SystemExit(f"{table}: {tuple(rows)} rows, expected {n * per}")


def worker_session(engine: str, warehouse: Path, scratch: Path) -> SparkSession:
    import floe

    conf = spark_conf(scratch) | {
        "spark.ui.retainedJobs": "100000",
        "spark.sql.streaming.numRecentProgressUpdates": "100000",
    }
    if engine == "floe":
        session: SparkSession = floe.session(
            str(warehouse), app_name="floe-bench-streaming", master=MASTER, conf=conf
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
        "spark.sql.catalog.iceberg.warehouse": floe.warehouse_uri(str(warehouse)),
    }
    builder = SparkSession.builder.appName("iceberg-bench-streaming").master(MASTER)
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def run_worker(args: argparse.Namespace) -> int:
    warehouse = Path(args.warehouse)
    scratch = Path(tempfile.mkdtemp(prefix=f"scratch-{args.worker}-", dir=warehouse.parent))
    engine = "iceberg" if args.worker == "prepare" else args.worker
    spark = worker_session(engine, warehouse, scratch)
    spark.sparkContext.setLogLevel("ERROR")
    result: dict[str, Any] = {"engine": args.worker}
    try:
        if args.worker == "prepare":
            prepare_read_table(spark, args, scratch)
        else:
            worker = Worker(spark, engine, args, warehouse)
            for part, run in (("sink", worker.run_sink), ("read", worker.run_read)):
                if getattr(args, f"no_{part}"):
                    continue
                try:
                    result[part] = run()
                except (Exception, SystemExit) as e:  # reported; the other part still runs
                    result[f"{part}_error"] = " ".join(str(e).split())[:800]
                    progress(f"{engine}: {part} failed: {result[f'{part}_error']}")
    finally:
        for query in spark.streams.active:
            query.stop()
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    Path(args.result).write_text(json.dumps(result) + "\n", encoding="utf-8")
    return 0


# ---- the harness: one process per engine ---------------------------------------------------


def dig(node: Any, *path: str) -> float | None:
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return float(node) if isinstance(node, int | float) else None


METRICS: dict[str, tuple[str, ...]] = {
    "sustained_rows_per_second": ("sink", "sustained_rows_per_second"),
    "max_processed_rows_per_second": ("sink", "max_processed_rows_per_second"),
    "batch_p50_ms": ("sink", "latency", "batch_p50_ms"),
    "batch_p99_ms": ("sink", "latency", "batch_p99_ms"),
    "add_batch_p50_ms": ("sink", "latency", "add_batch_p50_ms"),
    "add_batch_p99_ms": ("sink", "latency", "add_batch_p99_ms"),
    "commit_p50_ms": ("sink", "latency", "commit_p50_ms"),
    "commit_p99_ms": ("sink", "latency", "commit_p99_ms"),
    "sink_driver_p50_ms": ("sink", "latency", "sink_driver_p50_ms"),
    "sink_driver_p99_ms": ("sink", "latency", "sink_driver_p99_ms"),
    "commit_offsets_p50_ms": ("sink", "latency", "commit_offsets_p50_ms"),
    "latency_data_files": ("sink", "latency", "data_files"),
    "latency_files_per_batch": ("sink", "latency", "files_per_batch"),
    "latency_snapshots": ("sink", "latency", "snapshots"),
    "total_data_files": ("sink", "data_files"),
    "total_snapshots": ("sink", "snapshots"),
    "catch_up_default_seconds": ("read", "default", "median_seconds"),
    "catch_up_max_files_100_seconds": ("read", "max_files_100", "median_seconds"),
}


def summarize(runs: list[dict[str, Any]], engines: list[str]) -> dict[str, Any]:
    table = {
        e: {m: dig(run, *p) for m, p in METRICS.items()}
        for e in engines
        for run in runs
        if run.get("engine") == e
    }
    out: dict[str, Any] = {"values": table}
    if "floe" in table and "iceberg" in table:
        f, i = table["floe"], table["iceberg"]
        ratios = {m: ratio(f[m], i[m]) for m in METRICS}
        out["floe_over_iceberg"] = ratios
        goals: dict[str, Any] = {}
        for name, goal in GOALS.items():
            value = ratios[name]
            at_least = name == "sustained_rows_per_second"
            meets = None if value is None else (value >= goal if at_least else value <= goal)
            goals[name] = {"ratio": value, "goal": goal, "at_least": at_least, "meets": meets}
        out["goals"] = goals
    return out


def fmt(value: float | None, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def markdown(report: dict[str, Any]) -> str:
    cfg = report["config"]
    summary = report["summary"]
    engines = cfg["engines"]
    lines = [
        f"Streaming (issue 15): rate source at {cfg['rate']:,} rows/s for "
        f"{cfg['latency_seconds']} s, then steps {cfg['step_rates']} of {cfg['step_seconds']} s, "
        f"1 s trigger, {PARTITIONS} partitions, {MASTER}; read: {cfg['appends']:,} appends of "
        f"{cfg['rows_per_append']} rows, AvailableNow, {cfg['read_reps']} rep(s); "
        f"Iceberg {cfg['iceberg']}; one process per engine",
        "",
        "| metric | " + " | ".join(engines) + " | floe/iceberg | goal |",
        "|---|" + "---|" * (len(engines) + 2),
    ]
    ratios = summary.get("floe_over_iceberg", {})
    goals = summary.get("goals", {})
    for metric in METRICS:
        cells = [fmt(summary["values"].get(e, {}).get(metric), ".4g") for e in engines]
        goal = goals.get(metric)
        goal_text = ""
        if goal is not None:
            verdict = {True: "met", False: "MISSED", None: "n/a"}[goal["meets"]]
            goal_text = f"{'>=' if goal['at_least'] else '<='} {goal['goal']} {verdict}"
        lines.append(
            f"| {metric} | " + " | ".join(cells) + f" | {fmt(ratios.get(metric), '.3f')} | "
            f"{goal_text} |"
        )
    for run in report["runs"]:
        for step in run.get("sink", {}).get("steps", []):
            lines.append(
                f"\n{run['engine']} step {step['rate']:,} rows/s: kept up {step['kept_up']}, "
                f"{step['rows']:,} rows in {step['batches']} batches, batch p50/p99 "
                f"{fmt(step['batch_p50_ms'], '.0f')}/{fmt(step['batch_p99_ms'], '.0f')} ms, "
                f"{step['overruns']} overruns, commit p50 {fmt(step['commit_p50_ms'], '.0f')} ms"
            )
        for key in ("error", "sink_error", "read_error"):
            if key in run:
                lines.append(f"\n{run['engine']} {key}: {run[key]}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="smoke run (about 30 s)")
    parser.add_argument("--rate", type=int, default=None, help="latency rows/s (20000)")
    parser.add_argument("--latency-seconds", type=float, default=None, help="(90)")
    parser.add_argument("--step-rates", default=None, help="comma-separated rows/s")
    parser.add_argument("--step-seconds", type=float, default=None, help="(30)")
    parser.add_argument("--all-steps", action="store_true", help="run steps after a miss")
    parser.add_argument("--appends", type=int, default=None, help="(1000)")
    parser.add_argument("--rows-per-append", type=int, default=100)
    parser.add_argument("--read-reps", type=int, default=None, help="(3)")
    parser.add_argument("--engines", default="floe,iceberg", help="floe,iceberg")
    parser.add_argument("--no-sink", action="store_true", help="the read benchmark only")
    parser.add_argument("--no-read", action="store_true", help="the sink benchmark only")
    parser.add_argument("--out", type=Path, default=None, help="JSON results file")
    parser.add_argument("--dir", type=Path, default=None, help="work directory parent")
    parser.add_argument("--keep", action="store_true", help="keep the warehouse")
    parser.add_argument("--worker", choices=(*ENGINES, "prepare"), help=argparse.SUPPRESS)
    parser.add_argument("--warehouse", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--result", default=None, help=argparse.SUPPRESS)
    raw = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(raw)
    quick = args.quick
    if args.rate is None:
        args.rate = 20000
    if args.latency_seconds is None:
        args.latency_seconds = 12.0 if quick else 90.0
    if args.step_rates is None:
        full = ",".join(str(r) for r in range(100_000, 400_001, 50_000))
        args.step_rates = "40000,160000" if quick else full
    args.step_rates = [int(r) for r in str(args.step_rates).split(",") if r.strip()]
    if args.step_seconds is None:
        args.step_seconds = 6.0 if quick else 30.0
    if args.appends is None:
        args.appends = 100 if quick else 1000
    if args.read_reps is None:
        args.read_reps = 1 if quick else 3
    if args.worker is not None:
        return run_worker(args)

    import pyspark

    import floe

    sys.path.insert(0, str(ROOT / "python-tests"))
    from iceberg_runtime import VERSION

    engines = engine_list(parser, args.engines, ENGINES)
    started = time.perf_counter()
    workdir = Path(tempfile.mkdtemp(prefix="floe-bench-streaming-", dir=args.dir)).resolve()
    warehouse = workdir / "warehouse"
    warehouse.mkdir()
    runs: list[dict[str, Any]] = []
    try:
        if not args.no_read:
            prepared = run_worker_process(__file__, "prepare", raw, ["--warehouse", str(warehouse)])
            if "error" in prepared:
                raise SystemExit(f"preparing the read table failed: {prepared['error']}")
        for engine in engines:
            runs.append(run_worker_process(__file__, engine, raw, ["--warehouse", str(warehouse)]))
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    now = datetime.datetime.now(datetime.UTC)
    report: dict[str, Any] = {
        "config": {
            "quick": quick,
            "rate": args.rate,
            "latency_seconds": args.latency_seconds,
            "step_rates": args.step_rates,
            "step_seconds": args.step_seconds,
            "all_steps": args.all_steps,
            "trigger_ms": TRIGGER_MS,
            "partitions": PARTITIONS,
            "rate_partitions": RATE_PARTITIONS,
            "warmup_batches": WARMUP_BATCHES,
            "appends": args.appends,
            "rows_per_append": args.rows_per_append,
            "read_reps": args.read_reps,
            "engines": engines,
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
            "workdir": str(workdir) if args.keep else None,
        },
        "runs": runs,
    }
    report["summary"] = summarize(runs, engines)
    text = markdown(report)
    print("\n" + text)
    out = write_report(report, "streaming", now, args.out)
    out.with_suffix(".md").write_text(text, encoding="utf-8")
    print(f"wrote {out} and {out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
