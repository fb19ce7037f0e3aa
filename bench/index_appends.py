#!/usr/bin/env python3
"""Indexed appends over many commits (docs/benchmarks.md, W10 "What the append goal does not see"):
the time of each append to D2 with both of W10's indexes kept current, and the segments each
index holds after it, so the appends whose commit merges segments show, and the cost spread over
the appends between merges.

    python bench/index_appends.py [--appends 36] [--quick] [--dir PATH] [--out PATH]

D2 (bench/workloads/datasets.py, the suite's input, generated under ``--dir`` when missing) is
imported into a Floe table as W10 imports it (``add_files`` of its 100 files), given W10's
``by_id`` (btree on ``id``) and ``by_tag`` (inverted on ``tag``), set to W10's row-level
configuration and changed by W10's 1% ``DELETE``; then ``--appends`` appends of W10's 10,000 new
rows each are generated into Parquet files (untimed) and
inserted one by one (timed). ``floe.index.min-segments-to-merge`` is left at its default (16), so
a merge happens about every 15 appends. Reported: each append's seconds and segments, the median
append, the appends that merged, and the total of all appends but the first. Floe's jar is the
bundled one or ``$FLOE_JAR`` (for comparing builds: run each in turn, alternating).
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_session import spark_conf, write_report
from suite_api import link_tree, quote_path
from workloads import datasets
from workloads.w10_index import APPEND_ROWS, APPENDED_FROM, DELETE, FLOE_ROW_LEVEL

import floe

TABLE = "floe.bench.appends"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--appends", type=int, default=36, help="timed appends (default 36)")
    parser.add_argument("--quick", action="store_true", help="D2's quick size (500,000 rows)")
    parser.add_argument("--dir", type=Path, help="work folder (default: a new temporary one)")
    parser.add_argument("--out", type=Path, help="JSON report (default bench/out/...)")
    args = parser.parse_args(argv)
    if args.appends < 2:
        parser.error("--appends must be at least 2 (the first one is not counted)")
    work = args.dir or Path(tempfile.mkdtemp(prefix="floe-index-appends-"))
    warehouse = work / f"warehouse-{dt.datetime.now(dt.UTC).strftime('%Y%m%dT%H%M%S%f')}"
    spark = floe.session(str(warehouse), master="local[2]", conf=spark_conf(work))
    try:
        report = run(spark, work, warehouse, args.appends, args.quick)
    finally:
        spark.stop()
    path = write_report(report, "index-appends", dt.datetime.now(dt.UTC), args.out)
    print(f"report: {path}")
    return 0


def run(spark: Any, work: Path, warehouse: Path, appends: int, quick: bool) -> dict[str, Any]:
    src = datasets.d2(spark, work / "inputs", quick)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.bench")
    # as W10 imports it: D2's 100 files themselves (add_files of hard links inside the table's
    # location), not a rewrite of them (a CTAS writes them into a few large files)
    spark.sql(f"CREATE TABLE {TABLE} AS SELECT * FROM parquet.{quote_path(src)} LIMIT 0")
    linked = link_tree(src, warehouse / "bench" / "appends" / "data" / "imported")
    spark.sql(
        f"CALL floe.system.add_files(table => 'bench.appends', "
        f"source_table => '`parquet`.{quote_path(linked)}')"
    )
    spark.sql(f"CREATE INDEX by_id ON {TABLE} USING btree (id)")
    spark.sql(f"CREATE INDEX by_tag ON {TABLE} USING inverted (tag)")
    spark.sql(f"ALTER TABLE {TABLE} SET TBLPROPERTIES ({FLOE_ROW_LEVEL})")
    spark.sql(f"DELETE FROM {TABLE} WHERE {DELETE}").collect()
    start = datasets.d2_rows(quick) + APPENDED_FROM
    files = []
    for i in range(appends):
        path = warehouse / f"append-input-{i}"
        datasets.d2_frame(
            spark, start + (i + 1) * APPEND_ROWS, start + i * APPEND_ROWS
        ).write.parquet(str(path))
        files.append(path)
    rows: list[dict[str, Any]] = []
    before = segments(spark)
    for i, path in enumerate(files):
        started = time.perf_counter()
        spark.sql(f"INSERT INTO {TABLE} SELECT * FROM parquet.{quote_path(path)}")
        seconds = time.perf_counter() - started
        after = segments(spark)
        # an index that did not gain this append's segment merged some (or dropped dead ones)
        merged = sorted(name for name in after if after[name] <= before[name])
        rows.append({"append": i, "seconds": seconds, "segments": after, "merged": merged})
        print(
            f"append {i:3d} {seconds * 1000:7.0f} ms  segments {after}  merged {merged}", flush=True
        )
        before = after
    kept = spark.sql(f"SELECT count(*) FROM parquet.{quote_path(src)} WHERE NOT ({DELETE})").first()
    count = spark.sql(f"SELECT count(*) FROM {TABLE}").first()
    expected = None if kept is None else kept[0] + appends * APPEND_ROWS
    files = spark.sql(f"SELECT count(*) FROM {TABLE}.files WHERE content = 0").first()
    print(f"data files: {None if files is None else files[0]}")
    if count is None or count[0] != expected:
        raise RuntimeError(f"{TABLE} holds {count} rows after the appends, not {expected}")
    counted = rows[1:]  # the first append warms the session
    plain = [r["seconds"] for r in counted if not r["merged"]]
    merging = [r for r in counted if r["merged"]]
    total = sum(r["seconds"] for r in counted)
    summary = {
        "appends_counted": len(counted),
        "total_seconds": total,
        "median_without_merge_seconds": statistics.median(plain) if plain else None,
        "merge_appends": [
            {"append": r["append"], "seconds": r["seconds"], "merged": r["merged"]} for r in merging
        ],
        "mean_seconds": total / len(counted),
    }
    median = statistics.median(plain) * 1000 if plain else float("nan")
    merges = ", ".join(
        f"#{r['append']} {r['seconds'] * 1000:.0f} ms {r['merged']}" for r in merging
    )
    print(
        f"{len(counted)} appends: total {total:.3f} s, mean {total / len(counted) * 1000:.0f} ms, "
        f"median without a merge {median:.0f} ms; merges: {merges or 'none'}"
    )
    return {
        "benchmark": "index_appends",
        "d2_rows": datasets.d2_rows(quick),
        "append_rows": APPEND_ROWS,
        "appends": rows,
        "summary": summary,
        "floe_jar": floe.jar_path(),
        "python": sys.version.split()[0],
    }


def segments(spark: Any) -> dict[str, int]:
    """Each index's segment count (the ``indexes`` metadata table)."""
    return {
        r[0]: int(r[1]) for r in spark.sql(f"SELECT name, segments FROM {TABLE}.indexes").collect()
    }


if __name__ == "__main__":
    sys.exit(main())
