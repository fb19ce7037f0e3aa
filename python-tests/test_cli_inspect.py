"""`floe inspect PATH` on tables Floe wrote: the readable summary names delete files by kind
(position deletes in v2, deletion vectors in v3), the statistics file's columns and the indexes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

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
