"""CALL floe.system.add_files: existing Parquet files become a table's data files without being
rewritten (as Iceberg's add_files), metrics from their footers; mismatches fail and add nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession
from row_level_tables import CommitHold, interleave


def add_files(spark: SparkSession, table: str, directory: Path) -> tuple[int, int]:
    row = spark.sql(
        f"CALL floe.system.add_files(table => '{table}', source_table => '`parquet`.`{directory}`')"
    ).collect()[0]
    return row.added_files_count, row.changed_partition_count


def snapshots(spark: SparkSession, table: str) -> int:
    return spark.table(f"floe.{table}.snapshots").count()


def location(spark: SparkSession, table: str) -> Path:
    """The table's location as a local path (add_files takes folders inside it)."""
    text = next(
        str(r[1])
        for r in spark.sql(f"DESCRIBE TABLE EXTENDED floe.{table}").collect()
        if r[0] == "Location"
    )
    return Path(text.removeprefix("file://").removeprefix("file:"))


def test_adds_files_in_place_with_footer_metrics(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT, x DOUBLE, s STRING)")
    source = location(spark, table) / "data" / "imported"
    rows = spark.range(1000).selectExpr(
        "id", "CAST(id * 1.5 AS DOUBLE) AS x", "CAST(id AS STRING) AS s"
    )
    rows.repartition(2).sortWithinPartitions("id").write.parquet(str(source))

    assert add_files(spark, table, source) == (2, 1)

    assert spark.sql(f"SELECT count(*), sum(id), sum(x) FROM floe.{table}").collect()[0] == (
        1000, 499500, 749250.0,
    )  # fmt: skip
    files = spark.sql(
        f"SELECT file_path, record_count, lower_bounds, upper_bounds, nan_value_counts "
        f"FROM floe.{table}.files"
    ).collect()
    sources = sorted(str(p) for p in source.glob("*.parquet"))
    assert sorted(f.file_path.removeprefix("file:") for f in files) == sources  # not rewritten
    assert sum(f.record_count for f in files) == 1000
    for f in files:
        assert 1 in f.lower_bounds and 1 in f.upper_bounds  # id: bounds from the footer
        assert 2 not in f.lower_bounds and not (f.nan_value_counts or {})  # x: NaN unknown
    # the bounds prune: one file holds ids <= 5
    assert spark.sql(f"SELECT count(*) FROM floe.{table} WHERE id = 5").collect()[0][0] == 1


def test_hive_directories_give_identity_partition_values(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT, p INT) PARTITIONED BY (p)")
    source = location(spark, table) / "data" / "imported"
    for p in (1, 2):
        spark.range(10).selectExpr("id", f"{p} AS p").write.parquet(str(source / f"p={p}"))

    added, partitions = add_files(spark, table, source)

    assert partitions == 2 and added >= 2
    assert spark.sql(f"SELECT p, count(*) FROM floe.{table} GROUP BY p ORDER BY p").collect() == [
        (1, 10), (2, 10),
    ]  # fmt: skip
    files = spark.sql(f"SELECT partition FROM floe.{table}.files").collect()
    values = {r.partition.p for r in files}
    assert values == {1, 2}


def test_missing_directory_is_an_error(spark: SparkSession, namespace: str, tmp_path: Path) -> None:
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT)")
    with pytest.raises(AnalysisException, match="does not exist"):
        add_files(spark, table, location(spark, table) / "data" / "nope")
    with pytest.raises(AnalysisException, match="source_table must name a directory"):
        spark.sql(f"CALL floe.system.add_files(table => '{table}', source_table => 'db.other')")


def test_schema_mismatch_adds_nothing(spark: SparkSession, namespace: str, tmp_path: Path) -> None:
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT, p INT) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO floe.{table} VALUES (1, 1)")
    before = snapshots(spark, table)
    tmp_path = location(spark, table) / "data" / "imports"  # add_files takes folders in the table
    extra = tmp_path / "extra"
    spark.range(3).selectExpr("id", "1 AS p", "id AS other").write.parquet(str(extra / "p=1"))
    with pytest.raises(AnalysisException, match="column other, which the table does not have"):
        add_files(spark, table, extra)
    hive = tmp_path / "hive"  # Spark's partitionBy leaves the partition column out of the files
    spark.range(3).selectExpr("id", "1 AS p").write.partitionBy("p").parquet(str(hive))
    with pytest.raises(AnalysisException, match="has no column p"):
        add_files(spark, table, hive)
    wrong_type = tmp_path / "wrong"
    spark.range(3).selectExpr("CAST(id AS STRING) AS id", "1 AS p").write.parquet(
        str(wrong_type / "p=1")
    )
    with pytest.raises(AnalysisException, match="does not match the table's"):
        add_files(spark, table, wrong_type)
    assert snapshots(spark, table) == before
    assert spark.table(f"floe.{table}").count() == 1


