"""Pure-Python readers for Floe (and Iceberg) tables: no JVM needed.

Locations may be plain local paths, ``file:/...`` or ``file:///...`` URIs.
"""

from floe.inspect.data import arrow_schema, read_table
from floe.inspect.deletes import read_deletion_vector, read_position_deletes
from floe.inspect.files import table_files
from floe.inspect.index_list import IndexSegment
from floe.inspect.indexes import (
    IndexAnswer,
    TableIndex,
    files_for_value,
    files_for_values,
    files_in_range,
    files_with_prefix,
    parse_value,
    table_indexes,
)
from floe.inspect.manifests import read_avro, read_manifest, read_manifest_list
from floe.inspect.metadata import find_snapshot, load_table_metadata, metadata_file
from floe.inspect.puffin import read_puffin, read_puffin_blob, theta_estimate
from floe.inspect.reachable import Reachability, reachable_files
from floe.inspect.stats import (
    ColumnNdv,
    TableStatistics,
    read_theta_blobs,
    statistics_files,
    table_statistics,
)

__all__ = [
    "ColumnNdv",
    "IndexAnswer",
    "IndexSegment",
    "Reachability",
    "TableIndex",
    "TableStatistics",
    "arrow_schema",
    "files_for_value",
    "files_for_values",
    "files_in_range",
    "files_with_prefix",
    "find_snapshot",
    "load_table_metadata",
    "metadata_file",
    "parse_value",
    "reachable_files",
    "read_avro",
    "read_deletion_vector",
    "read_manifest",
    "read_manifest_list",
    "read_position_deletes",
    "read_puffin",
    "read_puffin_blob",
    "read_table",
    "read_theta_blobs",
    "statistics_files",
    "table_files",
    "table_indexes",
    "table_statistics",
    "theta_estimate",
]
