"""W7 MERGE refresh (BENCH.md 9.2; ported from bench/row_level.py's W7): 10 rounds, each upserting
1% of the table (2/3 updates of scattered existing keys, 1/3 inserts of new keys) from Parquet
sources written once under the suite's inputs (the same files for every engine), then 4 fixed
queries before the first and after the last round.

The table is a store_sales-like table with a unique key ``ss_id`` (D1 has none), generated once as
Parquet (1,000,000 rows in 8 files; quick: 100,000) and written by each engine with
``ctx.create_table`` in its configuration: Iceberg default (v2 copy-on-write), Iceberg best (v3
merge-on-read, deletion vectors), Delta (deletion vectors), Floe (its documented setting for
upserts: ``write.merge.mode=merge-on-read``, format v3). Plain Parquet has no MERGE and is not
measured. Before each series the table is created again (untimed); a series is 10 timed MERGEs
after an untimed warm-up MERGE (round 0, 1,000 updates and 500 inserts) on a fresh table.
Series: 2 (quick: 1; the case's seconds are the series totals), not ``ctx.reps``, to fit
the 3-minute budget.

Cases: ``total`` (sum of the 10 rounds; goal Floe / min(Iceberg modes) <= 0.6; extras: per-round
seconds, max/median round, LST-Bench degradation rate), ``queries after`` (the sum of the 4
queries' times after the last round; goal <= 0.5x Iceberg's; extras: the same before, each
query's time before and after, and post/pre, goal <= 1.10). Answers: a checksum of the final
table (equal for every engine).
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store_sales import cluster_predicate, source_sql
from suite_api import Case, Context, Workload, answer_digest

from workloads import row_table
from workloads.row_table import CHECKSUM, FILES, rows_of

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ENGINES_W7 = ("iceberg-default", "iceberg-best", "delta", "floe")
ROUNDS = 10
#: measured 10-round series (quick: 1); each takes 5-20 s per engine, so not ctx.reps
SERIES = 2


def queries(rows: int) -> dict[str, str]:
    return {
        "q_scan": "SELECT count(*), sum(ss_quantity), sum(ss_sales_price) FROM {src}",
        "q_group": "SELECT ss_store_sk, count(*), sum(ss_net_profit) FROM {src} "
        "GROUP BY ss_store_sk",
        "q_range": "SELECT count(*), sum(ss_quantity), max(ss_note) FROM {src} "
        f"WHERE {cluster_predicate(FILES)}",
        "q_point": "SELECT * FROM {src} WHERE ss_id = " + str((rows * 3) // 7),
    }


def sources_of(inputs: Path, quick: bool) -> list[Path]:
    root = row_table.root(inputs, quick)
    return [root / f"source-r{r}" for r in range(ROUNDS + 1)]


def prepare(spark: SparkSession, inputs: Path, quick: bool) -> None:
    """The base table (row_table.base) and the 11 MERGE sources (round 0 is the warm-up), as zstd
    Parquet."""
    rows = rows_of(quick)
    row_table.base(spark, inputs, quick)
    sources = sources_of(inputs, quick)
    marker = row_table.root(inputs, quick) / "_SOURCES_DONE"
    if marker.is_file() and marker.read_text(encoding="utf-8") == str(rows):
        return
    inserts = rows // 300
    for r, path in enumerate(sources):
        if r == 0:
            updates = source_sql(rows, 1, 0, 1000, tag=99)
            new = source_sql(rows, 1, 10 * rows, 10 * rows + 500)
        else:
            updates = (
                f"SELECT * FROM ({source_sql(rows, FILES, tag=r)}) "
                f"WHERE pmod(xxhash64(ss_id, {1000 + r}), 150) = 0"
            )
            start = rows + (r - 1) * inserts
            new = source_sql(rows, 1, start, start + inserts)
        spark.sql(f"{updates} UNION ALL {new}").coalesce(1).write.mode("overwrite").option(
            "compression", "zstd"
        ).parquet(str(path))
    marker.write_text(str(rows), encoding="utf-8")


def merge_sql(table: str, view: str) -> str:
    return (
        f"MERGE INTO {table} t USING {view} s ON t.ss_id = s.ss_id "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )


def query_seconds(
    ctx: Context, table: str, qs: dict[str, str]
) -> tuple[float, dict[str, Any], dict[str, float]]:
    """Sum over the queries of each query's best of ``ctx.reps`` (after one warm-up each), the
    answers, and each query's best."""
    import time

    total = 0.0
    answers: dict[str, Any] = {}
    each: dict[str, float] = {}
    for name, sql in qs.items():
        query = sql.format(src=table)
        rows = ctx.spark.sql(query).collect()
        answers[name] = answer_digest(rows)
        best = float("inf")
        for _ in range(ctx.reps):
            started = time.perf_counter()
            ctx.spark.sql(query).collect()
            best = min(best, time.perf_counter() - started)
        total += best
        each[name] = best
    return total, answers, each


def run(ctx: Context) -> list[Case]:
    import time

    rows = rows_of(ctx.quick)
    sources = sources_of(ctx.inputs, ctx.quick)
    views = []
    for r, path in enumerate(sources):
        view = f"w7_source_{r}"
        ctx.spark.read.parquet(str(path)).createOrReplaceTempView(view)
        views.append(view)
    qs = queries(rows)

    def fresh() -> str:
        table = row_table.create(ctx, "w7")
        ctx.spark.sql(merge_sql(table, views[0])).collect()  # warm-up round, untimed
        return table

    table = fresh()
    before, before_answers, before_each = query_seconds(ctx, table, qs)
    series: list[list[float]] = []
    for _ in range(1 if ctx.quick else SERIES):
        table = fresh()
        rounds = []
        for r in range(1, ROUNDS + 1):
            started = time.perf_counter()
            ctx.spark.sql(merge_sql(table, views[r])).collect()
            rounds.append(time.perf_counter() - started)
        series.append(rounds)
    after, after_answers, after_each = query_seconds(ctx, table, qs)
    checksum = ctx.spark.sql(CHECKSUM.format(src=table)).collect()
    count = int(checksum[0][0])
    expected = rows + 500 + ROUNDS * (rows // 300)
    if count != expected:
        raise RuntimeError(f"W7 {ctx.engine}: {count} rows after the MERGEs, expected {expected}")
    fastest = min(series, key=sum)
    median = statistics.median(fastest)
    degradation = sum(
        (fastest[i] - fastest[i - 1]) / fastest[i - 1] for i in range(1, len(fastest))
    ) / max(1, len(fastest) - 1)
    return [
        ctx.case(
            "total",
            [sum(s) for s in series],
            answer=answer_digest(checksum),
            round_seconds=fastest,
            max_over_median_round=max(fastest) / median,
            degradation_rate=degradation,
            rows_after=count,
        ),
        ctx.case(
            "queries after",
            [after],
            answer=answer_digest(sorted(after_answers.items())),
            queries_before_seconds=before,
            query_seconds_before=before_each,
            query_seconds_after=after_each,
            post_over_pre=after / before,
            answers_before=before_answers,
        ),
    ]


WORKLOAD = Workload(
    id="W7",
    title="MERGE refresh (10 rounds of 1% upserts)",
    family="row-level",
    engines=ENGINES_W7,
    prepare=prepare,
    run=run,
    goals={"total": {"iceberg": 0.6}, "queries after": {"iceberg": 0.5}},
)
