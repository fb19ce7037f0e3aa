"""W2 selective scan and metadata answers on D1 (docs/benchmarks.md, "W2"): the same Parquet
files imported into every engine, then

(a) a 1% range of the clustered ``ss_item_sk`` within one month partition;
(b) ``count(*)``, ``min(ss_sold_date)``, ``max(ss_sold_date)`` of the whole table, which Floe and
    Iceberg answer from manifest metrics (aggregate push-down) and plain Parquet by a scan;
(c) the query of (b) after 5 small appends (about 0.1% of D1 each, the same rows in every
    engine), which must stay within 10% of (b) (``extra["c_over_b"]``; Floe's goal line);
(d) a point lookup in a small table (``SMALL_ROWS`` generated rows, one file, written by each
    engine): the read of a dimension table or a lookup of an interactive user, where a Spark job
    costs more than reading the file (Floe reads such scans on the driver). BENCH.md sets no goal
    for it; the report gives the ratios.

Goals: (a) Floe/Iceberg <= 0.8, Floe/Parquet <= 0.5; (b) and (c) Floe/Parquet <= 0.05,
Floe/Iceberg <= 0.5.

Two floors, timed in every engine's session after the cases above, bound what any table format
can reach here: ``SELECT * FROM VALUES (1)`` (parsed, analyzed, planned and collected to Python
without a Spark job: the least (b) and (c) can cost, since Floe answers them from metadata
without one) and the shape of (a) over one generated row (a Spark job of one task: a partial and
a final aggregate over one partition, as Floe plans (a), whose rows come from one file). Not
``SELECT 1``: Spark 4.1 runs it as a job over its one-row relation, so it is no such floor. The
workload checks that the first floor starts no Spark job, and records in ``extra["spark_jobs"]``
how many jobs one run of each of (a)-(c) starts in each engine. A missed goal's line in
the report says how much of the peer's time the fastest session's floor takes
(``extra["floor_case"]``, bench/suite_report.py ``floor_note``).
"""

from __future__ import annotations

from pathlib import Path

from suite_api import ENGINES, Case, Context, Workload, quote_path

from workloads import datasets

#: One month partition (June 2022) and 1% of the items (D1 is sorted by item within each file).
SELECTIVE = (
    "SELECT count(*), sum(ss_quantity), sum(ss_net_profit) FROM {table} "
    f"WHERE ss_item_sk BETWEEN 0 AND {datasets.D1_ITEMS // 100 - 1} "
    f"AND {datasets.D1_PARTITION} = 202206"
)
METADATA = "SELECT count(*), min(ss_sold_date), max(ss_sold_date) FROM {table}"
APPENDS = 5
#: Rows of (d)'s small table, and its query.
SMALL_ROWS = 10_000
LOOKUP = "SELECT * FROM {table} WHERE k = 4242"
#: Floe's (c) may take at most this much of its (b).
C_OVER_B = 1.10
#: The floors (see above): case name, query.
NO_JOB_FLOOR = ("floor: a local answer, no job", "SELECT * FROM VALUES (1)")
JOB_FLOOR = (
    "floor: the shape of (a) over one row",
    "SELECT count(*), sum(id), sum(id) FROM range(0, 1, 1, 1)",
)


def _append(ctx: Context, table: str, src: Path, i: int) -> None:
    """Appends the D1 rows with ``ss_ticket_number % 1000 == i`` (about 0.1%, same everywhere)."""
    rows = ctx.spark.sql(
        f"SELECT * FROM parquet.{quote_path(src)} WHERE ss_ticket_number % 1000 = {i}"
    )
    if ctx.engine == "parquet":
        rows.write.mode("append").option("compression", "zstd").partitionBy(
            datasets.D1_PARTITION
        ).parquet(str(ctx.table_path("d1")))
        ctx.refresh("d1")
        return
    rows.createOrReplaceTempView("w02_append")
    ctx.spark.sql(f"INSERT INTO {table} SELECT * FROM w02_append")


def run(ctx: Context) -> list[Case]:
    src = datasets.d1(ctx.spark, ctx.inputs, ctx.quick)
    table = ctx.import_parquet("d1", src, partition_cols=(datasets.D1_PARTITION,))
    rows = datasets.d1_rows(ctx.quick)
    a = ctx.query_case("a selective 1%", SELECTIVE.format(table=table), rows=rows)
    a.extra["spark_jobs"] = ctx.jobs_run(SELECTIVE.format(table=table))
    b = ctx.query_case("b count/min/max", METADATA.format(table=table), rows=rows)
    b.extra["spark_jobs"] = ctx.jobs_run(METADATA.format(table=table))
    for i in range(APPENDS):
        _append(ctx, table, src, i)
    c = ctx.query_case("c count/min/max after 5 appends", METADATA.format(table=table), rows=rows)
    c.extra["spark_jobs"] = ctx.jobs_run(METADATA.format(table=table))
    c.extra["c_over_b"] = round(c.median / b.median, 3) if b.median else None
    if ctx.engine == "floe" and b.median:
        c.extra["own_goal"] = {"metric": "c / b", "value": c.median / b.median, "goal": C_OVER_B}
    small = ctx.create_table(
        "small",
        ctx.spark.range(0, SMALL_ROWS, 1, 1).selectExpr(
            "id AS k", "concat('name-', CAST(id AS STRING)) AS name", "CAST(id % 7 AS INT) AS grp"
        ),
    )
    d = ctx.query_case("d lookup in a 10K-row table", LOOKUP.format(table=small))
    floors = [ctx.query_case(name, sql) for name, sql in (NO_JOB_FLOOR, JOB_FLOOR)]
    if ctx.jobs_run(NO_JOB_FLOOR[1]):
        raise RuntimeError(f"W2 {ctx.engine}: {NO_JOB_FLOOR[1]!r} ran a Spark job: no floor")
    a.extra["floor_case"] = JOB_FLOOR[0]
    b.extra["floor_case"] = c.extra["floor_case"] = NO_JOB_FLOOR[0]
    return [a, b, c, d, *floors]


WORKLOAD = Workload(
    id="W2",
    title="Selective scan and metadata answers",
    family="scan",
    engines=ENGINES,
    prepare=datasets.d1,
    run=run,
    goals={
        "a selective 1%": {"iceberg": 0.8, "parquet": 0.5},
        "b count/min/max": {"parquet": 0.05, "iceberg": 0.5},
        "c count/min/max after 5 appends": {"parquet": 0.05, "iceberg": 0.5},
    },
)
