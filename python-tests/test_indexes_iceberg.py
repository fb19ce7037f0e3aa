"""Secondary indexes and the Apache Iceberg runtime (docs/indexes.md): Iceberg appends to, compacts
and cleans up an indexed Floe table; Floe still answers right, and the index survives."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pyspark.sql import SparkSession
from test_indexes import COLUMNS, FILES, _expected_ids, _fill, _ids, _index_pruned, _k


def _index_row(spark: SparkSession, table: str) -> tuple[object, ...]:
    row = spark.sql(f"SELECT covered_files, live_files, problem FROM {table}.indexes").first()
    assert row is not None
    return tuple(row)


def test_iceberg_appends_compacts_and_cleans_an_indexed_table(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    spark.sql(f"CREATE TABLE {floe_name} ({COLUMNS}) USING floe")
    _fill(spark, floe_name, 0, 3)
    spark.sql(f"CREATE INDEX by_k ON {floe_name} (k)")
    expected = _expected_ids(3, lambda i: _k(i) == 13)
    assert _ids(spark, f"SELECT id FROM {floe_name} WHERE k = 13") == expected
    assert _index_pruned(spark, floe_name) > 0

    # Iceberg appends a file the index has never seen: it is read, and the index is kept
    _fill(spark, iceberg_name, 3, 1)
    expected = _expected_ids(4, lambda i: _k(i) == 13)
    assert _ids(spark, f"SELECT id FROM {floe_name} WHERE k = 13") == expected
    assert _index_row(spark, floe_name) == (3, 4, None)

    # Iceberg compacts: every live file is new, so nothing is covered and nothing is pruned
    spark.sql(
        f"CALL {iceberg}.system.rewrite_data_files(table => '{namespace}.t', "
        "options => map('min-input-files', '2'))"
    ).collect()
    assert _ids(spark, f"SELECT id FROM {floe_name} WHERE k = 13") == expected
    assert _index_pruned(spark, floe_name) == 0
    assert _index_row(spark, floe_name)[0] == 0

    # Iceberg's expiry and orphan removal leave the index files alone; rewrite_index covers the
    # compacted files again
    spark.sql(
        f"CALL {iceberg}.system.expire_snapshots(table => '{namespace}.t', "
        "older_than => TIMESTAMP '9999-01-01 00:00:00', retain_last => 1)"
    ).collect()
    # Iceberg refuses a cut-off within the last 24 hours: age every file of the table instead
    location = (
        spark.sql(f"DESCRIBE TABLE EXTENDED {floe_name}").where("col_name = 'Location'").first()
    )
    assert location is not None
    root = Path(location[1].replace("file:", ""))
    index_files = sorted(root.glob("metadata/_floe_indexes/**/*.*"))
    assert index_files
    two_days_ago = time.time() - 2 * 24 * 3600
    for file in root.rglob("*"):
        os.utime(file, (two_days_ago, two_days_ago))
    cutoff = datetime.now(UTC) - timedelta(hours=25)  # the session time zone is UTC
    spark.sql(
        f"CALL {iceberg}.system.remove_orphan_files(table => '{namespace}.t', "
        f"older_than => TIMESTAMP '{cutoff:%Y-%m-%d %H:%M:%S}')"
    ).collect()
    assert all(f.exists() for f in index_files)
    assert _index_row(spark, floe_name)[2] is None
    spark.sql(f"CALL floe.system.rewrite_index('{namespace}.t', 'by_k')").collect()
    covered, live, problem = _index_row(spark, floe_name)
    assert covered == live and problem is None
    _fill(spark, floe_name, FILES - 2, 2)
    everything = _expected_ids(FILES, lambda i: _k(i) == 13)
    assert _ids(spark, f"SELECT id FROM {floe_name} WHERE k = 13") == everything
