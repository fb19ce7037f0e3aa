"""The change feed: ``CALL floe.system.create_changelog_view`` and the ``db.t.changes`` table.

Two oracles check every change kind:

- the Apache Iceberg runtime's own ``create_changelog_view`` and ``changes`` table on the same
  table (catalog ``iceberg``), for appends, overwrites, copy-on-write DELETE/UPDATE/MERGE and
  compaction. Iceberg 1.11's changelog scan refuses snapshots with delete files ("Delete files are
  currently not supported in changelog scans"), so it cannot check merge-on-read tables;
- for every kind, merge-on-read position deletes, deletion vectors and equality deletes included:
  the view of one snapshot holds exactly the rows the snapshot removed (DELETE) and added (INSERT),
  the multiset difference of time-travel reads of the snapshot and its parent.
"""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from interop_tables import normalize

import floe
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

MOR = (
    "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', "
    "'write.merge.mode'='merge-on-read'"
)
_views = itertools.count()
Row = tuple[Any, ...]


def _rows(spark: SparkSession, query: str) -> list[Row]:
    return sorted((tuple(normalize(v) for v in r) for r in spark.sql(query).collect()), key=repr)


def _sorted(*rows: Row) -> list[Row]:
    return sorted(rows, key=repr)


def _snapshots(spark: SparkSession, table: str) -> list[int]:
    """The table's snapshot ids, oldest first."""
    return [
        int(r[0])
        for r in spark.sql(
            f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at"
        ).collect()
    ]


def _view(
    spark: SparkSession, catalog: str, table: str, start: int | None, end: int | None, **args: str
) -> list[Row]:
    """The rows of a changelog view that ``catalog``'s procedure creates for (start, end]."""
    options = []
    if start is not None:
        options += [f"'start-snapshot-id', '{start}'"]
    if end is not None:
        options += [f"'end-snapshot-id', '{end}'"]
    name = f"cl_{next(_views)}"
    extra = "".join(f", {k} => {v}" for k, v in args.items())
    opts = f", options => map({', '.join(options)})" if options else ""
    out = spark.sql(
        f"CALL {catalog}.system.create_changelog_view(table => '{table}', "
        f"changelog_view => '{name}'{opts}{extra})"
    ).collect()
    assert out[0][0] == name
    return _rows(spark, f"SELECT * FROM {name}")


def _diff(spark: SparkSession, table: str, parent: int, snapshot: int) -> Counter[Row]:
    """Rows the snapshot removed (DELETE) and added (INSERT), from time-travel reads."""
    before = Counter(_rows(spark, f"SELECT * FROM {table} VERSION AS OF {parent}"))
    after = Counter(_rows(spark, f"SELECT * FROM {table} VERSION AS OF {snapshot}"))
    out: Counter[Row] = Counter()
    for row, n in (before - after).items():
        out[(*row, "DELETE")] = n
    for row, n in (after - before).items():
        out[(*row, "INSERT")] = n
    return out


def _assert_each_snapshot_is_its_diff(spark: SparkSession, table: str) -> None:
    ids = _snapshots(spark, f"floe.{table}")
    for ordinal, (parent, snap) in enumerate(itertools.pairwise(ids)):
        rows = _view(spark, "floe", table, parent, snap)
        assert {(r[-2], r[-1]) for r in rows} <= {(0, snap)}, rows
        assert Counter(r[:-2] for r in rows) == _diff(spark, f"floe.{table}", parent, snap), (
            f"snapshot {ordinal + 1}"
        )


