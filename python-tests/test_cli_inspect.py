"""`floe inspect PATH` on tables Floe wrote: the readable summary names delete files by kind
(position deletes in v2, deletion vectors in v3), the statistics file's columns and the indexes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest

from floe import cli

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _summary(location: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert cli.main(["inspect", location]) == 0
    return capsys.readouterr().out.splitlines()


def _delete_row(lines: list[str], kind: str) -> list[str]:
    row = next(line for line in lines if line.strip().startswith(kind))
    return row.strip()[len(kind) :].split()


@pytest.mark.parametrize(
    ("version", "kind"), [(2, "position delete files"), (3, "deletion vectors")]
)
def test_inspect_summarises_deletes_statistics_and_indexes(
    spark: SparkSession,
    namespace: str,
    warehouse: Path,
    capsys: pytest.CaptureFixture[str],
    version: int,
    kind: str,
) -> None:
    import floe

    table = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, region STRING) USING floe PARTITIONED BY (region) "
        f"TBLPROPERTIES ('format-version' = '{version}', 'write.delete.mode' = 'merge-on-read')"
    )
    spark.sql(f"INSERT INTO {table} VALUES (1, 'eu'), (2, 'eu'), (3, 'us'), (4, 'ap')")
    spark.sql(f"DELETE FROM {table} WHERE id = 2")
    spark.sql(f"ANALYZE TABLE {table} COMPUTE STATISTICS FOR COLUMNS id")
    spark.sql(f"CREATE INDEX by_id ON {table} USING btree (id)")
    location = f"{floe.warehouse_uri(str(warehouse))}/{namespace}/t"

    lines = _summary(location, capsys)
    assert f"Format version   {version}" in lines
    assert "Partition spec   id 0: region = identity(region)" in lines
    assert any(line.startswith("Data files       3 files, 4 rows,") for line in lines), lines
    assert _delete_row(lines, kind)[:2] == ["1", "1"], lines  # one file, one deleted row
    others = {"position delete files", "deletion vectors", "equality delete files"} - {kind}
    for other in others:
        assert _delete_row(lines, other)[:2] == ["0", "0"], lines
    assert "Statistics files 1 for this snapshot, 0 for other snapshots" in lines
    assert "    apache-datasketches-theta-v1: id" in lines
    assert "Indexes          1" in lines
    index = next(line for line in lines if line.startswith("  by_id "))
    assert index.startswith("  by_id (btree on id): ") and "3 of 3 live data files covered" in index
    current = spark.sql(f"SELECT snapshot_id, operation FROM {table}.snapshots").collect()[-1]
    assert any(
        line.startswith(f"Current snapshot {current[0]} [branch main]") and current[1] in line
        for line in lines
    ), lines
    # the machine form is unchanged: the JSON summary
    assert cli.main(["inspect", location, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["current-snapshot-id"] == current[0]
    assert sum(1 for f in printed["files"] if f["content"] == 1) == 1


@pytest.mark.parametrize("version", [1, 2, 3])
def test_inspect_summarises_a_table_the_iceberg_runtime_wrote(
    spark: SparkSession,
    iceberg: str,
    namespace: str,
    warehouse: Path,
    capsys: pytest.CaptureFixture[str],
    version: int,
) -> None:
    """A table Apache Iceberg's runtime wrote (hidden partitioning, a sort order; v2 and v3: its
    merge-on-read DELETE, and an equality delete file committed through its Java API): the
    summary's counts are those of Iceberg's own metadata tables."""
    from test_equality_deletes import Table

    import floe

    table = Table(spark, iceberg, namespace, warehouse)
    mode = "" if version == 1 else ", 'write.delete.mode'='merge-on-read'"
    spark.sql(
        f"CREATE TABLE {table.iceberg} (id BIGINT, ts TIMESTAMP, data STRING) USING iceberg "
        f"PARTITIONED BY (days(ts), bucket(4, id)) "
        f"TBLPROPERTIES ('format-version'='{version}'{mode})"
    )
    jvm: Any = spark._jvm
    nulls_last = jvm.org.apache.iceberg.NullOrder.NULLS_LAST
    column = jvm.org.apache.iceberg.expressions.Expressions.ref("id")
    table.java().replaceSortOrder().desc(column, nulls_last).commit()  # no Iceberg SQL extensions
    spark.sql(f"REFRESH TABLE {table.iceberg}")
    spark.sql(
        f"INSERT INTO {table.iceberg} SELECT id, TIMESTAMP '2026-01-01 00:00:00' + "
        f"make_interval(0, 0, 0, CAST(id % 3 AS INT)), CAST(id AS STRING) FROM range(0, 60)"
    )
    spark.sql(f"INSERT INTO {table.iceberg} VALUES (100, NULL, 'x')")
    if version > 1:
        spark.sql(f"DELETE FROM {table.iceberg} WHERE id IN (3, 4, 5)")
        bucket = spark.sql(f"SELECT {iceberg}.system.bucket(4, 7L)").collect()[0][0]
        table.delete_equal(
            [("id", pa.int64())], [(7,), (8,)], partition=f"ts_day=2026-01-02/id_bucket={bucket}"
        )
    lines = _summary(table.location, capsys)
    files = spark.sql(
        f"SELECT content, count(*), coalesce(sum(record_count), 0) FROM {table.iceberg}.files "
        f"GROUP BY content"
    ).collect()
    counts = {int(r[0]): (int(r[1]), int(r[2])) for r in files}
    data_files, data_rows = counts.get(0, (0, 0))
    partitions = spark.sql(f"SELECT count(*) FROM {table.iceberg}.partitions").collect()[0][0]
    assert f"Format version   {version}" in lines
    assert (
        "Partition spec   id 0: ts_day = day(ts), id_bucket = bucket[4](id)" in lines
    ), lines
    assert "Sort order       id 1: id DESC NULLS LAST" in lines, lines
    data_line = f"Data files       {data_files} files, {data_rows} rows,"
    assert any(line.startswith(data_line) and line.endswith(f"in {partitions} partitions")
               for line in lines), lines  # fmt: skip
    kind = {1: None, 2: "position delete files", 3: "deletion vectors"}[version]
    for name in ("position delete files", "deletion vectors", "equality delete files"):
        want = ["0", "0"]
        if name == kind:
            want = [str(counts[1][0]), str(counts[1][1])]
        if name == "equality delete files" and version > 1:
            assert counts[2] == (1, 2)
            want = ["1", "2"]
        assert _delete_row(lines, name)[:2] == want, (name, lines)
    snapshot = spark.sql(f"SELECT snapshot_id FROM {table.iceberg}.snapshots").collect()[-1][0]
    assert any(line.startswith(f"Current snapshot {snapshot} [branch main]") for line in lines)
    assert floe.warehouse_uri(str(warehouse)) in lines[0]


def test_inspect_a_table_at_a_path_with_spaces_and_unicode(
    spark: SparkSession, namespace: str, warehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The location given as a plain path or an (unencoded, as in table metadata) file: URI; a
    percent-encoded URI or a directory that is not a table: a one-line error naming it (and, for
    the encoded URI, the path to give), no traceback."""
    odd = f"{namespace} é x"
    spark.sql(f"CREATE NAMESPACE floe.`{odd}`")
    spark.sql(f"CREATE TABLE floe.`{odd}`.`tàble 1` (id BIGINT, `naïve col` STRING) USING floe")
    spark.sql(f"INSERT INTO floe.`{odd}`.`tàble 1` VALUES (1, 'a'), (2, 'b')")
    location = warehouse / odd / "tàble 1"
    assert (location / "metadata").is_dir()
    for given in (str(location), f"file://{location}"):
        lines = _summary(given, capsys)
        assert any(line.startswith("Data files") and " 2 rows," in line for line in lines), lines
        assert any(line.split()[1:3] == ["naïve", "col"] for line in lines), lines
    for wrong, named in [(str(location.parent), location.parent), (location.as_uri(), location)]:
        assert cli.main(["inspect", wrong]) == 1
        err = capsys.readouterr().err
        assert err.startswith("floe: Cannot find table metadata") and str(named) in err, err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "not percent-decoded" in err
