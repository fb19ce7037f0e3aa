#!/usr/bin/env python3
"""Row-level operations (W6-W8; docs/benchmarks.md, 'Row-level changes'): Floe vs Iceberg's runtime.

    python bench/row_level.py [--rows 1000000] [--scan-rows 4000000] [--files 8] [--reps 7]
        [--cow-reps 3] [--merge-reps 1] [--query-reps 3] [--scan-reps 7]
        [--workloads delete,merge,scan] [--engines floe,iceberg] [--modes cow,mor-v2,mor-v3]
        [--cases NAME,...] [--out PATH] [--jfr DIR] [--dir PATH] [--keep]

A generated store_sales-like table (12 columns: 6 BIGINT/INT, 2 DECIMAL, a DATE that grows with
the key, 3 STRING; ``--files`` files of contiguous keys) is created by the same CTAS in each
engine (Floe, Iceberg) and each mode: ``cow`` (format v2, copy-on-write), ``mor-v2``
(merge-on-read, Parquet position deletes), ``mor-v3`` (merge-on-read, deletion vectors), so both
engines hold the same rows in the same files. Before every measurement a table is restored to
that first snapshot (its directory is copied back; data files are hard links): each measurement
starts from a fresh copy. Spark ``local[2]``, one session, UI off, both engines in it,
interleaved (ABC/CBA) from rep to rep. Times are wall times; each is also given as JVM CPU time
(all threads of the local-mode JVM), which a busy shared box disturbs much less.

* W6 DELETE (``--rows``): ``scatter_0.1pct``, ``scatter_1pct``, ``scatter_10pct`` (a hash of
  the key: every file is touched) and ``cluster_1pct`` (a 1% date range inside one file). Best
  of ``--reps`` (``--cow-reps`` for cow) after one unmeasured warm-up delete per table.
  Reported: time, bytes and files added (the snapshot summary's ``added-files-size``,
  ``added-data-files`` + ``added-delete-files``; and the new files on disk), and
  Floe / min(Iceberg modes). Goal: <= 0.7 at every point.
* W7 MERGE (``--rows``): 10 rounds, each upserting 1% of the rows (2/3 updates of scattered
  existing keys, 1/3 inserts of new keys) from a Parquet source written once; total and
  per-round time, max/median round, the LST-Bench degradation rate, and 4 fixed queries (best
  of ``--query-reps``) before the first and after the last round. ``--merge-reps`` series, the
  best total kept. Goals: total Floe / min(Iceberg modes) <= 0.6; max round <= 2x median round;
  post/pre query time <= 1.10 and <= 0.5x Iceberg's post-merge query time.
* W8 scan overhead (``--scan-rows``, mor-v3 tables of their own): after DELETE of 0.1%, 1%, 10%
  scattered rows (no compaction), a narrow (one BIGINT) and a wide (all 12 columns) full scan
  against the same table's snapshot before the delete (``VERSION AS OF``), the two back to back
  in ABBA order; best of ``--scan-reps`` pairs each (3x as many for the narrow scan), plus the
  median of the paired ratios. Goals: Floe overhead <= 3% at <= 1% deleted, <= 10% at 10%;
  <= 0.5x Iceberg's overhead (narrow).

Row counts, checksums and query answers are compared across engines and modes (and with the
generated data); a mismatch stops the run. An engine/mode whose statement fails is reported with
its error and skipped for the rest of that workload. ``--cases`` limits W6 and W8 to some cases
(e.g. ``scatter_1pct,1pct``). ``--jfr DIR`` writes a JFR recording (settings "profile") of each
measured Floe statement and W8 scan to DIR. Iceberg is skipped when its runtime jar
(python-tests/iceberg_runtime.py, cached in ~/.cache/floe) is unavailable. The Floe jar is the
bundled one or ``$FLOE_JAR``. Results go to stdout and to ``--out`` (default
bench/out/row_level-*.json).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench_session import DRIVER_MEMORY, gc_seconds, progress, ratio, spark_conf, write_report
from store_sales import (
    SCANS,
    cluster_days,
    cluster_predicate,
    day,
    scatter_predicate,
    source_sql,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parent.parent
MASTER = "local[2]"
ENGINES = ("floe", "iceberg")
#: mode name -> (write.*.mode, format version)
MODES = {
    "cow": ("copy-on-write", 2),
    "mor-v2": ("merge-on-read", 2),
    "mor-v3": ("merge-on-read", 3),
}
WORKLOADS = ("delete", "merge", "scan")
TARGET_FILE_BYTES = 128 * 1024 * 1024
MERGE_ROUNDS = 10
GOALS = {
    "delete_vs_iceberg_best": 0.7,
    "merge_total_vs_iceberg_best": 0.6,
    "merge_max_over_median_round": 2.0,
    "merge_post_over_pre_query": 1.10,
    "merge_post_query_vs_iceberg": 0.5,
    "scan_overhead_le_1pct": 0.03,
    "scan_overhead_10pct": 0.10,
    "scan_overhead_vs_iceberg_narrow": 0.5,
}
#: snapshot summary keys kept in the report
SUMMARY_KEYS = (
    "added-data-files", "deleted-data-files", "added-delete-files", "removed-delete-files",
    "added-position-delete-files", "added-dvs", "removed-dvs", "added-records", "deleted-records",
    "added-position-deletes", "added-files-size", "removed-files-size", "total-delete-files",
)  # fmt: skip


def delete_cases(files: int) -> dict[str, str]:
    """DELETE case -> predicate. Scattered: a hash of the key, so every file holds matches."""
    return {
        "scatter_0.1pct": scatter_predicate(10),
        "scatter_1pct": scatter_predicate(100),
        "scatter_10pct": scatter_predicate(1000),
        "cluster_1pct": cluster_predicate(files),
    }


SCAN_LEVELS = {"0.1pct": "scatter_0.1pct", "1pct": "scatter_1pct", "10pct": "scatter_10pct"}
#: measured pairs per rep: a narrow scan takes a tenth of a wide one and is the noisier
SCAN_REPEATS = {"narrow": 3, "wide": 1}
CHECKSUM = "SELECT count(*), bit_xor(xxhash64(*)) FROM {src}"


def merge_queries(rows: int, files: int) -> dict[str, str]:
    first, last = cluster_days(files)
    return {
        "q_scan": "SELECT count(*), sum(ss_quantity), sum(ss_sales_price) FROM {src}",
        "q_group": "SELECT ss_store_sk, count(*), sum(ss_net_profit) FROM {src} "
        "GROUP BY ss_store_sk ORDER BY ss_store_sk",
        "q_range": "SELECT count(*), sum(ss_quantity), max(ss_note) FROM {src} "
        f"WHERE ss_sold_date >= {day(first)} AND ss_sold_date < {day(last)}",
        "q_point": "SELECT * FROM {src} WHERE ss_id = " + str((rows * 3) // 7),
    }


@dataclass
class System:
    """One table: an engine in a mode."""

    engine: str
    mode: str
    table: str
    rows: int
    directory: Path = Path()
    pristine: Path = Path()
    base_snapshot: int = 0
    error: str | None = None
    errors: dict[str, str] = field(default_factory=dict)  # workload -> first error

    @property
    def key(self) -> str:
        return f"{self.engine}/{self.mode}"


def short_error(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text[:300] + (" ..." if len(text) > 300 else "")


def replace_tree(src: Path, dst: Path) -> None:
    """Makes ``dst`` a copy of the table directory ``src``. Data files are immutable: they are
    hard-linked; everything else is copied (a writer may rewrite a metadata file in place, which
    must not alter the other copy)."""

    def link_or_copy(file: str, target: str) -> None:
        if Path(file).relative_to(src).parts[0] == "data":
            with contextlib.suppress(OSError):
                os.link(file, target)
                return
        shutil.copy2(file, target)

    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, copy_function=link_or_copy)


def listing(directory: Path) -> dict[str, int]:
    return {
        str(p.relative_to(directory)): p.stat().st_size
        for p in directory.rglob("*")
        if p.is_file() and not p.name.startswith(".")
    }


def interleaved(items: list[System], rep: int) -> list[System]:
    return items if rep % 2 == 0 else list(reversed(items))


class JvmCpu:
    """CPU time of the driver JVM (in local mode: the executors too), summed over its threads
    from /proc/<pid>/task/*/schedstat (ns). Much less sensitive than wall time to other load on
    a shared box. CPU of threads that exit between two readings is lost (Spark's task and IO
    threads are pooled, so little is). ``None`` where /proc is unavailable."""

    def __init__(self, pid: int) -> None:
        self.tasks = Path(f"/proc/{pid}/task")

    def read(self) -> dict[str, int] | None:
        if not self.tasks.is_dir():
            return None
        ns: dict[str, int] = {}
        for task in self.tasks.iterdir():
            with contextlib.suppress(OSError, ValueError, IndexError):
                ns[task.name] = int((task / "schedstat").read_text().split()[0])
        return ns

    @staticmethod
    def seconds(before: dict[str, int] | None, after: dict[str, int] | None) -> float | None:
        if before is None or after is None:
            return None
        return sum(max(0, v - before.get(t, 0)) for t, v in after.items()) / 1e9


@dataclass
class Run:
    """One timed statement or query."""

    seconds: float
    cpu_seconds: float | None
    result: Any


class Bench:
    def __init__(self, spark: SparkSession, args: argparse.Namespace, workdir: Path) -> None:
        self.spark = spark
        self.args = args
        self.rows: int = args.rows
        self.files: int = args.files
        self.workdir = workdir
        self.jfr: Path | None = args.jfr
        self.systems: list[System] = []  # W6, W7: --rows, every --modes
        self.scan_systems: list[System] = []  # W8: --scan-rows, mor-v3
        self.report: dict[str, Any] = {"setup": {}, "errors": {}}
        self.engines: list[str] = list(args.engines)
        self.cpu = JvmCpu(int(self.jvm.ProcessHandle.current().pid()))

    # ---- helpers -----------------------------------------------------------------------------

    @property
    def jvm(self) -> Any:
        return self.spark._jvm

    def sql_rows(self, sql: str) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in self.spark.sql(sql).collect()]

    def run(self, sql: str, system: System | None = None, label: str = "") -> Run:
        """Runs ``sql`` to completion (collecting its rows); wall and JVM CPU time. A JFR
        recording covers it when --jfr is set and ``system`` is Floe."""
        recording = self.start_recording(system)
        cpu_before = self.cpu.read()
        start = time.perf_counter()
        rows = self.spark.sql(sql).collect()
        seconds = time.perf_counter() - start
        cpu = JvmCpu.seconds(cpu_before, self.cpu.read())
        self.stop_recording(recording, system, label)
        return Run(seconds, cpu, [tuple(r) for r in rows])

    def location(self, table: str) -> Path:
        from floe.inspect import metadata_file

        for row in self.spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect():
            if row[0] == "Location":
                return Path(metadata_file(str(row[1])).parent.parent)
        raise SystemExit(f"Cannot find the location of {table}")

    def snapshot(self, system: System) -> dict[str, Any]:
        from floe.inspect import find_snapshot, load_table_metadata

        found: dict[str, Any] | None = find_snapshot(load_table_metadata(str(system.directory)))
        if found is None:
            raise SystemExit(f"{system.table} has no snapshot")
        return found

    def start_recording(self, system: System | None) -> Any:
        """A started JFR recording (settings "profile") when --jfr is set and this is Floe."""
        if self.jfr is None or system is None or system.engine != "floe":
            return None
        jfr = self.jvm.jdk.jfr
        recording = jfr.Recording(jfr.Configuration.getConfiguration("profile"))
        # statements take a fraction of a second: sample every 2 ms, not every 10-20 ms
        period = self.jvm.java.time.Duration.ofMillis(2)
        recording.enable("jdk.ExecutionSample").withPeriod(period)
        recording.start()
        return recording

    def stop_recording(self, recording: Any, system: System | None, label: str) -> None:
        if recording is None or self.jfr is None or system is None:
            return
        recording.stop()
        self.jfr.mkdir(parents=True, exist_ok=True)
        target = self.jfr / f"{label}-{system.engine}-{system.mode}-{time.time_ns()}.jfr"
        recording.dump(self.jvm.java.io.File(str(target)).toPath())
        recording.close()

    def restore(self, system: System) -> None:
        replace_tree(system.pristine, system.directory)

    def measured(self, system: System, label: str, sql: str) -> dict[str, Any]:
        """Runs one DML statement on ``system``: its wall, CPU and GC time, the snapshot summary
        and the files it added on disk."""
        before_files = listing(system.directory)
        before_snapshot = self.snapshot(system)["snapshot-id"]
        gc_before = gc_seconds(self.spark)
        run = self.run(sql, system, label)
        gc = gc_seconds(self.spark) - gc_before
        snap = self.snapshot(system)
        if snap["snapshot-id"] == before_snapshot:
            raise RuntimeError(f"{system.table}: the statement committed no snapshot")
        new = {p: s for p, s in listing(system.directory).items() if p not in before_files}
        summary = snap.get("summary", {})
        counts = {k: int(summary[k]) for k in SUMMARY_KEYS if k in summary}
        return {
            "seconds": run.seconds,
            "cpu_seconds": run.cpu_seconds,
            "gc_seconds": gc,
            "operation": summary.get("operation"),
            "files_added": counts.get("added-data-files", 0) + counts.get("added-delete-files", 0),
            "bytes_added": counts.get("added-files-size", 0),
            "summary": counts,
            "new_files_on_disk": sum(1 for p in new if not p.startswith("metadata")),
            "new_bytes_on_disk": sum(s for p, s in new.items() if not p.startswith("metadata")),
            "new_metadata_bytes": sum(s for p, s in new.items() if p.startswith("metadata")),
        }

    def active(self, systems: list[System], workload: str) -> list[System]:
        return [s for s in systems if s.error is None and workload not in s.errors]

    def fail(self, system: System, workload: str, e: BaseException) -> None:
        system.errors[workload] = short_error(e)
        progress(f"  {system.key} {workload} FAILED: {system.errors[workload]}")
        with contextlib.suppress(OSError):
            self.restore(system)

    def case_selected(self, *names: str) -> bool:
        return not self.args.cases or any(n in self.args.cases for n in names)

    # ---- setup -------------------------------------------------------------------------------

    def create(self, prefix: str, modes: list[str], rows: int) -> list[System]:
        """Creates ``<engine>.bench.<prefix>_<mode>`` for every engine and mode by the same CTAS,
        keeps a pristine copy of each, and checks that all hold the generated rows. Engines
        alternate: floe/cow, iceberg/cow, floe/mor-v2, ..."""
        systems = [
            System(engine, mode, f"{engine}.bench.{prefix}_{mode.replace('-', '_')}", rows)
            for mode in modes
            for engine in self.engines
        ]
        source = source_sql(rows, self.files)
        for system in systems:
            write_mode, version = MODES[system.mode]
            props = {
                "format-version": str(version),
                "write.delete.mode": write_mode,
                "write.update.mode": write_mode,
                "write.merge.mode": write_mode,
                "write.parquet.compression-codec": "zstd",
                "write.target-file-size-bytes": str(TARGET_FILE_BYTES),
                "write.parquet.row-group-size-bytes": str(TARGET_FILE_BYTES),
            }
            tblprops = ", ".join(f"'{k}' = '{v}'" for k, v in props.items())
            using = "floe" if system.engine == "floe" else "iceberg"
            self.spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {system.engine}.bench")
            self.spark.sql(f"DROP TABLE IF EXISTS {system.table}")
            try:
                run = self.run(
                    f"CREATE TABLE {system.table} USING {using} TBLPROPERTIES ({tblprops}) "
                    f"AS {source}"
                )
            except Exception as e:
                system.error = f"CREATE failed: {short_error(e)}"
                self.report["errors"][f"{prefix}:{system.key}"] = system.error
                progress(f"{system.table}: {system.error}")
                continue
            system.directory = self.location(system.table)
            system.base_snapshot = int(self.snapshot(system)["snapshot-id"])
            system.pristine = self.workdir / "pristine" / f"{prefix}_{system.engine}_{system.mode}"
            replace_tree(system.directory, system.pristine)
            data_files = len([p for p in listing(system.directory) if p.startswith("data")])
            self.report["setup"][f"{system.table}"] = {
                "rows": rows,
                "create_seconds": run.seconds,
                "data_files": data_files,
            }
            progress(f"created {system.table}: {data_files} files in {run.seconds:.1f}s")
        expected = self.sql_rows(CHECKSUM.format(src=f"({source})"))[0]
        for system in self.active(systems, "create"):
            got = self.sql_rows(CHECKSUM.format(src=system.table))[0]
            if got != expected:
                raise SystemExit(f"{system.table}: checksum {got}, generated rows {expected}")
        return systems

    # ---- W6 DELETE ---------------------------------------------------------------------------

    def run_delete(self) -> None:
        cases = {k: v for k, v in delete_cases(self.files).items() if self.case_selected(k)}
        source = source_sql(self.rows, self.files)
        remaining = {
            name: self.rows - int(self.sql_rows(f"SELECT count(*) FROM ({source}) WHERE {p}")[0][0])
            for name, p in cases.items()
        }
        progress("W6 DELETE: warm-up")
        warm_up = next(iter(cases.values()))
        for system in self.active(self.systems, "delete"):  # one unmeasured delete per table
            try:
                self.spark.sql(f"DELETE FROM {system.table} WHERE {warm_up}")
                self.restore(system)
            except Exception as e:
                self.fail(system, "delete", e)
        results: dict[str, Any] = {}
        reps = {
            s.key: self.args.cow_reps if s.mode == "cow" else self.args.reps for s in self.systems
        }
        for name, predicate in cases.items():
            runs: dict[str, list[dict[str, Any]]] = {s.key: [] for s in self.systems}
            for rep in range(max(reps.values())):
                for system in interleaved(self.active(self.systems, "delete"), rep):
                    if rep >= reps[system.key]:
                        continue
                    sql = f"DELETE FROM {system.table} WHERE {predicate}"
                    try:
                        m = self.measured(system, f"delete_{name}", sql)
                        if rep == reps[system.key] - 1:
                            count = self.sql_rows(f"SELECT count(*) FROM {system.table}")[0][0]
                            if count != remaining[name]:
                                raise SystemExit(
                                    f"{system.table} after DELETE {name}: {count} rows, "
                                    f"expected {remaining[name]}"
                                )
                        self.restore(system)
                    except SystemExit:
                        raise
                    except Exception as e:
                        self.fail(system, "delete", e)
                        continue
                    runs[system.key].append(m)
                    cpu = m["cpu_seconds"]
                    progress(
                        f"  DELETE {name} {system.key} rep {rep}: {m['seconds']:.2f}s"
                        + ("" if cpu is None else f" (cpu {cpu:.2f}s)")
                    )
            results[name] = summarize_delete(predicate, self.rows - remaining[name], runs)
        self.report["delete"] = results

    # ---- W7 MERGE ----------------------------------------------------------------------------

    def merge_sources(self) -> list[str]:
        """Writes each round's source once (Parquet, read by both engines); returns view names.
        Round 0 is the warm-up: 1,000 updates inside the first file and 500 inserts."""
        inserts = self.rows // 300
        names = []
        for r in range(MERGE_ROUNDS + 1):
            path = self.workdir / "merge-sources" / f"r{r}"
            if r == 0:
                updates = source_sql(self.rows, 1, 0, 1000, tag=99)
                new = source_sql(self.rows, 1, 10 * self.rows, 10 * self.rows + 500)
            else:
                updates = (
                    f"SELECT * FROM ({source_sql(self.rows, self.files, tag=r)}) "
                    f"WHERE pmod(xxhash64(ss_id, {1000 + r}), 150) = 0"
                )
                start = self.rows + (r - 1) * inserts
                new = source_sql(self.rows, 1, start, start + inserts)
            if not path.exists():
                self.spark.sql(f"{updates} UNION ALL {new}").coalesce(1).write.option(
                    "compression", "zstd"
                ).parquet(str(path))
            name = f"merge_src_{r}"
            self.spark.read.parquet(str(path)).createOrReplaceTempView(name)
            names.append(name)
        return names

    def query_times(self, systems: list[System], queries: dict[str, str]) -> dict[str, Any]:
        """Best-of --query-reps time of each query on each system, answers compared."""
        times = {s.key: {q: list[float]() for q in queries} for s in systems}
        answers: dict[str, dict[str, Any]] = {q: {} for q in queries}
        for system in systems:  # warm-up
            for sql in queries.values():
                self.run(sql.format(src=system.table))
        for rep in range(self.args.query_reps):
            for system in interleaved(systems, rep):
                for q, sql in queries.items():
                    run = self.run(sql.format(src=system.table))
                    times[system.key][q].append(run.seconds)
                    answers[q][system.key] = sorted(run.result, key=repr)
        for q, by_system in answers.items():
            if len({repr(v) for v in by_system.values()}) > 1:
                raise SystemExit(f"query {q} answers differ: {by_system}")
        return {
            key: {
                "best_seconds": {q: min(v) for q, v in by_q.items()},
                "total_best_seconds": sum(min(v) for v in by_q.values()),
            }
            for key, by_q in times.items()
        }

    @staticmethod
    def merge_sql(system: System, view: str) -> str:
        return (
            f"MERGE INTO {system.table} t USING {view} s ON t.ss_id = s.ss_id "
            "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
        )

    def run_merge(self) -> None:
        progress("W7 MERGE: writing sources")
        views = self.merge_sources()
        queries = merge_queries(self.rows, self.files)
        progress("W7 MERGE: warm-up")
        for system in self.active(self.systems, "merge"):
            try:
                self.spark.sql(self.merge_sql(system, views[0]))
                self.restore(system)
            except Exception as e:
                self.fail(system, "merge", e)
        progress("W7 MERGE: queries before")
        before = self.query_times(self.active(self.systems, "merge"), queries)
        series: dict[str, list[list[dict[str, Any]]]] = {s.key: [] for s in self.systems}
        for rep in range(self.args.merge_reps):
            for system in self.active(self.systems, "merge"):
                self.restore(system)
            rounds: dict[str, list[dict[str, Any]]] = {s.key: [] for s in self.systems}
            for r in range(1, MERGE_ROUNDS + 1):
                # engines interleaved per round, so drift on the box hits all of them alike
                for system in interleaved(self.active(self.systems, "merge"), rep + r):
                    try:
                        m = self.measured(system, f"merge_r{r}", self.merge_sql(system, views[r]))
                    except Exception as e:
                        self.fail(system, "merge", e)
                        continue
                    rounds[system.key].append(m)
                    progress(f"  MERGE round {r} {system.key} rep {rep}: {m['seconds']:.2f}s")
            for system in self.active(self.systems, "merge"):
                series[system.key].append(rounds[system.key])
        done = self.active(self.systems, "merge")
        # the tables hold the result of the last series: compare them, time the queries after
        checks = {s.key: self.sql_rows(CHECKSUM.format(src=s.table))[0] for s in done}
        if len(set(checks.values())) > 1:
            raise SystemExit(f"MERGE results differ: {checks}")
        progress("W7 MERGE: queries after")
        after = self.query_times(done, queries)
        results: dict[str, Any] = {
            "queries": queries,
            "rows_after": next(iter(checks.values()))[0] if checks else None,
            "expected_rows_after": self.rows + MERGE_ROUNDS * (self.rows // 300),
            "systems": {},
        }
        if checks and results["rows_after"] != results["expected_rows_after"]:
            raise SystemExit(
                f"MERGE left {results['rows_after']} rows, expected "
                f"{results['expected_rows_after']}"
            )
        for system in done:
            results["systems"][system.key] = summarize_merge(
                series[system.key], before[system.key], after[system.key]
            )
        res = results["systems"]
        iceberg = {k: v for k, v in res.items() if k.startswith("iceberg/")}
        if iceberg:
            best_mode = min(iceberg, key=lambda k: iceberg[k]["total_seconds"])
            best_query = min(v["query_after"]["total_best_seconds"] for v in iceberg.values())
            cpu_best = min_or_none(v["total_cpu_seconds"] for v in iceberg.values())
            results["iceberg_best"] = {
                "mode": best_mode,
                "total_seconds": iceberg[best_mode]["total_seconds"],
                "total_cpu_seconds_best_mode": cpu_best,
                "post_query_seconds_best_mode": best_query,
            }
            for k, v in res.items():
                if k.startswith("floe/"):
                    v["total_over_iceberg_best"] = (
                        v["total_seconds"] / iceberg[best_mode]["total_seconds"]
                    )
                    v["cpu_over_iceberg_best"] = ratio(v["total_cpu_seconds"], cpu_best)
                    v["post_query_over_iceberg_best"] = (
                        v["query_after"]["total_best_seconds"] / best_query
                    )
        self.report["merge"] = results

    # ---- W8 scan overhead --------------------------------------------------------------------

    def run_scan(self) -> None:
        cases = delete_cases(self.files)
        rows = self.args.scan_rows
        source = source_sql(rows, self.files)
        results: dict[str, Any] = {"rows": rows, "levels": {}}
        variants = {"base": "{t} VERSION AS OF {v}", "deleted": "{t}"}
        for level, case in SCAN_LEVELS.items():
            if not self.case_selected(case, level):
                continue
            ready = []
            for system in self.active(self.scan_systems, "scan"):
                try:
                    self.restore(system)
                    self.spark.sql(f"DELETE FROM {system.table} WHERE {cases[case]}")
                    ready.append(system)
                except Exception as e:
                    self.fail(system, "scan", e)
            progress(f"W8 scan after {level} deleted: {[s.key for s in ready]}")
            runs: dict[str, dict[str, dict[str, list[Run]]]] = {
                s.key: {scan: {v: [] for v in variants} for scan in SCANS} for s in ready
            }
            answers: dict[str, dict[str, Any]] = {}
            for system in ready:  # warm-up
                for template in variants.values():
                    src = template.format(t=system.table, v=system.base_snapshot)
                    for sql in SCANS.values():
                        self.run(sql.format(src=src))
            for rep in range(self.args.scan_reps):
                for system in interleaved(ready, rep):
                    for scan, sql in SCANS.items():
                        for i in range(SCAN_REPEATS[scan]):
                            # base and deleted back to back, in ABBA order
                            order = (
                                list(variants) if (rep + i) % 2 == 0 else list(reversed(variants))
                            )
                            for variant in order:
                                src = variants[variant].format(
                                    t=system.table, v=system.base_snapshot
                                )
                                run = self.run(
                                    sql.format(src=src), system, f"scan_{level}_{variant}_{scan}"
                                )
                                runs[system.key][scan][variant].append(run)
                                answers.setdefault(f"{variant}/{scan}", {})[system.key] = run.result
            expected = {
                "base/narrow": self.sql_rows(SCANS["narrow"].format(src=f"({source})")),
                "deleted/narrow": self.sql_rows(
                    SCANS["narrow"].format(src=f"({source}) WHERE NOT ({cases[case]})")
                ),
            }
            for what, by_system in answers.items():
                values = {repr(v) for v in by_system.values()}
                if what in expected:
                    values.add(repr(expected[what]))
                if len(values) > 1:
                    raise SystemExit(
                        f"scan {what} after {level} deleted differs: {by_system}, "
                        f"expected {expected.get(what)}"
                    )
            results["levels"][level] = {
                key: {scan: summarize_scan(by_variant) for scan, by_variant in by_scan.items()}
                for key, by_scan in runs.items()
            }
        for system in self.scan_systems:
            if system.error is None:
                self.restore(system)
        self.report["scan"] = results


def min_or_none(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return min(present) if present else None


def summarize_delete(
    predicate: str, deleted: int, runs: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    systems: dict[str, Any] = {}
    for key, ms in runs.items():
        if not ms:
            continue
        fastest = min(ms, key=lambda m: m["seconds"])
        systems[key] = {
            "best_seconds": fastest["seconds"],
            "median_seconds": statistics.median(m["seconds"] for m in ms),
            "best_cpu_seconds": min_or_none(m["cpu_seconds"] for m in ms),
            "runs": ms,
            **{k: fastest[k] for k in ("files_added", "bytes_added", "new_bytes_on_disk")},
        }
    entry: dict[str, Any] = {"predicate": predicate, "rows_deleted": deleted, "systems": systems}
    iceberg = {k: v for k, v in systems.items() if k.startswith("iceberg/")}
    if iceberg:
        best_mode = min(iceberg, key=lambda k: iceberg[k]["best_seconds"])
        best_cpu = min_or_none(v["best_cpu_seconds"] for v in iceberg.values())
        entry["iceberg_best"] = {
            "mode": best_mode,
            "seconds": iceberg[best_mode]["best_seconds"],
            "cpu_seconds": best_cpu,
        }
        for key, v in systems.items():
            if key.startswith("floe/"):
                v["over_iceberg_best"] = v["best_seconds"] / iceberg[best_mode]["best_seconds"]
                v["cpu_over_iceberg_best"] = ratio(v["best_cpu_seconds"], best_cpu)
                if "iceberg/cow" in iceberg:
                    v["over_iceberg_cow"] = (
                        v["best_seconds"] / iceberg["iceberg/cow"]["best_seconds"]
                    )
                same = iceberg.get("iceberg/" + key.split("/")[1])
                if same:
                    v["over_iceberg_same_mode"] = v["best_seconds"] / same["best_seconds"]
                    v["bytes_over_iceberg_same_mode"] = ratio(
                        v["bytes_added"], same["bytes_added"]
                    )
    return entry


def summarize_merge(
    series: list[list[dict[str, Any]]], before: dict[str, Any], after: dict[str, Any]
) -> dict[str, Any]:
    fastest = min(series, key=lambda ms: sum(m["seconds"] for m in ms))
    per_round = [m["seconds"] for m in fastest]
    median = statistics.median(per_round)
    degradation = sum(
        (per_round[i] - per_round[i - 1]) / per_round[i - 1] for i in range(1, len(per_round))
    ) / max(1, len(per_round) - 1)
    cpus = [m["cpu_seconds"] for m in fastest]
    return {
        "total_seconds": sum(per_round),
        "totals_of_series": [sum(m["seconds"] for m in ms) for ms in series],
        "total_cpu_seconds": None if None in cpus else sum(c for c in cpus if c is not None),
        "round_seconds": per_round,
        "median_round_seconds": median,
        "max_round_seconds": max(per_round),
        "max_over_median": max(per_round) / median,
        "degradation_rate": degradation,
        "gc_seconds": sum(m["gc_seconds"] for m in fastest),
        "bytes_added": sum(m["bytes_added"] for m in fastest),
        "files_added": sum(m["files_added"] for m in fastest),
        "rounds": fastest,
        "query_before": before,
        "query_after": after,
        "query_post_over_pre": after["total_best_seconds"] / before["total_best_seconds"],
    }


def summarize_scan(by_variant: dict[str, list[Run]]) -> dict[str, Any]:
    base, deleted = by_variant["base"], by_variant["deleted"]
    out: dict[str, Any] = {
        "base_best_seconds": min(r.seconds for r in base),
        "deleted_best_seconds": min(r.seconds for r in deleted),
        "base_seconds": [r.seconds for r in base],
        "deleted_seconds": [r.seconds for r in deleted],
        # robust to load drifting on a shared box: the median of back-to-back pairs
        "paired_median_overhead": statistics.median(
            d.seconds / b.seconds for d, b in zip(deleted, base, strict=True)
        )
        - 1.0,
    }
    out["overhead"] = out["deleted_best_seconds"] / out["base_best_seconds"] - 1.0
    base_cpu = [r.cpu_seconds for r in base if r.cpu_seconds is not None]
    deleted_cpu = [r.cpu_seconds for r in deleted if r.cpu_seconds is not None]
    if base_cpu and deleted_cpu and len(base_cpu) == len(deleted_cpu):
        out["base_cpu_seconds"] = base_cpu
        out["deleted_cpu_seconds"] = deleted_cpu
        out["cpu_overhead"] = min(deleted_cpu) / min(base_cpu) - 1.0
        out["cpu_paired_median_overhead"] = (
            statistics.median(d / b for d, b in zip(deleted_cpu, base_cpu, strict=True) if b > 0)
            - 1.0
        )
    return out


# ---- report --------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "meets" if ok else "MISSES"


def goals(report: dict[str, Any]) -> dict[str, Any]:
    """The goal checks of W6-W8 (docs/benchmarks.md, 'Row-level changes') for each Floe mode
    (mor-v3 is the headline)."""
    out: dict[str, Any] = {}
    if "delete" in report:
        per_mode: dict[str, dict[str, float]] = {}
        for case, entry in report["delete"].items():
            for key, v in entry["systems"].items():
                if "over_iceberg_best" in v:
                    per_mode.setdefault(key, {})[case] = v["over_iceberg_best"]
        limit = GOALS["delete_vs_iceberg_best"]
        out["delete"] = {
            key: {"ratios": r, "worst_ratio": max(r.values()), "meets": max(r.values()) <= limit}
            for key, r in per_mode.items()
        }
    if "merge" in report:
        out["merge"] = {
            k: {
                "ratio": v["total_over_iceberg_best"],
                "meets": v["total_over_iceberg_best"] <= GOALS["merge_total_vs_iceberg_best"],
                "max_over_median_round": v["max_over_median"],
                "meets_no_pathology": v["max_over_median"] <= GOALS["merge_max_over_median_round"],
                "query_post_over_pre": v["query_post_over_pre"],
                "meets_post_over_pre": v["query_post_over_pre"]
                <= GOALS["merge_post_over_pre_query"],
                "post_query_over_iceberg_best": v["post_query_over_iceberg_best"],
                "meets_post_query_vs_iceberg": v["post_query_over_iceberg_best"]
                <= GOALS["merge_post_query_vs_iceberg"],
            }
            for k, v in report["merge"]["systems"].items()
            if "total_over_iceberg_best" in v
        }
    if "scan" in report:
        checks: dict[str, Any] = {}
        for level, entry in report["scan"]["levels"].items():
            floe = entry.get("floe/mor-v3")
            if not floe:
                continue
            limit = GOALS["scan_overhead_10pct" if level == "10pct" else "scan_overhead_le_1pct"]
            check: dict[str, Any] = {
                "limit": limit,
                "overhead": {s: floe[s]["overhead"] for s in SCANS},
                "meets": all(floe[s]["overhead"] <= limit for s in SCANS),
            }
            iceberg = entry.get("iceberg/mor-v3")
            if iceberg:
                i_over = iceberg["narrow"]["overhead"]
                check["iceberg_narrow_overhead"] = i_over
                check["meets_vs_iceberg_narrow"] = floe["narrow"]["overhead"] <= max(
                    0.0, GOALS["scan_overhead_vs_iceberg_narrow"] * i_over
                )
            checks[level] = check
        out["scan"] = checks
    return out


def fmt(value: float | None, spec: str) -> str:
    return "" if value is None else format(value, spec)


def print_report(report: dict[str, Any]) -> None:
    cfg = report["config"]
    print(
        f"\nrow_level: {cfg['rows']:,} rows (W8: {cfg['scan_rows']:,}), {cfg['files']} files, "
        f"local[2]; best of {cfg['reps']} (DELETE; cow {cfg['cow_reps']}), {cfg['merge_reps']} "
        f"(MERGE series), {cfg['query_reps']} (W7 queries), {cfg['scan_reps']} (W8 scans)"
    )
    for key, error in report.get("errors", {}).items():
        print(f"  {key}: {error}")
    if "delete" in report:
        print(
            "\nW6 DELETE  (files+/bytes+: snapshot summary; disk+: new files on disk; "
            "ratio: / min(Iceberg modes), wall and JVM CPU)"
        )
        print(f"{'case':<15} {'system':<15} {'best s':>7} {'med s':>7} {'cpu s':>6} {'files+':>6} "
              f"{'bytes+':>11} {'disk+':>11} {'ratio':>6} {'cpu r':>6}")  # fmt: skip
        for case, entry in report["delete"].items():
            for key, r in entry["systems"].items():
                print(
                    f"{case:<15} {key:<15} {r['best_seconds']:>7.3f} {r['median_seconds']:>7.3f} "
                    f"{fmt(r['best_cpu_seconds'], '.2f'):>6} {r['files_added']:>6} "
                    f"{r['bytes_added']:>11,} {r['new_bytes_on_disk']:>11,} "
                    f"{fmt(r.get('over_iceberg_best'), '.3f'):>6} "
                    f"{fmt(r.get('cpu_over_iceberg_best'), '.3f'):>6}"
                )
    if "merge" in report:
        print(
            "\nW7 MERGE  (10 rounds x 1% upsert; q = sum of the best times of 4 fixed queries; "
            "/I: total / min(Iceberg modes))"
        )
        print(f"{'system':<15} {'total s':>8} {'cpu s':>7} {'median':>7} {'max':>6} {'max/med':>7} "
              f"{'degr':>6} {'files+':>6} {'q pre':>6} {'q post':>6} {'post/pre':>8} "
              f"{'/I':>6} {'cpu /I':>6}")  # fmt: skip
        for key, r in report["merge"]["systems"].items():
            print(
                f"{key:<15} {r['total_seconds']:>8.2f} {fmt(r['total_cpu_seconds'], '.2f'):>7} "
                f"{r['median_round_seconds']:>7.2f} {r['max_round_seconds']:>6.2f} "
                f"{r['max_over_median']:>7.2f} {r['degradation_rate']:>6.3f} "
                f"{r['files_added']:>6} {r['query_before']['total_best_seconds']:>6.2f} "
                f"{r['query_after']['total_best_seconds']:>6.2f} {r['query_post_over_pre']:>8.3f} "
                f"{fmt(r.get('total_over_iceberg_best'), '.3f'):>6} "
                f"{fmt(r.get('cpu_over_iceberg_best'), '.3f'):>6}"
            )
    if "scan" in report:
        print(
            f"\nW8 scan overhead on mor-v3, {report['scan']['rows']:,} rows (deleted / the same "
            "table before the delete; best: of best times; paired: median of back-to-back "
            "ratios; cpu: paired, JVM CPU)"
        )
        print(f"{'deleted':<8} {'system':<15} {'scan':<7} {'base s':>7} {'deleted':>8} "
              f"{'best':>7} {'paired':>7} {'cpu':>7}")  # fmt: skip
        for level, entry in report["scan"]["levels"].items():
            for key, by_scan in entry.items():
                for scan, r in by_scan.items():
                    print(
                        f"{level:<8} {key:<15} {scan:<7} {r['base_best_seconds']:>7.3f} "
                        f"{r['deleted_best_seconds']:>8.3f} {r['overhead']:>7.1%} "
                        f"{r['paired_median_overhead']:>7.1%} "
                        f"{fmt(r.get('cpu_paired_median_overhead'), '.1%'):>7}"
                    )
    g = report.get("goals", {})
    if any(g.values()):
        print("\nGoals (wall time, best of reps)")
    for key, c in g.get("delete", {}).items():
        print(
            f"  DELETE {key} / min(Iceberg modes): worst {c['worst_ratio']:.3f} (<= 0.7): "
            f"{verdict(c['meets'])}"
        )
    for key, c in g.get("merge", {}).items():
        print(
            f"  MERGE {key}: total / min(Iceberg modes) {c['ratio']:.3f} (<= 0.6): "
            f"{verdict(c['meets'])}; max/median round {c['max_over_median_round']:.2f} (<= 2): "
            f"{verdict(c['meets_no_pathology'])}; post/pre query {c['query_post_over_pre']:.3f} "
            f"(<= 1.10): {verdict(c['meets_post_over_pre'])}; post query / Iceberg's "
            f"{c['post_query_over_iceberg_best']:.3f} (<= 0.5): "
            f"{verdict(c['meets_post_query_vs_iceberg'])}"
        )
    for level, c in g.get("scan", {}).items():
        line = (
            f"  SCAN floe/mor-v3 after {level}: overhead narrow {c['overhead']['narrow']:.1%}, "
            f"wide {c['overhead']['wide']:.1%} (<= {c['limit']:.0%}): {verdict(c['meets'])}"
        )
        if "iceberg_narrow_overhead" in c:
            line += (
                f"; Iceberg narrow {c['iceberg_narrow_overhead']:.1%} (Floe <= 0.5x): "
                f"{verdict(c['meets_vs_iceberg_narrow'])}"
            )
        print(line)
    for key, errors in report.get("workload_errors", {}).items():
        for workload, error in errors.items():
            print(f"  {key} {workload} failed: {error}")
    for system, reason in report.get("skipped", {}).items():
        print(f"skipped {system}: {reason}")


def csv(choices: Iterable[str]) -> Callable[[str], list[str]]:
    allowed = set(choices)

    def parse(value: str) -> list[str]:
        items = [v.strip() for v in value.split(",") if v.strip()]
        bad = [v for v in items if v not in allowed]
        if bad:
            raise argparse.ArgumentTypeError(f"unknown {bad}; choose from {sorted(allowed)}")
        return items

    return parse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of W6/W7's tables")
    parser.add_argument("--files", type=int, default=8, help="data files of the initial table")
    parser.add_argument("--reps", type=int, default=7, help="measured reps of each MoR DELETE")
    parser.add_argument("--cow-reps", type=int, default=3, help="measured reps of each CoW DELETE")
    parser.add_argument("--merge-reps", type=int, default=1, help="measured 10-round series")
    parser.add_argument("--query-reps", type=int, default=3, help="measured reps of W7 queries")
    parser.add_argument("--scan-rows", type=int, default=4_000_000, help="rows of W8's tables")
    parser.add_argument("--scan-reps", type=int, default=7, help="measured reps of W8 scans")
    parser.add_argument(
        "--workloads", type=csv(WORKLOADS), default=list(WORKLOADS), help="delete,merge,scan"
    )
    parser.add_argument("--engines", type=csv(ENGINES), default=list(ENGINES), help="floe,iceberg")
    parser.add_argument(
        "--modes", type=csv(MODES), default=list(MODES), help="cow,mor-v2,mor-v3 (W6, W7)"
    )
    parser.add_argument(
        "--cases",
        type=csv([*delete_cases(8), *SCAN_LEVELS]),
        default=[],
        help="only these DELETE cases / W8 levels (default: all)",
    )
    parser.add_argument("--out", type=Path, default=None, help="JSON results file")
    parser.add_argument("--jfr", type=Path, default=None, help="JFR recordings of Floe's ops")
    parser.add_argument(
        "--dir", type=Path, default=None, help="work directory (default: a temp dir)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the written data")
    args = parser.parse_args(argv)

    import pyspark

    import floe

    sys.path.insert(0, str(ROOT / "python-tests"))
    from iceberg_runtime import VERSION, find_iceberg_runtime

    runtime = find_iceberg_runtime() if "iceberg" in args.engines else None
    workdir = (args.dir or Path(tempfile.mkdtemp(prefix="floe-bench-"))).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    conf = spark_conf(workdir)
    if runtime is not None and runtime.jar is not None:
        conf |= {
            "spark.jars": str(runtime.jar),
            # Iceberg's extensions: its row-level rewrites (row lineage of v3 MERGE/UPDATE)
            "spark.sql.extensions": "org.apache.iceberg.spark.extensions."
            "IcebergSparkSessionExtensions",
            "spark.sql.catalog.iceberg": "org.apache.iceberg.spark.SparkCatalog",
            "spark.sql.catalog.iceberg.type": "hadoop",
            "spark.sql.catalog.iceberg.warehouse": floe.warehouse_uri(
                str(workdir / "iceberg-warehouse")
            ),
            # tables are restored on disk between measurements: never serve a cached one
            "spark.sql.catalog.iceberg.cache-enabled": "false",
        }
    spark = floe.session(
        str(workdir / "warehouse"), app_name="floe-bench-row-level", master=MASTER, conf=conf
    )
    spark.sparkContext.setLogLevel("ERROR")
    bench = Bench(spark, args, workdir)
    if runtime is None or runtime.jar is None:
        bench.engines = [e for e in bench.engines if e != "iceberg"]
    started = time.perf_counter()
    try:
        if "delete" in args.workloads or "merge" in args.workloads:
            bench.systems = bench.create("t", args.modes, args.rows)
        if "scan" in args.workloads:
            bench.scan_systems = bench.create("s", ["mor-v3"], args.scan_rows)
        if "delete" in args.workloads:
            bench.run_delete()
        if "merge" in args.workloads:
            bench.run_merge()
        if "scan" in args.workloads:
            bench.run_scan()
    finally:
        spark.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    report = bench.report
    report["workload_errors"] = {
        s.table: s.errors for s in bench.systems + bench.scan_systems if s.errors
    }
    if runtime is not None and runtime.jar is None:
        report["skipped"] = {"iceberg": runtime.problem}
    now = datetime.datetime.now(datetime.UTC)
    report["config"] = {
        "rows": args.rows,
        "files": args.files,
        "reps": args.reps,
        "cow_reps": args.cow_reps,
        "merge_reps": args.merge_reps,
        "query_reps": args.query_reps,
        "scan_rows": args.scan_rows,
        "scan_reps": args.scan_reps,
        "merge_rounds": MERGE_ROUNDS,
        "workloads": args.workloads,
        "engines": args.engines,
        "modes": args.modes,
        "cases": args.cases,
        "codec": "zstd",
        "master": MASTER,
        "driver_memory": DRIVER_MEMORY,
        "spark": pyspark.__version__,
        "floe": floe.__version__,
        "floe_jar": floe.jar_path(),
        "iceberg": VERSION if runtime is not None and runtime.jar is not None else None,
        "python": sys.version.split()[0],
        "wall_seconds": time.perf_counter() - started,
        "finished_at": now.isoformat(timespec="seconds"),
    }
    report["goals"] = goals(report)
    print_report(report)
    out = write_report(report, "row_level", now, args.out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
