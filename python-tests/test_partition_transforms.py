"""Partition transforms from SQL and DataFrames, and Floe's partition functions.

``PARTITIONED BY`` (CREATE, CTAS, REPLACE) and ``df.writeTo(t).partitionedBy(...)`` accept
identity, bucket, truncate and Spark's ``years|months|days|hours`` as well as Iceberg's
``year|month|day|hour`` spellings, several per table, and store the spec's transform names.
``floe.system.bucket/truncate/years/months/days/hours`` compute the spec's partition values in
SQL (spec vectors here; identical to Iceberg's own ``iceberg.system`` functions on random values of
every type when the Iceberg runtime is available). Bad partitionings fail with errors naming the
column (and, where Floe reports it, the transform) and commit nothing.
"""

from __future__ import annotations

import datetime as dt
import decimal
import random
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import floe
import floe.inspect as inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _location(warehouse: Path, namespace: str, table: str) -> str:
    return f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{table}"


def _column_names(fields: list[dict[str, Any]], prefix: str = "") -> dict[int, str]:
    """Field id -> dotted column name, through structs."""
    names: dict[int, str] = {}
    for f in fields:
        names[f["id"]] = prefix + f["name"]
        if isinstance(f["type"], dict) and f["type"].get("type") == "struct":
            names |= _column_names(f["type"]["fields"], f"{prefix}{f['name']}.")
    return names


def _spec(location: str) -> list[tuple[str, str, str]]:
    """The default spec's fields as (name, transform, source column name)."""
    metadata = inspect.load_table_metadata(location)
    schema = next(s for s in metadata["schemas"] if s["schema-id"] == metadata["current-schema-id"])
    names = _column_names(schema["fields"])
    spec = next(
        s for s in metadata["partition-specs"] if s["spec-id"] == metadata["default-spec-id"]
    )
    return [(f["name"], f["transform"], names[f["source-id"]]) for f in spec["fields"]]


def _partitions(location: str) -> list[dict[str, Any]]:
    return sorted((f["partition"] for f in inspect.table_files(location)), key=repr)


def _one(spark: SparkSession, sql: str) -> tuple[Any, ...]:
    rows = spark.sql(sql).collect()
    assert len(rows) == 1
    return tuple(rows[0])


# --- PARTITIONED BY ------------------------------------------------------------------------------


