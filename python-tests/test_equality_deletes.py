"""Floe applies equality deletes by the spec: an equality delete file removes the rows whose
``equality_ids`` columns all equal one of its rows (null equals null), from the data files of its
partition (or of every partition when its spec is unpartitioned) whose data sequence number is
strictly lower than its own. Its columns are matched by field id; key columns the query does not
select are read for the check and then dropped.

No Spark writer produces equality deletes (Flink does), so each test writes the delete file with
pyarrow (``PARQUET:field_id`` on every field) and commits it with the Apache Iceberg Java API
(``FileMetadata.deleteFileBuilder(...).ofEqualityDeletes(...)``, ``newRowDelta()``) on a table of
the shared warehouse, then compares Floe's rows (catalog ``floe``) with Iceberg's own reader's
(catalog ``iceberg``) and with the rows the test expects. Every test skips, saying why, when the
Iceberg runtime jar is unavailable.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from interop_tables import spark_rows

import floe
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_files = itertools.count()


class Table:
    """One table of the shared warehouse: its names in both catalogs and Iceberg's Java handle."""

    def __init__(self, spark: SparkSession, iceberg: str, namespace: str, warehouse: Path) -> None:
        self.spark = spark
        self.floe = f"floe.{namespace}.t"
        self.iceberg = f"{iceberg}.{namespace}.t"
        self.location = f"{floe.warehouse_uri(str(warehouse))}/{namespace}/t"

    def create(self, columns: str, *, version: int = 2, partitioned_by: str = "") -> None:
        partitioning = f"PARTITIONED BY ({partitioned_by})" if partitioned_by else ""
        self.spark.sql(
            f"CREATE TABLE {self.iceberg} ({columns}) USING iceberg {partitioning} "
            f"TBLPROPERTIES ('format-version'='{version}', 'write.delete.mode'='merge-on-read')"
        )

    def append(self, select: str) -> None:
        """Appends the rows of a SELECT (columns in table order) through Iceberg."""
        self.spark.sql(f"INSERT INTO {self.iceberg} {select}")

    def java(self) -> Any:
        jvm: Any = self.spark._jvm
        jsc: Any = self.spark._jsc
        return jvm.org.apache.iceberg.hadoop.HadoopTables(jsc.hadoopConfiguration()).load(
            self.location
        )

    def field_id(self, name: str) -> int:
        return int(self.java().schema().findField(name).fieldId())

    def field(self, name: str, arrow_type: pa.DataType, column: str | None = None) -> pa.Field:
        """An Arrow field carrying the Parquet field id of table column ``column`` (default
        ``name``): the delete file's names need not be the table's."""
        field_id = self.field_id(column or name)
        return pa.field(name, arrow_type, metadata={"PARQUET:field_id": str(field_id)})

    def write_deletes(self, rows: pa.Table) -> Path:
        path = local_path(self.location) / "data" / f"eq-deletes-{next(_files):05d}.parquet"
        pq.write_table(rows, path)
        return path

    def delete_file(
        self,
        path: Path,
        equality_columns: list[str],
        records: int,
        *,
        partition: str | None = None,
        spec: Any = None,
    ) -> Any:
        """The DeleteFile of an equality delete file over ``equality_columns``."""
        jvm: Any = self.spark._jvm
        table = self.java()
        ids = jvm.java.util.ArrayList()
        for column in equality_columns:
            ids.add(self.field_id(column))
        builder = (
            jvm.org.apache.iceberg.FileMetadata.deleteFileBuilder(
                spec if spec is not None else table.spec()
            )
            .ofEqualityDeletes(jvm.org.apache.iceberg.util.ArrayUtil.toIntArray(ids))
            .withPath(path.as_uri())
            .withFormat("PARQUET")
            .withFileSizeInBytes(path.stat().st_size)
            .withRecordCount(records)
        )
        if partition is not None:
            builder = builder.withPartitionPath(partition)
        return builder.build()

    def commit_deletes(self, *delete_files: Any, data_files: tuple[Any, ...] = ()) -> None:
        delta = self.java().newRowDelta()
        for data_file in data_files:
            delta = delta.addRows(data_file)
        for delete_file in delete_files:
            delta = delta.addDeletes(delete_file)
        delta.commit()
        self.spark.sql(f"REFRESH TABLE {self.iceberg}")

    def delete_equal(
        self, columns: list[tuple[str, pa.DataType]], values: list[tuple[Any, ...]], **kw: Any
    ) -> None:
        """Writes and commits one equality delete file over ``columns`` holding ``values``."""
        schema = pa.schema([self.field(name, arrow_type) for name, arrow_type in columns])
        table = pa.Table.from_pylist(
            [dict(zip((n for n, _ in columns), row, strict=True)) for row in values], schema=schema
        )
        path = self.write_deletes(table)
        self.commit_deletes(self.delete_file(path, [n for n, _ in columns], len(values), **kw))

    def assert_reads(
        self, expected_ids: set[int] | None = None, *queries: str, projections: bool = True
    ) -> None:
        """Floe's rows are Iceberg's (every column, then, with ``projections``, ``_pos``/``_file``
        and ``queries`` with {} for the table); with ``expected_ids``, the ``id`` column holds
        exactly those."""
        expected = spark_rows(self.spark, self.iceberg)
        assert spark_rows(self.spark, self.floe) == expected
        if expected_ids is not None:
            assert {r[0] for r in expected} == expected_ids
        if not projections:
            return
        metadata = "SELECT _file, _pos, id FROM {}"
        for query in (metadata, "SELECT count(*) FROM {}", *queries):
            assert spark_rows(self.spark, query.format(self.floe)) == spark_rows(
                self.spark, query.format(self.iceberg)
            ), query


