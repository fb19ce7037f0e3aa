"""Shared pytest fixtures: one Floe SparkSession for the whole run, its warehouse, namespaces."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CATALOG = "floe"
# Pinned so that results do not depend on the machine: UTC, en_US.
JVM_OPTIONS = "-Duser.timezone=UTC -Duser.language=en -Duser.country=US"

_names = itertools.count()


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The local warehouse directory of the ``floe`` catalog (and of the ``iceberg`` catalog)."""
    return tmp_path_factory.mktemp("warehouse").resolve()


@pytest.fixture(scope="session")
def iceberg_jar() -> Path:
    """The Apache Iceberg Spark runtime jar (fetched once into ~/.cache/floe)."""
    from iceberg_runtime import iceberg_runtime_jar

    return iceberg_runtime_jar()


@pytest.fixture(scope="session")
def spark(
    warehouse: Path, iceberg_jar: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SparkSession]:
    """One SparkSession for the whole run: catalog ``floe`` on ``warehouse``, and catalog
    ``iceberg`` (Apache Iceberg's runtime, hadoop type) on the same warehouse for interop."""
    import floe

    session = floe.session(
        str(warehouse),
        catalog=CATALOG,
        app_name="floe-python-tests",
        master="local[2]",
        conf={
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "2",
            "spark.sql.session.timeZone": "UTC",
            "spark.driver.extraJavaOptions": JVM_OPTIONS,
            "spark.sql.warehouse.dir": str(tmp_path_factory.mktemp("spark-warehouse")),
            "spark.jars": str(iceberg_jar),
            "spark.sql.catalog.iceberg": "org.apache.iceberg.spark.SparkCatalog",
            "spark.sql.catalog.iceberg.type": "hadoop",
            "spark.sql.catalog.iceberg.warehouse": floe.warehouse_uri(str(warehouse)),
        },
    )
    yield session
    session.stop()


def unique_name(prefix: str) -> str:
    """Return a name no other call in this run returns, usable as a namespace or table name."""
    stem = re.sub(r"[^a-z0-9_]", "_", prefix.lower()).strip("_")[:40] or "t"
    return f"{stem}_{next(_names)}"


@pytest.fixture
def new_namespace(spark: SparkSession, request: pytest.FixtureRequest) -> Callable[[], str]:
    """A factory that creates a fresh namespace in ``floe`` and returns its (unqualified) name."""

    def create() -> str:
        name = unique_name(request.node.name)
        spark.sql(f"CREATE NAMESPACE {CATALOG}.{name}")
        return name

    return create


@pytest.fixture
def namespace(new_namespace: Callable[[], str]) -> str:
    """A fresh namespace in ``floe`` for this test (unqualified name: use f"floe.{namespace}.t")."""
    return new_namespace()
