"""Floe: an Iceberg-compatible open table format for Apache Spark.

``floe.session`` / ``floe.configure`` set up a SparkSession with Floe's catalog and SQL extensions;
``floe.connect`` opens a Spark Connect session on a ``floe connect`` server;
``floe.inspect`` reads Floe (and Iceberg) tables in pure Python, without a JVM.
"""

from floe.errors import (
    FloeError,
    IndexFileError,
    JarNotFoundError,
    NoSuchIndexError,
    NoSuchTableError,
)
from floe.spark import (
    CATALOG_CLASS,
    EXTENSIONS_CLASS,
    configure,
    connect,
    floe_conf,
    jar_path,
    session,
    warehouse_uri,
)

__version__ = "0.1.0"

__all__ = [
    "CATALOG_CLASS",
    "EXTENSIONS_CLASS",
    "FloeError",
    "IndexFileError",
    "JarNotFoundError",
    "NoSuchIndexError",
    "NoSuchTableError",
    "__version__",
    "configure",
    "connect",
    "floe_conf",
    "jar_path",
    "session",
    "warehouse_uri",
]