def _ids(spark: SparkSession, name: str) -> list[int]:
    return sorted(int(r[0]) for r in spark.sql(f"SELECT id FROM {name}").collect())


@pytest.fixture
def table(spark: SparkSession, iceberg: str, namespace: str, warehouse: Path) -> Table:
    return Table(spark, iceberg, namespace, warehouse)


def test_single_and_multi_column_equality_deletes(table: Table) -> None:
    table.create("id BIGINT, data STRING, cat INT")
    table.append(
        "SELECT id, concat('d', CAST(id AS STRING)), CAST(id % 3 AS INT) FROM range(0, 300)"
    )
    table.append(
        "SELECT id, concat('d', CAST(id AS STRING)), CAST(id % 3 AS INT) FROM range(300, 600)"
    )
    model = set(range(600))

    table.delete_equal([("id", pa.int64())], [(3,), (5,), (450,), (9999,)])
    model -= {3, 5, 450}
    table.assert_reads(model, "SELECT data FROM {}", "SELECT cat, data FROM {} WHERE cat = 1")

    # both columns must match: (d10, 1) matches row 10 (10 % 3 = 1); (d11, 0) does not (11 % 3 = 2)
    table.delete_equal(
        [("data", pa.string()), ("cat", pa.int32())], [("d10", 1), ("d11", 0), ("d500", 2)]
    )
    model -= {10, 500}
    table.assert_reads(model, "SELECT id FROM {}", "SELECT data, id FROM {} WHERE id < 20")

    # a second file over the same columns: both apply (their rows are merged into one set)
    table.delete_equal([("id", pa.int64())], [(6,), (599,)])
    model -= {6, 599}
    table.assert_reads(model, "SELECT cat FROM {}")
    assert _ids(table.spark, table.floe) == sorted(model)


def test_null_equals_null(table: Table) -> None:
    table.create("id BIGINT, data STRING, cat INT")
    table.append(
        "SELECT id, IF(id % 4 = 0, NULL, concat('d', CAST(id % 5 AS STRING))), "
        "IF(id % 10 = 7, NULL, CAST(id % 3 AS INT)) FROM range(0, 200)"
    )
    # every row whose cat is null goes; rows with a value do not
    table.delete_equal([("cat", pa.int32())], [(None,)])
    model = {i for i in range(200) if i % 10 != 7}
    table.assert_reads(model, "SELECT data FROM {}")
    # (null data, cat 1): rows with data null and cat 1; (d2, null): cat is never null any more
    table.delete_equal([("data", pa.string()), ("cat", pa.int32())], [(None, 1), ("d2", None)])
    model = {i for i in model if not (i % 4 == 0 and i % 3 == 1)}
    table.assert_reads(model, "SELECT id, data FROM {} WHERE data IS NULL")


