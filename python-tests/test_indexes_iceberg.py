"""Secondary indexes and the Apache Iceberg runtime (docs/indexes.md): Iceberg appends to, compacts
and cleans up an indexed Floe table; Floe still answers right, and the index survives."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import scan_report
from pyspark.sql import SparkSession
from test_indexes import (
    COLUMNS,
    FILES,
    ROW_SQL,
    ROWS_PER_FILE,
    _expected_ids,
    _fill,
    _ids,
    _index_pruned,
    _k,
)


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


def _root(spark: SparkSession, table: str) -> Path:
    location = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").where("col_name = 'Location'").first()
    assert location is not None
    return Path(location[1].replace("file:", ""))


def _metadata(spark: SparkSession, table: str) -> dict[str, Any]:
    import floe.inspect

    return floe.inspect.load_table_metadata(str(_root(spark, table)))


def _built_table(spark: SparkSession, namespace: str, props: str = "") -> tuple[str, str]:
    """An indexed Floe table of three files (inverted index by_k on k), and its Iceberg name."""
    floe_name = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {floe_name} ({COLUMNS}) USING floe {props}")
    _fill(spark, floe_name, 0, 3)
    spark.sql(f"CREATE INDEX by_k ON {floe_name} (k)")
    return floe_name, f"{namespace}.t"


def _index_answers(spark: SparkSession, table: str, files: int, value: int = 13) -> None:
    """k = value gives the rows of the first {files} files, and the index pruned some file."""
    expected = _expected_ids(files, lambda i: _k(i) == value)
    assert _ids(spark, f"SELECT id FROM {table} WHERE k = {value}") == expected
    assert _index_pruned(spark, table) > 0


def test_iceberg_compute_table_stats_and_analyze_keep_the_index(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    floe_name, short = _built_table(spark, namespace)
    index_property = spark.sql(f"SHOW TBLPROPERTIES {floe_name} ('floe.indexes')").first()
    assert index_property is not None and index_property[1].endswith(".json")

    # Iceberg writes a statistics file (Puffin, theta sketches) and sets it on the snapshot
    spark.sql(f"CALL {iceberg}.system.compute_table_stats(table => '{short}')").collect()
    metadata = _metadata(spark, floe_name)
    assert [s["snapshot-id"] for s in metadata["statistics"]] == [metadata["current-snapshot-id"]]
    assert spark.sql(f"SHOW TBLPROPERTIES {floe_name} ('floe.indexes')").first() == index_property
    assert _index_row(spark, floe_name) == (3, 3, None)
    _index_answers(spark, floe_name, 3)

    # Floe's ANALYZE replaces that statistics file; the index is untouched, and appends after it
    # still add segments
    spark.sql(f"ANALYZE TABLE {floe_name} COMPUTE STATISTICS FOR ALL COLUMNS")
    assert _index_row(spark, floe_name) == (3, 3, None)
    _fill(spark, floe_name, 3, 1)
    assert _index_row(spark, floe_name) == (4, 4, None)
    _index_answers(spark, floe_name, 4)
    spark.sql(f"CALL {iceberg}.system.compute_table_stats(table => '{short}')").collect()
    assert _index_row(spark, floe_name) == (4, 4, None)
    _index_answers(spark, floe_name, 4)
    # Iceberg reads the indexed table like any other
    assert _ids(spark, f"SELECT id FROM {iceberg}.{short} WHERE k = 13") == _expected_ids(
        4, lambda i: _k(i) == 13
    )


@pytest.mark.parametrize(
    ("mode", "version"),
    [("copy-on-write", 2), ("merge-on-read", 2), ("merge-on-read", 3)],
)
def test_iceberg_row_level_deletes_on_an_indexed_table(
    spark: SparkSession, iceberg: str, namespace: str, mode: str, version: int
) -> None:
    modes = ", ".join(f"'write.{op}.mode' = '{mode}'" for op in ("delete", "update", "merge"))
    floe_name, short = _built_table(
        spark, namespace, f"TBLPROPERTIES ('format-version' = '{version}', {modes})"
    )
    # ids 13 and 50 hold k = 13, in files 1 and 2; Iceberg deletes one and updates the other
    spark.sql(f"DELETE FROM {iceberg}.{short} WHERE id = 13")
    spark.sql(f"UPDATE {iceberg}.{short} SET k = -5 WHERE id = 50")
    deletes = spark.sql(f"SELECT count(*) FROM {iceberg}.{short}.delete_files").first()
    assert deletes is not None and (deletes[0] > 0) == (mode == "merge-on-read")
    remaining = _expected_ids(3, lambda i: _k(i) == 13 and i not in (13, 50))
    assert _ids(spark, f"SELECT id FROM {floe_name} WHERE k = 13") == remaining
    assert _ids(spark, f"SELECT id FROM {floe_name} WHERE k = -5") == [50]
    assert _ids(spark, f"SELECT id FROM {floe_name} WHERE id IN (13, 50)") == [50]
    covered, live, problem = _index_row(spark, floe_name)
    assert problem is None
    # the files Iceberg wrote are uncovered (and scanned); copy-on-write replaced two covered ones
    assert (covered, live) == ((1, 3) if mode == "copy-on-write" else (3, 4))
    _index_answers(spark, floe_name, 3, value=14)
    spark.sql(f"CALL floe.system.rewrite_index('{short}', 'by_k')").collect()
    assert _index_row(spark, floe_name) == (live, live, None)
    assert _ids(spark, f"SELECT id FROM {floe_name} WHERE k = -5") == [50]
    assert _ids(spark, f"SELECT id FROM {floe_name} WHERE k = 13") == remaining
    assert _index_pruned(spark, floe_name) > 0
    assert spark.sql(f"SELECT count(*) FROM {floe_name}").first() == (3 * ROWS_PER_FILE - 1,)


def test_pyiceberg_commits_keep_the_index(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path
) -> None:
    """pyiceberg rewrites the metadata of an indexed table (append, property, schema changes):
    floe.indexes is carried, the file pyiceberg appends is scanned, and the index still prunes."""
    import pyarrow as pa
    from pyiceberg.table import StaticTable
    from pyiceberg.types import LongType, StringType
    from test_interop_pyiceberg import _location, _publish, _sql_catalog

    import floe.inspect

    floe_name = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {floe_name} (id BIGINT, k INT, s STRING) USING floe")
    for f in range(3):
        spark.sql(ROW_SQL.format(files=FILES, f=f, rows=ROWS_PER_FILE)).select(
            "id", "k", "s"
        ).coalesce(1).writeTo(floe_name).append()
    spark.sql(f"CREATE INDEX by_k ON {floe_name} (k)")
    indexes = _metadata(spark, floe_name)["properties"]["floe.indexes"]

    catalog = _sql_catalog(tmp_path, warehouse)
    catalog.create_namespace(namespace)
    location = _location(warehouse, namespace, "t")
    table = catalog.register_table(
        f"{namespace}.t", f"file://{floe.inspect.metadata_file(location)}"
    )
    # one uncovered file whose k bounds [0, 36] hold every value
    rows = pa.table({"id": [1000, 1001, 1002], "k": [13, 0, 36], "s": ["p0", "p1", "p2"]})
    table.append(rows.cast(table.schema().as_arrow()))
    _publish(table.metadata_location)
    with table.transaction() as transaction:
        transaction.set_properties({"owner": "pyiceberg"})
    _publish(table.metadata_location)
    with table.update_schema() as update:
        update.add_column("note", StringType())
        update.rename_column("k", "key")
        update.update_column("k", field_type=LongType())  # int keys are read back as bigint
    _publish(table.metadata_location)

    metadata = _metadata(spark, floe_name)
    assert metadata["properties"]["floe.indexes"] == indexes
    assert metadata["properties"]["owner"] == "pyiceberg"
    assert spark.table(floe_name).schema["key"].dataType.simpleString() == "bigint"
    assert _index_row(spark, floe_name) == (3, 4, None)
    expected = [*_expected_ids(3, lambda i: _k(i) == 13), 1000]
    assert _ids(spark, f"SELECT id FROM {floe_name} WHERE key = 13") == expected
    report = scan_report(spark, floe_name)
    assert report["index-pruned-files"]["by_k"] > 0
    assert report["result-data-files"] >= 2  # pyiceberg's uncovered file is read
    assert _ids(spark, f"SELECT id FROM {floe_name} WHERE key = 36") == [
        *_expected_ids(3, lambda i: _k(i) == 36),
        1002,
    ]

    # Floe appends on top of pyiceberg's commits: the index is kept current, rewrite_index covers
    # pyiceberg's file, and pyiceberg still reads every row
    spark.sql(f"INSERT INTO {floe_name} VALUES (2000, 13, 's', 'n')")
    assert _index_row(spark, floe_name) == (4, 5, None)
    spark.sql(f"CALL floe.system.rewrite_index('{namespace}.t', 'by_k')").collect()
    assert _index_row(spark, floe_name) == (5, 5, None)
    assert _ids(spark, f"SELECT id FROM {floe_name} WHERE key = 13") == [*expected, 2000]
    assert _index_pruned(spark, floe_name) > 0
    static = StaticTable.from_metadata(location)
    assert static.scan().to_arrow().num_rows == 3 * ROWS_PER_FILE + 4
