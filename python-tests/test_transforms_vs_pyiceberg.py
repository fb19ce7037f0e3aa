"""Partition values Floe records, checked against pyiceberg's own transform code.

For every type the spec allows per transform and Spark has (int, long, decimal, date,
timestamp, timestamp_ntz, string with non-ASCII characters and surrogate pairs, binary),
thousands of random values (seeded, plus the spec's edge values) are written to Floe tables
partitioned by bucket, truncate, year, month, day and hour. Then, for every data file Floe
committed, every row of the file is mapped through pyiceberg's transforms, both its Python code
(``Transform.transform(type)``, mmh3 for bucket) and iceberg-rust's (``pyarrow_transform``, from
pyiceberg-core), and must give exactly the partition tuple Floe wrote for that file in its
manifest (read back with ``floe.inspect``).

One table per kind of transform keeps the test fast: each type is a group of columns, and a row
fills one group (every column of the group holds the row's value) and leaves the other groups
null, so null partition values are checked too. Values are clustered where a transform keeps many
partitions apart (truncate, hour), so that files hold many rows and every row is checked.
"""

from __future__ import annotations

import datetime as dt
import decimal
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import floe
import floe.inspect as inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyiceberg.types import PrimitiveType
    from pyspark.sql import SparkSession

SEED = 20250301
UNIFORM = 2000  # random values per group of a bucket table
CLUSTERS = 25  # random centres per clustered group
PER_CLUSTER = 80  # values around each centre

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
MICROS_PER_DAY = 86_400_000_000
HALF_HOUR = 1_800_000_000
# Spark's timestamp and date range: 0001-01-01T00:00 to 9999-12-31T23:59:59.999999 (UTC).
MIN_MICROS, MAX_MICROS = -62_135_596_800_000_000, 253_402_300_799_999_999
MIN_DAY, MAX_DAY = MIN_MICROS // MICROS_PER_DAY, MAX_MICROS // MICROS_PER_DAY

# Characters of 1 to 4 UTF-8 bytes, surrogate pairs in UTF-16 (emoji, U+1D11E), a combining mark.
ALPHABET = [*"abcxyzAZ09 _-é߸Ωж中文ﬁ", "😀", "🎉", "𝄞", "\u0301", "🇫🇷"]

# Spec edge values (docs/format.md, 'Partition transforms'): vectors, the epoch and one unit
# either side of it.
INT_EDGES = [INT_MIN, INT_MAX, 0, 1, -1, 34, 9, 10, 11, -9, -10, -11]
TRUNC_EDGES = [0, 1, 5, 9, 10, 11, -1, -5, -10, -11, 34]
DAY_EDGES = [0, -1, 1, 17486, 17501, -365, -366, -730, 11016, 11017, MIN_DAY, MAX_DAY]
MICROS_EDGES = [
    0, -1, 1, 1_000_001, 1_510_871_468_000_000, 1_510_871_468_000_001, 1_512_123_175_038_194,
    -MICROS_PER_DAY, -MICROS_PER_DAY - 1, 3_600_000_000, 3_599_999_999, -3_600_000_000,
    -3_600_000_001, 951_782_400_000_000, 946_684_800_000_000, 946_684_799_999_999,
    MIN_MICROS, MAX_MICROS,
]  # fmt: skip
DECIMAL_EDGES = ["14.20", "12.34", "12.30", "12.29", "0.05", "-0.05", "0.00", "-1.00", "10.65"]
STRING_EDGES = ["", "a", "ab", "abc", "abcdefg", "iceberg", "34", "😀", "😀a", "😀abc", "🇫🇷x"]
BINARY_EDGES = [b"", b"\x00", b"\x00\x01\x02\x03", b"\x01\x02\x03\x04\x05", b"abcdefg", b"\xff" * 9]


# --- value generators ----------------------------------------------------------------------------

Values = Callable[[random.Random], list[Any]]


def _ints(lo: int, hi: int, edges: list[int]) -> Values:
    return lambda rng: edges + [rng.randint(lo, hi) for _ in range(UNIFORM)]


