"""What Floe writes, checked byte by byte without Floe's Java code: Parquet through pyarrow,
Avro through fastavro, metadata through json (docs/format.md, 'What Floe writes')."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import random
import re
import struct
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fastavro
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from interop_tables import row_group_starts

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TRUNCATE_LENGTH = 16  # Iceberg's default metrics mode: truncate(16)
MAX_CODE_POINT = 0x10FFFF
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


# --- independent readers ----------------------------------------------------------------------


def local(location: str) -> Path:
    """A local path from a ``file:`` URI as written in metadata (``file:/p`` or ``file:///p``)."""
    assert location.startswith("file:"), location
    return Path("/" + location[len("file:") :].lstrip("/"))


def table_dir(warehouse: Path, namespace: str, name: str) -> Path:
    return warehouse / namespace / name


def current_metadata(table: Path) -> dict[str, Any]:
    hint = (table / "metadata" / "version-hint.text").read_text()
    parsed: dict[str, Any] = json.loads((table / "metadata" / f"v{hint}.metadata.json").read_text())
    return parsed


def read_avro(path: Path) -> tuple[dict[str, Any], dict[str, str], list[dict[str, Any]]]:
    """The writer schema (raw JSON), key-value metadata and records of an Avro file."""
    with path.open("rb") as f:
        reader = fastavro.reader(f)
        records = list(reader)
        meta = {
            k: v.decode() if isinstance(v, bytes) else str(v) for k, v in reader.metadata.items()
        }
    return json.loads(meta["avro.schema"]), meta, records  # type: ignore[return-value]


def kv_map(pairs: list[dict[str, Any]] | None) -> dict[int, Any]:
    """An Iceberg int-keyed map, stored in Avro as an array of {key, value} records."""
    return {p["key"]: p["value"] for p in pairs or []}


def live_data_files(table: Path) -> list[dict[str, Any]]:
    metadata = current_metadata(table)
    snapshot = next(
        s for s in metadata["snapshots"] if s["snapshot-id"] == metadata["current-snapshot-id"]
    )
    files = []
    for manifest in read_avro(local(snapshot["manifest-list"]))[2]:
        for entry in read_avro(local(manifest["manifest_path"]))[2]:
            if entry["status"] != 2:
                files.append(entry["data_file"])
    return files


# --- single-value serialization (docs/format.md, 'Single-value serialization'), from the spec --


def decode_bound(type_: str, raw: bytes) -> Any:
    if type_ == "boolean":
        assert len(raw) == 1
        return raw != b"\x00"
    if type_ in ("int", "date"):
        (value,) = struct.unpack("<i", raw)
        return dt.date(1970, 1, 1) + dt.timedelta(days=value) if type_ == "date" else value
    if type_ in ("long", "timestamp", "timestamptz"):
        (value,) = struct.unpack("<q", raw)
        return value  # timestamps: microseconds since the epoch
    if type_ == "float":
        return struct.unpack("<f", raw)[0]
    if type_ == "double":
        return struct.unpack("<d", raw)[0]
    if type_ == "string":
        return raw.decode("utf-8")
    if type_ == "binary":
        return raw
    match = re.fullmatch(r"decimal\((\d+),\s*(\d+)\)", type_)
    if match:
        unscaled = int.from_bytes(raw, "big", signed=True)
        minimal = max(1, (unscaled.bit_length() + 8) // 8)  # two's complement, minimum bytes
        assert len(raw) == minimal, f"decimal bound {raw.hex()} is not in minimum bytes"
        return Decimal(unscaled).scaleb(-int(match.group(2)))
    raise AssertionError(f"no bound decoder for {type_}")


def truncated_lower(value: Any) -> Any:
    if isinstance(value, str):
        return value[:TRUNCATE_LENGTH]  # Python indexes code points
    if isinstance(value, bytes):
        return value[:TRUNCATE_LENGTH]
    return value


def truncated_upper(value: Any) -> Any:
    """Iceberg's upper bound: cut, then increment the last code point (byte) that can be; None
    when none can (no upper bound is written)."""
    if isinstance(value, str):
        if len(value) <= TRUNCATE_LENGTH:
            return value
        points = [ord(c) for c in value[:TRUNCATE_LENGTH]]
        for i in range(len(points) - 1, -1, -1):
            following = points[i] + 1
            if 0xD800 <= following <= 0xDFFF:
                following = 0xE000  # surrogates are not characters
            if following <= MAX_CODE_POINT:
                return "".join(map(chr, points[:i])) + chr(following)
        return None
    if isinstance(value, bytes):
        if len(value) <= TRUNCATE_LENGTH:
            return value
        cut = value[:TRUNCATE_LENGTH]
        for i in range(len(cut) - 1, -1, -1):
            if cut[i] != 0xFF:
                return cut[:i] + bytes([cut[i] + 1])
        return None
    return value


def comparable(type_: str, value: Any) -> Any:
    """A value from pyarrow in the form :func:`decode_bound` returns."""
    if type_ in ("timestamp", "timestamptz"):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        delta = value - EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if type_ == "float":
        return struct.unpack("<f", struct.pack("<f", value))[0]
    return value


# --- Parquet ---------------------------------------------------------------------------------


def field_id(f: pa.Field) -> int | None:
    raw = (f.metadata or {}).get(b"PARQUET:field_id")
    return int(raw) if raw is not None else None


def check_ids(iceberg_type: Any, arrow_type: pa.DataType, path: str) -> int:
    """Assert the Parquet ids below a node equal the table schema's; returns the nodes checked."""
    checked = 0
    if isinstance(iceberg_type, str):
        assert not pa.types.is_nested(arrow_type), path
        return 0
    kind = iceberg_type["type"]
    if kind == "struct":
        assert pa.types.is_struct(arrow_type), path
        children = [arrow_type.field(i) for i in range(arrow_type.num_fields)]
        assert [c.name for c in children] == [f["name"] for f in iceberg_type["fields"]], path
        for child, expected in zip(children, iceberg_type["fields"], strict=True):
            assert field_id(child) == expected["id"], f"{path}.{child.name}"
            checked += 1 + check_ids(expected["type"], child.type, f"{path}.{child.name}")
    elif kind == "list":
        assert pa.types.is_list(arrow_type), path
        element = arrow_type.value_field
        assert field_id(element) == iceberg_type["element-id"], f"{path}.element"
        checked += 1 + check_ids(iceberg_type["element"], element.type, f"{path}.element")
    elif kind == "map":
        assert pa.types.is_map(arrow_type), path
        assert field_id(arrow_type.key_field) == iceberg_type["key-id"], f"{path}.key"
        assert field_id(arrow_type.item_field) == iceberg_type["value-id"], f"{path}.value"
        checked += 2 + check_ids(iceberg_type["key"], arrow_type.key_field.type, f"{path}.key")
        checked += check_ids(iceberg_type["value"], arrow_type.item_field.type, f"{path}.value")
    else:
        raise AssertionError(f"unexpected type at {path}: {kind}")
    return checked


PARQUET_NODE = re.compile(r"^\s*(required|optional|repeated) (\S+) field_id=(-?\d+) (\S+)")


def compressions(path: Path) -> set[str]:
    meta = pq.ParquetFile(path).metadata
    return {
        meta.row_group(g).column(c).compression
        for g in range(meta.num_row_groups)
        for c in range(meta.num_columns)
    }


# --- tests -----------------------------------------------------------------------------------


def test_every_parquet_node_has_the_table_schema_field_id(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    spark.sql(
        f"""CREATE TABLE floe.{namespace}.nested (
              id BIGINT, name STRING, tags ARRAY<STRING>,
              points ARRAY<STRUCT<x: DOUBLE, y: DOUBLE>>,
              attrs MAP<STRING, STRUCT<v: INT, note: STRING>>,
              nested STRUCT<a: INT, inner: STRUCT<b: STRING, c: ARRAY<INT>>>,
              matrix ARRAY<ARRAY<INT>>, counts MAP<INT, ARRAY<STRING>>)"""
    )
    spark.sql(
        f"""INSERT INTO floe.{namespace}.nested VALUES
            (1, 'a', array('x', 'y'), array(named_struct('x', 1.0D, 'y', 2.0D)),
             map('k', named_struct('v', 1, 'note', 'n')),
             named_struct('a', 1, 'inner', named_struct('b', 'b', 'c', array(1, 2))),
             array(array(1), array(2, 3)), map(7, array('s'))),
            (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"""
    )
    table = table_dir(warehouse, namespace, "nested")
    schema = current_metadata(table)["schemas"][0]
    files = live_data_files(table)
    assert files
    for data_file in files:
        path = local(data_file["file_path"])
        parquet = pq.ParquetFile(path)
        arrow = parquet.schema_arrow
        assert [f.name for f in arrow] == [f["name"] for f in schema["fields"]]
        checked = 0
        for arrow_field, expected in zip(arrow, schema["fields"], strict=True):
            assert field_id(arrow_field) == expected["id"], expected["name"]
            checked += 1 + check_ids(expected["type"], arrow_field.type, expected["name"])
        # every table field id was found in the file: top level, struct children, list
        # elements, map keys and values
        ids = re.findall(r'"(?:id|element-id|key-id|value-id)":\s*(\d+)', json.dumps(schema))
        assert checked == len(ids) == 26
        # The Parquet schema itself: an id on every node but the root and the repeated
        # list/key_value wrappers (3-level lists and maps).
        nodes = [PARQUET_NODE.match(line) for line in str(parquet.schema).splitlines()]
        parsed = [m.groups() for m in nodes if m][1:]  # [0] is the root, which has no id
        without_id = [(rep, name) for rep, _, fid, name in parsed if fid == "-1"]
        assert sorted(without_id) == sorted(
            [("repeated", "list")] * 6 + [("repeated", "key_value")] * 2
        ), without_id
        assert {int(fid) for _, _, fid, _ in parsed if fid != "-1"} == {int(i) for i in ids}


def test_compression_is_zstd_by_default_and_follows_the_table_property(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    name = f"floe.{namespace}.codecs"
    spark.sql(f"CREATE TABLE {name} (id BIGINT, s STRING, d DOUBLE)")
    table = table_dir(warehouse, namespace, "codecs")
    seen: set[str] = set()

    def codecs_of_new_files() -> set[str]:
        spark.sql(f"INSERT INTO {name} VALUES (1, 'one', 1.0), (2, 'two', 2.0)")
        paths = {str(local(f["file_path"])) for f in live_data_files(table)}
        new = paths - seen
        assert new
        seen.update(new)
        return set.union(*(compressions(Path(p)) for p in new))

    assert codecs_of_new_files() == {"ZSTD"}
    for codec, expected in (
        ("snappy", "SNAPPY"),
        ("gzip", "GZIP"),
        ("uncompressed", "UNCOMPRESSED"),
        ("zstd", "ZSTD"),
    ):
        spark.sql(
            f"ALTER TABLE {name} SET TBLPROPERTIES ('write.parquet.compression-codec'='{codec}')"
        )
        assert codecs_of_new_files() == {expected}, codec
    # Files written earlier keep their codec; all of them read back.
    assert spark.sql(f"SELECT count(*) FROM {name}").collect()[0][0] == 10


def test_target_file_size_rolls_files_near_the_target(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    target = 64 * 1024
    rows = 100_000
    name = f"floe.{namespace}.rolled"
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, s STRING) "
        f"TBLPROPERTIES ('write.target-file-size-bytes'='{target}')"
    )
    (
        spark.range(rows)
        .selectExpr("id", "randstr(24, 7) AS s")  # random: barely compressible
        .repartition(2)
        .writeTo(name)
        .append()
    )
    files = live_data_files(table_dir(warehouse, namespace, "rolled"))
    assert sum(f["record_count"] for f in files) == rows
    assert len(files) >= 20, f"{len(files)} files: the target size was not applied"
    # Files of one write task are numbered; all but the last of each task were rolled over.
    by_task: dict[str, list[tuple[int, int]]] = {}
    for f in files:
        match = re.fullmatch(r"(\d+-\d+)-.*-(\d+)\.parquet", local(f["file_path"]).name)
        assert match, f["file_path"]
        size = local(f["file_path"]).stat().st_size
        assert size == f["file_size_in_bytes"]
        by_task.setdefault(match.group(1), []).append((int(match.group(2)), size))
    rolled = [size for sizes in by_task.values() for _, size in sorted(sizes)[:-1]]
    assert rolled
    # The size check counts buffered (uncompressed) bytes, as Iceberg's does, so files come out
    # somewhat under the target, never over it.
    assert all(target / 3 <= size <= target * 1.1 for size in rolled), sorted(rolled)
    count, distinct = spark.sql(f"SELECT count(*), count(DISTINCT id) FROM {name}").collect()[0]
    assert count == distinct == rows


# Columns of every primitive type with bounds, and their Iceberg type strings.
METRICS_COLUMNS = [
    ("b", "BOOLEAN", "boolean"),
    ("i", "INT", "int"),
    ("l", "BIGINT", "long"),
    ("f", "FLOAT", "float"),
    ("d", "DOUBLE", "double"),
    ("dec", "DECIMAL(10,2)", "decimal(10, 2)"),
    ("wide", "DECIMAL(30,4)", "decimal(30, 4)"),
    ("day", "DATE", "date"),
    ("ts", "TIMESTAMP", "timestamptz"),
    ("ntz", "TIMESTAMP_NTZ", "timestamp"),
    ("s", "STRING", "string"),
    ("bin", "BINARY", "binary"),
]


def _random_rows(count: int, seed: int) -> list[tuple[Any, ...]]:
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyzé✓😀"

    def maybe(make: Callable[[], Any]) -> Any:
        return None if rng.random() < 0.1 else make()

    def floaty() -> float:
        return float("nan") if rng.random() < 0.1 else rng.uniform(-1e6, 1e6)

    rows = []
    for _ in range(count):
        rows.append(
            (
                maybe(lambda: rng.random() < 0.5),
                maybe(lambda: rng.randint(-(2**31), 2**31 - 1)),
                maybe(lambda: rng.randint(-(2**63), 2**63 - 1)),
                maybe(floaty),
                maybe(floaty),
                maybe(lambda: Decimal(rng.randint(-(10**10) + 1, 10**10 - 1)).scaleb(-2)),
                maybe(lambda: Decimal(rng.randint(-(10**30) + 1, 10**30 - 1)).scaleb(-4)),
                maybe(lambda: dt.date(1900, 1, 1) + dt.timedelta(days=rng.randint(0, 80_000))),
                maybe(lambda: EPOCH + dt.timedelta(microseconds=rng.randint(-(2**50), 2**50))),
                maybe(
                    lambda: (
                        dt.datetime(1950, 1, 1) + dt.timedelta(microseconds=rng.randint(0, 2**51))
                    )
                ),
                maybe(lambda: "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))),
                maybe(lambda: rng.randbytes(rng.randint(0, 30))),
            )
        )
    return rows


def _check_file_metrics(data_file: dict[str, Any], schema: dict[str, Any]) -> None:
    path = local(data_file["file_path"])
    parquet = pq.ParquetFile(path)
    table = parquet.read()
    meta = parquet.metadata
    assert data_file["record_count"] == table.num_rows == meta.num_rows
    assert data_file["file_size_in_bytes"] == path.stat().st_size
    assert data_file["file_format"] == "PARQUET"
    column_sizes = kv_map(data_file["column_sizes"])
    value_counts = kv_map(data_file["value_counts"])
    null_counts = kv_map(data_file["null_value_counts"])
    nan_counts = kv_map(data_file["nan_value_counts"])
    lowers = kv_map(data_file["lower_bounds"])
    uppers = kv_map(data_file["upper_bounds"])
    assert data_file["split_offsets"] == row_group_starts(meta)

    for c, fld in enumerate(schema["fields"]):
        fid, type_, name = fld["id"], fld["type"], fld["name"]
        column = table.column(name)
        assert column_sizes[fid] == sum(
            meta.row_group(g).column(c).total_compressed_size for g in range(meta.num_row_groups)
        ), name
        assert value_counts[fid] == table.num_rows, name
        assert null_counts[fid] == column.null_count, name
        values = [v for v in column.to_pylist() if v is not None]
        if type_ in ("float", "double"):
            nans = sum(1 for v in values if v != v)
            assert nan_counts[fid] == nans, name
            values = [v for v in values if v == v]
        else:
            assert fid not in nan_counts, name
        if not values:
            assert fid not in lowers and fid not in uppers, name
            continue
        if type_ in ("string", "binary"):
            # Iceberg orders strings by code point and binary by unsigned bytes: UTF-8 bytes
            low = min(values, key=lambda v: v.encode() if isinstance(v, str) else v)
            high = max(values, key=lambda v: v.encode() if isinstance(v, str) else v)
        else:
            present = pc.drop_null(column)
            if type_ in ("float", "double"):
                present = present.filter(pc.invert(pc.is_nan(present)))
            extremes = pc.min_max(present)
            low, high = extremes["min"].as_py(), extremes["max"].as_py()
            assert (low, high) == (min(values), max(values)), name
        assert decode_bound(type_, lowers[fid]) == comparable(type_, truncated_lower(low)), name
        expected_upper = truncated_upper(high)
        if expected_upper is None:
            assert fid not in uppers, name
        else:
            assert decode_bound(type_, uppers[fid]) == comparable(type_, expected_upper), name


def test_manifest_metrics_are_the_true_metrics_of_each_file(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    name = f"floe.{namespace}.metrics"
    columns = ", ".join(f"{n} {sql}" for n, sql, _ in METRICS_COLUMNS)
    spark.sql(f"CREATE TABLE {name} ({columns})")
    ddl = columns
    for seed in (1, 2):
        spark.createDataFrame(_random_rows(400, seed), ddl).coalesce(1).writeTo(name).append()
    # and a file where every value of some columns is null or NaN: no bounds for them
    spark.sql(
        f"INSERT INTO {name} (b, i, l, f, d, dec, wide, day, ts, ntz, s, bin) VALUES "
        "(NULL, 1, NULL, float('NaN'), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), "
        "(NULL, 2, NULL, float('NaN'), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
    )
    table = table_dir(warehouse, namespace, "metrics")
    schema = current_metadata(table)["schemas"][0]
    assert [(f["name"], f["type"]) for f in schema["fields"]] == [
        (n, t) for n, _, t in METRICS_COLUMNS
    ]
    files = live_data_files(table)
    assert sorted(f["record_count"] for f in files if f["record_count"] > 2) == [400, 400]
    assert sum(f["record_count"] for f in files) == 802
    for data_file in files:
        _check_file_metrics(data_file, schema)
    for all_null in (f for f in files if f["record_count"] <= 2):
        assert kv_map(all_null["nan_value_counts"])[4] == all_null["record_count"]
        assert set(kv_map(all_null["lower_bounds"])) == {2}
        assert set(kv_map(all_null["upper_bounds"])) == {2}


def test_string_and_binary_bounds_are_truncated_like_iceberg(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    cases: list[tuple[str, str, list[Any]]] = [
        ("plain", "STRING", ["abc", "z" * 20]),
        ("two_byte", "STRING", ["é" * 20, "a"]),  # cut at 16 code points, not 16 bytes
        ("astral", "STRING", ["a" * 15 + "😀" * 3, "a"]),
        ("max_point", "STRING", ["a" * 15 + chr(MAX_CODE_POINT) * 3, "a"]),  # carry
        ("surrogate", "STRING", ["x" * 15 + "\ud7ff" + "y", "a"]),  # next is U+E000
        ("no_upper", "STRING", [chr(MAX_CODE_POINT) * 17, "b" * 17]),
        ("short", "STRING", ["0123456789abcdef", "0"]),  # 16 exactly: kept whole
        ("bytes", "BINARY", [b"\x01" * 15 + b"\xff\x00", b"\x00"]),
        ("bytes_no_upper", "BINARY", [b"\xff" * 17, b"\x00" * 20]),
    ]
    columns = ", ".join(f"{n} {sql}" for n, sql, _ in cases)
    name = f"floe.{namespace}.truncation"
    spark.sql(f"CREATE TABLE {name} ({columns})")
    rows = [tuple(values[i] for _, _, values in cases) for i in range(2)]
    spark.createDataFrame(rows, columns).coalesce(1).writeTo(name).append()
    table = table_dir(warehouse, namespace, "truncation")
    schema = current_metadata(table)["schemas"][0]
    (data_file,) = live_data_files(table)
    _check_file_metrics(data_file, schema)
    lowers, uppers = kv_map(data_file["lower_bounds"]), kv_map(data_file["upper_bounds"])
    ids = {f["name"]: f["id"] for f in schema["fields"]}
    # spelled out, independent of the helper's rules
    assert uppers[ids["plain"]] == ("z" * 15 + "{").encode()
    assert lowers[ids["two_byte"]] == b"a"
    assert uppers[ids["two_byte"]] == ("é" * 15 + "ê").encode()
    assert uppers[ids["astral"]] == ("a" * 15 + "😁").encode()
    assert uppers[ids["max_point"]] == ("a" * 14 + "b").encode()
    assert uppers[ids["surrogate"]] == ("x" * 15 + "\ue000").encode()
    assert ids["no_upper"] not in uppers
    assert lowers[ids["no_upper"]] == ("b" * 16).encode()
    assert uppers[ids["short"]] == b"0123456789abcdef"
    assert uppers[ids["bytes"]] == b"\x01" * 14 + b"\x02"
    assert ids["bytes_no_upper"] not in uppers
    assert lowers[ids["bytes_no_upper"]] == b"\x00" * 16


def _walk_avro(schema: Any, path: str, names: list[str]) -> None:
    """Assert the Iceberg annotations on every field of an Avro schema; collect record names."""
    if isinstance(schema, list):
        assert len(schema) in (1, 2) and (len(schema) == 1 or schema[0] == "null"), path
        for branch in schema:
            _walk_avro(branch, path, names)
        return
    if not isinstance(schema, dict):
        return
    kind = schema["type"]
    if kind == "record":
        names.append(schema["name"])
        for fld in schema["fields"]:
            assert isinstance(fld.get("field-id"), int), f"{path}.{fld['name']} has no field-id"
            if isinstance(fld["type"], list):
                assert fld["type"][0] == "null" and "default" in fld and fld["default"] is None, (
                    f"{path}.{fld['name']}"
                )
            _walk_avro(fld["type"], f"{path}.{fld['name']}", names)
    elif kind == "array":
        if schema.get("logicalType") == "map":
            items = schema["items"]
            key, value = items["fields"]
            assert (key["name"], value["name"]) == ("key", "value"), path
            assert items["name"] == f"k{key['field-id']}_v{value['field-id']}", path
        else:
            assert isinstance(schema.get("element-id"), int), f"{path} has no element-id"
        _walk_avro(schema["items"], f"{path}[]", names)
    elif kind == "map":
        raise AssertionError(f"{path}: Iceberg maps are arrays of key/value records in Avro")


def test_manifest_and_manifest_list_avro_schemas_and_metadata(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    name = f"floe.{namespace}.avro"
    spark.sql(f"CREATE TABLE {name} (id BIGINT, region STRING) PARTITIONED BY (region)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'eu'), (2, 'us')")
    spark.sql(f"INSERT INTO {name} VALUES (3, 'eu')")
    table = table_dir(warehouse, namespace, "avro")
    metadata = current_metadata(table)
    snapshots = {s["snapshot-id"]: s for s in metadata["snapshots"]}
    assert len(snapshots) == 2
    for snapshot in snapshots.values():
        list_schema, list_meta, manifests = read_avro(local(snapshot["manifest-list"]))
        names: list[str] = []
        _walk_avro(list_schema, "manifest_file", names)
        assert names == ["manifest_file", "r508"]
        assert list_meta["avro.codec"] == "deflate"
        assert list_meta["snapshot-id"] == str(snapshot["snapshot-id"])
        assert list_meta["parent-snapshot-id"] == str(snapshot.get("parent-snapshot-id", "null"))
        assert list_meta["sequence-number"] == str(snapshot["sequence-number"])
        assert list_meta["format-version"] == "2"
        field_ids = {f["name"]: f["field-id"] for f in list_schema["fields"]}
        assert field_ids["manifest_path"] == 500 and field_ids["partitions"] == 507
        assert field_ids["sequence_number"] == 515 and field_ids["content"] == 517
        for manifest in manifests:
            path = local(manifest["manifest_path"])
            assert manifest["manifest_length"] == path.stat().st_size
            schema, meta, entries = read_avro(path)
            names = []
            _walk_avro(schema, "manifest_entry", names)
            assert names[:3] == ["manifest_entry", "r2", "r102"]
            assert set(names[3:]) == {
                "k117_v118",
                "k119_v120",
                "k121_v122",
                "k138_v139",
                "k126_v127",
                "k129_v130",
            }
            data_file = next(f for f in schema["fields"] if f["name"] == "data_file")
            assert data_file["field-id"] == 2
            partition = next(f for f in data_file["type"]["fields"] if f["name"] == "partition")
            assert partition["field-id"] == 102
            assert [(f["name"], f["field-id"]) for f in partition["type"]["fields"]] == [
                ("region", 1000)
            ]
            assert meta["avro.codec"] == "deflate"
            assert meta["format-version"] == "2"
            assert meta["content"] == "data"
            assert meta["partition-spec-id"] == "0"
            assert json.loads(meta["partition-spec"]) == metadata["partition-specs"][0]["fields"]
            written = json.loads(meta["schema"])
            assert written["fields"] == metadata["schemas"][0]["fields"]
            assert len(entries) == manifest["added_files_count"] + manifest["existing_files_count"]


REQUIRED_METADATA_KEYS = {
    "format-version", "table-uuid", "location", "last-sequence-number", "last-updated-ms",
    "last-column-id", "current-schema-id", "schemas", "default-spec-id", "partition-specs",
    "last-partition-id", "default-sort-order-id", "sort-orders", "properties",
    "current-snapshot-id", "refs", "snapshots", "statistics", "partition-statistics",
    "snapshot-log", "metadata-log",
}  # fmt: skip


def test_metadata_json_and_version_hint(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    spark.sql(f"CREATE TABLE floe.{namespace}.plain (id BIGINT, s STRING)")
    spark.sql(
        f"CREATE TABLE floe.{namespace}.parts (id BIGINT, region STRING) PARTITIONED BY (region)"
    )
    plain = table_dir(warehouse, namespace, "plain")
    fresh = json.loads((plain / "metadata" / "v1.metadata.json").read_text())
    assert fresh.keys() >= REQUIRED_METADATA_KEYS
    assert fresh["format-version"] == 2
    assert fresh["current-snapshot-id"] == -1  # v2: -1, not null, when there is no snapshot
    assert "main" not in fresh["refs"]
    assert fresh["last-partition-id"] == 999  # unpartitioned: partition field ids start at 1000
    assert fresh["partition-specs"] == [{"spec-id": 0, "fields": []}]
    assert fresh["sort-orders"] == [{"order-id": 0, "fields": []}]
    assert fresh["last-sequence-number"] == 0

    for i in range(3):
        spark.sql(f"INSERT INTO floe.{namespace}.plain VALUES ({i}, 's{i}')")
        spark.sql(f"INSERT INTO floe.{namespace}.parts VALUES ({i}, 'r{i}')")
    parts = current_metadata(table_dir(warehouse, namespace, "parts"))
    assert parts["last-partition-id"] == 1000
    assert parts["partition-specs"][0]["fields"] == [
        {"source-id": 2, "field-id": 1000, "name": "region", "transform": "identity"}
    ]

    metadata_dir = plain / "metadata"
    hint = (metadata_dir / "version-hint.text").read_bytes()
    assert re.fullmatch(rb"[1-9][0-9]*", hint), hint  # bare number: no newline, no spaces
    versions = sorted(
        int(m.group(1)) for p in metadata_dir.iterdir()
        if (m := re.fullmatch(r"v(\d+)\.metadata\.json", p.name))
    )  # fmt: skip
    assert versions == list(range(1, 5))
    assert int(hint) == versions[-1]

    metadata = current_metadata(plain)
    assert metadata.keys() >= REQUIRED_METADATA_KEYS
    assert metadata["table-uuid"] == fresh["table-uuid"]
    assert metadata["location"] == fresh["location"]
    ids = re.findall(r'"id":\s*(\d+)', json.dumps(metadata["schemas"]))
    assert metadata["last-column-id"] == max(map(int, ids)) == 2
    assert metadata["current-schema-id"] in {s["schema-id"] for s in metadata["schemas"]}
    snapshots = metadata["snapshots"]
    assert [s["sequence-number"] for s in snapshots] == [1, 2, 3]
    assert metadata["last-sequence-number"] == 3
    for parent, child in itertools.pairwise(snapshots):
        assert child["parent-snapshot-id"] == parent["snapshot-id"]
        assert child["timestamp-ms"] >= parent["timestamp-ms"]
    assert "parent-snapshot-id" not in snapshots[0]
    for snapshot in snapshots:
        assert snapshot["summary"]["operation"] == "append"
        assert local(snapshot["manifest-list"]).is_file()
        assert snapshot["schema-id"] == 0
    current = metadata["current-snapshot-id"]
    assert current == snapshots[-1]["snapshot-id"]
    assert metadata["refs"] == {"main": {"snapshot-id": current, "type": "branch"}}
    assert [e["snapshot-id"] for e in metadata["snapshot-log"]] == [
        s["snapshot-id"] for s in snapshots
    ]
    log_times = [e["timestamp-ms"] for e in metadata["snapshot-log"]]
    assert log_times == sorted(log_times) and metadata["last-updated-ms"] >= log_times[-1]
    previous = [e["metadata-file"] for e in metadata["metadata-log"]]
    assert [local(p).name for p in previous] == [f"v{v}.metadata.json" for v in versions[:-1]]
    summary = snapshots[-1]["summary"]
    files = live_data_files(plain)
    assert summary["total-records"] == "3" and summary["total-data-files"] == str(len(files))
    assert summary["total-files-size"] == str(sum(f["file_size_in_bytes"] for f in files))
    assert summary["added-records"] == "1" and summary["added-data-files"] == "1"
    assert summary["total-delete-files"] == "0"