def test_sequence_numbers_decide_which_rows_a_delete_sees(table: Table) -> None:
    """A delete applies to data files with a strictly lower data sequence number: rows appended
    after it, or added by the same commit, keep equal values."""
    table.create("id BIGINT, data STRING")
    table.append("SELECT id, concat('old', CAST(id AS STRING)) FROM range(0, 50)")

    # a data file committed together with the delete (same sequence number) is not affected
    same_commit = local_path(table.location) / "data" / f"same-commit-{next(_files)}.parquet"
    pq.write_table(
        pa.table(
            {"id": [1, 2, 100], "data": ["same1", "same2", "same100"]},
            schema=pa.schema([table.field("id", pa.int64()), table.field("data", pa.string())]),
        ),
        same_commit,
    )
    jvm: Any = table.spark._jvm
    data_file = (
        jvm.org.apache.iceberg.DataFiles.builder(table.java().spec())
        .withPath(same_commit.as_uri())
        .withFormat("PARQUET")
        .withFileSizeInBytes(same_commit.stat().st_size)
        .withRecordCount(3)
        .build()
    )
    deletes = table.write_deletes(
        pa.table({"id": [1, 2, 3, 100]}, schema=pa.schema([table.field("id", pa.int64())]))
    )
    table.commit_deletes(table.delete_file(deletes, ["id"], 4), data_files=(data_file,))
    # appended after the delete: not affected either
    table.append("SELECT id, concat('new', CAST(id AS STRING)) FROM range(1, 4)")

    rows = sorted(
        (int(r[0]), str(r[1])) for r in table.spark.sql(f"SELECT * FROM {table.floe}").collect()
    )
    expected = sorted(
        [(i, f"old{i}") for i in range(50) if i not in (1, 2, 3)]
        + [(1, "same1"), (2, "same2"), (100, "same100")]
        + [(i, f"new{i}") for i in range(1, 4)]
    )
    assert rows == expected
    table.assert_reads(None, "SELECT data FROM {}")


def test_partition_scoped_and_global_equality_deletes(table: Table) -> None:
    """A delete of partition cat=1 leaves equal rows of other partitions; one with an
    unpartitioned spec (after the partition field is removed) applies to every partition."""
    table.create("id BIGINT, data STRING, cat INT", partitioned_by="cat")
    for cat in range(3):
        table.append(f"SELECT id, concat('d', CAST(id AS STRING)), {cat} FROM range(0, 40)")

    table.delete_equal([("id", pa.int64())], [(5,), (6,)], partition="cat=1")
    table.java().updateSpec().removeField("cat").commit()
    unpartitioned = table.java().spec()
    assert unpartitioned.isUnpartitioned()
    table.delete_equal([("id", pa.int64())], [(7,)], spec=unpartitioned)
    table.append("SELECT id, 'later', 1 FROM range(5, 8)")  # after both deletes: kept

    kept = [
        (i, cat)
        for i in range(40)
        for cat in range(3)
        if not ((i in (5, 6) and cat == 1) or i == 7)
    ]
    expected = sorted([*kept, (5, 1), (6, 1), (7, 1)])
    got = table.spark.sql(f"SELECT id, cat FROM {table.floe}").collect()
    assert sorted((int(r[0]), int(r[1])) for r in got) == expected
    table.assert_reads(None, "SELECT data FROM {}", "SELECT id FROM {} WHERE cat = 1")


