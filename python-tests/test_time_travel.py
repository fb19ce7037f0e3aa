"""Time travel: ``VERSION AS OF`` / ``TIMESTAMP AS OF`` and the DataFrame read options
``snapshot-id``, ``as-of-timestamp`` (milliseconds), ``branch`` and ``tag`` (Iceberg's names).

Checked here: each form reads the rows of the snapshot it names (snapshot ids read back from the
metadata file with the pure-Python ``floe.inspect``); a branch's head is read through the option and
through ``VERSION AS OF 'branch'``; setting two options is an error; an unknown snapshot id lists
the table's snapshots with their commit times and refs; a time before the first snapshot gives the
first snapshot's time; a time whose snapshot has expired names that snapshot; a time-travelling
table refuses writes.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from jvm_tables import table_ops

import floe
import floe.inspect as inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _history(warehouse: Path, namespace: str) -> list[dict[str, Any]]:
    """The table's snapshots, oldest first, from its metadata file."""
    location = f"{floe.warehouse_uri(str(warehouse))}/{namespace}/t"
    snapshots = inspect.load_table_metadata(location)["snapshots"]
    return sorted(snapshots, key=lambda s: s["timestamp-ms"])


def _ids(rows: list[Any]) -> list[int]:
    return sorted(r[0] for r in rows)


@pytest.fixture
def table(spark: SparkSession, namespace: str) -> str:
    """floe.<ns>.t with three appends: ids [1], then [2], then [3]."""
    name = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT) USING floe")
    for i in (1, 2, 3):
        spark.sql(f"INSERT INTO {name} VALUES ({i})")
    return name