def test_appends_overwrites_and_copy_on_write_match_iceberg(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    table = f"{namespace}.t"
    name = f"floe.{table}"
    spark.sql(f"CREATE TABLE {name} (id INT, cat STRING, v STRING) USING floe PARTITIONED BY (cat)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z')")
    spark.sql(f"INSERT INTO {name} VALUES (4, 'b', 'w'), (5, 'c', 'u')")
    spark.sql(f"INSERT OVERWRITE {name} PARTITION (cat = 'b') VALUES (30, 'z2')")
    spark.sql(f"DELETE FROM {name} WHERE id = 2")
    spark.sql(f"UPDATE {name} SET v = 'x2' WHERE id = 1")
    spark.sql(
        f"MERGE INTO {name} t USING (SELECT 5 AS id, 'c' AS cat, 'u2' AS v UNION ALL "
        f"SELECT 6, 'd', 'n') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v "
        f"WHEN NOT MATCHED THEN INSERT *"
    )
    spark.sql(
        f"CALL floe.system.rewrite_data_files(table => '{table}', "
        "options => map('rewrite-all', 'true'))"
    )
    ids = _snapshots(spark, name)
    assert len(ids) == 7
    compaction = ids[-1]
    spark.sql(f"REFRESH TABLE {iceberg}.{table}")

    # the raw feed, carry-overs included, is Iceberg's
    assert _rows(spark, f"SELECT * FROM {name}.changes") == _rows(
        spark, f"SELECT * FROM {iceberg}.{table}.changes"
    )
    for start, end in [(None, None), (ids[0], ids[3]), (ids[2], ids[5]), (ids[4], ids[5])]:
        for args in ({}, {"identifier_columns": "array('id')"}, {"net_changes": "true"}):
            assert _view(spark, "floe", table, start, end, **args) == _view(
                spark, iceberg, table, start, end, **args
            ), (start, end, args)
    # compaction changes no row and takes no ordinal
    assert _view(spark, "floe", table, ids[-2], compaction) == []
    assert (
        _rows(
            spark,
            f"SELECT * FROM {name}.changes WHERE _commit_snapshot_id = {compaction}",
        )
        == []
    )
    _assert_each_snapshot_is_its_diff(spark, table)
    updates = _view(spark, "floe", table, ids[3], ids[4], identifier_columns="array('id')")
    assert updates == [
        (1, "a", "x", "UPDATE_BEFORE", 0, ids[4]),
        (1, "a", "x2", "UPDATE_AFTER", 0, ids[4]),
    ]
    # the raw feed through the DataFrame reader, with a range
    raw = spark.read.options(**{"start-snapshot-id": str(ids[3]), "end-snapshot-id": str(ids[4])})
    assert {r["_change_type"] for r in raw.table(f"{name}.changes").collect()} == {
        "DELETE",
        "INSERT",
    }

    # Iceberg 1.11 refuses snapshots with delete files, so it cannot be the oracle of
    # merge-on-read changes (the other tests check them against time-travel reads)
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('write.delete.mode'='merge-on-read')")
    spark.sql(f"INSERT INTO {name} VALUES (7, 'e', 'p'), (8, 'e', 'q')")
    appended = _snapshots(spark, name)[-1]
    spark.sql(f"DELETE FROM {name} WHERE id = 7")  # a position delete file
    spark.sql(f"REFRESH TABLE {iceberg}.{table}")
    assert _rows(spark, f"SELECT content FROM {name}.delete_files") == [(1,)]
    assert [r[:4] for r in _view(spark, "floe", table, appended, None)] == [(7, "e", "p", "DELETE")]
    with pytest.raises(Exception, match="Delete files are currently not supported"):
        _view(spark, iceberg, table, appended, None)


@pytest.mark.parametrize("version", [2, 3])
def test_merge_on_read_position_deletes_and_deletion_vectors(
    spark: SparkSession, namespace: str, version: int
) -> None:
    table = f"{namespace}.t"
    name = f"floe.{table}"
    spark.sql(
        f"CREATE TABLE {name} (id INT, v STRING) USING floe "
        f"TBLPROPERTIES ({MOR}, 'format-version'='{version}')"
    )
    spark.sql(f"INSERT INTO {name} SELECT id, concat('v', id) FROM range(0, 20) AS t(id)")
    spark.sql(f"DELETE FROM {name} WHERE id IN (3, 4)")
    spark.sql(f"DELETE FROM {name} WHERE id = 7")  # a second delete of the same file
    spark.sql(f"UPDATE {name} SET v = 'changed' WHERE id = 10")
    spark.sql(
        f"MERGE INTO {name} t USING (SELECT 11 AS id, 'm' AS v UNION ALL SELECT 50, 'n') s "
        f"ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *"
    )
    deletes = _rows(spark, f"SELECT content, file_format FROM {name}.delete_files")
    assert deletes and all(
        fmt == ("PUFFIN" if version == 3 else "PARQUET") for _, fmt in deletes
    ), deletes
    _assert_each_snapshot_is_its_diff(spark, table)
    ids = _snapshots(spark, name)
    assert _view(spark, "floe", table, ids[0], None, identifier_columns="array('id')") == _sorted(
        (3, "v3", "DELETE", 0, ids[1]),
        (4, "v4", "DELETE", 0, ids[1]),
        (7, "v7", "DELETE", 1, ids[2]),
        (10, "changed", "UPDATE_AFTER", 2, ids[3]),
        (10, "v10", "UPDATE_BEFORE", 2, ids[3]),
        (11, "m", "UPDATE_AFTER", 3, ids[4]),
        (11, "v11", "UPDATE_BEFORE", 3, ids[4]),
        (50, "n", "INSERT", 3, ids[4]),
    )
    # a row inserted and deleted within the range is no net change
    spark.sql(f"DELETE FROM {name} WHERE id = 50")
    net = _view(spark, "floe", table, ids[3], None, net_changes="true")
    assert [r[:3] for r in net] == [(11, "m", "INSERT"), (11, "v11", "DELETE")]


def _java_table(spark: SparkSession, location: str) -> Any:
    jvm: Any = spark._jvm
    jsc: Any = spark._jsc
    return jvm.org.apache.iceberg.hadoop.HadoopTables(jsc.hadoopConfiguration()).load(location)


def test_equality_deletes_and_default_identifier_fields(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    """Equality deletes (written with pyarrow, committed through Iceberg's Java API, as Flink
    would) are DELETE rows of exactly the rows they delete; update images default to the
    table's identifier fields."""
    table = f"{namespace}.t"
    location = f"{floe.warehouse_uri(str(warehouse))}/{namespace}/t"
    spark.sql(
        f"CREATE TABLE {iceberg}.{table} (id INT NOT NULL, v STRING) USING iceberg "
        f"TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')"
    )
    spark.sql(f"INSERT INTO {iceberg}.{table} VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'b')")
    java = _java_table(spark, location)
    jvm: Any = spark._jvm
    names = jvm.java.util.ArrayList()
    names.add("id")
    java.updateSchema().setIdentifierFields(names).commit()
    field_id = java.schema().findField("v").fieldId()
    path = local_path(location) / "data" / "eq-deletes.parquet"
    pq.write_table(
        pa.table({"v": pa.array(["b"])}).cast(
            pa.schema([pa.field("v", pa.string(), metadata={"PARQUET:field_id": str(field_id)})])
        ),
        path,
    )
    field_ids = jvm.java.util.ArrayList()
    field_ids.add(field_id)
    delete = (
        jvm.org.apache.iceberg.FileMetadata.deleteFileBuilder(java.spec())
        .ofEqualityDeletes(jvm.org.apache.iceberg.util.ArrayUtil.toIntArray(field_ids))
        .withPath(path.as_uri())
        .withFormat("PARQUET")
        .withFileSizeInBytes(path.stat().st_size)
        .withRecordCount(1)
        .build()
    )
    java.newRowDelta().addDeletes(delete).commit()
    spark.sql(f"INSERT INTO {iceberg}.{table} VALUES (2, 'b2')")
    _assert_each_snapshot_is_its_diff(spark, table)
    ids = _snapshots(spark, f"floe.{table}")
    assert _view(spark, "floe", table, ids[0], None) == _sorted(
        (2, "b", "DELETE", 0, ids[1]),
        (2, "b2", "INSERT", 1, ids[2]),
        (4, "b", "DELETE", 0, ids[1]),
    )
    # compute_updates with the table's identifier field (id): the delete and re-insert of id 2
    # are in different snapshots, so they stay a DELETE and an INSERT
    assert _view(spark, "floe", table, ids[0], None, compute_updates="true") == _view(
        spark, "floe", table, ids[0], None
    )


def test_errors_name_the_problem(spark: SparkSession, namespace: str) -> None:
    table = f"{namespace}.t"
    name = f"floe.{table}"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) USING floe")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a')")
    spark.sql(f"INSERT INTO {name} VALUES (2, 'b')")
    spark.sql(f"INSERT INTO {name} VALUES (3, 'c')")
    s1, s2, s3 = _snapshots(spark, name)

    def fails(expected: str, table_arg: str = table, **kw: str) -> None:
        args = "".join(f", {k} => {v}" for k, v in kw.items())
        with pytest.raises(Exception) as e:
            spark.sql(
                f"CALL floe.system.create_changelog_view(table => '{table_arg}'{args})"
            ).collect()
        assert expected in str(e.value), str(e.value)

    fails("table floe." + namespace + ".nope does not exist", table_arg=f"{namespace}.nope")
    fails("end snapshot 42 does not exist", options="map('end-snapshot-id', '42')")
    fails(
        f"start-snapshot-id {s3} is after end-snapshot-id {s1}",
        options=f"map('start-snapshot-id', '{s3}', 'end-snapshot-id', '{s1}')",
    )
    fails(
        "unknown option 'start-snapshot'; the change feed options are start-snapshot-id",
        options="map('start-snapshot', '1')",
    )
    fails("invalid end-snapshot-id 'x'", options="map('end-snapshot-id', 'x')")
    with pytest.raises(
        Exception, match="choose the range of the change feed with the read options"
    ):
        spark.sql(f"SELECT * FROM {name}.changes VERSION AS OF {s1}").collect()
    fails(
        "identifier column 'nope' is not a column of the table (columns: id, v)",
        identifier_columns="array('nope')",
    )
    fails("identifier columns are not set", compute_updates="true")
    fails(
        "net_changes with compute_updates is not supported",
        identifier_columns="array('id')",
        net_changes="true",
    )
    spark.sql(
        f"CALL floe.system.expire_snapshots(table => '{table}', snapshot_ids => array({s1}, {s2}))"
    ).collect()
    fails(
        f"from snapshot {s1}: the snapshot no longer exists",
        options=f"map('start-snapshot-id', '{s1}')",
    )
    # from the expired parent of the oldest retained snapshot: that snapshot's changes
    assert [r[0] for r in _view(spark, "floe", table, s2, None)] == [3]
    # timestamps: snapshots committed after the start, up to the end
    t3 = spark.sql(f"SELECT committed_at FROM {name}.snapshots").collect()[0][0]
    assert t3 is not None
    ms = int(t3.timestamp() * 1000)
    later = f"map('start-timestamp', '{ms}')"
    assert (
        spark.sql(
            f"CALL floe.system.create_changelog_view(table => '{table}', options => {later})"
        ).collect()[0][0]
        == "`t_changes`"
    )
    assert spark.sql("SELECT count(*) FROM `t_changes`").collect()[0][0] == 0
    earlier = f"map('start-timestamp', '{ms - 1}', 'end-timestamp', '{ms}')"
    spark.sql(f"CALL floe.system.create_changelog_view(table => '{table}', options => {earlier})")
    assert _rows(spark, "SELECT id, _change_type, _commit_snapshot_id FROM `t_changes`") == [
        (3, "INSERT", s3)
    ]
