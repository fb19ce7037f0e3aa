"""W8 read overhead of deletes (BENCH.md 9.2; ported from bench/row_level.py's W8): W1's two full
scans, (a) wide (all 12 columns) and (b) narrow (one BIGINT), on the row-level table
(``workloads/row_table.py``: 1,000,000 rows in 8 files; quick: 100,000) without deletes, then
after 0.1%, 1%, 10% and 50% of its rows are deleted (quick: 1% and 50%) with deletion vectors
and no compaction.

Engines with deletion vectors: Floe (v3 merge-on-read, as for W7), Iceberg best (v3
merge-on-read) and Delta (deletion vectors); Iceberg default (copy-on-write) and plain Parquet
have none. The deletes are scattered (a hash of the key, every file touched) and nest: each level
is one untimed DELETE of the rows the previous levels left (the same rows for every engine), so
the table after a level is the table a single DELETE of that fraction leaves (one deletion
vector per file). Each scan: ``ctx.query_case`` (a warm-up, then ``ctx.reps``), answers checked
equal across engines; the row count after each DELETE is checked against the generated rows.
Before the baseline, both scans run ``EXTRA_WARMUPS`` more times untimed (JIT warm-up).

Cases ``a wide 0%`` and ``b narrow 0%`` (no deletes), then ``a wide 1%`` ... ; each case's extra
``overhead`` is its median over the same engine's median without deletes, minus 1. Goals are not
ratios to a peer, so they are Floe's own goals (``extra["own_goal"]``): overhead <= 3% up to 1%
deleted, <= 10% at 10%, <= 25% at 50%.
"""

from __future__ import annotations

from store_sales import SCANS, scatter_predicate, source_sql
from suite_api import Case, Context, Workload

from workloads import row_table
from workloads.row_table import FILES, rows_of

ENGINES_W8 = ("iceberg-best", "delta", "floe")
#: level name -> (rows deleted per 10,000, Floe's goal on the overhead)
LEVELS = {"0.1%": (10, 0.03), "1%": (100, 0.03), "10%": (1000, 0.10), "50%": (5000, 0.25)}
QUICK_LEVELS = ("1%", "50%")
SHAPES = {"a wide": SCANS["wide"], "b narrow": SCANS["narrow"]}
#: untimed runs of both scans before the baseline (besides ``ctx.query_case``'s warm-up): the
#: baseline is the JVM's first measurement, and a cold JIT made it the slowest (overheads < 0)
EXTRA_WARMUPS = 3


def levels(quick: bool) -> dict[str, tuple[int, float]]:
    return {k: v for k, v in LEVELS.items() if not quick or k in QUICK_LEVELS}


def run(ctx: Context) -> list[Case]:
    rows = rows_of(ctx.quick)
    table = row_table.create(ctx, "w8")
    found: list[Case] = []
    base: dict[str, float] = {}
    for _ in range(EXTRA_WARMUPS):  # the first scans of a JVM are slow: not the baseline's fault
        for sql in SHAPES.values():
            ctx.spark.sql(sql.format(src=table)).collect()
    for shape, sql in SHAPES.items():
        case = ctx.query_case(f"{shape} 0%", sql.format(src=table), rows=rows)
        base[shape] = case.median
        found.append(case)
    for level, (per_10000, goal) in levels(ctx.quick).items():
        predicate = scatter_predicate(per_10000)
        ctx.spark.sql(f"DELETE FROM {table} WHERE {predicate}").collect()
        count = int(ctx.spark.sql(f"SELECT count(*) FROM {table}").collect()[0][0])
        expected = int(
            ctx.spark.sql(
                f"SELECT count(*) FROM ({source_sql(rows, FILES)}) WHERE NOT ({predicate})"
            ).collect()[0][0]
        )
        if count != expected:
            raise RuntimeError(
                f"W8 {ctx.engine}: {count} rows after deleting {level}, expected {expected}"
            )
        for shape, sql in SHAPES.items():
            case = ctx.query_case(f"{shape} {level}", sql.format(src=table), rows=count)
            overhead = case.median / base[shape] - 1
            case.extra["overhead"] = overhead
            case.extra["rows_deleted"] = rows - count
            if ctx.engine == "floe":
                case.extra["own_goal"] = {
                    "metric": "overhead vs the scan without deletes",
                    "value": overhead,
                    "goal": goal,
                }
            found.append(case)
    return found


WORKLOAD = Workload(
    id="W8",
    title="Read overhead of deletion vectors",
    family="row-level",
    engines=ENGINES_W8,
    prepare=row_table.base,
    run=run,
)