def test_a_folder_outside_the_table_or_its_metadata_is_refused(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    """Floe's maintenance deletes only inside the table location and refuses metadata pointing
    elsewhere: files added from outside would make every later expire_snapshots that reaches
    them fail, so add_files takes only folders inside the table, never its metadata folder."""
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT)")
    outside = tmp_path / "outside"
    spark.range(3).write.parquet(str(outside))
    with pytest.raises(AnalysisException, match="is not inside the table location"):
        add_files(spark, table, outside)
    with pytest.raises(AnalysisException, match="metadata folder"):
        add_files(spark, table, location(spark, table))
    with pytest.raises(AnalysisException, match="metadata folder"):
        add_files(spark, table, location(spark, table) / "metadata")
    assert snapshots(spark, table) == 0


def test_a_folder_linked_from_outside_the_table_is_refused(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    """A symbolic link inside the table location to a folder outside it: maintenance resolves links
    and would refuse to delete those files, so add_files refuses them by the same rule."""
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT)")
    outside = tmp_path / "outside é x"
    spark.range(3).write.parquet(str(outside))
    data = location(spark, table) / "data"
    data.mkdir(parents=True, exist_ok=True)
    (data / "linked").symlink_to(outside, target_is_directory=True)
    with pytest.raises(AnalysisException, match="through a symbolic link") as refused:
        add_files(spark, table, data / "linked")
    assert "outside é x" in str(refused.value) and "nothing was added" in str(refused.value)
    assert snapshots(spark, table) == 0


def test_a_file_the_table_already_has_is_refused(spark: SparkSession, namespace: str) -> None:
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT)")
    source = location(spark, table) / "data" / "imported"
    spark.range(5).write.parquet(str(source))
    assert add_files(spark, table, source)[0] >= 1
    before = snapshots(spark, table)
    with pytest.raises(AnalysisException, match="already has it"):
        add_files(spark, table, source)
    spark.sql(f"INSERT INTO floe.{table} VALUES (100)")  # Floe's own files in data/ too
    with pytest.raises(AnalysisException, match="already has it"):
        add_files(spark, table, location(spark, table) / "data")
    assert snapshots(spark, table) == before + 1
    assert spark.table(f"floe.{table}").count() == 6


def test_a_concurrent_add_of_the_same_files_fails_and_adds_nothing(
    spark: SparkSession, namespace: str
) -> None:
    """Two add_files of one folder both pass the "already has it" check before either commits: the
    later commit sees the earlier one's files and fails (nothing added, rows not doubled). A
    concurrent INSERT does not conflict with add_files."""
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT)")
    source = location(spark, table) / "data" / "imported"
    spark.range(5).write.parquet(str(source))
    gate = CommitHold(spark, f"floe.{table}")
    raised = interleave(gate, lambda: add_files(spark, table, source),
                        lambda: add_files(spark, table, source))  # fmt: skip
    assert raised is not None and "FLOE_CONCURRENT_CHANGE_CONFLICT" in str(raised), raised
    assert "adds too" in str(raised) and "imported" in str(raised), raised
    assert spark.table(f"floe.{table}").count() == 5
    assert snapshots(spark, table) == 1

    other = location(spark, table) / "data" / "other"
    spark.range(10, 13).write.parquet(str(other))
    raised = interleave(gate, lambda: add_files(spark, table, other),
                        lambda: spark.sql(f"INSERT INTO floe.{table} VALUES (100)"))  # fmt: skip
    assert raised is None, raised
    ids = sorted(r.id for r in spark.table(f"floe.{table}").collect())
    assert ids == [0, 1, 2, 3, 4, 10, 11, 12, 100]