def test_snapshot_id_option_and_version_as_of_read_the_old_rows(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    first, second, _ = _history(warehouse, namespace)
    old = spark.read.option("snapshot-id", str(first["snapshot-id"])).table(table)
    assert _ids(old.collect()) == [1]
    assert _ids(
        spark.sql(f"SELECT * FROM {table} VERSION AS OF {second['snapshot-id']}").collect()
    ) == [1, 2]
    assert _ids(spark.table(table).collect()) == [1, 2, 3]


def test_as_of_timestamp_option_and_timestamp_as_of(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    _, second, third = _history(warehouse, namespace)
    millis = second["timestamp-ms"]
    by_option = spark.read.option("as-of-timestamp", str(millis)).table(table)
    assert _ids(by_option.collect()) == [1, 2]
    just_before_third = dt.datetime.fromtimestamp((third["timestamp-ms"] - 1) / 1000, tz=dt.UTC)
    if just_before_third.timestamp() * 1000 >= millis:
        text = just_before_third.strftime("%Y-%m-%d %H:%M:%S.%f")
        rows = spark.sql(f"SELECT * FROM {table} TIMESTAMP AS OF '{text}'").collect()
        assert _ids(rows) == [1, 2]


def test_branch_and_tag_heads_are_read(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    first, second, _ = _history(warehouse, namespace)
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    ops = table_ops(spark, warehouse, namespace, "t")
    base = ops.refresh()
    ref = jvm.io.floe.format.metadata.SnapshotRef
    updated = (
        jvm.io.floe.format.metadata.TableMetadata.buildFrom(base)
        .setRef("audit", ref.branch(second["snapshot-id"]))
        .setRef("v1", ref.tag(first["snapshot-id"]))
        .build()
    )
    ops.commit(base, updated)

    assert _ids(spark.read.option("branch", "audit").table(table).collect()) == [1, 2]
    assert _ids(spark.sql(f"SELECT * FROM {table} VERSION AS OF 'audit'").collect()) == [1, 2]
    assert _ids(spark.read.option("tag", "v1").table(table).collect()) == [1]
    assert _ids(spark.sql(f"SELECT * FROM {table} VERSION AS OF 'v1'").collect()) == [1]
    with pytest.raises(Exception, match="no tag has that name"):
        spark.read.option("tag", "audit").table(table).collect()


def test_two_time_travel_options_are_refused(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    first = _history(warehouse, namespace)[0]
    reader = spark.read.option("snapshot-id", str(first["snapshot-id"])).option("branch", "main")
    with pytest.raises(Exception, match="snapshot-id and branch both select a snapshot") as error:
        reader.table(table).collect()
    assert table in str(error.value)


def test_unknown_snapshot_lists_the_snapshots_with_times_and_refs(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    history = _history(warehouse, namespace)
    with pytest.raises(Exception) as by_option:
        spark.read.option("snapshot-id", "12345").table(table).collect()
    with pytest.raises(Exception) as by_sql:
        spark.sql(f"SELECT * FROM {table} VERSION AS OF 12345").collect()
    for error in (by_option, by_sql):
        message = str(error.value)
        assert "12345" in message and table in message
        for snapshot in history:
            assert str(snapshot["snapshot-id"]) in message
        first_time = dt.datetime.fromtimestamp(history[0]["timestamp-ms"] / 1000, tz=dt.UTC)
        assert first_time.strftime("%Y-%m-%dT%H:%M:%S") in message
        assert f"branch main -> {history[-1]['snapshot-id']}" in message
        # newest first
        assert message.index(str(history[-1]["snapshot-id"])) < message.index(
            str(history[0]["snapshot-id"])
        )


def test_time_before_the_first_snapshot_gives_its_time(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    first = _history(warehouse, namespace)[0]
    expected = dt.datetime.fromtimestamp(first["timestamp-ms"] / 1000, tz=dt.UTC)
    with pytest.raises(Exception, match="before the table's first snapshot") as by_option:
        spark.read.option("as-of-timestamp", str(first["timestamp-ms"] - 60_000)).table(
            table
        ).collect()
    with pytest.raises(Exception, match="before the table's first snapshot") as by_sql:
        spark.sql(f"SELECT * FROM {table} TIMESTAMP AS OF '2000-01-01 00:00:00'").collect()
    for error in (by_option, by_sql):
        assert expected.strftime("%Y-%m-%dT%H:%M:%S") in str(error.value)
        assert str(first["snapshot-id"]) in str(error.value)


def test_time_whose_snapshot_expired_names_the_expired_snapshot(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    """After expire_snapshots trims the snapshot log, a time whose snapshot expired says so, naming
    the snapshot (found through the metadata log), not that the time is before the first snapshot;
    the metadata tables say the same; a time of a live snapshot still reads."""
    first, second, third = _history(warehouse, namespace)
    spark.sql(
        f"CALL floe.system.expire_snapshots(table => '{namespace}.t', "
        f"older_than => timestamp_millis({third['timestamp-ms']}), retain_last => 1)"
    )
    assert [s["snapshot-id"] for s in _history(warehouse, namespace)] == [third["snapshot-id"]]
    for snapshot in (first, second):
        millis = snapshot["timestamp-ms"]
        text = dt.datetime.fromtimestamp(millis / 1000, tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
        for how in ("sql", "option", "metadata table"):
            with pytest.raises(Exception) as error:
                if how == "sql":
                    spark.sql(f"SELECT * FROM {table} TIMESTAMP AS OF '{text}'").collect()
                elif how == "option":
                    spark.read.option("as-of-timestamp", str(millis)).table(table).collect()
                else:
                    spark.sql(f"SELECT * FROM {table}.files TIMESTAMP AS OF '{text}'").collect()
            message = str(error.value)
            assert f"snapshot {snapshot['snapshot-id']}, current then, has expired" in message
            assert "before the table's first snapshot" not in message
            assert str(third["snapshot-id"]) in message
    at = dt.datetime.fromtimestamp(third["timestamp-ms"] / 1000, tz=dt.UTC)
    rows = spark.sql(
        f"SELECT * FROM {table} TIMESTAMP AS OF '{at.strftime('%Y-%m-%d %H:%M:%S.%f')}'"
    )
    assert _ids(rows.collect()) == [1, 2, 3]


def test_time_travel_is_read_only(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    """SQL has no syntax to write at a version; the table Spark loads for one refuses a write."""
    first = _history(warehouse, namespace)[0]
    jvm = spark.sparkContext._jvm
    gateway = spark.sparkContext._gateway
    assert jvm is not None and gateway is not None
    catalog = spark._jsparkSession.sessionState().catalogManager().catalog("floe")
    names = gateway.new_array(jvm.java.lang.String, 1)
    names[0] = namespace
    ident = jvm.org.apache.spark.sql.connector.catalog.Identifier.of(names, "t")
    pinned = catalog.loadTable(ident, str(first["snapshot-id"]))
    with pytest.raises(Exception, match="at a past snapshot \\(time travel\\)") as error:
        pinned.newWriteBuilder(None)
    assert table in str(error.value)
    assert _ids(spark.table(table).collect()) == [1, 2, 3]


def test_read_options_match_columns_by_field_id_after_renames(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    """Spark resolves the current columns before it passes the options: the old snapshot is read
    through them by field id. A renamed column shows its old values, and a new column that took the
    old name reads null (never the old column's values)."""
    name = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT, a STRING) USING floe")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'old')")
    first = _history(warehouse, namespace)[0]["snapshot-id"]
    spark.sql(f"ALTER TABLE {name} RENAME COLUMN a TO b")
    spark.sql(f"ALTER TABLE {name} ADD COLUMN a STRING")
    spark.sql(f"INSERT INTO {name} VALUES (2, 'new b', 'new a')")

    old = spark.read.option("snapshot-id", str(first)).table(name)
    assert old.columns == ["id", "b", "a"]
    assert [tuple(r) for r in old.collect()] == [(1, "old", None)]
    # VERSION AS OF shows the snapshot's own columns
    own = spark.sql(f"SELECT * FROM {name} VERSION AS OF {first}")
    assert own.columns == ["id", "a"]
    assert [tuple(r) for r in own.collect()] == [(1, "old")]
