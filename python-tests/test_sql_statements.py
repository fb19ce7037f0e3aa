"""Floe's SQL statements as a user runs them, checked against what lands in the table's files.

The golden files in sql-tests/ show the rows and messages; these tests check what the golden files
cannot: the metadata JSON behind COMMENT, TBLPROPERTIES and NOT NULL, where LOCATION puts files
and what DROP [PURGE] removes, which partitions INSERT OVERWRITE replaces, snapshot summaries and
operation labels, and that a failed write leaves no snapshot and no files behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from floe import inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CATALOG = "floe"


def table_dir(warehouse: Path, namespace: str, table: str) -> Path:
    return warehouse / namespace / table


def local(location: str) -> Path:
    """A local path for a ``file:`` URI or a plain path."""
    for prefix in ("file://", "file:"):
        if location.startswith(prefix):
            return Path(location[len(prefix) :])
    return Path(location)


def files_under(directory: Path, suffix: str = "") -> set[Path]:
    """Every file below ``directory`` whose name ends with ``suffix`` (none if it is absent)."""
    if not directory.exists():
        return set()
    return {p for p in directory.rglob(f"*{suffix}") if p.is_file()}


def current_schema(metadata: dict[str, Any]) -> dict[str, Any]:
    schema_id = metadata["current-schema-id"]
    return next(s for s in metadata["schemas"] if s["schema-id"] == schema_id)


def fields_by_name(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["name"]: f for f in schema["fields"]}


def rows_of(spark: SparkSession, sql: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in spark.sql(sql).collect()]


def describe_extended(spark: SparkSession, table: str) -> dict[str, str]:
    """The "# Detailed Table Information" part of DESCRIBE EXTENDED as a dict."""
    rows = spark.sql(f"DESCRIBE EXTENDED {table}").collect()
    start = next(i for i, r in enumerate(rows) if r.col_name == "# Detailed Table Information")
    return {r.col_name: r.data_type for r in rows[start + 1 :]}


def show_tblproperties(spark: SparkSession, table: str) -> dict[str, str]:
    return {r.key: r.value for r in spark.sql(f"SHOW TBLPROPERTIES {table}").collect()}


def assert_summary_matches_files(spark: SparkSession, table: str, location: Path) -> dict[str, Any]:
    """The current snapshot's total-* counts equal the live files' and the rows Spark reads."""
    metadata = inspect.load_table_metadata(str(location))
    snapshot = inspect.find_snapshot(metadata)
    assert snapshot is not None
    summary = snapshot["summary"]
    files = inspect.table_files(str(location))
    assert all(f["content"] == 0 for f in files)
    on_disk = sum(local(f["file_path"]).stat().st_size for f in files)
    assert int(summary["total-data-files"]) == len(files)
    assert int(summary["total-records"]) == sum(f["record_count"] for f in files)
    assert (
        int(summary["total-files-size"]) == sum(f["file_size_in_bytes"] for f in files) == on_disk
    )
    assert int(summary["total-records"]) == spark.table(table).count()
    assert summary["total-delete-files"] == "0"
    return snapshot


def operations(location: Path) -> list[str]:
    """The operation label of every snapshot, oldest first."""
    metadata = inspect.load_table_metadata(str(location))
    snapshots = sorted(metadata["snapshots"], key=lambda s: s["sequence-number"])
    return [s["summary"]["operation"] for s in snapshots]


def partitions_of(location: Path, column: str) -> list[Any]:
    """The sorted values of an identity partition column over the live files."""
    return sorted({f["partition"][column] for f in inspect.table_files(str(location))})


# ---- CREATE TABLE: types, NOT NULL, comments, properties ----------------------------------------


def test_every_spark_type_is_stored_as_its_iceberg_type(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"{CATALOG}.{namespace}.types"
    spark.sql(
        f"""CREATE TABLE {t} (
          c_boolean BOOLEAN, c_tinyint TINYINT, c_smallint SMALLINT, c_int INT, c_bigint BIGINT,
          c_float FLOAT, c_double DOUBLE, c_decimal DECIMAL(38, 9), c_date DATE,
          c_timestamp TIMESTAMP, c_timestamp_ntz TIMESTAMP_NTZ, c_string STRING,
          c_binary BINARY,
          c_struct STRUCT<a: INT, b: STRUCT<c: STRING>>,
          c_array ARRAY<BIGINT>,
          c_map MAP<STRING, ARRAY<DATE>>)"""
    )
    metadata = inspect.load_table_metadata(str(table_dir(warehouse, namespace, "types")))
    fields = fields_by_name(current_schema(metadata))
    expected = {
        "c_boolean": "boolean",
        "c_tinyint": "int",
        "c_smallint": "int",
        "c_int": "int",
        "c_bigint": "long",
        "c_float": "float",
        "c_double": "double",
        "c_decimal": "decimal(38, 9)",
        "c_date": "date",
        "c_timestamp": "timestamptz",
        "c_timestamp_ntz": "timestamp",
        "c_string": "string",
        "c_binary": "binary",
    }
    assert {name: fields[name]["type"] for name in expected} == expected

    struct = fields["c_struct"]["type"]
    assert struct["type"] == "struct"
    assert [f["name"] for f in struct["fields"]] == ["a", "b"]
    assert struct["fields"][1]["type"]["fields"][0]["type"] == "string"
    array = fields["c_array"]["type"]
    assert (array["type"], array["element"], array["element-required"]) == ("list", "long", False)
    map_ = fields["c_map"]["type"]
    assert (map_["type"], map_["key"], map_["value"]["type"]) == ("map", "string", "list")
    assert map_["value"]["element"] == "date"

    ids: list[int] = []

    def collect(type_: Any) -> None:
        if not isinstance(type_, dict):
            return
        if type_["type"] == "struct":
            for f in type_["fields"]:
                ids.append(f["id"])
                collect(f["type"])
        elif type_["type"] == "list":
            ids.append(type_["element-id"])
            collect(type_["element"])
        elif type_["type"] == "map":
            ids.extend([type_["key-id"], type_["value-id"]])
            collect(type_["key"])
            collect(type_["value"])

    collect(current_schema(metadata))
    assert len(ids) == len(set(ids)) == metadata["last-column-id"] == max(ids)

    # Spark reads the stored types back: tinyint and smallint come back as int.
    spark_types = {f.name: f.dataType.simpleString() for f in spark.table(t).schema.fields}
    assert spark_types["c_tinyint"] == spark_types["c_smallint"] == "int"
    assert spark_types["c_timestamp"] == "timestamp"
    assert spark_types["c_timestamp_ntz"] == "timestamp_ntz"
    assert spark_types["c_map"] == "map<string,array<date>>"


def test_not_null_columns_are_required_fields(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    spark.sql(
        f"""CREATE TABLE {CATALOG}.{namespace}.nn (
          id BIGINT NOT NULL, name STRING, point STRUCT<x: INT NOT NULL, y: INT> NOT NULL,
          tags ARRAY<STRING>)"""
    )
    metadata = inspect.load_table_metadata(str(table_dir(warehouse, namespace, "nn")))
    fields = fields_by_name(current_schema(metadata))
    assert fields["id"]["required"] is True
    assert fields["name"]["required"] is False
    assert fields["point"]["required"] is True
    nested = {f["name"]: f["required"] for f in fields["point"]["type"]["fields"]}
    assert nested == {"x": True, "y": False}
    assert fields["tags"]["required"] is False
    schema = spark.table(f"{CATALOG}.{namespace}.nn").schema
    assert [f.nullable for f in schema.fields] == [False, True, False, True]


def test_table_comment_is_shown_and_stored_as_the_comment_property(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"{CATALOG}.{namespace}.commented"
    location = table_dir(warehouse, namespace, "commented")
    spark.sql(f"CREATE TABLE {t} (id BIGINT) COMMENT 'daily sales, one row per order'")
    assert describe_extended(spark, t)["Comment"] == "daily sales, one row per order"
    properties = inspect.load_table_metadata(str(location))["properties"]
    assert properties["comment"] == "daily sales, one row per order"
    create = spark.sql(f"SHOW CREATE TABLE {t}").collect()[0][0]
    assert "COMMENT 'daily sales, one row per order'" in create

    spark.sql(f"COMMENT ON TABLE {t} IS 'renamed comment'")
    assert inspect.load_table_metadata(str(location))["properties"]["comment"] == "renamed comment"
    assert describe_extended(spark, t)["Comment"] == "renamed comment"


def test_column_comments_are_stored_as_field_docs(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"{CATALOG}.{namespace}.docs"
    spark.sql(
        f"""CREATE TABLE {t} (
          id BIGINT NOT NULL COMMENT 'order id',
          amount DECIMAL(10, 2) COMMENT 'in euros',
          address STRUCT<city: STRING COMMENT 'city name', zip: STRING>,
          plain STRING)"""
    )
    metadata = inspect.load_table_metadata(str(table_dir(warehouse, namespace, "docs")))
    fields = fields_by_name(current_schema(metadata))
    assert fields["id"]["doc"] == "order id"
    assert fields["amount"]["doc"] == "in euros"
    assert "doc" not in fields["plain"]
    nested = fields_by_name(fields["address"]["type"])
    assert nested["city"]["doc"] == "city name"
    assert "doc" not in nested["zip"]
    described = {r.col_name: r.comment for r in spark.sql(f"DESCRIBE {t}").collect()}
    assert described["id"] == "order id"
    assert described["amount"] == "in euros"
    assert described["plain"] is None


def test_tblproperties_are_stored_and_reserved_ones_are_not(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"{CATALOG}.{namespace}.props"
    location = table_dir(warehouse, namespace, "props")
    spark.sql(
        f"""CREATE TABLE {t} (id BIGINT) USING floe
        TBLPROPERTIES ('owner.team' = 'sales', 'write.target-file-size-bytes' = '1048576',
                       'format-version' = '2')"""
    )
    metadata = inspect.load_table_metadata(str(location))
    assert metadata["format-version"] == 2
    assert metadata["properties"]["owner.team"] == "sales"
    assert metadata["properties"]["write.target-file-size-bytes"] == "1048576"
    for reserved in ("format-version", "provider", "location", "current-snapshot-id", "format"):
        assert reserved not in metadata["properties"]

    assert show_tblproperties(spark, t) == {
        "owner.team": "sales",
        "write.target-file-size-bytes": "1048576",
        "format-version": "2",
        "format": "iceberg/parquet",
        "current-snapshot-id": "none",
    }

    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('owner.team' = 'finance', 'ttl' = '30')")
    spark.sql(f"ALTER TABLE {t} UNSET TBLPROPERTIES ('write.target-file-size-bytes')")
    properties = inspect.load_table_metadata(str(location))["properties"]
    assert properties["owner.team"] == "finance"
    assert properties["ttl"] == "30"
    assert "write.target-file-size-bytes" not in properties

    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('format-version' = '3')")
    metadata = inspect.load_table_metadata(str(location))
    assert metadata["format-version"] == 3
    assert "format-version" not in metadata["properties"]

    spark.sql(f"INSERT INTO {t} VALUES (1)")
    snapshot_id = inspect.load_table_metadata(str(location))["current-snapshot-id"]
    assert show_tblproperties(spark, t)["current-snapshot-id"] == str(snapshot_id)


def test_identity_partitions_are_stored_in_the_spec(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"{CATALOG}.{namespace}.parted"
    location = table_dir(warehouse, namespace, "parted")
    spark.sql(f"CREATE TABLE {t} (id BIGINT, region STRING, day DATE) PARTITIONED BY (region, day)")
    metadata = inspect.load_table_metadata(str(location))
    ids = {f["name"]: f["id"] for f in current_schema(metadata)["fields"]}
    spec = next(
        s for s in metadata["partition-specs"] if s["spec-id"] == metadata["default-spec-id"]
    )
    assert [(f["name"], f["transform"], f["source-id"]) for f in spec["fields"]] == [
        ("region", "identity", ids["region"]),
        ("day", "identity", ids["day"]),
    ]
    spark.sql(f"INSERT INTO {t} VALUES (1, 'eu', DATE '2024-01-01'), (2, 'us', DATE '2024-01-02')")
    dirs = sorted(
        str(p.parent.relative_to(location / "data")) for p in files_under(location, ".parquet")
    )
    assert dirs == ["region=eu/day=2024-01-01", "region=us/day=2024-01-02"]


def test_show_create_table_recreates_the_same_table(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"{CATALOG}.{namespace}.original"
    location = table_dir(warehouse, namespace, "original")
    spark.sql(
        f"""CREATE TABLE {t} (
          id BIGINT NOT NULL COMMENT 'the id', region STRING, tags ARRAY<STRING>,
          price DECIMAL(9, 3))
        PARTITIONED BY (region) COMMENT 'kept' TBLPROPERTIES ('k' = 'v')"""
    )
    before = inspect.load_table_metadata(str(location))
    statement = spark.sql(f"SHOW CREATE TABLE {t}").collect()[0][0]
    spark.sql(f"DROP TABLE {t}")
    spark.sql(statement)
    after = inspect.load_table_metadata(str(location))
    assert after["table-uuid"] != before["table-uuid"]
    for key in ("schemas", "partition-specs", "properties", "location", "format-version"):
        assert after[key] == before[key], key


def test_describe_extended_statistics_count_the_rows(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"{CATALOG}.{namespace}.stats"
    location = table_dir(warehouse, namespace, "stats")
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING) PARTITIONED BY (p)")

    def expected() -> str:
        files = inspect.table_files(str(location))
        size = sum(f["file_size_in_bytes"] for f in files)
        rows = sum(f["record_count"] for f in files)
        return f"{max(size, 1)} bytes, {rows} rows"

    assert describe_extended(spark, t)["Statistics"] == "1 bytes, 0 rows"
    spark.sql(f"INSERT INTO {t} SELECT id, CAST(id % 3 AS STRING) FROM range(10)")
    assert describe_extended(spark, t)["Statistics"] == expected()
    assert expected().endswith(" 10 rows")
    spark.sql(f"INSERT INTO {t} VALUES (100, 'x')")
    spark.sql(f"INSERT OVERWRITE {t} PARTITION (p = '0') VALUES (200)")
    assert describe_extended(spark, t)["Statistics"] == expected()
    assert expected().endswith(" 8 rows")
    assert spark.table(t).count() == 8


# ---- LOCATION, DROP, RENAME -------------------------------------------------------------------


def test_location_puts_data_there_and_metadata_in_the_warehouse(
    spark: SparkSession, warehouse: Path, namespace: str, tmp_path: Path
) -> None:
    external = tmp_path / "external" / "events"
    t = f"{CATALOG}.{namespace}.located"
    catalog_dir = table_dir(warehouse, namespace, "located")
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING) PARTITIONED BY (p) LOCATION '{external}'")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'a')")

    assert rows_of(spark, f"SELECT * FROM {t} ORDER BY id") == [(1, "a"), (2, "b"), (3, "a")]
    metadata = inspect.load_table_metadata(str(catalog_dir))
    assert local(metadata["location"]) == external
    assert describe_extended(spark, t)["Location"] == f"file://{external}"
    data_files = files_under(external, ".parquet")
    assert len(data_files) == 2
    assert all(p.is_relative_to(external / "data") for p in data_files)
    assert {local(f["file_path"]) for f in inspect.table_files(str(catalog_dir))} == data_files
    # Metadata (versions, manifest lists, manifests) stays under the warehouse.
    assert not (external / "metadata").exists()
    assert files_under(catalog_dir, ".parquet") == set()
    assert len(files_under(catalog_dir / "metadata", ".metadata.json")) == 2
    assert files_under(catalog_dir / "metadata", ".avro")

    # DROP TABLE removes the table's directory in the warehouse but keeps data outside it.
    spark.sql(f"DROP TABLE {t}")
    assert not catalog_dir.exists()
    assert files_under(external, ".parquet") == data_files
    assert "located" not in {
        r.tableName for r in spark.sql(f"SHOW TABLES IN {CATALOG}.{namespace}").collect()
    }

    # DROP TABLE PURGE also deletes the table's data files outside the warehouse.
    purged = tmp_path / "external" / "purged"
    spark.sql(f"CREATE TABLE {t} (id BIGINT) LOCATION '{purged}'")
    spark.sql(f"INSERT INTO {t} VALUES (1)")
    spark.sql(f"INSERT INTO {t} VALUES (2)")
    assert len(files_under(purged, ".parquet")) == 2
    spark.sql(f"DROP TABLE {t} PURGE")
    assert not catalog_dir.exists()
    assert files_under(purged, ".parquet") == set()
    assert files_under(external, ".parquet") == data_files


def test_drop_table_removes_a_managed_table_and_its_files(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    for purge in ("", " PURGE"):
        t = f"{CATALOG}.{namespace}.dropped"
        location = table_dir(warehouse, namespace, "dropped")
        spark.sql(f"CREATE TABLE {t} (id BIGINT, p INT) PARTITIONED BY (p)")
        spark.sql(f"INSERT INTO {t} VALUES (1, 1), (2, 2)")
        assert files_under(location, ".parquet")
        spark.sql(f"DROP TABLE {t}{purge}")
        assert not location.exists(), purge
        assert not spark.catalog.tableExists(t)
        spark.sql(f"DROP TABLE IF EXISTS {t}{purge}")
    # The namespace is left, empty.
    assert (warehouse / namespace).is_dir()
    assert list((warehouse / namespace).iterdir()) == []


@pytest.mark.parametrize("target", ["{ns}.renamed", "floe.{ns}.renamed"])
def test_rename_moves_the_table_and_keeps_its_history(
    spark: SparkSession, warehouse: Path, namespace: str, target: str
) -> None:
    t = f"{CATALOG}.{namespace}.before"
    old = table_dir(warehouse, namespace, "before")
    new = table_dir(warehouse, namespace, "renamed")
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a')")
    first = inspect.load_table_metadata(str(old))["current-snapshot-id"]
    spark.sql(f"INSERT INTO {t} VALUES (2, 'b')")

    spark.sql(f"ALTER TABLE {t} RENAME TO {target.format(ns=namespace)}")
    renamed = f"{CATALOG}.{namespace}.renamed"
    assert not old.exists()
    metadata = inspect.load_table_metadata(str(new))
    assert local(metadata["location"]) == new
    assert len(metadata["snapshots"]) == 2
    assert all(local(f["file_path"]).is_relative_to(new) for f in inspect.table_files(str(new)))
    assert rows_of(spark, f"SELECT * FROM {renamed} ORDER BY id") == [(1, "a"), (2, "b")]
    assert rows_of(spark, f"SELECT * FROM {renamed} VERSION AS OF {first}") == [(1, "a")]
    assert not spark.catalog.tableExists(t)
    spark.sql(f"INSERT INTO {renamed} VALUES (3, 'a')")
    assert spark.table(renamed).count() == 3


# ---- INSERT OVERWRITE, summaries, operation labels ---------------------------------------------


def test_insert_overwrite_static_and_dynamic_replace_the_right_partitions(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"{CATALOG}.{namespace}.over"
    location = table_dir(warehouse, namespace, "over")
    spark.sql(f"CREATE TABLE {t} (id BIGINT, region STRING) PARTITIONED BY (region)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'eu'), (2, 'us'), (3, 'apac')")
    assert partitions_of(location, "region") == ["apac", "eu", "us"]
    assert_summary_matches_files(spark, t, location)

    # Static, with a PARTITION clause: only that partition.
    spark.sql(f"INSERT OVERWRITE {t} PARTITION (region = 'eu') VALUES (4)")
    assert rows_of(spark, f"SELECT * FROM {t} ORDER BY id") == [(2, "us"), (3, "apac"), (4, "eu")]
    assert_summary_matches_files(spark, t, location)

    try:
        # Dynamic: the partitions the query writes (us, latam); eu and apac stay.
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
        spark.sql(f"INSERT OVERWRITE {t} VALUES (5, 'us'), (6, 'latam')")
        assert rows_of(spark, f"SELECT * FROM {t} ORDER BY id") == [
            (3, "apac"),
            (4, "eu"),
            (5, "us"),
            (6, "latam"),
        ]
        snapshot = assert_summary_matches_files(spark, t, location)
        assert snapshot["summary"]["replace-partitions"] == "true"
        assert snapshot["summary"]["deleted-data-files"] == "1"
        assert snapshot["summary"]["added-data-files"] == "2"
    finally:
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "static")

    # Static, without a PARTITION clause: the whole table.
    spark.sql(f"INSERT OVERWRITE {t} VALUES (7, 'eu')")
    assert rows_of(spark, f"SELECT * FROM {t}") == [(7, "eu")]
    assert partitions_of(location, "region") == ["eu"]
    assert_summary_matches_files(spark, t, location)
    assert operations(location) == ["append", "overwrite", "overwrite", "overwrite"]


def test_snapshot_summaries_and_operations_follow_each_statement(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"{CATALOG}.{namespace}.summ"
    location = table_dir(warehouse, namespace, "summ")
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v STRING)")
    spark.sql(f"INSERT INTO {t} SELECT id, 'x' FROM range(0, 1000, 1, 3)")
    first = assert_summary_matches_files(spark, t, location)
    assert first["summary"]["added-records"] == "1000"
    assert first["summary"]["added-data-files"] == "3"
    spark.sql(f"INSERT INTO {t} SELECT id, 'y' FROM range(1000, 1500, 1, 2)")
    second = assert_summary_matches_files(spark, t, location)
    assert second["summary"]["total-records"] == "1500"
    assert second["summary"]["total-data-files"] == "5"
    assert second["parent-snapshot-id"] == first["snapshot-id"]

    spark.sql(f"INSERT OVERWRITE {t} SELECT id, 'z' FROM range(7)")
    third = assert_summary_matches_files(spark, t, location)
    assert third["summary"]["deleted-data-files"] == "5"
    assert third["summary"]["deleted-records"] == "1500"
    assert third["summary"]["total-records"] == "7"

    spark.sql(f"INSERT OVERWRITE {t} SELECT id, v FROM {t} WHERE false")
    assert_summary_matches_files(spark, t, location)
    assert spark.table(t).count() == 0
    assert operations(location) == ["append", "append", "overwrite", "delete"]


# ---- Failed writes ----------------------------------------------------------------------------


def assert_write_fails_cleanly(
    spark: SparkSession, location: Path, table: str, statement: str, error: str
) -> None:
    """Run a write that must fail; the table keeps its snapshot, rows and files."""
    metadata_file_before = inspect.metadata_file(str(location))
    metadata_before = inspect.load_table_metadata(str(location))
    rows_before = sorted(spark.table(table).collect())
    files_before = files_under(location)
    with pytest.raises(Exception, match=error):
        spark.sql(statement).collect()
    metadata_after = inspect.load_table_metadata(str(location))
    assert metadata_after["current-snapshot-id"] == metadata_before["current-snapshot-id"]
    assert metadata_after["last-sequence-number"] == metadata_before["last-sequence-number"]
    assert inspect.metadata_file(str(location)) == metadata_file_before
    assert sorted(spark.table(table).collect()) == rows_before
    leftover = files_under(location) - files_before
    assert leftover == set(), f"files left behind by a failed write: {sorted(leftover)}"


# Four input partitions: three tasks finish and write their files before the last one fails on
# its last row, so the cleanup of completed tasks' files is exercised, not only the failed task's.
FAILING_ROWS = "range(0, 4000, 1, 4)"
LAST_ROW = 3999


@pytest.fixture
def target(spark: SparkSession, warehouse: Path, namespace: str) -> tuple[str, Path]:
    t = f"{CATALOG}.{namespace}.target"
    spark.sql(f"CREATE TABLE {t} (id BIGINT NOT NULL, v BIGINT, p BIGINT) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} VALUES (-1, -1, 0), (-2, -2, 1)")
    return t, table_dir(warehouse, namespace, "target")


@pytest.mark.parametrize(
    "query",
    [
        f"INSERT INTO {{t}} SELECT id, CASE WHEN id = {LAST_ROW} THEN raise_error('boom') "
        f"ELSE id END, id % 5 FROM {FAILING_ROWS}",
        f"INSERT OVERWRITE {{t}} SELECT id, CASE WHEN id = {LAST_ROW} THEN raise_error('boom') "
        f"ELSE id END, id % 5 FROM {FAILING_ROWS}",
        f"CREATE OR REPLACE TABLE {{t}} AS SELECT id, CASE WHEN id = {LAST_ROW} "
        f"THEN raise_error('boom') ELSE id END AS v, id % 5 AS p FROM {FAILING_ROWS}",
    ],
    ids=["insert", "overwrite", "replace-as-select"],
)
def test_failed_write_keeps_the_snapshot_and_removes_its_files(
    spark: SparkSession, target: tuple[str, Path], query: str
) -> None:
    t, location = target
    assert_write_fails_cleanly(spark, location, t, query.format(t=t), "boom")


def test_failed_create_table_as_select_leaves_nothing(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"{CATALOG}.{namespace}.never"
    for partitioning in ("", "PARTITIONED BY (p)"):
        with pytest.raises(Exception, match="boom"):
            spark.sql(
                f"CREATE TABLE {t} {partitioning} AS SELECT id, CASE WHEN id = {LAST_ROW} "
                f"THEN raise_error('boom') ELSE id END AS v, id % 5 AS p FROM {FAILING_ROWS}"
            )
        assert not spark.catalog.tableExists(t)
        # No folder is left behind that would list as a namespace or block DROP NAMESPACE.
        assert list((warehouse / namespace).iterdir()) == []
        assert spark.sql(f"SHOW NAMESPACES IN {CATALOG}.{namespace}").count() == 0
    spark.sql(f"DROP NAMESPACE {CATALOG}.{namespace}")


def test_failed_dynamic_overwrite_keeps_the_snapshot_and_removes_its_files(
    spark: SparkSession, target: tuple[str, Path]
) -> None:
    t, location = target
    statement = (
        f"INSERT OVERWRITE {t} SELECT id, CASE WHEN id = {LAST_ROW} THEN raise_error('boom') "
        f"ELSE id END, id % 5 FROM {FAILING_ROWS}"
    )
    try:
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
        assert_write_fails_cleanly(spark, location, t, statement, "boom")
    finally:
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "static")


def test_not_null_violation_fails_without_a_snapshot(
    spark: SparkSession, target: tuple[str, Path]
) -> None:
    t, location = target
    statement = (
        f"INSERT INTO {t} SELECT CASE WHEN id = {LAST_ROW} THEN NULL ELSE id END, id, id % 5 "
        f"FROM {FAILING_ROWS}"
    )
    assert_write_fails_cleanly(spark, location, t, statement, "NOT_NULL_ASSERT_VIOLATION")


def test_cast_error_fails_without_a_snapshot(spark: SparkSession, target: tuple[str, Path]) -> None:
    t, location = target
    statement = (
        f"INSERT INTO {t} SELECT id, CAST(CASE WHEN id = {LAST_ROW} THEN 'abc' "
        f"ELSE CAST(id AS STRING) END AS BIGINT), id % 5 FROM {FAILING_ROWS}"
    )
    try:
        spark.conf.set("spark.sql.ansi.enabled", "true")
        assert_write_fails_cleanly(spark, location, t, statement, "CAST_INVALID_INPUT")
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


def test_errors_name_the_table_column_or_value(spark: SparkSession, namespace: str) -> None:
    """User errors say what is wrong and where, and leave nothing behind."""
    t = f"{CATALOG}.{namespace}.bad"
    cases: list[tuple[str, list[str]]] = [
        (f"CREATE TABLE {t} (id INT, span INTERVAL DAY)", [t, "span", "interval day"]),
        (f"CREATE TABLE {t} (id INT, ts TIMESTAMP) PARTITIONED BY (nope(ts))", [t, "nope(ts)"]),
        (f"CREATE TABLE {t} (id INT) TBLPROPERTIES ('format-version' = 'x')", [t, "'x'"]),
        (f"CREATE TABLE {t} (id INT) TBLPROPERTIES ('format-version' = '9')", [t, "9"]),
        (f"CREATE TABLE {t} (id INT) USING orc", [t, "orc", 'format("floe")']),
        (f"CREATE TABLE {CATALOG}.{namespace}.`a/b` (id INT)", ["a/b"]),
        (f"CREATE TABLE {CATALOG}.{namespace}.`..` (id INT)", ["'..'"]),
    ]
    for statement, words in cases:
        with pytest.raises(Exception) as caught:
            spark.sql(statement)
        for word in words:
            assert word in str(caught.value), (statement, str(caught.value))
    assert spark.sql(f"SHOW TABLES IN {CATALOG}.{namespace}").count() == 0


def test_count_after_a_sequence_of_statements(spark: SparkSession, namespace: str) -> None:
    t = f"{CATALOG}.{namespace}.seq"
    steps: list[tuple[str, int]] = [
        (f"CREATE TABLE {t} (id BIGINT, p INT) PARTITIONED BY (p)", 0),
        (f"INSERT INTO {t} SELECT id, CAST(id % 4 AS INT) FROM range(100)", 100),
        (f"INSERT INTO {t} SELECT id, 9 FROM range(10)", 110),
        (f"INSERT OVERWRITE {t} PARTITION (p = 9) SELECT id FROM range(3)", 103),
        (f"INSERT OVERWRITE {t} PARTITION (p = 0) SELECT id FROM range(0)", 78),
        (f"ALTER TABLE {t} SET TBLPROPERTIES ('x' = 'y')", 78),
        (f"REPLACE TABLE {t} AS SELECT * FROM {t} WHERE p = 1", 25),
    ]
    for statement, count in steps:
        spark.sql(statement)
        assert spark.table(t).count() == count, statement
        assert spark.sql(f"SELECT count(*) FROM {t}").collect()[0][0] == count, statement