def test_nested_and_unprojected_key_columns(table: Table) -> None:
    """Key columns inside a struct, and key columns the query does not select (read, compared,
    then dropped), including a struct selected without its key child."""
    table.create("id BIGINT, st STRUCT<a: INT, b: STRING>, tag STRING")
    table.append(
        "SELECT id, IF(id % 9 = 0, NULL, named_struct('a', CAST(id % 10 AS INT), "
        "'b', concat('b', CAST(id AS STRING)))), concat('t', CAST(id % 4 AS STRING)) "
        "FROM range(0, 120)"
    )
    a_type = pa.int32()
    schema = pa.schema(
        [
            pa.field(
                "st",
                pa.struct([table.field("a", a_type, "st.a")]),
                metadata={"PARQUET:field_id": str(table.field_id("st"))},
            ),
            table.field("tag", pa.string()),
        ]
    )
    rows = [{"st": {"a": 3}, "tag": "t3"}, {"st": {"a": 2}, "tag": "t0"}, {"st": None, "tag": "t1"}]
    path = table.write_deletes(pa.Table.from_pylist(rows, schema=schema))
    table.commit_deletes(table.delete_file(path, ["st.a", "tag"], len(rows)))

    def row(i: int) -> tuple[int, int | None, str | None, str]:
        a = None if i % 9 == 0 else i % 10
        return (i, a, None if i % 9 == 0 else f"b{i}", f"t{i % 4}")

    deleted = {(3, "t3"), (2, "t0"), (None, "t1")}
    model = [row(i) for i in range(120) if (row(i)[1], row(i)[3]) not in deleted]
    assert len(model) < 120 - 5
    # Iceberg 1.11 reads these right only when the key columns are selected (its reader
    # mishandles unselected nested key columns): compare every projection with the model
    table.assert_reads({r[0] for r in model}, projections=False)
    spark = table.spark
    assert sorted(int(r[0]) for r in spark.sql(f"SELECT id FROM {table.floe}").collect()) == [
        r[0] for r in model
    ]
    got = sorted(
        (r[0] is None, r[0]) for r in spark.sql(f"SELECT st.b FROM {table.floe}").collect()
    )
    assert got == sorted((r[2] is None, r[2]) for r in model)
    got_st = spark.sql(f"SELECT id, st FROM {table.floe}").collect()
    assert sorted(
        (int(r[0]), None if r[1] is None else (r[1]["a"], r[1]["b"])) for r in got_st
    ) == [(r[0], None if r[2] is None else (r[1], r[2])) for r in model]
    got_tag = spark.sql(f"SELECT id, tag, st.b FROM {table.floe} WHERE id > 50").collect()
    assert sorted((int(r[0]), r[1], r[2]) for r in got_tag) == [
        (r[0], r[3], r[2]) for r in model if r[0] > 50
    ]
    positions = spark.sql(f"SELECT _file, _pos, id FROM {table.floe}").collect()
    iceberg_positions = spark.sql(f"SELECT _file, _pos, id, st, tag FROM {table.iceberg}").collect()
    assert sorted((r[0], r[1], r[2]) for r in positions) == sorted(
        (r[0], r[1], r[2]) for r in iceberg_positions
    )


def test_delete_file_columns_matched_by_field_id(table: Table) -> None:
    """The delete file names its columns differently, orders them differently and carries a
    column that is not an equality column (as Flink's full-row deletes do): ids decide."""
    table.create("id BIGINT, data STRING, cat INT")
    table.append(
        "SELECT id, concat('d', CAST(id AS STRING)), CAST(id % 3 AS INT) FROM range(0, 90)"
    )
    schema = pa.schema(
        [
            table.field("extra_payload", pa.string(), "data"),
            table.field("cat_renamed", pa.int32(), "cat"),
            table.field("key", pa.int64(), "id"),
        ]
    )
    path = table.write_deletes(
        pa.table({"extra_payload": ["x", "y"], "cat_renamed": [1, 2], "key": [4, 8]}, schema=schema)
    )
    # equality over (id, cat) only: data differs from the rows' but is not compared
    table.commit_deletes(table.delete_file(path, ["id", "cat"], 2))
    model = set(range(90)) - {4, 8}
    table.assert_reads(model, "SELECT data FROM {}")