def test_renamed_columns_of_files_without_field_ids_keep_their_values(
    spark: SparkSession, namespace: str
) -> None:
    """Files written without Parquet field ids (plain Spark) are matched through the table's name
    mapping, which schema changes keep current (as Iceberg's do): after renaming a column and a
    struct field, the added files still show their values under the new names (matching by the
    current name read NULLs); a column added later reads NULL for them. pyiceberg, which applies
    the same mapping, reads the same rows."""
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT, v STRING, s STRUCT<x: INT, k: INT>)")
    source = location(spark, table) / "data" / "imported"
    spark.range(3).selectExpr(
        "id", "CAST(id * 10 AS STRING) AS v", "named_struct('x', CAST(id AS INT), 'k', 7) AS s"
    ).write.parquet(str(source))
    assert add_files(spark, table, source)[0] >= 1
    spark.sql(f"ALTER TABLE floe.{table} RENAME COLUMN v TO w")
    spark.sql(f"ALTER TABLE floe.{table} RENAME COLUMN s.x TO y")
    spark.sql(f"ALTER TABLE floe.{table} ADD COLUMN z STRING")
    spark.sql(f"INSERT INTO floe.{table} VALUES (9, 'new', named_struct('y', 9, 'k', 9), 'zz')")
    expected = [(0, "0", 0, 7, None), (1, "10", 1, 7, None), (2, "20", 2, 7, None),
                (9, "new", 9, 9, "zz")]  # fmt: skip
    got = spark.sql(f"SELECT id, w, s.y, s.k, z FROM floe.{table} ORDER BY id").collect()
    assert [tuple(r) for r in got] == expected
    # a filter on the renamed column (pushed down, evaluated by Spark on the mapped values)
    assert spark.sql(f"SELECT id FROM floe.{table} WHERE w = '10'").collect()[0][0] == 1
    prop = f"SHOW TBLPROPERTIES floe.{table} ('schema.name-mapping.default')"
    mapping = json.loads(spark.sql(prop).collect()[0][1])
    by_id = {f["field-id"]: f for f in mapping}
    assert by_id[2]["names"] == ["v", "w"]
    assert by_id[3]["fields"][0]["names"] == ["x", "y"]
    assert any(f["names"] == ["z"] for f in mapping)

    from row_level_tables import pyiceberg_rows

    rows = pyiceberg_rows(str(location(spark, table)), ["id", "w", "z"])
    assert rows == [(i, w, z) for i, w, _, _, z in expected]


def test_files_whose_column_names_differ_in_case_are_read_through_the_mapping(
    spark: SparkSession, namespace: str
) -> None:
    """add_files accepts a file whose columns differ from the table's only in case (ID, V); the
    name mapping matches them the same way (spark.sql.caseSensitive is off), before and after a
    rename."""
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT, v STRING)")
    source = location(spark, table) / "data" / "imported"
    spark.range(2).selectExpr("id AS ID", "CAST(id + 5 AS STRING) AS V").write.parquet(str(source))
    add_files(spark, table, source)
    read = f"SELECT * FROM floe.{table} ORDER BY 1"
    assert [tuple(r) for r in spark.sql(read).collect()] == [(0, "5"), (1, "6")]
    spark.sql(f"ALTER TABLE floe.{table} RENAME COLUMN v TO w")
    assert [tuple(r) for r in spark.sql(read).collect()] == [(0, "5"), (1, "6")]


def test_an_invalid_name_mapping_fails_reads_of_files_without_ids_naming_it(
    spark: SparkSession, namespace: str
) -> None:
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT)")
    source = location(spark, table) / "data" / "imported"
    spark.range(2).write.parquet(str(source))
    add_files(spark, table, source)
    prop = "schema.name-mapping.default"
    spark.sql(f"ALTER TABLE floe.{table} SET TBLPROPERTIES ('{prop}' = '[{{\"names\": 3}}]')")
    with pytest.raises(Exception, match=rf"{table}.*{prop}.*invalid") as raised:
        spark.table(f"floe.{table}").collect()
    assert "imported" in str(raised.value)
    spark.sql(f"ALTER TABLE floe.{table} UNSET TBLPROPERTIES ('{prop}')")
    assert sorted(r.id for r in spark.table(f"floe.{table}").collect()) == [0, 1]


def test_hive_values_are_percent_decoded_and_checked(spark: SparkSession, namespace: str) -> None:
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT, s STRING) PARTITIONED BY (s)")
    source = location(spark, table) / "data" / "imported"
    # Spark escapes '/' and '=' as %2F and %3D in folder names; '+' and Unicode are literal
    spark.range(2).selectExpr("id", "'a+b/c=d é' AS s").write.parquet(
        str(source / "s=a+b%2Fc%3Dd é")
    )
    add_files(spark, table, source)
    assert spark.sql(f"SELECT DISTINCT s FROM floe.{table}").collect()[0][0] == "a+b/c=d é"

    flags = f"{namespace}.flags"
    spark.sql(f"CREATE TABLE floe.{flags} (id BIGINT, f BOOLEAN) PARTITIONED BY (f)")
    bad = location(spark, flags) / "data" / "imported"
    spark.range(2).selectExpr("id", "true AS f").write.parquet(str(bad / "f=yes"))
    with pytest.raises(AnalysisException, match="partition value 'yes' of f"):
        add_files(spark, flags, bad)