def test_create_accepts_spark_and_iceberg_spellings_and_stores_spec_names(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    plural = f"floe.{namespace}.plural"
    singular = f"floe.{namespace}.singular"
    columns = "id BIGINT, s STRING, ts TIMESTAMP, d DATE, amount DECIMAL(9,2)"
    spark.sql(
        f"CREATE TABLE {plural} ({columns}) PARTITIONED BY "
        "(bucket(16, id), truncate(4, s), years(ts), months(d), days(ts), hours(ts))"
    )
    spark.sql(
        f"CREATE TABLE {singular} ({columns}) PARTITIONED BY "
        "(year(ts), month(d), day(d), hour(ts), truncate(amount, 50), identity(s))"
    )
    assert _spec(_location(warehouse, namespace, "plural")) == [
        ("id_bucket", "bucket[16]", "id"),
        ("s_trunc", "truncate[4]", "s"),
        ("ts_year", "year", "ts"),
        ("d_month", "month", "d"),
        ("ts_day", "day", "ts"),
        ("ts_hour", "hour", "ts"),
    ]
    assert _spec(_location(warehouse, namespace, "singular")) == [
        ("ts_year", "year", "ts"),
        ("d_month", "month", "d"),
        ("d_day", "day", "d"),
        ("ts_hour", "hour", "ts"),
        ("amount_trunc", "truncate[50]", "amount"),
        ("s", "identity", "s"),
    ]
    # Spark shows both tables with its own transform names
    assert (
        "PARTITIONED BY (years(ts), months(d), days(d), hours(ts), truncate(50, amount), s)"
        in (_one(spark, f"SHOW CREATE TABLE {singular}")[0])
    )

    row = "(34, 'iceberg', TIMESTAMP'2017-12-01 10:12:55.038194', DATE'2017-11-16', 10.65)"
    spark.sql(f"INSERT INTO {plural} VALUES {row}")
    spark.sql(f"INSERT INTO {singular} VALUES {row}")
    # spec vectors (docs/format.md, 'Partition transforms'); day values are dates
    assert _partitions(_location(warehouse, namespace, "plural")) == [
        {
            "id_bucket": 3,
            "s_trunc": "iceb",
            "ts_year": 47,
            "d_month": 574,
            "ts_day": dt.date(2017, 12, 1),
            "ts_hour": 420034,
        }
    ]
    assert _partitions(_location(warehouse, namespace, "singular")) == [
        {
            "ts_year": 47,
            "d_month": 574,
            "d_day": dt.date(2017, 11, 16),
            "ts_hour": 420034,
            "amount_trunc": decimal.Decimal("10.50"),
            "s": "iceberg",
        }
    ]
    assert spark.table(singular).count() == 1


def test_ctas_and_replace_take_transforms(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.events"
    location = _location(warehouse, namespace, "events")
    spark.sql(
        f"CREATE TABLE {t} PARTITIONED BY (bucket(4, id), day(ts)) AS "
        "SELECT id, TIMESTAMP'2024-03-01 00:00:00' + make_interval(0, 0, 0, 0, id * 7) AS ts "
        "FROM range(10)"
    )
    assert _spec(location) == [("id_bucket", "bucket[4]", "id"), ("ts_day", "day", "ts")]
    days = {p["ts_day"] for p in _partitions(location)}
    assert days == {dt.date(2024, 3, 1), dt.date(2024, 3, 2), dt.date(2024, 3, 3)}

    spark.sql(f"REPLACE TABLE {t} PARTITIONED BY (hours(ts), truncate(3, id)) AS SELECT * FROM {t}")
    assert _spec(location) == [("ts_hour", "hour", "ts"), ("id_trunc", "truncate[3]", "id")]
    assert spark.table(t).count() == 10
    expected = spark.sql(f"SELECT DISTINCT floe.system.hours(ts), id - id % 3 FROM {t}").collect()
    assert {(p["ts_hour"], p["id_trunc"]) for p in _partitions(location)} == {
        tuple(r) for r in expected
    }


def test_dataframe_partitioned_by_transform_functions(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    from pyspark.sql.functions import col
    from pyspark.sql.functions import partitioning as p

    t = f"floe.{namespace}.df"
    location = _location(warehouse, namespace, "df")
    rows = spark.sql(
        "SELECT id, TIMESTAMP'2024-01-31 22:00:00' + make_interval(0, 0, 0, 0, id) AS ts, "
        "DATE'2023-12-31' + CAST(id AS INT) AS d FROM range(6)"
    )
    rows.writeTo(t).partitionedBy(
        p.bucket(16, col("id")), p.days(col("ts")), p.months(col("d")), p.years(col("d"))
    ).create()
    assert _spec(location) == [
        ("id_bucket", "bucket[16]", "id"),
        ("ts_day", "day", "ts"),
        ("d_month", "month", "d"),
        ("d_year", "year", "d"),
    ]
    expected = spark.sql(
        f"SELECT DISTINCT floe.system.bucket(16, id), floe.system.days(ts), "
        f"floe.system.months(d), floe.system.years(d) FROM {t}"
    ).collect()
    recorded = {
        (q["id_bucket"], q["ts_day"], q["d_month"], q["d_year"]) for q in _partitions(location)
    }
    assert recorded == {tuple(r) for r in expected}
    assert {q["ts_day"] for q in _partitions(location)} == {
        dt.date(2024, 1, 31),
        dt.date(2024, 2, 1),
    }
    assert {q["d_year"] for q in _partitions(location)} == {53, 54}

    rows.writeTo(t).partitionedBy(p.hours(col("ts"))).createOrReplace()
    assert _spec(location) == [("ts_hour", "hour", "ts")]
    assert len(_partitions(location)) == 6
    assert spark.table(t).count() == 6


def test_struct_fields_can_be_partition_sources(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.nested"
    location = _location(warehouse, namespace, "nested")
    spark.sql(
        f"CREATE TABLE {t} (id INT, st STRUCT<x: INT, y: STRING>) "
        "PARTITIONED BY (bucket(16, st.x), truncate(2, st.y))"
    )
    spark.sql(
        f"INSERT INTO {t} VALUES (1, named_struct('x', 34, 'y', 'hello')), (2, NULL), "
        "(3, named_struct('x', NULL, 'y', 'ab'))"
    )
    assert _spec(location) == [
        ("st.x_bucket", "bucket[16]", "st.x"),
        ("st.y_trunc", "truncate[2]", "st.y"),
    ]
    # Avro field names are sanitized: '.' is written as _x2E
    assert _partitions(location) == sorted(
        [
            {"st_x2Ex_bucket": 3, "st_x2Ey_trunc": "he"},
            {"st_x2Ex_bucket": None, "st_x2Ey_trunc": None},
            {"st_x2Ex_bucket": None, "st_x2Ey_trunc": "ab"},
        ],
        key=repr,
    )
    assert sorted(r[0] for r in spark.sql(f"SELECT id FROM {t} WHERE st.x = 34").collect()) == [1]


# --- bad input -----------------------------------------------------------------------------------


def _tables(spark: SparkSession, namespace: str) -> list[str]:
    return sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN floe.{namespace}").collect())


def test_bad_partitionings_fail_clearly_and_commit_nothing(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.bad"
    columns = "(id BIGINT, s STRING, ts TIMESTAMP, d DATE, m MAP<STRING, INT>, tags ARRAY<STRING>)"
    select = (
        "SELECT 1L AS id, 'a' AS s, TIMESTAMP'2024-01-01 00:00:00' AS ts, DATE'2024-01-01' AS d, "
        "map('k', 1) AS m, array('t') AS tags"
    )

    def create(partitioning: str) -> str:
        return f"CREATE TABLE {t} {columns} PARTITIONED BY ({partitioning})"

    def ctas(partitioning: str) -> str:
        return f"CREATE TABLE {t} PARTITIONED BY ({partitioning}) AS {select}"

    # (statement, words the error must contain): Floe's own messages name transform and column;
    # Spark's analyzer refuses missing and list/map columns first, naming the column
    cases: list[tuple[str, list[str]]] = [
        (create("bucket(0, id)"), [t, "bucket(0, id)", "column id", "> 0"]),
        (ctas("bucket(0, id)"), [t, "bucket(0, id)", "column id"]),
        (create("truncate(-1, s)"), [t, "truncate(-1, s)", "column s"]),
        (create("truncate(0, s)"), [t, "truncate(0, s)", "column s"]),
        (create("hours(d)"), [t, "hours(d)", "column d", "date"]),
        (ctas("hour(d)"), [t, "hour(d)", "column d", "date"]),
        (create("truncate(4, ts)"), [t, "truncate(4, ts)", "column ts"]),
        (create("bucket(4, m)"), [t, "bucket(4, m)", "column m"]),
        (create("days(ts), day(ts)"), [t, "day(ts)", "ts_day", "days(ts)"]),
        (create("years(d), year(d)"), [t, "year(d)", "d_year"]),
        (create("bucket(16, nope)"), ["nope"]),
        (ctas("bucket(16, nope)"), ["nope"]),
        (create("bucket(16, m.key)"), ["m", "key"]),
        (create("truncate(2, tags.element)"), ["tags", "element"]),
        (create("bucket(16, id), bucket(8, id)"), ["id"]),
        (create("bucket(1.5, id)"), ["1.5"]),
        (create("nope(ts)"), [t, "nope(ts)"]),
    ]
    for statement, words in cases:
        with pytest.raises(Exception) as caught:
            spark.sql(statement)
        for word in words:
            assert word in str(caught.value), (statement, str(caught.value))
    assert _tables(spark, namespace) == []
    assert not (warehouse / namespace / "bad").exists()


def test_bad_replace_and_dataframe_partitionings_keep_the_table(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    from pyspark.sql.functions import col
    from pyspark.sql.functions import partitioning as p

    t = f"floe.{namespace}.kept"
    location = _location(warehouse, namespace, "kept")
    spark.sql(f"CREATE TABLE {t} (id BIGINT, d DATE) PARTITIONED BY (bucket(4, id))")
    spark.sql(f"INSERT INTO {t} VALUES (1, DATE'2024-01-01'), (2, DATE'2024-01-02')")
    metadata_file = inspect.metadata_file(location)

    with pytest.raises(
        Exception, match=r"Cannot replace table .*hours\(d\).*column d of type date"
    ):
        spark.sql(f"REPLACE TABLE {t} PARTITIONED BY (hours(d)) AS SELECT * FROM {t}")
    frame = spark.table(t)
    with pytest.raises(Exception, match=r"bucket\(0, id\) on column id: Invalid number of buckets"):
        frame.writeTo(t).partitionedBy(p.bucket(0, col("id"))).createOrReplace()
    with pytest.raises(Exception, match=r"hours\(d\): transform hours does not accept column d"):
        frame.writeTo(f"floe.{namespace}.other").partitionedBy(p.hours(col("d"))).create()

    assert inspect.metadata_file(location) == metadata_file
    assert _spec(location) == [("id_bucket", "bucket[4]", "id")]
    assert spark.table(t).count() == 2
    assert _tables(spark, namespace) == ["kept"]


# --- floe.system functions -----------------------------------------------------------------------


def test_functions_compute_the_spec_vectors(spark: SparkSession) -> None:
    def select(*calls: str) -> tuple[Any, ...]:
        return _one(spark, "SELECT " + ", ".join(f"floe.system.{c}" for c in calls))

    assert select(
        "bucket(16, 34)",
        "bucket(16, 34L)",
        "bucket(16, CAST(14.20 AS DECIMAL(4,2)))",
        "bucket(16, DATE'2017-11-16')",
        "bucket(16, TIMESTAMP'2017-11-16 22:31:08')",
        "bucket(16, TIMESTAMP_NTZ'2017-11-16 22:31:08.000001')",
        "bucket(16, 'iceberg')",
        "bucket(16, X'00010203')",
        "bucket(16, '34')",
        "bucket(16, '')",
        "bucket(16, -1L)",
        "bucket(16, CAST(-1 AS DECIMAL(9,2)))",
    ) == (3, 3, 3, 10, 7, 6, 9, 9, 9, 0, 8, 3)
    assert select(
        "truncate(10, -1)",
        "truncate(10, -11L)",
        "truncate(10, CAST(-11 AS TINYINT))",
        "truncate(10, CAST(-0.05 AS DECIMAL(9,2)))",
        "truncate(50, CAST(10.65 AS DECIMAL(9,2)))",
        "truncate(3, 'iceberg')",
        "truncate(2, '😀abc')",
        "truncate(3, X'0102030405')",
    ) == (
        -10,
        -20,
        -20,
        decimal.Decimal("-0.10"),
        decimal.Decimal("10.50"),
        "ice",
        "😀a",
        b"\x01\x02\x03",
    )
    ts = "TIMESTAMP'2017-12-01 10:12:55.038194'"
    before_epoch = "TIMESTAMP_NTZ'1969-12-31 23:59:59.999999'"
    assert select(
        *(f"{f}({ts})" for f in ("years", "months", "days", "hours")),
        *(f"{f}({before_epoch})" for f in ("years", "months", "days", "hours")),
        "years(DATE'1969-01-01')",
        "months(DATE'1968-12-31')",
        "days(DATE'2017-12-01')",
    ) == (
        47,
        575,
        dt.date(2017, 12, 1),
        420034,
        -1,
        -1,
        dt.date(1969, 12, 31),
        -1,
        -1,
        -13,
        dt.date(2017, 12, 1),
    )
    assert select(
        "bucket(16, CAST(NULL AS STRING))",
        "bucket(CAST(NULL AS INT), 1)",
        "truncate(3, CAST(NULL AS BINARY))",
        "days(CAST(NULL AS TIMESTAMP))",
    ) == (None, None, None, None)
    # the catalog's functions come qualified; the session's temporary functions (other test
    # modules register some in the same session) unqualified
    shown = spark.sql("SHOW USER FUNCTIONS IN floe.system").collect()
    listed = {r[0] for r in shown if "." in r[0]}
    names = ("bucket", "truncate", "years", "months", "days", "hours")
    assert listed == {f"floe.system.{n}" for n in names}


def test_functions_are_compiled_and_reject_bad_arguments(spark: SparkSession) -> None:
    plan = spark.sql("SELECT floe.system.bucket(16, id) FROM range(3)")._jdf.queryExecution()
    assert "static_invoke(io.floe.spark.functions.BucketFunction$BucketLong.invoke" in str(
        plan.executedPlan().toString()
    )
    cases = [
        ("bucket(0, 1)", "Invalid number of buckets for floe.system.bucket: 0"),
        ("truncate(-1, 'a')", "Invalid width for floe.system.truncate: -1"),
        ("hours(DATE'2024-01-01')", "floe.system.hours(value) to a value of type date"),
        ("bucket(16, 1.5D)", "floe.system.bucket(numBuckets, value) to a value of type double"),
        ("truncate(4, DATE'2024-01-01')", "to a value of type date"),
        ("bucket(16)", "Wrong number of arguments for floe.system.bucket"),
        ("year(TIMESTAMP'2024-01-01 00:00:00')", "UNRESOLVED_ROUTINE"),  # like Iceberg: no aliases
    ]  # fmt: skip
    for call, message in cases:
        sql = f"SELECT floe.system.{call}"
        with pytest.raises(Exception) as caught:
            spark.sql(sql).collect()
        assert message in str(caught.value), (sql, str(caught.value))


# --- identical to Iceberg's functions ------------------------------------------------------------

#: Column types of the comparison table and the functions applied to each.
COMPARED: dict[str, tuple[str, ...]] = {
    "TINYINT": ("bucket(16, {c})", "bucket(7, {c})", "truncate(10, {c})"),
    "SMALLINT": ("bucket(16, {c})", "truncate(7, {c})"),
    "INT": ("bucket(16, {c})", "bucket(1000, {c})", "truncate(10, {c})", "truncate(3, {c})"),
    "BIGINT": ("bucket(16, {c})", "truncate(10, {c})", "truncate(7, {c})"),
    "DECIMAL(9,2)": ("bucket(16, {c})", "truncate(10, {c})", "truncate(50, {c})"),
    "DECIMAL(38,10)": ("bucket(16, {c})", "truncate(10, {c})"),
    "DATE": ("bucket(16, {c})", "years({c})", "months({c})", "days({c})"),
    "TIMESTAMP": ("bucket(16, {c})", "years({c})", "months({c})", "days({c})", "hours({c})"),
    "TIMESTAMP_NTZ": ("bucket(16, {c})", "years({c})", "months({c})", "days({c})", "hours({c})"),
    "STRING": ("bucket(16, {c})", "truncate(3, {c})", "truncate(1, {c})"),
    "BINARY": ("bucket(16, {c})", "truncate(4, {c})"),
}


def _random_values(rng: random.Random, n: int) -> dict[str, list[Any]]:
    """Raw values per compared type, 2% null (micros, days and decimal texts are cast in SQL)."""
    alphabet = [*"abcé中", "😀", "𝄞"]

    def column(value: Callable[[], Any]) -> list[Any]:
        return [None if rng.random() < 0.02 else value() for _ in range(n)]

    def integer(bits: int) -> Callable[[], int]:
        return lambda: rng.randint(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)

    def decimal_text(digits: int, scale: int) -> Callable[[], str]:
        exact = decimal.Context(prec=digits + 1)
        top = 10**digits - 1
        return lambda: str(decimal.Decimal(rng.randint(-top, top)).scaleb(-scale, context=exact))

    def micros() -> int:
        return rng.randint(-62_135_596_800_000_000, 253_402_300_799_999_999)

    return {
        "TINYINT": column(integer(8)),
        "SMALLINT": column(integer(16)),
        "INT": column(integer(32)),
        "BIGINT": column(integer(64)),
        "DECIMAL(9,2)": column(decimal_text(9, 2)),
        "DECIMAL(38,10)": column(decimal_text(38, 10)),
        "DATE": column(lambda: rng.randint(-719_162, 2_932_896)),
        "TIMESTAMP": column(micros),
        "TIMESTAMP_NTZ": column(micros),
        "STRING": column(lambda: "".join(rng.choices(alphabet, k=rng.randint(0, 6)))),
        "BINARY": column(lambda: rng.randbytes(rng.randint(0, 9))),
    }


def _cast(spark_type: str, raw: str) -> str:
    return {
        "DATE": f"date_from_unix_date(CAST({raw} AS INT))",
        "TIMESTAMP": f"timestamp_micros({raw})",
        "TIMESTAMP_NTZ": f"CAST(timestamp_micros({raw}) AS TIMESTAMP_NTZ)",
    }.get(spark_type, f"CAST({raw} AS {spark_type})")


def test_functions_match_icebergs_on_random_values(spark: SparkSession, iceberg: str) -> None:
    import pyarrow as pa

    rng = random.Random(20250302)
    values = _random_values(rng, 3000)
    arrow_types = {"STRING": pa.string(), "BINARY": pa.binary()}
    raw = pa.table(
        {
            f"raw{i}": pa.array(
                vs, arrow_types.get(t, pa.string() if t.startswith("DEC") else pa.int64())
            )
            for i, (t, vs) in enumerate(values.items())
        }
    )
    columns = [_cast(t, f"raw{i}") + f" AS c{i}" for i, t in enumerate(values)]
    spark.createDataFrame(raw).selectExpr(*columns).createOrReplaceTempView("transform_inputs")

    checks: list[str] = []
    labels: list[str] = []
    for i, (spark_type, calls) in enumerate(COMPARED.items()):
        for call in calls:
            expr = call.format(c=f"c{i}")
            checks.append(
                f"count_if(NOT (floe.system.{expr} <=> {iceberg}.system.{expr})), "
                f"count_if(floe.system.{expr} IS NOT NULL)"
            )
            labels.append(f"{expr} of {spark_type}")
    counts = _one(spark, f"SELECT {', '.join(checks)} FROM transform_inputs")
    mismatches = {label: counts[2 * k] for k, label in enumerate(labels) if counts[2 * k]}
    assert mismatches == {}
    for k, label in enumerate(labels):
        assert counts[2 * k + 1] > 2800, f"{label}: too few non-null results compared"
