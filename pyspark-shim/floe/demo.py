"""``floe demo``: create a partitioned table, write two snapshots, query it, list its snapshots."""

from __future__ import annotations

import datetime
from typing import Any

from floe.spark import warehouse_uri

NAMESPACE = "demo"
TABLE = "events"

_BATCHES = (
    """(1, 'eu', 'click', 1.50, TIMESTAMP '2025-01-01 09:00:00'),
       (2, 'us', 'view', 0.00, TIMESTAMP '2025-01-01 09:05:00'),
       (3, 'eu', 'buy', 42.00, TIMESTAMP '2025-01-01 09:10:00'),
       (4, 'ap', 'click', 2.25, TIMESTAMP '2025-01-01 09:15:00')""",
    """(5, 'us', 'buy', 19.99, TIMESTAMP '2025-01-02 10:00:00'),
       (6, 'eu', 'view', 0.00, TIMESTAMP '2025-01-02 10:30:00')""",
)


def table_location(warehouse: str, namespace: str, name: str) -> str:
    """Return where Floe's catalog keeps a table: ``<warehouse>/<namespace>/<name>``."""
    return f"{warehouse_uri(warehouse)}/{namespace}/{name}"


def run_demo(warehouse: str, catalog: str = "floe") -> None:
    """Run the demo job against ``warehouse`` (the demo table is dropped and recreated)."""
    from floe import inspect
    from floe.spark import session

    spark = session(warehouse, catalog=catalog, app_name="floe-demo")
    try:
        table = f"{catalog}.{NAMESPACE}.{TABLE}"
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {catalog}.{NAMESPACE}")
        spark.sql(f"DROP TABLE IF EXISTS {table}")
        spark.sql(
            f"CREATE TABLE {table} (id BIGINT, region STRING, kind STRING, "
            "amount DECIMAL(10, 2), ts TIMESTAMP) PARTITIONED BY (region)"
        )
        for batch in _BATCHES:
            spark.sql(f"INSERT INTO {table} VALUES {batch}")

        print(f"\nRows of {table} with region = 'eu':")
        spark.sql(f"SELECT * FROM {table} WHERE region = 'eu' ORDER BY id").show(truncate=False)
        print("Totals per region:")
        spark.sql(
            f"SELECT region, count(*) AS events, sum(amount) AS amount FROM {table} "
            "GROUP BY region ORDER BY region"
        ).show()

        location = table_location(warehouse, NAMESPACE, TABLE)
        metadata = inspect.load_table_metadata(location)
        print(
            f"Snapshots of {table} (read by floe.inspect from {inspect.metadata_file(location)}):"
        )
        _print_table(
            ["snapshot_id", "parent_id", "operation", "committed_at", "added_rows", "total_rows"],
            [_snapshot_row(s) for s in metadata.get("snapshots", [])],
        )
        files = inspect.table_files(location)
        partitions = sorted({str(f["partition"].get("region")) for f in files})
        print(f"\nLive data files: {len(files)} in partitions {', '.join(partitions)}")
    finally:
        spark.stop()


def _snapshot_row(snapshot: dict[str, Any]) -> list[str]:
    summary = snapshot.get("summary", {})
    committed = datetime.datetime.fromtimestamp(
        snapshot["timestamp-ms"] / 1000, tz=datetime.UTC
    ).strftime("%Y-%m-%d %H:%M:%S UTC")
    return [
        str(snapshot["snapshot-id"]),
        str(snapshot.get("parent-snapshot-id", "")),
        str(summary.get("operation", "")),
        committed,
        str(summary.get("added-records", "")),
        str(summary.get("total-records", "")),
    ]


def _print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=False)]
    for row in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
