#!/usr/bin/env python3
"""Indexed appends over many commits (docs/benchmarks.md, W10 "What the append goal does not see"):
the time of each append to D2 with both of W10's indexes kept current, and the segments each
index holds after it, so the appends whose commit merges segments show, and the cost spread over
the appends between merges.

    python bench/index_appends.py [--appends 36] [--quick] [--dir PATH] [--out PATH]
        [--profile REC.jfr]

D2 (bench/workloads/datasets.py, the suite's input, generated under ``--dir`` when missing) is
imported into a Floe table as W10 imports it (``add_files`` of its 100 files), given W10's
``by_id`` (btree on ``id``) and ``by_tag`` (inverted on ``tag``), set to W10's row-level
configuration and changed by W10's 1% ``DELETE``. Then ``--appends`` appends of W10's 10,000 new
rows each are generated into Parquet files (untimed) and inserted one by one (timed), alternating
(ABBA) with the same appends to a twin table without indexes, imported and changed the same way
(W10's pairing). ``floe.index.min-segments-to-merge`` is left at its default (16), so a merge
happens about every 15 appends. Reported: each append's seconds and segments, the appends that
merged, and over all appends but the first the totals with and without indexes and their ratio
(what the indices issue's 1.25x append goal costs over many commits, merges included) besides
W10's median of paired ratios. Floe's jar is the bundled one or ``$FLOE_JAR`` (to compare builds,
run each in turn, alternating).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_session import spark_conf, write_report
from jfr_profile import recording
from suite_api import link_tree, quote_path
from suite_engines import quote_text
from workloads import datasets
from workloads.w10_index import APPEND_ROWS, APPENDED_FROM, DELETE, FLOE_ROW_LEVEL

import floe

#: --profile's CPU sampling period: a commit's index work takes milliseconds
PROFILE_PERIOD_MS = 2
INDEXED = "floe.bench.appends"
PLAIN = "floe.bench.appends_plain"  # the same table and appends, without indexes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--appends", type=int, default=36, help="timed appends (default 36)")
    parser.add_argument("--quick", action="store_true", help="D2's quick size (500,000 rows)")
    parser.add_argument("--dir", type=Path, help="work folder (default: a new temporary one)")
    parser.add_argument("--out", type=Path, help="JSON report (default bench/out/...)")
    parser.add_argument(
        "--profile", type=Path, help="JFR recording of the appends (bench/jfr_profile.py reads it)"
    )
    args = parser.parse_args(argv)
    if args.appends < 2:
        parser.error("--appends must be at least 2 (the first one is not counted)")
    work = args.dir or Path(tempfile.mkdtemp(prefix="floe-index-appends-"))
    warehouse = work / f"warehouse-{dt.datetime.now(dt.UTC).strftime('%Y%m%dT%H%M%S%f')}"
    spark = floe.session(str(warehouse), master="local[2]", conf=spark_conf(work))
    try:
        report = run(spark, work, warehouse, args.appends, args.quick, args.profile)
    finally:
        spark.stop()
    path = write_report(report, "index-appends", dt.datetime.now(dt.UTC), args.out)
    print(f"report: {path}")
    return 0


def run(
    spark: Any, work: Path, warehouse: Path, appends: int, quick: bool, profile: Path | None = None
) -> dict[str, Any]:
    src = datasets.d2(spark, work / "inputs", quick)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.bench")
    for table in (INDEXED, PLAIN):
        # as W10 imports it: D2's 100 files themselves (add_files of hard links inside the
        # table's location), not a rewrite of them (a CTAS writes them into a few large files)
        name = table.split(".")[-1]
        spark.sql(f"CREATE TABLE {table} AS SELECT * FROM parquet.{quote_path(src)} LIMIT 0")
        linked = link_tree(src, warehouse / "bench" / name / "data" / "imported")
        spark.sql(
            f"CALL floe.system.add_files(table => 'bench.{name}', "
            f"source_table => {quote_text('`parquet`.' + quote_path(linked))})"
        )
    spark.sql(f"CREATE INDEX by_id ON {INDEXED} USING btree (id)")
    spark.sql(f"CREATE INDEX by_tag ON {INDEXED} USING inverted (tag)")
    for table in (INDEXED, PLAIN):
        spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ({FLOE_ROW_LEVEL})")
        spark.sql(f"DELETE FROM {table} WHERE {DELETE}").collect()
    start = datasets.d2_rows(quick) + APPENDED_FROM
    inputs = []
    for i in range(appends):
        path = warehouse / f"append-input-{i}"
        first = start + i * APPEND_ROWS
        datasets.d2_frame(spark, first + APPEND_ROWS, first).write.parquet(str(path))
        inputs.append(path)
    with recording(spark, profile, PROFILE_PERIOD_MS) if profile else contextlib.nullcontext():
        rows = append_all(spark, inputs)
    check_rows(spark, src, appends)
    return {
        "benchmark": "index_appends",
        "d2_rows": datasets.d2_rows(quick),
        "append_rows": APPEND_ROWS,
        "appends": rows,
        "summary": summarize(rows[1:]),  # the first append warms the session
        "floe_jar": floe.jar_path(),
        "python": sys.version.split()[0],
    }


def append_all(spark: Any, inputs: list[Path]) -> list[dict[str, Any]]:
    """Appends each input to both tables, ABBA, noting seconds and the indexed table's segments."""
    rows: list[dict[str, Any]] = []
    before = segments(spark)
    for i, path in enumerate(inputs):
        seconds = {}
        for table in (INDEXED, PLAIN) if i % 2 == 0 else (PLAIN, INDEXED):  # ABBA
            started = time.perf_counter()
            spark.sql(f"INSERT INTO {table} SELECT * FROM parquet.{quote_path(path)}")
            seconds[table] = time.perf_counter() - started
        after = segments(spark)
        # an index that did not gain this append's segment merged some (or dropped dead ones)
        merged = sorted(name for name in after if after[name] <= before[name])
        rows.append(
            {
                "append": i,
                "seconds": seconds[INDEXED],
                "plain_seconds": seconds[PLAIN],
                "segments": after,
                "merged": merged,
            }
        )
        print(
            f"append {i:3d} {seconds[INDEXED] * 1000:6.0f} ms (without indexes "
            f"{seconds[PLAIN] * 1000:4.0f} ms)  segments {after}  merged {merged}",
            flush=True,
        )
        before = after
    return rows


