"""Writes the pyiceberg manifest fixtures of TestManifestFixtureFiles (pyiceberg-v{1,2}-*.avro).

Run with a Python that has pyiceberg 0.12: python pyiceberg_manifests.py DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.manifest import (
    DataFile,
    DataFileContent,
    FileFormat,
    ManifestEntry,
    ManifestEntryStatus,
    write_manifest,
)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import (
    BucketTransform,
    DayTransform,
    HourTransform,
    IdentityTransform,
    MonthTransform,
    TruncateTransform,
    VoidTransform,
    YearTransform,
)
from pyiceberg.typedef import Record
from pyiceberg.types import (
    DateType,
    DecimalType,
    DoubleType,
    LongType,
    NestedField,
    StringType,
    TimestampType,
    TimestamptzType,
)

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "name", StringType()),
    NestedField(3, "day", DateType()),
    NestedField(4, "ts", TimestamptzType()),
    NestedField(5, "amount", DecimalType(9, 2)),
    NestedField(6, "score", DoubleType()),
    NestedField(11, "d2", DateType()),
    NestedField(12, "ts2", TimestampType()),
)
SPEC = PartitionSpec(
    PartitionField(2, 1000, IdentityTransform(), "name"),
    PartitionField(1, 1001, BucketTransform(16), "id_bucket"),
    PartitionField(2, 1002, TruncateTransform(3), "name_trunc"),
    PartitionField(3, 1003, DayTransform(), "day_day"),
    PartitionField(11, 1004, YearTransform(), "d2_year"),
    PartitionField(4, 1005, HourTransform(), "ts_hour"),
    PartitionField(12, 1006, MonthTransform(), "ts2_month"),
    PartitionField(5, 1007, TruncateTransform(10), "amount_trunc"),
    PartitionField(6, 1008, VoidTransform(), "score_null"),
    spec_id=1,
)


def partition(name: str | None) -> Record:
    from decimal import Decimal

    return Record(
        name, 3, name[:3] if name else None, 19724, 54, 473381, 650, Decimal("12.30"), None
    )


def data_file(version: int, path: str, full: bool, content: DataFileContent = DataFileContent.DATA,
              **extra: object) -> DataFile:  # fmt: skip
    args: dict[str, object] = dict(
        content=content,
        file_path=path,
        file_format=FileFormat.PARQUET,
        partition=partition("abc" if full else None),
        record_count=3 if full else 5,
        file_size_in_bytes=1234 if full else 99,
    )
    if full:
        args.update(
            column_sizes={1: 10, 2: 20},
            value_counts={1: 3, 2: 3, 6: 3},
            null_value_counts={1: 0, 2: 1, 6: 0},
            nan_value_counts={6: 1},
            lower_bounds={1: (1).to_bytes(8, "little"), 2: b"a"},
            upper_bounds={1: (9).to_bytes(8, "little"), 2: "zz\u00e9".encode()},
            key_metadata=b"\x09\x08\x07",
            split_offsets=[4, 600],
            sort_order_id=1,
        )
    args.update(extra)
    return DataFile.from_args(**args)  # type: ignore[arg-type]


def write(out: Path, version: int, snapshot: int, entries: list[ManifestEntry], codec: str) -> None:
    out.unlink(missing_ok=True)
    io = PyArrowFileIO()
    with write_manifest(version, SPEC, SCHEMA, io.new_output(str(out)), snapshot, codec) as w:  # type: ignore[arg-type]
        for e in entries:
            w.add_entry(e)


def entry(
    status: ManifestEntryStatus, snapshot: int, seq: int | None, file: DataFile
) -> ManifestEntry:
    return ManifestEntry.from_args(
        status=status,
        snapshot_id=snapshot,
        sequence_number=seq,
        file_sequence_number=seq,
        data_file=file,
    )


def main(directory: str) -> None:
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    added, existing, deleted = (
        ManifestEntryStatus.ADDED,
        ManifestEntryStatus.EXISTING,
        ManifestEntryStatus.DELETED,
    )
    for version, codec in ((1, "deflate"), (2, "zstandard")):
        entries = [
            entry(added, 100, None, data_file(version, "s3://b/t/data/full.parquet", True)),
            entry(added, 100, None, data_file(version, "s3://b/t/data/bare.parquet", False)),
            entry(existing, 90, 2, data_file(version, "s3://b/t/data/existing.parquet", True)),
            entry(deleted, 100, 1, data_file(version, "s3://b/t/data/gone.parquet", False)),
        ]
        write(root / f"pyiceberg-v{version}-data-transforms.avro", version, 100, entries, codec)
    eq = DataFileContent.EQUALITY_DELETES
    pos = DataFileContent.POSITION_DELETES
    deletes = [
        entry(
            added,
            100,
            None,
            data_file(2, "s3://b/t/data/eq.parquet", True, eq, equality_ids=[1, 2]),
        ),
        entry(added, 100, None, data_file(2, "s3://b/t/data/pos.parquet", False, pos)),
    ]
    write(root / "pyiceberg-v2-deletes-transforms.avro", 2, 100, deletes, "null")


if __name__ == "__main__":
    main(sys.argv[1])