def test_added_files_are_expired_like_written_ones(spark: SparkSession, namespace: str) -> None:
    """The files live inside the table: compaction replaces them and expire_snapshots deletes them,
    as for files Floe wrote; pyiceberg reads the table with the added files."""
    from pyiceberg.table import StaticTable

    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT)")
    source = location(spark, table) / "data" / "imported"
    spark.range(100).repartition(3).write.parquet(str(source))
    add_files(spark, table, source)
    metadata = sorted((location(spark, table) / "metadata").glob("*.metadata.json"))[-1]
    assert StaticTable.from_metadata(str(metadata)).scan().to_arrow().num_rows == 100
    spark.sql(
        f"CALL floe.system.rewrite_data_files(table => '{table}', "
        "options => map('min-input-files', '2'))"
    )
    spark.sql(
        f"CALL floe.system.expire_snapshots(table => '{table}', "
        "older_than => TIMESTAMP '9999-01-01 00:00:00', retain_last => 1)"
    )
    assert not list(source.glob("*.parquet"))
    assert spark.sql(f"SELECT count(*), sum(id) FROM floe.{table}").collect()[0] == (100, 4950)


def test_a_file_with_other_field_ids_is_refused(spark: SparkSession, namespace: str) -> None:
    """A file written for another table carries that table's field ids, which readers match by
    id: added as is, its columns would read as other columns or nulls."""
    other = f"{namespace}.other"
    spark.sql(f"CREATE TABLE floe.{other} (s STRING, id BIGINT)")  # id has field id 2 there
    spark.sql(f"INSERT INTO floe.{other} VALUES ('a', 1)")
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT, s STRING)")
    source = location(spark, table) / "data" / "imported"
    source.mkdir(parents=True)
    for f in (location(spark, other) / "data").rglob("*.parquet"):
        (source / f.name).write_bytes(f.read_bytes())
    with pytest.raises(AnalysisException, match="column s has field id 1, but"):
        add_files(spark, table, source)
    assert snapshots(spark, table) == 0


def test_a_file_whose_footer_cannot_be_read_is_named_and_nothing_is_added(
    spark: SparkSession, namespace: str
) -> None:
    """Footers are read by several threads; the error still names the first bad file in path
    order (here b, not d), whichever thread failed first, and nothing is committed."""
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT)")
    before = snapshots(spark, table)
    source = location(spark, table) / "data" / "imported"
    spark.range(100).repartition(4).write.parquet(str(source / "good"))
    good = sorted(source.glob("good/*.parquet"))
    (source / "a.parquet").write_bytes(good[0].read_bytes())
    (source / "b.parquet").write_bytes(b"PAR1 this is not a Parquet file")
    (source / "c.parquet").write_bytes(good[1].read_bytes())
    (source / "d.parquet").write_bytes(good[2].read_bytes()[:-20])  # footer cut off
    bad_b = r"Cannot add file \S*/b\.parquet .*Parquet footer"
    for parallelism in (1, 3, 8):
        with pytest.raises(AnalysisException, match=bad_b):
            spark.sql(
                f"CALL floe.system.add_files(table => '{table}', "
                f"source_table => '`parquet`.`{source}`', parallelism => {parallelism})"
            ).collect()
    (source / "b.parquet").unlink()
    with pytest.raises(AnalysisException, match=r"Cannot add file \S*/d\.parquet .*Parquet footer"):
        add_files(spark, table, source)
    assert snapshots(spark, table) == before
    (source / "d.parquet").unlink()

    added = spark.sql(
        f"CALL floe.system.add_files(table => '{table}', source_table => '`parquet`.`{source}`', "
        "parallelism => 2)"
    ).collect()[0]
    assert added.added_files_count == 2 + len(good)
    copied = spark.read.parquet(str(good[0]), str(good[1])).count()  # a and c: their rows again
    assert spark.table(f"floe.{table}").count() == 100 + copied


def test_parallelism_must_be_positive_and_a_huge_one_is_capped(
    spark: SparkSession, namespace: str
) -> None:
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT)")
    source = location(spark, table) / "data" / "imported"
    spark.range(300).repartition(3).write.parquet(str(source))

    def call(parallelism: int) -> Any:
        return spark.sql(
            f"CALL floe.system.add_files(table => '{table}', "
            f"source_table => '`parquet`.`{source}`', parallelism => {parallelism})"
        ).collect()[0]

    for bad in (0, -5):
        with pytest.raises(AnalysisException, match=rf"parallelism .* at least 1, got {bad}"):
            call(bad)
    assert snapshots(spark, table) == 0
    # accepted: the threads are capped (TestAddFilesPoolSize)
    assert call(2_000_000_000).added_files_count == 3
    assert spark.table(f"floe.{table}").count() == 300
