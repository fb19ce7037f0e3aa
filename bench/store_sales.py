"""The generated store_sales-like rows of the row-level benchmarks (bench/row_level.py's W6-W8 and
the suite's W6-W8): 12 columns (6 BIGINT/INT, 2 DECIMAL, a DATE that grows with the key, 3 STRING),
keyed by a unique ``ss_id``."""

from __future__ import annotations

import datetime

DAYS = 1000  # ss_sold_date spans DAYS days, growing with the key: one day is 0.1% of the rows


def source_sql(rows: int, files: int, start: int = 0, end: int | None = None, tag: int = 0) -> str:
    """Generated rows [start, end) as SQL. Keys >= ``rows`` are new rows (MERGE inserts); ``tag``
    > 0 changes the non-key columns of an update (MERGE round ``tag``)."""
    end = rows if end is None else end
    qty = f"pmod(pmod(xxhash64(id, 4), 100) + {tag}, 100) + 1"
    note = f"hex(xxhash64(id, {9 + 100 * tag}))"
    return f"""SELECT id AS ss_id,
        pmod(xxhash64(id, 1), 200000) AS ss_item_sk,
        pmod(xxhash64(id, 2), 5000000) AS ss_customer_sk,
        CAST(pmod(xxhash64(id, 3), 100) AS INT) AS ss_store_sk,
        CAST({qty} AS INT) AS ss_quantity,
        id DIV 4 AS ss_ticket_number,
        CAST(pmod(xxhash64(id, 5), 20000) / 100 AS DECIMAL(7, 2)) AS ss_sales_price,
        CAST((pmod(xxhash64(id, 6), 40000) - 20000) / 100 AS DECIMAL(7, 2)) AS ss_net_profit,
        date_add(DATE '2020-01-01', CAST(id * {DAYS} DIV {rows} AS INT)) AS ss_sold_date,
        concat('channel-', CAST(pmod(xxhash64(id, 7), 5) AS STRING)) AS ss_channel,
        concat('promo-', CAST(pmod(xxhash64(id, 8), 1000) AS STRING)) AS ss_promo,
        {note} AS ss_note
    FROM range({start}, {end}, 1, {files})"""


def day(offset: int) -> str:
    """``DATE '...'``: the day ``offset`` days after the first ss_sold_date."""
    return f"DATE '{datetime.date(2020, 1, 1) + datetime.timedelta(days=offset)}'"


def cluster_days(files: int) -> tuple[int, int]:
    """A 10-day (1%) range [first, last) of ``ss_sold_date`` inside one of ``files`` files of
    contiguous keys: the middle one."""
    per_file = DAYS // files
    first = (files // 2) * per_file + max(0, (per_file - 10) // 2)
    return first, first + 10


def cluster_predicate(files: int) -> str:
    """Rows of the 10-day range of :func:`cluster_days` (1% of the rows, inside one file)."""
    first, last = cluster_days(files)
    return f"ss_sold_date >= {day(first)} AND ss_sold_date < {day(last)}"


def scatter_predicate(per_10000: int) -> str:
    """About ``per_10000`` / 10,000 of the rows, picked by a hash of the key: every file holds
    matches. The predicates nest (a smaller ``per_10000`` selects a subset)."""
    return f"pmod(xxhash64(ss_id, 42), 10000) < {per_10000}"


NUMERIC = (
    "ss_id", "ss_item_sk", "ss_customer_sk", "ss_store_sk", "ss_quantity", "ss_ticket_number",
    "ss_sales_price", "ss_net_profit",
)  # fmt: skip
#: Full scans (W1's shapes on this table): ``narrow`` sums one BIGINT, ``wide`` all 12 columns.
SCANS = {
    "narrow": "SELECT sum(ss_customer_sk) FROM {src}",
    "wide": "SELECT "
    + ", ".join(f"sum({c})" for c in NUMERIC)
    + ", sum(unix_date(ss_sold_date)), sum(length(ss_channel)), sum(length(ss_promo)),"
    " sum(length(ss_note)) FROM {src}",
}
