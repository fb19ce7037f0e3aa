"""The row-level workloads' table (W6 DELETE, W7 MERGE, W8 reads after deletes): a store_sales-like
table with a unique key ``ss_id`` (``bench/store_sales.py``: 12 columns, ``ss_sold_date`` growing
with the key), generated once as zstd Parquet under the suite's inputs (``FILES`` files of
contiguous keys; 1,000,000 rows, quick: 100,000) and written by each engine in its own
configuration with :func:`create`. D1 has no unique key and 36 files, which would put these
workloads far over their budgets; this table is the one bench/row_level.py measures too.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from store_sales import source_sql
from suite_api import Context

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

FILES = 8
#: Floe's documented setting for row-level-heavy tables (README 'DELETE, UPDATE and MERGE'):
#: format v3, merge-on-read, so deletes are deletion vectors.
FLOE_PROPERTIES = {
    "format-version": "3",
    "write.delete.mode": "merge-on-read",
    "write.update.mode": "merge-on-read",
    "write.merge.mode": "merge-on-read",
    "write.parquet.compression-codec": "zstd",
}
#: A checksum of a table's rows: equal for every engine holding the same rows.
CHECKSUM = "SELECT count(*), bit_xor(xxhash64(*)) FROM {src}"
MARKER = "_DONE"


def rows_of(quick: bool) -> int:
    return 100_000 if quick else 1_000_000


def root(inputs: Path, quick: bool) -> Path:
    """The folder of the row-level inputs (W7 keeps its MERGE sources here too)."""
    return inputs / ("w7-quick" if quick else "w7")


def base(spark: SparkSession, inputs: Path, quick: bool) -> Path:
    """The table's rows as Parquet (``root``/base), generated when missing or of another size."""
    rows = rows_of(quick)
    path = root(inputs, quick) / "base"
    marker = path / MARKER
    if marker.is_file() and marker.read_text(encoding="utf-8") == str(rows):
        return path
    spark.sql(source_sql(rows, FILES)).write.mode("overwrite").option(
        "compression", "zstd"
    ).parquet(str(path))
    marker.write_text(str(rows), encoding="utf-8")
    return path


def create(ctx: Context, name: str) -> str:
    """Table ``name`` of ``ctx.engine`` holding :func:`base`'s rows, written by the engine in its
    configuration (Floe: :data:`FLOE_PROPERTIES`); returns its SQL identifier."""
    df = ctx.spark.read.parquet(str(root(ctx.inputs, ctx.quick) / "base"))
    props = FLOE_PROPERTIES if ctx.engine == "floe" else None
    return ctx.create_table(name, df, properties=props)