def test_value_types(table: Table) -> None:
    """Dates, timestamps, decimals of each width, doubles (NaN equals NaN, -0.0 is not 0.0),
    booleans and binaries compared as Iceberg compares them."""
    table.create(
        "id BIGINT, dt DATE, ts TIMESTAMP, dec DECIMAL(7, 2), dec_long DECIMAL(15, 3), "
        "dec_big DECIMAL(30, 5), d DOUBLE, flag BOOLEAN, bin BINARY"
    )
    table.append(
        "SELECT id, date_add(DATE '2024-01-01', CAST(id % 5 AS INT)), "
        "TIMESTAMP '2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id % 4), "
        "CAST(id % 6 AS DECIMAL(7, 2)), CAST(id % 7 AS DECIMAL(15, 3)), "
        "CAST(id % 2 AS DECIMAL(30, 5)), "
        "CASE id % 5 WHEN 0 THEN CAST('NaN' AS DOUBLE) WHEN 1 THEN CAST('-0.0' AS DOUBLE) "
        "WHEN 2 THEN CAST('0.0' AS DOUBLE) "
        "ELSE id / 2.0 END, id % 2 = 0, CAST(concat('b', CAST(id % 3 AS STRING)) AS BINARY) "
        "FROM range(0, 210)"
    )
    table.delete_equal(
        [("dt", pa.date32()), ("dec", pa.decimal128(7, 2)), ("flag", pa.bool_())],
        [(dt.date(2024, 1, 3), Decimal("4.00"), True)],  # id % 5 = 2, id % 6 = 4, even
    )
    table.delete_equal(
        [("d", pa.float64()), ("bin", pa.binary())],
        [(math.nan, b"b1"), (-0.0, b"b0")],  # NaN rows with id % 3 = 1; -0.0 rows with id % 3 = 0
    )
    table.delete_equal(
        [
            ("ts", pa.timestamp("us", tz="UTC")),
            ("dec_long", pa.decimal128(15, 3)),
            ("dec_big", pa.decimal128(30, 5)),
        ],
        [(dt.datetime(2024, 1, 1, 0, 0, 3, tzinfo=dt.UTC), Decimal("6.000"), Decimal("1.00000"))],
    )

    def deleted(i: int) -> bool:
        first = i % 5 == 2 and i % 6 == 4 and i % 2 == 0
        second = (i % 5 == 0 and i % 3 == 1) or (i % 5 == 1 and i % 3 == 0)
        third = i % 4 == 3 and i % 7 == 6 and i % 2 == 1
        return first or second or third

    model = {i for i in range(210) if not deleted(i)}
    assert 210 - len(model) > 20
    table.assert_reads(model, "SELECT id, d FROM {}", "SELECT bin FROM {}")


def test_equality_and_position_deletes_on_one_file(table: Table) -> None:
    """A v3 table: a deletion vector (Iceberg's DELETE) and equality deletes on the same file."""
    table.create("id BIGINT, data STRING, cat INT", version=3)
    table.append(
        "SELECT id, concat('d', CAST(id AS STRING)), CAST(id % 3 AS INT) FROM range(0, 5000)"
    )
    # sparse deletes (applied run by run) and a dense stretch (applied row by row)
    table.spark.sql(f"DELETE FROM {table.iceberg} WHERE id % 100 = 1 OR id BETWEEN 3000 AND 3400")
    table.delete_equal(
        [("cat", pa.int32()), ("data", pa.string())],
        [(0, "d3"), (1, "d4"), (2, "d11"), (2, "d3500"), (1, "d3100")],
    )
    model = {i for i in range(5000) if i % 100 != 1 and not 3000 <= i <= 3400} - {3, 4, 11, 3500}
    table.assert_reads(model, "SELECT data FROM {} WHERE id < 100", "SELECT _pos, cat FROM {}")


def test_one_delete_file_for_many_data_files(table: Table) -> None:
    """Many small data files read by few tasks share one loaded copy of the delete file."""
    table.create("id BIGINT, data STRING")
    for k in range(8):
        table.append(f"SELECT id, 'x' FROM range({k * 25}, {(k + 1) * 25})")
    table.delete_equal([("id", pa.int64())], [(i,) for i in range(0, 200, 3)])
    table.assert_reads({i for i in range(200) if i % 3 != 0}, "SELECT data FROM {}")


def test_missing_or_unknown_key_columns_fail_naming_the_file(table: Table) -> None:
    table.create("id BIGINT, data STRING")
    table.append("SELECT id, 'x' FROM range(0, 10)")
    # the file lacks the equality column (field id of data): an error, not a silent null match
    path = table.write_deletes(
        pa.table({"id": [1]}, schema=pa.schema([table.field("id", pa.int64())]))
    )
    table.commit_deletes(table.delete_file(path, ["data"], 1))
    with pytest.raises(Exception, match=rf"{path.name}.*no column data \(field id 2\)"):
        table.spark.sql(f"SELECT * FROM {table.floe}").collect()