def check_rows(spark: Any, src: Path, appends: int) -> None:
    """Both tables hold D2's rows the DELETE kept and every appended row."""
    kept = spark.sql(f"SELECT count(*) FROM parquet.{quote_path(src)} WHERE NOT ({DELETE})").first()
    expected = None if kept is None else kept[0] + appends * APPEND_ROWS
    for table in (INDEXED, PLAIN):
        count = spark.sql(f"SELECT count(*) FROM {table}").first()
        if count is None or count[0] != expected:
            raise RuntimeError(f"{table} holds {count} rows after the appends, not {expected}")


def summarize(counted: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals, medians and the appends whose commit merged segments; printed as well."""
    total = sum(r["seconds"] for r in counted)
    plain_total = sum(r["plain_seconds"] for r in counted)
    without_merge = [r["seconds"] for r in counted if not r["merged"]]
    merging = [r for r in counted if r["merged"]]
    summary = {
        "appends_counted": len(counted),
        "total_seconds": total,
        "plain_total_seconds": plain_total,
        "total_over_plain": total / plain_total,
        "median_pair_ratio": statistics.median(r["seconds"] / r["plain_seconds"] for r in counted),
        "median_without_merge_seconds": statistics.median(without_merge) if without_merge else None,
        "merge_appends": [
            {"append": r["append"], "seconds": r["seconds"], "merged": r["merged"]} for r in merging
        ],
    }
    merges = ", ".join(
        f"#{r['append']} {r['seconds'] * 1000:.0f} ms {r['merged']}" for r in merging
    )
    print(
        f"{len(counted)} appends: with indexes {total:.3f} s, without {plain_total:.3f} s "
        f"(total {summary['total_over_plain']:.2f}x, median of pairs "
        f"{summary['median_pair_ratio']:.2f}x); merges: {merges or 'none'}"
    )
    return summary


def segments(spark: Any) -> dict[str, int]:
    """Each index's segment count (the ``indexes`` metadata table)."""
    listed = spark.sql(f"SELECT name, segments FROM {INDEXED}.indexes").collect()
    return {r[0]: int(r[1]) for r in listed}


if __name__ == "__main__":
    sys.exit(main())
