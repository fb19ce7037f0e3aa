#!/usr/bin/env python3
"""Point lookups through secondary indexes (W10; docs/benchmarks.md, 'Secondary indexes'): Floe
with indexes vs Floe without vs the Apache Iceberg Spark runtime, on the same data files.

    python bench/indexes.py [--files 2000] [--rows 25000000] [--reps 5] [--appends 10]
        [--build-reps 2] [--quick] [--no-iceberg] [--dir PATH] [--keep] [--out PATH]

Data: ``--files`` data files of ``--rows / --files`` rows each, 9 columns: ``id`` (the row number,
ascending with the file), ``key`` (a unique BIGINT, ``id * 2654435761 mod 2^32``: a bijection,
so keys are unique and scattered, and every file's min/max bounds span nearly the whole key
range), ``tag`` (a STRING of ``--files / 2`` distinct values; each file holds two of them, so a
value lives in about 4 files while the files' bounds hold it in about half of them) and 6 payload
columns (as D2 of the benchmark plan). One generator task per file writes the same rows twice, as
Floe tables ``floe.bench.idx`` and ``floe.bench.plain`` (format v3, merge-on-read deletes, zstd);
Iceberg's runtime reads ``plain`` through its own hadoop catalog on the same warehouse (Floe's
metadata is Iceberg's), so Floe without index and Iceberg read the very same files.

Steps, all in one Spark session (``local[2]``, the settings of bench_session.py):

1. Build ``by_key`` (btree on ``key``) on ``idx``, ``--build-reps`` times (dropped in between),
   each after a full scan of the column (``sum(key)`` on ``plain``) for the ratio; then
   ``by_tag`` (inverted on ``tag``). Index size (the ``indexes`` metadata table) against the
   table's data bytes (the ``files`` metadata table).
2. Lookups, each run ``--reps`` times per system after an unmeasured warm-up, systems interleaved
   in ABC/CBA order: ``point`` (``key = v``), ``miss`` (a key no row has, inside every file's
   bounds), ``in_100`` (100 keys) and ``tag`` (``tag = x``, aggregated). Reported per system:
   median/min/max wall time, files read (the scan's ``resultDataFiles``), and for Floe with
   indexes the files the indexes pruned (scan report). Every answer is checked against the rows
   the generator says exist; a mismatch stops the run.
3. ``DELETE ... WHERE key % 100 = 7`` (1% of the rows, every file) on both tables, then
   ``--appends`` one-file appends to each table, interleaved ABBA, after one unmeasured append
   each: the commit latency with both indexes kept current (``idx``) vs without (``plain``).
4. The lookups of step 2 again, with needles among deleted rows and appended files.

Goals: point lookup Floe-with-index / Iceberg <= 0.05 (20x), before and after step 3; files read
by Floe with indexes <= the files that hold a matching row (0 for a miss); index build <= 1.5x
the column scan; btree size <= 5% of the data bytes; append latency with indexes <= 1.25x
without. ``--quick`` is a smoke run (200 files, 2,500,000 rows, 3 reps). The Iceberg runtime jar
comes from python-tests/iceberg_runtime.py (cached in ~/.cache/floe); Floe's jar is the bundled
one or ``$FLOE_JAR``. Results go to stdout and to ``--out`` (default bench/out/indexes-*.json).
"""

from __future__ import annotations

import argparse
import datetime
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench_session import DRIVER_MEMORY, only_scan_node, spark_conf, write_report

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ROOT = Path(__file__).resolve().parent.parent
MASTER = "local[2]"
MULTIPLIER = 2654435761  # odd: id -> id * MULTIPLIER mod 2^32 is a bijection of [0, 2^32)
MISS_ID = 4_000_000_000  # an id no table row has (its key still falls inside every file's bounds)
DELETED_REMAINDER = 7  # DELETE ... WHERE key % 100 = 7
IN_KEYS = 100
GOALS = {
    "point_time_ratio": 0.05,
    "build_over_scan": 1.5,
    "btree_size_over_data": 0.05,
    "append_with_over_without": 1.25,
}
COLUMNS = """id BIGINT, key BIGINT, tag STRING, ts TIMESTAMP, customer BIGINT, qty INT,
    price DECIMAL(10, 2), store STRING, note STRING"""
