"""The generated store_sales-like rows of the row-level benchmarks (bench/row_level.py's W6-W8 and
the suite's W7): 12 columns (6 BIGINT/INT, 2 DECIMAL, a DATE that grows with the key, 3 STRING),
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
