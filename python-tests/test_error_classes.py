"""User errors reach PySpark as classed errors: a condition (FLOE_... or Spark's own), a SQLSTATE
and a message naming the table, column, option or file (README.md, "Errors").

One representative error per area: catalog, schema and partitioning, snapshots and time travel,
procedures, options and properties, files. Also: no golden results file shows a bare Java
exception, and README's table of error classes matches the ErrorClass enum.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parents[1]
ENUM = ROOT / "spark-extension/format/src/main/java/io/floe/format/ErrorClass.java"
_ENUM_ENTRY = re.compile(r"^\s*(FLOE_[A-Z_]+)\(\"([0-9A-Z]{5})\"", re.MULTILINE)
_README_ROW = re.compile(r"^\| `(FLOE_[A-Z_]+)` \| ([0-9A-Z]{5}) \|", re.MULTILINE)


def _classed(action: Callable[[], object]) -> tuple[str, str, str]:
    """Run ``action``; return the condition, SQLSTATE and message of the error it raises."""
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException) as raised:
        action()
    error = raised.value
    condition = error.getCondition()
    state = error.getSqlState()
    assert condition is not None, str(error)
    assert state is not None and re.fullmatch(r"[0-9A-Z]{5}", state), (condition, state)
    return condition, state, str(error)


@pytest.fixture
def table(spark: SparkSession, namespace: str) -> str:
    name = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, name STRING, day DATE) PARTITIONED BY (day)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'one', DATE '2024-01-01')")
    return name


def test_catalog_errors_are_classed(spark: SparkSession, table: str) -> None:
    missing = _classed(lambda: spark.sql(f"ALTER TABLE {table} RENAME TO nope_ns_xyz.t"))
    assert missing[:2] == ("FLOE_NAMESPACE_NOT_FOUND", "42704")
    assert missing[2].startswith("[FLOE_NAMESPACE_NOT_FOUND] Cannot rename table"), missing[2]
    assert "nope_ns_xyz" in missing[2]
    # Spark's own class where one fits
    no_table = _classed(lambda: spark.table(f"{table}_missing"))
    assert no_table[:2] == ("TABLE_OR_VIEW_NOT_FOUND", "42P01")
    unknown = _classed(lambda: spark.table(f"{table}.nope"))
    assert unknown[:2] == ("FLOE_METADATA_TABLE_NOT_FOUND", "42P01")
    assert f"{table}.nope" in unknown[2]


def test_schema_and_partitioning_errors_are_classed(spark: SparkSession, table: str) -> None:
    overwrite = _classed(
        lambda: spark.sql(
            f"INSERT INTO {table} REPLACE WHERE name = 'one' SELECT 5, 'five', DATE '2024-01-05'"
        )
    )
    assert overwrite[:2] == ("FLOE_OVERWRITE_CONDITION_INVALID", "42000")
    assert f"Cannot overwrite table {table}" in overwrite[2] and "column name" in overwrite[2]
    required = _classed(lambda: spark.sql(f"ALTER TABLE {table} ADD COLUMN extra INT NOT NULL"))
    assert required[0] == "FLOE_SCHEMA_CHANGE_INVALID"
    # ALTER TABLE names the table without its catalog
    assert f"Cannot alter table {table.split('.', 1)[1]}:" in required[2], required[2]
    assert "extra" in required[2]


def test_time_travel_errors_are_classed(spark: SparkSession, table: str) -> None:
    version = _classed(lambda: spark.sql(f"SELECT * FROM {table} VERSION AS OF 12345").collect())
    assert version[:2] == ("FLOE_SNAPSHOT_NOT_FOUND", "42704")
    assert f"Cannot time travel table {table} to version 12345" in version[2]
    early = _classed(
        lambda: spark.sql(f"SELECT * FROM {table} TIMESTAMP AS OF '2000-01-01 00:00:00'").collect()
    )
    assert early[:2] == ("FLOE_TIME_TRAVEL_INVALID", "22023")
    assert table in early[2]


def test_procedure_errors_are_classed(spark: SparkSession, table: str) -> None:
    short = table.split(".", 1)[1]
    both = _classed(
        lambda: spark.sql(f"CALL floe.system.set_current_snapshot(table => '{short}')").collect()
    )
    assert both[:2] == ("FLOE_PROCEDURE_ARGUMENT_INVALID", "22023")
    assert "set_current_snapshot" in both[2] and "snapshot_id" in both[2]


def test_option_and_property_errors_are_classed(spark: SparkSession, table: str) -> None:
    option = _classed(lambda: spark.read.option("as-of-timestamp", "soon").table(table).collect())
    assert option[:2] == ("FLOE_OPTION_INVALID", "22023")
    assert "as-of-timestamp" in option[2] and "'soon'" in option[2]
    prop = _classed(
        lambda: spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('format-version' = 'two')")
    )
    assert prop[:2] == ("FLOE_TABLE_PROPERTY_INVALID", "22023")
    assert "format-version" in prop[2] and table.split(".", 1)[1] in prop[2]


def test_file_errors_are_classed(spark: SparkSession, warehouse: Path, namespace: str) -> None:
    from floe import inspect

    name = f"floe.{namespace}.broken"
    spark.sql(f"CREATE TABLE {name} (id INT)")
    metadata_file = inspect.metadata_file(str(warehouse / namespace / "broken"))
    metadata_file.write_text("{ not json", encoding="utf-8")
    broken = _classed(lambda: spark.table(name).collect())
    assert broken[:2] == ("FLOE_FILE_INVALID", "58030")
    assert metadata_file.name in broken[2]


def test_no_golden_results_file_shows_a_bare_java_exception() -> None:
    bare = re.compile(r"^java\.\w+(\.\w+)*\.\w*(Exception|Error)$", re.MULTILINE)
    found = {
        path.name: bare.findall(path.read_text(encoding="utf-8"))
        for path in sorted((ROOT / "sql-tests" / "results").glob("*.sql.out"))
    }
    assert not {name: hits for name, hits in found.items() if hits}


def test_readme_lists_every_error_class_with_its_sqlstate() -> None:
    enum = dict(_ENUM_ENTRY.findall(ENUM.read_text(encoding="utf-8")))
    readme = dict(_README_ROW.findall((ROOT / "README.md").read_text(encoding="utf-8")))
    assert len(enum) > 10
    assert readme == enum