def _clustered_ints(lo: int, hi: int, spread: int, edges: list[int]) -> Values:
    """Values within ``spread`` of random centres: few groups (truncate, hour), many rows each.
    Centres stay a margin away from ``lo``: rounding the smallest values down would overflow."""

    def generate(rng: random.Random) -> list[Any]:
        centres = [rng.randint(lo + spread + 100, hi - spread) for _ in range(CLUSTERS)]
        near = [c + rng.randint(-spread, spread) for c in centres for _ in range(PER_CLUSTER)]
        return edges + near

    return generate


def _decimals(digits: int, scale: int, spread: int | None = None) -> Values:
    """Decimal texts of up to ``digits`` digits for DECIMAL(digits, scale): uniform, or within
    ``spread`` (unscaled) of random centres; unscaled values take 1 to 16 big-endian bytes."""
    top = 10**digits - 1
    exact = decimal.Context(prec=digits + 1)

    def generate(rng: random.Random) -> list[Any]:
        if spread is not None:
            unscaled = _clustered_ints(-top, top, spread, [])(rng)
        else:
            unscaled = [rng.randint(-top, top) for _ in range(UNIFORM)]
            unscaled += [rng.randint(-999, 999) for _ in range(UNIFORM // 10)]
        texts = [str(decimal.Decimal(u).scaleb(-scale, context=exact)) for u in unscaled]
        return DECIMAL_EDGES + texts

    return generate


def _random_string(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(length))


def _strings(rng: random.Random) -> list[Any]:
    return STRING_EDGES + [_random_string(rng, rng.randint(0, 12)) for _ in range(UNIFORM)]


def _prefixed_strings(width: int) -> Values:
    """Strings starting with one of a few random prefixes of ``width`` or more code points."""

    def generate(rng: random.Random) -> list[Any]:
        prefixes = [_random_string(rng, width) for _ in range(CLUSTERS)]
        suffixes = [_random_string(rng, rng.randint(0, 6)) for _ in range(CLUSTERS * PER_CLUSTER)]
        return STRING_EDGES + [prefixes[i % CLUSTERS] + s for i, s in enumerate(suffixes)]

    return generate


def _binaries(rng: random.Random) -> list[Any]:
    return BINARY_EDGES + [rng.randbytes(rng.randint(0, 20)) for _ in range(UNIFORM)]


def _prefixed_binaries(width: int) -> Values:
    def generate(rng: random.Random) -> list[Any]:
        prefixes = [rng.randbytes(width) for _ in range(CLUSTERS)]
        suffixes = [rng.randbytes(rng.randint(0, 8)) for _ in range(CLUSTERS * PER_CLUSTER)]
        return BINARY_EDGES + [prefixes[i % CLUSTERS] + s for i, s in enumerate(suffixes)]

    return generate


# --- the tables ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Group:
    """Columns of one type that hold the same value in a row: (column, Spark partition transform,
    the spec's transform name). In the rows of other groups, these columns are null."""

    name: str
    column_type: str
    fields: tuple[tuple[str, str, str], ...]
    values: Values
    #: fewest distinct partition tuples the group's values must produce (so the check has teeth)
    min_partitions: int

    @property
    def raw_type(self) -> str:
        """The Arrow type of the raw values Python hands to Spark."""
        if self.column_type in ("STRING", "BINARY"):
            return self.column_type.lower()
        return "string" if self.column_type.startswith("DECIMAL") else "int64"

    def column_sql(self, raw: str) -> str:
        """SQL turning raw value column ``raw`` into a column value (micros and days are exact)."""
        return {
            "INT": f"CAST({raw} AS INT)",
            "DATE": f"date_from_unix_date(CAST({raw} AS INT))",
            "TIMESTAMP": f"timestamp_micros({raw})",
            "TIMESTAMP_NTZ": f"CAST(timestamp_micros({raw}) AS TIMESTAMP_NTZ)",  # session zone: UTC
        }.get(self.column_type, f"CAST({raw} AS {self.column_type})")


def _field(group: str, transform: str, spec_name: str) -> tuple[tuple[str, str, str], ...]:
    """A group's single partition field: ``transform`` is Spark's, with ``{c}`` for the column."""
    column = f"{group}_c"
    return ((column, transform.format(c=column), spec_name),)


def _time_fields(group: str, units: tuple[str, ...]) -> tuple[tuple[str, str, str], ...]:
    """One column per time transform, in Spark's (years) or Iceberg's (month) spelling."""
    spellings = {"year": "years", "month": "month", "day": "days", "hour": "hour"}
    return tuple((f"{group}_{u}", f"{spellings[u]}({group}_{u})", u) for u in units)


def _bucket(group: str, column_type: str, values: Values) -> Group:
    return Group(group, column_type, _field(group, "bucket(16, {c})", "bucket[16]"), values, 16)


def _truncate(group: str, column_type: str, width: int, values: Values, partitions: int) -> Group:
    fields = _field(group, f"truncate({width}, {{c}})", f"truncate[{width}]")
    return Group(group, column_type, fields, values, partitions)


TABLES: dict[str, list[Group]] = {
    "bucket": [
        _bucket("int", "INT", _ints(INT_MIN, INT_MAX, INT_EDGES)),
        _bucket("long", "BIGINT", _ints(LONG_MIN, LONG_MAX, [*INT_EDGES, LONG_MIN, LONG_MAX])),
        _bucket("dec9", "DECIMAL(9,2)", _decimals(9, 2)),
        _bucket("dec38", "DECIMAL(38,10)", _decimals(38, 10)),
        _bucket("date", "DATE", _ints(MIN_DAY, MAX_DAY, DAY_EDGES)),
        _bucket("ts", "TIMESTAMP", _ints(MIN_MICROS, MAX_MICROS, MICROS_EDGES)),
        _bucket("ntz", "TIMESTAMP_NTZ", _ints(MIN_MICROS, MAX_MICROS, MICROS_EDGES)),
        _bucket("str", "STRING", _strings),
        _bucket("bin", "BINARY", _binaries),
    ],
    "truncate": [
        _truncate("int", "INT", 10, _clustered_ints(INT_MIN, INT_MAX, 15, TRUNC_EDGES), 60),
        _truncate("long", "BIGINT", 7, _clustered_ints(LONG_MIN, LONG_MAX, 10, TRUNC_EDGES), 60),
        _truncate("dec9", "DECIMAL(9,2)", 50, _decimals(9, 2, spread=75), 60),
        _truncate("dec38", "DECIMAL(38,10)", 10, _decimals(38, 10, spread=15), 60),
        _truncate("str", "STRING", 3, _prefixed_strings(3), 25),
        _truncate("bin", "BINARY", 4, _prefixed_binaries(4), 25),
    ],
    "time": [
        Group("date", "DATE", _time_fields("date", ("year", "month", "day")),
              _clustered_ints(MIN_DAY, MAX_DAY, 1, DAY_EDGES), 60),
        Group("ts", "TIMESTAMP", _time_fields("ts", ("year", "month", "day", "hour")),
              _clustered_ints(MIN_MICROS, MAX_MICROS, HALF_HOUR, MICROS_EDGES), 40),
        Group("ntz", "TIMESTAMP_NTZ", _time_fields("ntz", ("year", "month", "day", "hour")),
              _clustered_ints(MIN_MICROS, MAX_MICROS, HALF_HOUR, MICROS_EDGES), 40),
    ],
}  # fmt: skip


# --- pyiceberg side ------------------------------------------------------------------------------


def _iceberg_type(spark_type: str) -> PrimitiveType:
    from pyiceberg import types

    if spark_type.startswith("DECIMAL"):
        precision, scale = spark_type[len("DECIMAL(") : -1].split(",")
        return types.DecimalType(int(precision), int(scale))
    simple: dict[str, PrimitiveType] = {
        "INT": types.IntegerType(),
        "BIGINT": types.LongType(),
        "DATE": types.DateType(),
        "TIMESTAMP": types.TimestamptzType(),
        "TIMESTAMP_NTZ": types.TimestampType(),
        "STRING": types.StringType(),
        "BINARY": types.BinaryType(),
    }
    return simple[spark_type]


def _recorded(value: Any) -> Any:
    """A partition value as the manifest gives it, in pyiceberg's terms (day: days since epoch)."""
    if isinstance(value, dt.date):
        return (value - dt.date(1970, 1, 1)).days
    return value


def _same(recorded: Any, expected: Any) -> bool:
    if isinstance(expected, decimal.Decimal):  # the scale must be kept too
        scale = expected.as_tuple().exponent
        return bool(recorded == expected) and recorded.as_tuple().exponent == scale
    return bool(recorded == expected) and type(recorded) is type(expected)


def _as_inserted(column: Any, spark_type: str) -> list[Any]:
    """A Parquet column's non-null values as the raw values inserted: days, micros, decimals."""
    import pyarrow as pa

    if spark_type == "DATE":
        column = column.cast(pa.int32())
    elif spark_type.startswith("TIMESTAMP"):
        column = column.cast(pa.int64())
    return [v for v in column.to_pylist() if v is not None]


# --- the test ------------------------------------------------------------------------------------


def _write(
    spark: SparkSession, table: str, groups: list[Group], rng: random.Random
) -> list[list[Any]]:
    """Create and fill the table; return each group's raw values."""
    import pyarrow as pa

    values = [g.values(rng) for g in groups]
    total = sum(len(v) for v in values)
    raw: dict[str, Any] = {}
    before = 0
    for g, vs in zip(groups, values, strict=True):
        column = [None] * before + vs + [None] * (total - before - len(vs))
        raw[f"raw_{g.name}"] = pa.array(column, pa.type_for_alias(g.raw_type))
        before += len(vs)
    columns = [(f, g) for g in groups for f in g.fields]
    ddl = ", ".join(f"{name} {g.column_type}" for (name, _, _), g in columns)
    partitioning = ", ".join(transform for (_, transform, _), _ in columns)
    spark.sql(f"CREATE TABLE {table} ({ddl}) PARTITIONED BY ({partitioning})")
    rows = spark.createDataFrame(pa.table(raw)).selectExpr(
        *(f"{g.column_sql(f'raw_{g.name}')} AS {name}" for (name, _, _), g in columns)
    )
    rows.writeTo(table).append()
    return values


@pytest.mark.parametrize("kind", list(TABLES))
def test_partition_values_are_pyicebergs(
    spark: SparkSession, namespace: str, warehouse: Path, kind: str
) -> None:
    import pyarrow.parquet as pq
    from pyiceberg.transforms import parse_transform

    groups = TABLES[kind]
    values = _write(spark, f"floe.{namespace}.{kind}", groups, random.Random(f"{SEED}-{kind}"))

    location = f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{kind}"
    metadata = inspect.load_table_metadata(location)
    spec_id = metadata["default-spec-id"]
    spec = next(s for s in metadata["partition-specs"] if s["spec-id"] == spec_id)
    fields = [(f, g) for g in groups for f in g.fields]
    # stored with the spec's transform names, whichever spelling the DDL used
    assert [f["transform"] for f in spec["fields"]] == [t for (_, _, t), _ in fields]
    partition_names = [f["name"] for f in spec["fields"]]

    written: dict[str, list[Any]] = {g.name: [] for g in groups}
    partitions: dict[str, set[tuple[Any, ...]]] = {g.name: set() for g in groups}
    for data_file in inspect.table_files(location):
        assert data_file["content"] == 0
        rows = pq.read_table(local_path(data_file["file_path"]))
        recorded = [_recorded(data_file["partition"][name]) for name in partition_names]
        for i, ((column, _, transform_name), group) in enumerate(fields):
            source_type = _iceberg_type(group.column_type)
            transform = parse_transform(transform_name)
            source = rows.column(column).combine_chunks()
            rust = transform.pyarrow_transform(source_type)(source).to_pylist()
            python = [transform.transform(source_type)(v) for v in source.to_pylist()]
            where = f"{transform_name}({column}) in {data_file['file_path']}"
            assert python == rust, f"pyiceberg's Python and Rust transforms disagree: {where}"
            wrong = [
                (v, r)
                for v, r in zip(source.to_pylist(), rust, strict=True)
                if not _same(recorded[i], r)
            ]
            assert not wrong, f"{where}: Floe recorded {recorded[i]!r}; pyiceberg: {wrong[:5]}"
        for group in groups:
            present = _as_inserted(rows.column(group.fields[0][0]), group.column_type)
            if present:
                written[group.name] += present
                own = [j for j, (_, g) in enumerate(fields) if g is group]
                partitions[group.name].add(tuple(recorded[j] for j in own))

    for group, raw in zip(groups, values, strict=True):
        decimals = group.column_type.startswith("DECIMAL")
        expected = [decimal.Decimal(v) for v in raw] if decimals else raw
        assert sorted(written[group.name]) == sorted(expected), f"{group.name}: values lost"
        assert len(partitions[group.name]) >= group.min_partitions, group.name