TABLE_PROPS = """TBLPROPERTIES ('format-version' = '3', 'write.delete.mode' = 'merge-on-read',
    'write.parquet.compression-codec' = 'zstd')"""
IDX, PLAIN = "floe.bench.idx", "floe.bench.plain"
#: system -> the table it queries
SYSTEMS = {"floe_index": IDX, "floe_plain": PLAIN, "iceberg": "iceberg.bench.plain"}


def key_of(row_id: int) -> int:
    return row_id * MULTIPLIER % 2**32


@dataclass
class Layout:
    """Where the generator's rows are: base files, then appended files of the same size."""

    files: int
    per_file: int
    tags: int  # distinct values of the tag column
    appended_files: int = 0
    deleted: bool = False

    @property
    def base_rows(self) -> int:
        return self.files * self.per_file

    def exists(self, row_id: int) -> bool:
        if row_id < self.base_rows:
            return not (self.deleted and key_of(row_id) % 100 == DELETED_REMAINDER)
        return row_id < (self.files + self.appended_files) * self.per_file

    def file_of(self, row_id: int) -> int:
        return row_id // self.per_file


def generate(spark: SparkSession, start: int, end: int, layout: Layout) -> DataFrame:
    """Rows [start, end) with one partition (one written file) per ``layout.per_file`` rows."""
    per_file, tags = layout.per_file, layout.tags
    parts = max(1, (end - start) // per_file)
    tag = f"pmod(xxhash64(id DIV {per_file}, CAST(id % 2 AS INT)), {tags})"
    return spark.range(start, end, 1, parts).selectExpr(
        "id",
        f"id * {MULTIPLIER} % 4294967296 AS key",
        # two tags per file (file = id DIV per_file), alternating by row
        f"format_string('tag-%05d', {tag}) AS tag",
        "TIMESTAMP '2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id % 31536000) AS ts",
        "pmod(xxhash64(id, 3), 1000000) AS customer",
        "CAST(id % 97 AS INT) AS qty",
        "CAST(pmod(xxhash64(id, 11), 100000) / 100 AS DECIMAL(10, 2)) AS price",
        "concat('store-', CAST(id % 500 AS STRING)) AS store",
        "hex(xxhash64(id, 13)) AS note",
    )


def timed(action: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def create_tables(spark: SparkSession, layout: Layout) -> dict[str, float]:
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.bench")
    seconds = {}
    for table in (IDX, PLAIN):
        spark.sql(f"CREATE TABLE {table} ({COLUMNS}) USING floe {TABLE_PROPS}")
        df = generate(spark, 0, layout.base_rows, layout)
        seconds[table], _ = timed(lambda df=df, table=table: df.writeTo(table).append())
        files = spark.sql(f"SELECT count(*) FROM {table}.files").first()
        assert files is not None
        if int(files[0]) != layout.files:
            raise SystemExit(f"{table} has {files[0]} data files, expected {layout.files}")
    return seconds


def index_rows(spark: SparkSession) -> dict[str, dict[str, Any]]:
    rows = spark.sql(
        f"SELECT name, type, size_in_bytes, segments, covered_files, live_files, problem "
        f"FROM {IDX}.indexes"
    ).collect()
    return {r["name"]: r.asDict() for r in rows}


def build_indexes(spark: SparkSession, build_reps: int, rows: int) -> dict[str, Any]:
    """Builds by_key (timed against a full scan of the column) and by_tag; sizes them."""
    scans, builds = [], []
    for rep in range(build_reps):
        if rep > 0:
            spark.sql(f"DROP INDEX by_key ON {IDX}")
        seconds, _ = timed(lambda: spark.sql(f"SELECT sum(key) FROM {PLAIN}").collect())
        scans.append(seconds)
        seconds, _ = timed(lambda: spark.sql(f"CREATE INDEX by_key ON {IDX} USING btree (key)"))
        builds.append(seconds)
    tag_seconds, _ = timed(lambda: spark.sql(f"CREATE INDEX by_tag ON {IDX} USING inverted (tag)"))
    data = spark.sql(
        f"SELECT sum(file_size_in_bytes), sum(column_sizes[2]) FROM {IDX}.files"
    ).first()
    assert data is not None
    data_bytes, key_column_bytes = int(data[0]), int(data[1])
    indexes = index_rows(spark)
    btree_bytes = int(indexes["by_key"]["size_in_bytes"])
    scan, build = statistics.median(scans), statistics.median(builds)
    return {
        "column_scan_seconds": scans,
        "btree_build_seconds": builds,
        "inverted_tag_build_seconds": tag_seconds,
        "build_over_scan": build / scan,
        "data_bytes": data_bytes,
        "key_column_bytes": key_column_bytes,
        "indexes": indexes,
        "btree_size_over_data": btree_bytes / data_bytes,
        "btree_size_over_key_column": btree_bytes / key_column_bytes,
        "btree_bytes_per_row": btree_bytes / rows,
        "goals": {
            "build_over_scan": GOALS["build_over_scan"],
            "meets_build": build / scan <= GOALS["build_over_scan"],
            "btree_size_over_data": GOALS["btree_size_over_data"],
            "meets_size": btree_bytes / data_bytes <= GOALS["btree_size_over_data"],
        },
    }


@dataclass
class Lookup:
    name: str
    sql: str  # with {t} for the table
    expected: list[tuple[Any, ...]]
    matching_files: int


def key_lookups(spark: SparkSession, layout: Layout, ids: dict[str, list[int]]) -> list[Lookup]:
    """point / miss / in_100 over the given needle ids, expected from the layout."""
    lookups = []
    for name, needle_ids in ids.items():
        keys = [key_of(i) for i in needle_ids]
        where = f"key = {keys[0]}" if len(keys) == 1 else f"key IN ({', '.join(map(str, keys))})"
        present = sorted(i for i in needle_ids if layout.exists(i))
        # files that hold a needle's row, deleted or not (an index entry for a deleted row
        # still names its file; the scan then applies the delete)
        held = {layout.file_of(i) for i in needle_ids if layout.exists(i) or i < layout.base_rows}
        lookups.append(
            Lookup(
                name,
                f"SELECT id, key FROM {{t}} WHERE {where}",
                [(i, key_of(i)) for i in present],
                len(held),
            )
        )
    return lookups


def tag_lookup(spark: SparkSession, layout: Layout, tag: str) -> Lookup:
    """count/sum/min/max over ``tag = x``, expected from the generator (not from a table)."""
    base = generate(spark, 0, layout.base_rows, layout)
    if layout.deleted:
        base = base.where(f"key % 100 <> {DELETED_REMAINDER}")
    rows = base
    if layout.appended_files:
        end = (layout.files + layout.appended_files) * layout.per_file
        rows = rows.unionByName(generate(spark, layout.base_rows, end, layout))
    rows.createOrReplaceTempView("bench_expected")
    agg = "count(*), sum(qty), min(id), max(id)"
    expected = spark.sql(f"SELECT {agg} FROM bench_expected WHERE tag = '{tag}'").collect()
    files = spark.sql(
        f"SELECT count(DISTINCT id DIV {layout.per_file}) FROM bench_expected WHERE tag = '{tag}'"
    ).first()
    assert files is not None
    return Lookup(
        "tag", f"SELECT {agg} FROM {{t}} WHERE tag = '{tag}'", [tuple(r) for r in expected],
        int(files[0]),
    )  # fmt: skip


def scan_node_metrics(df: DataFrame) -> dict[str, int]:
    """All metrics of the (single) table scan in ``df``'s executed plan, by name."""
    metrics = only_scan_node(df._jdf.queryExecution().executedPlan()).metrics()
    keys = metrics.keys().iterator()
    values = {}
    while keys.hasNext():
        key = keys.next()
        values[str(key)] = int(metrics.apply(key).value())
    return values


def run_query(spark: SparkSession, system: str, sql: str) -> tuple[float, Any, dict[str, int]]:
    """(seconds, sorted rows, scan metrics) of one run of ``sql`` on ``system``'s table."""
    start = time.perf_counter()
    df = spark.sql(sql.format(t=SYSTEMS[system]))
    rows = [tuple(r) for r in df.collect()]
    seconds = time.perf_counter() - start
    return seconds, sorted(rows, key=repr), scan_node_metrics(df)


def measure_lookups(
    spark: SparkSession, systems: list[str], lookups: list[Lookup], reps: int
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for lookup in lookups:
        times: dict[str, list[float]] = {s: [] for s in systems}
        files: dict[str, int] = {}
        pruned: dict[str, int] = {}
        for s in systems:  # warm-up, unmeasured
            run_query(spark, s, lookup.sql)
        for rep in range(reps):
            for s in systems if rep % 2 == 0 else list(reversed(systems)):
                seconds, rows, metrics = run_query(spark, s, lookup.sql)
                files[s] = metrics["resultDataFiles"]
                pruned[s] = metrics.get("indexSkippedDataFiles", 0)
                times[s].append(seconds)
                if rows != sorted(lookup.expected, key=repr):
                    raise SystemExit(
                        f"{lookup.name}: {s} returned {rows[:5]}... ({len(rows)} rows), "
                        f"expected {lookup.expected[:5]}... ({len(lookup.expected)} rows)"
                    )
        entry: dict[str, Any] = {
            "sql": lookup.sql.format(t="<table>")[:300],
            "result_rows": len(lookup.expected),
            "matching_files": lookup.matching_files,
            "systems": {
                s: {
                    "median_seconds": statistics.median(times[s]),
                    "min_seconds": min(times[s]),
                    "max_seconds": max(times[s]),
                    "seconds": times[s],
                    "files_read": files[s],
                    "index_pruned_files": pruned[s],
                }
                for s in systems
            },
        }
        entry["files_le_matching"] = files["floe_index"] <= lookup.matching_files
        for other in systems[1:]:
            entry[f"time_ratio_index_over_{other}"] = (
                entry["systems"]["floe_index"]["median_seconds"]
                / entry["systems"][other]["median_seconds"]
            )
        out[lookup.name] = entry
    return out


def append_one(spark: SparkSession, table: str, layout: Layout, file_no: int) -> float:
    start = file_no * layout.per_file
    df = generate(spark, start, start + layout.per_file, layout)
    seconds, _ = timed(lambda: df.writeTo(table).append())
    return seconds


def delete_and_append(spark: SparkSession, layout: Layout, appends: int) -> dict[str, Any]:
    deletes = {}
    for table in (IDX, PLAIN):
        deletes[table], _ = timed(
            lambda table=table: spark.sql(
                f"DELETE FROM {table} WHERE key % 100 = {DELETED_REMAINDER}"
            )
        )
    layout.deleted = True
    times: dict[str, list[float]] = {IDX: [], PLAIN: []}
    # one unmeasured append each (warm-up), then ABBA
    for i in range(appends + 1):
        file_no = layout.files + layout.appended_files
        order = (IDX, PLAIN) if i % 2 == 0 else (PLAIN, IDX)
        for table in order:
            seconds = append_one(spark, table, layout, file_no)
            if i > 0:
                times[table].append(seconds)
        layout.appended_files += 1
    ratio = statistics.median(times[IDX]) / statistics.median(times[PLAIN])
    return {
        "delete_seconds": {t.removeprefix("floe.bench."): s for t, s in deletes.items()},
        "append_seconds": {t.removeprefix("floe.bench."): s for t, s in times.items()},
        "median_append_seconds": {
            t.removeprefix("floe.bench."): statistics.median(s) for t, s in times.items()
        },
        "append_with_over_without": ratio,
        "goal": GOALS["append_with_over_without"],
        "meets_goal": ratio <= GOALS["append_with_over_without"],
        "indexes_after": index_rows(spark),
    }


def needles(layout: Layout, rng: random.Random, after: bool) -> dict[str, list[int]]:
    base = layout.base_rows
    if not after:
        return {
            "point": [rng.randrange(base)],
            "miss": [MISS_ID],
            "in_100": rng.sample(range(base), IN_KEYS),
        }
    appended = range(base, (layout.files + layout.appended_files) * layout.per_file)
    deleted = next(i for i in (rng.randrange(base) for _ in range(100000))
                   if key_of(i) % 100 == DELETED_REMAINDER)  # fmt: skip
    kept = next(i for i in (rng.randrange(base) for _ in range(100000)) if layout.exists(i))
    return {
        "point": [kept],
        "point_deleted": [deleted],
        "point_appended": [rng.choice(appended)],
        "miss": [MISS_ID],
        "in_100": rng.sample(range(base), IN_KEYS - 10) + rng.sample(appended, 10),
    }


def run(
    spark: SparkSession, systems: list[str], layout: Layout, reps: int, appends: int,
    build_reps: int,
) -> dict[str, Any]:  # fmt: skip
    rng = random.Random(10)
    report: dict[str, Any] = {}
    report["write_seconds"] = {
        t.removeprefix("floe.bench."): s for t, s in create_tables(spark, layout).items()
    }
    report["build"] = build_indexes(spark, build_reps, layout.base_rows)
    # a tag from the middle of the range: the files' min/max bounds hold it in about half of them
    middle = f"tag-{layout.tags // 2:05d}"
    tag_row = spark.sql(f"SELECT min(tag) FROM {PLAIN} WHERE tag >= '{middle}'").first()
    assert tag_row is not None
    tag = str(tag_row[0])
    lookups = key_lookups(spark, layout, needles(layout, rng, after=False))
    lookups.append(tag_lookup(spark, layout, tag))
    report["lookups"] = measure_lookups(spark, systems, lookups, reps)
    report["appends"] = delete_and_append(spark, layout, appends)
    lookups = key_lookups(spark, layout, needles(layout, rng, after=True))
    lookups.append(tag_lookup(spark, layout, tag))
    report["lookups_after"] = measure_lookups(spark, systems, lookups, reps)
    if "iceberg" in systems:
        report["goals"] = {
            phase: {
                "point_time_ratio": report[phase]["point"]["time_ratio_index_over_iceberg"],
                "goal": GOALS["point_time_ratio"],
                "meets_goal": report[phase]["point"]["time_ratio_index_over_iceberg"]
                <= GOALS["point_time_ratio"],
            }
            for phase in ("lookups", "lookups_after")
        }
    return report


def print_report(report: dict[str, Any]) -> None:
    b = report["build"]
    print(
        f"btree build {statistics.median(b['btree_build_seconds']):.2f} s vs column scan "
        f"{statistics.median(b['column_scan_seconds']):.2f} s: {b['build_over_scan']:.2f}x "
        f"(goal <= {GOALS['build_over_scan']}); inverted tag build "
        f"{b['inverted_tag_build_seconds']:.2f} s"
    )
    for name, ix in b["indexes"].items():
        print(f"  {name}: {ix['type']} {ix['size_in_bytes']:,} bytes in {ix['segments']} segments")
    print(
        f"  btree / data bytes {b['btree_size_over_data']:.3f} (goal <= "
        f"{GOALS['btree_size_over_data']}; data {b['data_bytes']:,}, key column "
        f"{b['key_column_bytes']:,})"
    )
    for phase in ("lookups", "lookups_after"):
        print(f"{phase}:")
        print(f"  {'query':<15} {'system':<11} {'median s':>9} {'min s':>7} {'max s':>7} "
              f"{'files':>6} {'match':>6} {'pruned':>6}")  # fmt: skip
        for name, entry in report[phase].items():
            for system, r in entry["systems"].items():
                print(
                    f"  {name:<15} {system:<11} {r['median_seconds']:>9.3f} "
                    f"{r['min_seconds']:>7.3f} {r['max_seconds']:>7.3f} {r['files_read']:>6} "
                    f"{entry['matching_files']:>6} {r.get('index_pruned_files', ''):>6}"
                )
            ratios = {k.removeprefix("time_ratio_index_over_"): v for k, v in entry.items()
                      if k.startswith("time_ratio")}  # fmt: skip
            print("    index / " + ", ".join(f"{k} {v:.3f}" for k, v in ratios.items())
                  + f"; files <= matching: {entry['files_le_matching']}")  # fmt: skip
    a = report["appends"]
    print(
        f"delete 1%: {a['delete_seconds']}; appends median s {a['median_append_seconds']}: "
        f"with/without {a['append_with_over_without']:.3f} (goal <= {a['goal']})"
    )
    for phase, goal in report.get("goals", {}).items():
        verdict = "meets" if goal["meets_goal"] else "MISSES"
        print(f"{phase}: point index/iceberg {goal['point_time_ratio']:.3f} "
              f"(goal <= {goal['goal']}): {verdict}")  # fmt: skip
    for system, reason in report.get("skipped", {}).items():
        print(f"skipped {system}: {reason}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--files", type=int, default=None, help="data files (default 2000)")
    parser.add_argument("--rows", type=int, default=None, help="rows (default 25,000,000)")
    parser.add_argument("--reps", type=int, default=None, help="runs per lookup (default 5)")
    parser.add_argument("--appends", type=int, default=10, help="measured appends per table")
    parser.add_argument("--build-reps", type=int, default=2, help="btree builds (and scans)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 200 files, 2.5M rows")
    parser.add_argument("--dir", type=Path, default=None, help="work directory (default: temp)")
    parser.add_argument("--keep", action="store_true", help="keep the written data")
    parser.add_argument("--no-iceberg", action="store_true", help="skip the Iceberg runtime")
    parser.add_argument("--out", type=Path, default=None, help="report path (JSON)")
    args = parser.parse_args(argv)
    files = args.files or (200 if args.quick else 2000)
    rows = args.rows or (2_500_000 if args.quick else 25_000_000)
    reps = args.reps or (3 if args.quick else 5)
    if rows < files:
        parser.error("--rows must be at least --files")
    layout = Layout(files, rows // files, tags=max(1, files // 2))

    import pyspark

    import floe

    sys.path.insert(0, str(ROOT / "python-tests"))
    from iceberg_runtime import VERSION, IcebergRuntime, find_iceberg_runtime

    runtime = IcebergRuntime(None, "--no-iceberg") if args.no_iceberg else find_iceberg_runtime()
    systems = ["floe_index", "floe_plain"] + ([] if runtime.jar is None else ["iceberg"])
    workdir = (args.dir or Path(tempfile.mkdtemp(prefix="floe-bench-"))).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    warehouse = workdir / "warehouse"
    conf = spark_conf(workdir)
    if runtime.jar is not None:
        conf |= {
            "spark.jars": str(runtime.jar),
            "spark.sql.catalog.iceberg": "org.apache.iceberg.spark.SparkCatalog",
            "spark.sql.catalog.iceberg.type": "hadoop",
            "spark.sql.catalog.iceberg.warehouse": floe.warehouse_uri(str(warehouse)),
            # see Floe's commits (the DELETE and appends) at once
            "spark.sql.catalog.iceberg.cache-enabled": "false",
        }
    spark = floe.session(str(warehouse), app_name="floe-bench-indexes", master=MASTER, conf=conf)
    started = time.perf_counter()
    try:
        report = run(spark, systems, layout, reps, args.appends, args.build_reps)
    finally:
        spark.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    if runtime.jar is None:
        report["skipped"] = {"iceberg": runtime.problem}
    now = datetime.datetime.now(datetime.UTC)
    report["config"] = {
        "files": files,
        "rows": layout.base_rows,
        "rows_per_file": layout.per_file,
        "distinct_tags": layout.tags,
        "reps": reps,
        "appends": args.appends,
        "build_reps": args.build_reps,
        "codec": "zstd",
        "format_version": 3,
        "master": MASTER,
        "driver_memory": DRIVER_MEMORY,
        "spark": pyspark.__version__,
        "floe": floe.__version__,
        "iceberg": VERSION if runtime.jar is not None else None,
        "python": sys.version.split()[0],
        "total_seconds": time.perf_counter() - started,
        "finished_at": now.isoformat(timespec="seconds"),
    }
    print_report(report)
    out = write_report(report, "indexes", now, args.out)
    print(f"wrote {out} ({report['config']['total_seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
