"""Writes the valid seed files of the R4 malformed-input corpus (python-tests/corpus/r4/valid).

Run once by hand (it needs Spark and the Floe jar); the seeds are committed and
reliability_corpus.py derives every malformed file from them:

    FLOE_JAR=... PYTHONPATH=pyspark-shim python python-tests/reliability_corpus_seed.py

The table is a v3 table with merge-on-read deletes (a deletion vector), a B-tree and an inverted
index, and ANALYZE statistics (a Puffin file), so each kind of file Floe reads has a seed.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

from floe.inspect._paths import local_path
from floe.inspect.manifests import read_manifest, read_manifest_list
from floe.inspect.metadata import metadata_file

VALID = Path(__file__).parent / "corpus" / "r4" / "valid"


def main() -> None:
    if len(sys.argv) > 1:  # the warehouse of an earlier run: copy its files again
        copy_seeds(Path(sys.argv[1]) / "r4" / "t")
        return
    import floe

    warehouse = Path(tempfile.mkdtemp(prefix="r4-seed-"))
    spark = floe.session(
        str(warehouse),
        catalog="floe",
        master="local[1]",
        conf={"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "1"},
    )
    spark.sql("CREATE NAMESPACE floe.r4")
    spark.sql(
        "CREATE TABLE floe.r4.t (id BIGINT, name STRING) USING floe TBLPROPERTIES ("
        "'format-version'='3', 'write.delete.mode'='merge-on-read')"
    )
    rows = ", ".join(f"({i}, 'name-{i % 7}')" for i in range(40))
    spark.sql(f"INSERT INTO floe.r4.t VALUES {rows}")
    spark.sql("DELETE FROM floe.r4.t WHERE id IN (3, 5, 30)")
    spark.sql("CREATE INDEX by_id ON floe.r4.t USING btree (id)")
    spark.sql("CREATE INDEX by_name ON floe.r4.t USING inverted (name)")
    spark.sql("ANALYZE TABLE floe.r4.t COMPUTE STATISTICS FOR ALL COLUMNS").collect()
    spark.stop()
    copy_seeds(warehouse / "r4" / "t")


def copy(location: str, to: Path) -> None:
    shutil.copy(local_path(location), to)


def copy_seeds(table: Path) -> None:
    meta_path = metadata_file(str(table))
    metadata = json.loads(meta_path.read_text())
    if VALID.exists():
        shutil.rmtree(VALID)
    VALID.mkdir(parents=True)
    shutil.copy(meta_path, VALID / "table.metadata.json")
    snapshot = next(
        s for s in metadata["snapshots"] if s["snapshot-id"] == metadata["current-snapshot-id"]
    )
    copy(snapshot["manifest-list"], VALID / "manifest-list.avro")
    for manifest in read_manifest_list(snapshot["manifest-list"]):
        kind = "data" if manifest["content"] == 0 else "delete"
        copy(manifest["manifest_path"], VALID / f"{kind}-manifest.avro")
        for entry in read_manifest(manifest["manifest_path"], manifest):
            file = entry["data_file"]
            if file["file_format"].upper() == "PUFFIN":
                copy(file["file_path"], VALID / "deletion-vector.puffin")
            elif file["file_format"].upper() == "PARQUET":
                copy(file["file_path"], VALID / "data.parquet")
    copy(metadata["statistics"][0]["statistics-path"], VALID / "statistics.puffin")
    index_list = (
        metadata["properties"]["floe.indexes"]
        if "floe.indexes" in metadata["properties"]
        else next(v for k, v in metadata["properties"].items() if "index" in k)
    )
    copy(index_list, VALID / "index-list.json")
    for index in json.loads(local_path(index_list).read_text())["indexes"]:
        copy(index["segments"][0]["path"], VALID / f"index-{index['name']}.puffin")
    (VALID / "version-hint.text").write_text("1")
    (VALID / "SOURCE.txt").write_text(f"Written by reliability_corpus_seed.py from table {table}\n")


if __name__ == "__main__":
    main()
