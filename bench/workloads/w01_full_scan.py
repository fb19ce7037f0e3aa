"""W1 full scan on D1 (docs/benchmarks.md; ported from bench/write_scan.py's scan phase): the same
Parquet files imported into every engine, then (a) every numeric column summed plus the lengths
of the strings, (b) one BIGINT summed. Goals: Floe/Parquet <= 1.03, Floe/Iceberg <= 1.00."""

from __future__ import annotations

from suite_api import ENGINES, Case, Context, Workload

from workloads import datasets

WIDE = """SELECT sum(ss_item_sk), sum(ss_customer_sk), sum(ss_ticket_number), sum(ss_store_sk),
    sum(ss_quantity), sum(ss_month), sum(ss_sales_price), sum(ss_net_profit),
    sum(unix_date(ss_sold_date)), sum(length(ss_channel)), sum(length(ss_customer_name)),
    sum(length(ss_comment)) FROM {table}"""
NARROW = "SELECT sum(ss_customer_sk) FROM {table}"


def run(ctx: Context) -> list[Case]:
    src = datasets.d1(ctx.spark, ctx.inputs, ctx.quick)
    table = ctx.import_parquet("d1", src, partition_cols=(datasets.D1_PARTITION,))
    rows = datasets.d1_rows(ctx.quick)
    return [
        ctx.query_case(name, sql.format(table=table), rows=rows)
        for name, sql in (("a wide", WIDE), ("b narrow", NARROW))
    ]


WORKLOAD = Workload(
    id="W1",
    title="Full scan",
    family="scan",
    engines=ENGINES,
    prepare=datasets.d1,
    run=run,
    goals={
        "a wide": {"parquet": 1.03, "iceberg": 1.00},
        "b narrow": {"parquet": 1.03, "iceberg": 1.00},
    },
)
