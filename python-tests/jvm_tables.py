"""Reaching Floe's format layer (io.floe.format) from Python tests through py4j.

The tests use it to commit outside Spark: register Parquet files written by pyarrow, and force a
conflict between two writers at a chosen moment. Only the Java classes are used here; every check
of the result reads the files independently.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

import floe

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def table_ops(spark: SparkSession, warehouse: Path, namespace: str, name: str) -> Any:
    """A fresh ``FileSystemTableOperations`` for ``namespace.name``, loaded (it fails if absent)."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    fmt = jvm.io.floe.format
    catalog = fmt.catalog.FileSystemCatalog(
        fmt.io.LocalFileIO(), floe.warehouse_uri(str(warehouse))
    )
    ident = fmt.catalog.TableIdentifier.of(jvm.java.util.List.of(namespace), name)
    return catalog.loadTable(ident)


def field(name: str, type_: pa.DataType, field_id: int) -> pa.Field:
    """A pyarrow field carrying an Iceberg field id (written as the Parquet field_id)."""
    return pa.field(name, type_, metadata={b"PARQUET:field_id": str(field_id).encode()})


def write_parquet(directory: Path, table: pa.Table) -> Path:
    """Write ``table`` as one Parquet file under ``directory`` and return its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"external-{uuid.uuid4()}.parquet"
    pq.write_table(table, path, compression="zstd")
    return path


def data_file(spark: SparkSession, metadata: Any, path: Path, record_count: int) -> Any:
    """An ``io.floe.format.manifest.DataFile`` for a Parquet file of an unpartitioned table."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    return (
        jvm.io.floe.format.manifest.DataFile.builder(metadata.spec())
        .withPath(floe.warehouse_uri(str(path)))
        .withFormat("PARQUET")
        .withRecordCount(record_count)
        .withFileSizeInBytes(path.stat().st_size)
        .build()
    )


class InterceptedOps:
    """A ``TableOperations`` implemented in Python (py4j proxy) around a Java one.

    The first time ``commit`` is called, ``before_first_commit`` runs before the real commit: the
    test lets another writer publish there, so that this writer's base is stale however fast it is.
    """

    def __init__(self, delegate: Any, before_first_commit: Callable[[], None]) -> None:
        self._delegate = delegate
        self._before: Callable[[], None] | None = before_first_commit
        self.commit_calls = 0

    def current(self) -> Any:
        return self._delegate.current()

    def refresh(self) -> Any:
        return self._delegate.refresh()

    def commit(self, base: Any, updated: Any) -> None:
        self.commit_calls += 1
        before, self._before = self._before, None
        if before is not None:
            before()
        self._delegate.commit(base, updated)

    def io(self) -> Any:
        return self._delegate.io()

    def tableName(self) -> str:
        return str(self._delegate.tableName())

    def metadataRoot(self) -> str:
        return str(self._delegate.metadataRoot())

    def metadataFileLocation(self, file_name: str) -> str:
        return str(self._delegate.metadataFileLocation(file_name))

    class Java:
        implements = ["io.floe.format.commit.TableOperations"]  # noqa: RUF012 (py4j protocol)


@contextmanager
def python_callbacks(spark: SparkSession) -> Iterator[None]:
    """Let Java call Python objects, with Java exceptions raised inside a callback passed back to
    Java as themselves (so ``CommitFailedException`` stays a ``CommitFailedException``)."""
    from pyspark.java_gateway import ensure_callback_server_started

    gateway = spark.sparkContext._gateway
    assert gateway is not None
    ensure_callback_server_started(gateway)  # type: ignore[no-untyped-call]
    parameters = gateway.python_parameters
    previous = parameters.propagate_java_exceptions
    parameters.propagate_java_exceptions = True
    try:
        yield
    finally:
        parameters.propagate_java_exceptions = previous


def create_v1_table(
    spark: SparkSession, warehouse: Path, namespace: str, model: str, name: str
) -> None:
    """Create ``namespace.name`` as a format v1 table (as another engine would) with the schema,
    spec and sort order of the existing table ``namespace.model``: Floe itself creates v2 and v3."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    fmt = jvm.io.floe.format
    base = table_ops(spark, warehouse, namespace, model).current()
    catalog = fmt.catalog.FileSystemCatalog(
        fmt.io.LocalFileIO(), floe.warehouse_uri(str(warehouse))
    )
    ident = fmt.catalog.TableIdentifier.of(jvm.java.util.List.of(namespace), name)
    v1 = fmt.metadata.TableMetadata.newTableMetadata(
        base.schema(),
        base.spec(),
        base.sortOrder(),
        catalog.tableLocation(ident),
        jvm.java.util.HashMap(),
        1,
    )
    catalog.createTable(ident, v1)
