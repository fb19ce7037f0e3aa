"""A large data file is read by several tasks, each a range of its row groups, as Spark splits a
plain Parquet file: one file must not leave all but one core idle. Rows, row positions (``_pos``)
and deletes are the same as in a whole-file read.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from interop_tables import row_group_starts, spark_rows

# these tests count the read tasks of a Spark job, which a small scan read on the driver
# (FloeLocalRead) does not run
pytestmark = pytest.mark.usefixtures("job_scans")

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ROWS = 60_000
#: small ranges and open cost so that the one test file (~2 MB, row groups of ~64 KB) is split
SPLIT = {"split-size": "256k", "file-open-cost": "64k"}


def _one_file_table(spark: SparkSession, namespace: str) -> str:
    table = f"floe.{namespace}.big"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, s STRING) USING floe "
        "TBLPROPERTIES ('write.parquet.row-group-size-bytes' = '65536')"
    )
    spark.sql(
        f"INSERT INTO {table} SELECT id, sha2(CAST(id AS STRING), 256) FROM range(0, {ROWS}, 1, 1)"
    )
    files = spark.sql(f"SELECT file_path FROM {table}.files").collect()
    assert len(files) == 1, files
    return table


def _split_read(spark: SparkSession, table: str) -> DataFrame:
    return spark.read.options(**SPLIT).table(table)


def test_one_large_file_is_read_by_several_tasks(spark: SparkSession, namespace: str) -> None:
    table = _one_file_table(spark, namespace)
    df = _split_read(spark, table).select("id", "s", "_pos")
    per_task = df.rdd.glom().map(len).collect()
    assert len(per_task) > 2, per_task
    # ranges start at row groups: no task reads nothing, none reads a row twice
    assert min(per_task) > 0 and sum(per_task) == ROWS, per_task
    rows = df.collect()
    assert sorted(r.id for r in rows) == list(range(ROWS))
    # rows were written in id order, so a row's position in the file is its id
    assert all(r["_pos"] == r.id for r in rows)
    assert spark.table(table).rdd.getNumPartitions() == 1  # 2 MB: below the open cost, one task


def test_deletes_apply_to_every_range_of_a_split_file(spark: SparkSession, namespace: str) -> None:
    table = _one_file_table(spark, namespace)
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')")
    spark.sql(f"DELETE FROM {table} WHERE id % 7 = 0 OR id >= {ROWS - 100}")
    df = _split_read(spark, table)
    assert df.rdd.getNumPartitions() > 2
    expected = [i for i in range(ROWS - 100) if i % 7 != 0]
    assert sorted(r.id for r in df.select("id").collect()) == expected
    assert df.selectExpr("count(*)", "sum(id)").first() == (len(expected), sum(expected))


@pytest.mark.parametrize("option", ["split-size", "file-open-cost"])
@pytest.mark.parametrize("value", ["0", "-1", "lots", "99999999999PB"])
def test_invalid_split_option_is_a_classed_error(
    spark: SparkSession, namespace: str, option: str, value: str
) -> None:
    from pyspark.errors import AnalysisException

    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT) USING floe")
    spark.sql(f"INSERT INTO {table} VALUES (1)")
    with pytest.raises(AnalysisException) as raised:
        spark.read.option(option, value).table(table).collect()
    error = raised.value
    assert error.getCondition() == "FLOE_OPTION_INVALID"
    message = str(error)
    assert f"read option {option}" in message and f"'{value}'" in message, message
    assert "positive number of bytes" in message and namespace in message, message


def test_huge_split_options_read_every_row(spark: SparkSession, namespace: str) -> None:
    """Sizes near Long.MAX_VALUE are accepted and do not wrap around in the packing sums."""
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT) USING floe")
    for i in range(3):
        spark.sql(f"INSERT INTO {table} VALUES ({i})")
    huge = str(2**63 - 1)
    for options in ({"split-size": huge}, {"file-open-cost": huge}, SPLIT | {"split-size": huge}):
        df = spark.read.options(**options).table(table)
        assert sorted(r.id for r in df.collect()) == [0, 1, 2], options


def test_tiny_split_options_read_every_row_once(spark: SparkSession, namespace: str) -> None:
    """A split size of one byte asks for more rounds of tasks than there are bytes: the files are
    then one task each (one per row group when they hold several), and every row is read once."""
    table = f"floe.{namespace}.tiny"
    spark.sql(f"CREATE TABLE {table} (id BIGINT) USING floe")
    for i in range(5):
        spark.sql(f"INSERT INTO {table} VALUES ({i}), ({i + 100})")
    files = spark.sql(f"SELECT count(*) FROM {table}.files").collect()[0][0]
    for options in ({"split-size": "1"}, {"split-size": "1", "file-open-cost": "1"}):
        df = spark.read.options(**options).table(table)
        assert df.rdd.getNumPartitions() == files, options  # one row group per file
        assert sorted(r.id for r in df.collect()) == [*range(5), *range(100, 105)], options


def test_invalid_split_property_of_an_iceberg_table_names_the_property(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    """Floe refuses the value when it is set; a table another engine set up is checked on read."""
    from pyspark.errors import AnalysisException

    spark.sql(
        f"CREATE TABLE {iceberg}.{namespace}.t (id BIGINT) USING iceberg "
        "TBLPROPERTIES ('read.split.target-size' = '-5')"
    )
    spark.sql(f"INSERT INTO {iceberg}.{namespace}.t VALUES (1)")
    with pytest.raises(AnalysisException) as raised:
        spark.table(f"floe.{namespace}.t").collect()
    assert raised.value.getCondition() == "FLOE_TABLE_PROPERTY_INVALID"
    message = str(raised.value)
    assert "table property read.split.target-size" in message and "'-5'" in message, message


@pytest.mark.parametrize("version", ["2", "3"])
def test_metadata_columns_and_deletes_over_ranges(
    spark: SparkSession, namespace: str, version: str
) -> None:
    """Position deletes (v2) or deletion vectors (v3) and ``_file``/``_pos`` in every range."""
    table = _one_file_table(spark, namespace)
    spark.sql(
        f"ALTER TABLE {table} SET TBLPROPERTIES ('format-version' = '{version}', "
        "'write.delete.mode' = 'merge-on-read')"
    )
    (path,) = [r[0] for r in spark.sql(f"SELECT file_path FROM {table}.files").collect()]
    spark.sql(f"DELETE FROM {table} WHERE id % 5 = 1")
    df = _split_read(spark, table).select("_file", "_pos", "id")
    assert df.rdd.getNumPartitions() > 2
    rows = df.collect()
    assert sorted(r.id for r in rows) == [i for i in range(ROWS) if i % 5 != 1]
    assert all(r["_pos"] == r.id and r["_file"] == path for r in rows)


@pytest.mark.parametrize("version", [2, 3])
def test_iceberg_written_file_with_split_offsets_and_deletes(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, version: int
) -> None:
    """A file the Iceberg runtime wrote (its manifest has split_offsets), with Iceberg's position
    deletes or deletion vectors and an equality delete: Floe's split read equals Iceberg's read."""
    import pyarrow as pa
    from test_equality_deletes import Table

    t = Table(spark, iceberg, namespace, warehouse)
    t.create("id BIGINT, s STRING", version=version)
    spark.sql(
        f"ALTER TABLE {t.iceberg} SET TBLPROPERTIES ('write.parquet.row-group-size-bytes'='65536')"
    )
    t.append(f"SELECT id, sha2(CAST(id AS STRING), 256) FROM range(0, {ROWS}, 1, 1)")
    offsets = spark.sql(f"SELECT split_offsets FROM {t.floe}.files").collect()
    assert len(offsets) == 1 and offsets[0][0] is not None and len(offsets[0][0]) > 4, offsets
    spark.sql(f"DELETE FROM {t.iceberg} WHERE id % 7 = 0")
    t.delete_equal([("id", pa.int64())], [(1,), (ROWS // 2 + 1,), (ROWS - 1,)])
    df = _split_read(spark, t.floe).select("_file", "_pos", "id", "s")
    assert df.rdd.getNumPartitions() > 2
    expected = spark_rows(spark, f"SELECT _file, _pos, id, s FROM {t.iceberg}")
    assert sorted((tuple(r) for r in df.collect()), key=repr) == expected
    assert len(expected) == ROWS - len(range(0, ROWS, 7)) - 3


def test_added_file_gets_split_offsets_and_is_split_at_its_row_groups(
    spark: SparkSession, namespace: str
) -> None:
    """add_files records each file's row-group starts as ``split_offsets`` (as Iceberg's add_files
    and every Floe write do): a split read cuts the file only there, so every task reads whole row
    groups and none is empty, and deletes and ``_pos`` still hold. (A file without offsets is cut
    into fixed-size ranges: TestFileSplits.)"""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, s STRING) USING floe "
        "TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')"
    )
    described = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect()
    location = next(str(r[1]) for r in described if r[0] == "Location")
    source = Path(location.removeprefix("file://").removeprefix("file:")) / "data" / "imported"
    source.mkdir(parents=True)  # add_files takes folders inside the table location
    ids = list(range(ROWS))
    pq.write_table(
        pa.table({"id": pa.array(ids, pa.int64()), "s": [f"{i:064d}" for i in ids]}),
        source / "part-0.parquet",
        row_group_size=ROWS // 4,
    )
    starts = row_group_starts(pq.ParquetFile(source / "part-0.parquet").metadata)
    assert len(starts) == 4
    spark.sql(
        f"CALL floe.system.add_files(table => '{namespace}.t', "
        f"source_table => '`parquet`.`{source}`')"
    )
    assert spark.sql(f"SELECT split_offsets FROM {table}.files").collect()[0][0] == starts
    spark.sql(f"DELETE FROM {table} WHERE id % 9 = 4")
    df = _split_read(spark, table).select("_pos", "id")
    per_task = df.rdd.glom().map(len).collect()
    assert len(per_task) > 1 and 0 not in per_task, per_task
    rows = df.collect()
    assert sorted(r.id for r in rows) == [i for i in ids if i % 9 != 4]
    assert all(r["_pos"] == r.id for r in rows)


def test_streaming_read_splits_a_large_file_and_delivers_each_row_once(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    table = _one_file_table(spark, namespace)
    ids: list[int] = []
    partitions: list[int] = []

    def collect(batch: DataFrame, batch_id: int) -> None:
        partitions.append(batch.rdd.getNumPartitions())
        ids.extend(int(r.id) for r in batch.select("id").collect())

    reader = spark.readStream
    for key, value in SPLIT.items():
        reader = reader.option(key, value)
    query = (
        reader.table(table)
        .writeStream.foreachBatch(collect)
        .option("checkpointLocation", str(tmp_path / "cp"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(300)
    assert query.exception() is None
    assert max(partitions) > 2, partitions
    assert sorted(ids) == list(range(ROWS))


def test_a_read_smaller_than_the_cluster_runs_in_one_round(
    spark: SparkSession, namespace: str
) -> None:
    """Files of 5, 3, 3 and 3 units: packed in turn into groups of half the total (7 units) they
    would make three tasks, [5], [3, 3] and [3], a second round on two cores; dealt to the
    lightest group they make two, [5, 3] and [3, 3]. Every row is read once either way."""
    table = f"floe.{namespace}.uneven"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, s STRING) USING floe")
    start = 0
    for rows in (5000, 3000, 3000, 3000):  # incompressible values: sizes follow the row counts
        spark.sql(
            f"INSERT INTO {table} SELECT id, sha2(CAST(id AS STRING), 256) "
            f"FROM range({start}, {start + rows}, 1, 1)"
        )
        start += rows
    files = spark.sql(f"SELECT file_size_in_bytes FROM {table}.files").collect()
    sizes = sorted(r[0] for r in files)
    assert len(sizes) == 4 and sizes[-1] + sizes[-2] > sum(sizes) / 2, sizes  # the case above
    assert spark.sparkContext.defaultParallelism == 2  # the session's local[2]
    df = spark.read.option("file-open-cost", "1").table(table)
    per_task = df.rdd.glom().map(len).collect()
    assert sorted(per_task) == [6000, 8000], per_task
    assert sorted(r.id for r in df.select("id").collect()) == list(range(start))


def test_a_read_of_several_rounds_fills_every_round(spark: SparkSession, namespace: str) -> None:
    """Twelve files of about one unit each, groups of at most 5.5 units, two cores: packed in turn
    they would make three tasks, [5], [5] and [2], the third a round of its own; a read of two
    rounds is dealt into four groups instead, [3], [3], [3] and [3], two full rounds of less work
    each. Every row is read once either way."""
    table = f"floe.{namespace}.rounds"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, s STRING) USING floe")
    for i in range(12):  # incompressible values: the files are about the same size
        spark.sql(
            f"INSERT INTO {table} SELECT id, sha2(CAST(id AS STRING), 256) "
            f"FROM range({i * 1000}, {(i + 1) * 1000}, 1, 1)"
        )
    sizes = [r[0] for r in spark.sql(f"SELECT file_size_in_bytes FROM {table}.files").collect()]
    split = int(max(sizes) * 5.5)
    assert len(sizes) == 12 and 6 * min(sizes) > split, sizes  # five files fit a group, six do not
    assert spark.sparkContext.defaultParallelism == 2  # the session's local[2]
    df = spark.read.options(**{"file-open-cost": "1", "split-size": str(split)}).table(table)
    per_task = df.rdd.glom().map(len).collect()
    assert per_task == [3000] * 4, per_task
    assert sorted(r.id for r in df.select("id").collect()) == list(range(12_000))
