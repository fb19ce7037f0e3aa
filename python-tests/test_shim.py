"""The pure-Python parts of the floe package: configuration, the jar lookup, floe.inspect, the CLI.

None of these start a JVM or need the real Floe jar; a stand-in file plays the jar where a path
is all that matters.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import floe
import floe.spark
from floe import cli, inspect

ROWS_1: dict[str, list[Any]] = {
    "id": [1, 2, 3],
    "region": ["eu", "us", "eu"],
    "amount": [1.0, 2.0, 3.5],
}
ROWS_2: dict[str, list[Any]] = {"id": [4], "region": ["ap"], "amount": [4.0]}


@pytest.fixture
def jar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in jar file named by $FLOE_JAR."""
    path = tmp_path / "stand-in" / "floe-spark.jar"
    path.parent.mkdir()
    path.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip
    monkeypatch.setenv("FLOE_JAR", str(path))
    return path


# --- configuration ---------------------------------------------------------------------------


def _options(builder: Any) -> dict[str, str]:
    return dict(builder._options)


def test_configure_sets_jar_extensions_and_catalog(
    jar: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pyspark.sql import SparkSession

    monkeypatch.chdir(tmp_path)
    builder = SparkSession.builder.config("spark.sql.extensions", "com.example.Ext")
    options = _options(floe.configure(builder, "wh", conf={"spark.executor.cores": "1"}))

    assert options["spark.jars"] == str(jar)
    assert options["spark.sql.extensions"] == f"com.example.Ext,{floe.EXTENSIONS_CLASS}"
    assert options["spark.sql.catalog.floe"] == "io.floe.spark.FloeCatalog"
    assert options["spark.sql.catalog.floe.warehouse"] == f"file://{tmp_path.resolve()}/wh"
    assert options["spark.executor.cores"] == "1"
    assert "spark.sql.defaultCatalog" not in options
    assert "spark.sql.session.timeZone" not in options
    assert "spark.ui.enabled" not in options


def test_configure_appends_to_jars_and_extensions_given_in_conf(jar: Path) -> None:
    from pyspark.sql import SparkSession

    conf = {"spark.jars": "/x/other.jar", "spark.sql.extensions": "a.B"}
    options = _options(
        floe.configure(SparkSession.builder, "/w", catalog="lake", default=True, conf=conf)
    )

    assert options["spark.jars"] == f"/x/other.jar,{jar}"
    assert options["spark.sql.extensions"] == f"a.B,{floe.EXTENSIONS_CLASS}"
    assert options["spark.sql.catalog.lake"] == floe.CATALOG_CLASS
    assert options["spark.sql.catalog.lake.warehouse"] == "file:///w"
    assert options["spark.sql.defaultCatalog"] == "lake"


def test_configure_twice_does_not_repeat_floe(jar: Path) -> None:
    from pyspark.sql import SparkSession

    builder = floe.configure(floe.configure(SparkSession.builder, "/w"), "/w")
    assert _options(builder)["spark.sql.extensions"] == floe.EXTENSIONS_CLASS
    assert _options(builder)["spark.jars"] == str(jar)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("/data/wh/", "file:///data/wh"),
        ("file:/data/wh", "file:///data/wh"),
        ("file:///data/wh/", "file:///data/wh"),
        ("file://localhost/data/wh", "file:///data/wh"),
        ("s3a://bucket/wh/", "s3a://bucket/wh"),
        ("hdfs://nn:8020/wh", "hdfs://nn:8020/wh"),
        ("/data/with space", "file:///data/with space"),
    ],
)
def test_warehouse_uri(given: str, expected: str) -> None:
    assert floe.warehouse_uri(given) == expected


def test_warehouse_uri_makes_relative_and_home_paths_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert floe.warehouse_uri("a/b") == f"file://{tmp_path.resolve()}/a/b"
    assert floe.warehouse_uri("~/wh") == f"file://{tmp_path.resolve()}/home/wh"


@pytest.mark.parametrize("bad", ["", "file://otherhost/wh", "file:relative"])
def test_warehouse_uri_rejects(bad: str) -> None:
    with pytest.raises(floe.FloeError):
        floe.warehouse_uri(bad)


def test_invalid_catalog_name(jar: Path) -> None:
    with pytest.raises(floe.FloeError, match="Invalid catalog name"):
        floe.floe_conf("/w", catalog="no-dashes")


# --- the jar ---------------------------------------------------------------------------------


def test_missing_bundled_jar_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FLOE_JAR", raising=False)
    monkeypatch.setattr(floe.spark, "_BUNDLED_JAR", tmp_path / "jars" / "floe-spark.jar")
    with pytest.raises(floe.JarNotFoundError, match="gradle -q jar") as raised:
        floe.jar_path()
    assert isinstance(raised.value, floe.FloeError)
    with pytest.raises(floe.JarNotFoundError):
        floe.configure(_fresh_builder(), "/w")


def test_jar_named_by_env_must_exist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLOE_JAR", str(tmp_path / "nope.jar"))
    with pytest.raises(floe.JarNotFoundError, match="FLOE_JAR"):
        floe.jar_path()


def test_bundled_jar_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundled = tmp_path / "jars" / "floe-spark.jar"
    bundled.parent.mkdir()
    bundled.write_bytes(b"")
    monkeypatch.delenv("FLOE_JAR", raising=False)
    monkeypatch.setattr(floe.spark, "_BUNDLED_JAR", bundled)
    assert floe.jar_path() == str(bundled)


def _fresh_builder() -> Any:
    from pyspark.sql import SparkSession

    return SparkSession.builder


def test_import_is_light() -> None:
    code = (
        "import sys, floe, floe.inspect, floe.cli, floe.demo\n"
        "print([m for m in ('pyspark', 'pyarrow', 'fastavro', 'py4j') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# --- floe.inspect on a table written by pyiceberg ---------------------------------------------


@pytest.fixture
def table(tmp_path: Path) -> dict[str, Any]:
    """A pyiceberg table (identity-partitioned by region) with two appends, laid out like a Floe
    table: metadata/v1..v3.metadata.json hard links and version-hint.text."""
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import IdentityTransform
    from pyiceberg.types import DoubleType, LongType, NestedField, StringType

    catalog = SqlCatalog(
        "test", uri=f"sqlite:///{tmp_path}/catalog.db", warehouse=f"file://{tmp_path}/wh"
    )
    catalog.create_namespace("ns")
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "region", StringType(), required=False),
        NestedField(3, "amount", DoubleType(), required=False),
    )
    spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "region"))
    tbl = catalog.create_table("ns.events", schema=schema, partition_spec=spec)
    metadata_files = [tbl.metadata_location]
    for rows in (ROWS_1, ROWS_2):
        tbl.append(pa.table({**rows, "id": pa.array(rows["id"], pa.int64())}))
        metadata_files.append(tbl.metadata_location)

    location = tbl.location()
    metadata_dir = inspect._paths.local_path(location) / "metadata"
    for version, metadata_file in enumerate(metadata_files, start=1):
        os.link(
            inspect._paths.local_path(metadata_file), metadata_dir / f"v{version}.metadata.json"
        )
    (metadata_dir / "version-hint.text").write_text("3")
    return {
        "location": location,
        "path": inspect._paths.local_path(location),
        "snapshots": [s.snapshot_id for s in tbl.snapshots()],
    }


def test_load_table_metadata_accepts_uri_and_path_forms(table: dict[str, Any]) -> None:
    path = table["path"]
    for location in (table["location"], f"file:{path}", f"file://{path}", str(path)):
        metadata = inspect.load_table_metadata(location)
        assert metadata["current-snapshot-id"] == table["snapshots"][-1]
        assert inspect.metadata_file(location) == path / "metadata" / "v3.metadata.json"


def test_stale_hint_is_followed_to_the_newest_version(table: dict[str, Any]) -> None:
    (table["path"] / "metadata" / "version-hint.text").write_text("1\n")
    assert inspect.metadata_file(str(table["path"])).name == "v3.metadata.json"


def test_missing_hint_falls_back_to_the_highest_version(table: dict[str, Any]) -> None:
    (table["path"] / "metadata" / "version-hint.text").unlink()
    (table["path"] / "metadata" / "v3.metadata.json").unlink()
    metadata = inspect.load_table_metadata(str(table["path"]))
    assert metadata["current-snapshot-id"] == table["snapshots"][0]


def test_no_table_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(floe.NoSuchTableError, match="metadata"):
        inspect.load_table_metadata(str(tmp_path))
    (tmp_path / "metadata").mkdir()
    with pytest.raises(floe.NoSuchTableError, match=r"v<N>\.metadata\.json"):
        inspect.load_table_metadata(str(tmp_path))
    with pytest.raises(floe.FloeError, match="local paths"):
        inspect.load_table_metadata("s3://bucket/t")


def test_read_manifest_list_and_manifest(table: dict[str, Any]) -> None:
    metadata = inspect.load_table_metadata(table["location"])
    snapshot = inspect.find_snapshot(metadata)
    assert snapshot is not None
    manifests = inspect.read_manifest_list(snapshot["manifest-list"])
    first, second = table["snapshots"]
    assert {m["added_snapshot_id"]: m["added_files_count"] for m in manifests} == {
        first: 2,
        second: 1,
    }

    latest = next(m for m in manifests if m["added_snapshot_id"] == snapshot["snapshot-id"])
    entries = inspect.read_manifest(latest["manifest_path"], latest)
    assert len(entries) == 1
    entry = entries[0]
    assert entry["status"] == 1
    assert entry["snapshot_id"] == snapshot["snapshot-id"]
    assert entry["sequence_number"] == latest["sequence_number"]
    data_file = entry["data_file"]
    assert data_file["partition"] == {"region": "ap"}
    assert data_file["record_count"] == 1
    assert data_file["lower_bounds"][1] == struct.pack("<q", 4)  # id 4, little-endian long
    assert data_file["value_counts"] == {1: 1, 2: 1, 3: 1}


def test_table_files_of_each_snapshot(table: dict[str, Any]) -> None:
    first, second = table["snapshots"]
    files = inspect.table_files(table["location"])
    assert sorted(f["partition"]["region"] for f in files) == ["ap", "eu", "us"]
    assert sum(f["record_count"] for f in files) == 4
    assert {f["content"] for f in files} == {0}
    assert {f["snapshot_id"] for f in files} == {first, second}
    assert len(inspect.table_files(table["location"], first)) == 2
    with pytest.raises(floe.FloeError, match="Cannot find snapshot 42"):
        inspect.table_files(table["location"], 42)


def test_read_table(table: dict[str, Any]) -> None:
    rows = inspect.read_table(table["location"]).sort_by("id").to_pydict()
    assert rows == {key: ROWS_1[key] + ROWS_2[key] for key in ROWS_1}
    first = inspect.read_table(table["location"], table["snapshots"][0]).sort_by("id")
    assert first.to_pydict() == ROWS_1
    assert first.schema.field("id").metadata == {b"PARQUET:field_id": b"1"}


def test_read_table_without_snapshots_is_empty(table: dict[str, Any]) -> None:
    (table["path"] / "metadata" / "version-hint.text").write_text("1")
    for name in ("v2.metadata.json", "v3.metadata.json"):
        (table["path"] / "metadata" / name).unlink()
    empty = inspect.read_table(table["location"])
    assert empty.num_rows == 0
    assert empty.schema.names == ["id", "region", "amount"]
    assert inspect.table_files(table["location"]) == []


def test_read_table_names_an_invalid_delete_file(
    table: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A data file listed as a position delete file has no file_path/pos columns: the error says
    which file is wrong rather than returning rows with or without the deletes."""
    files = inspect.table_files(table["location"])
    with_delete = [*files, {**files[0], "content": 1, "referenced_data_file": None}]
    monkeypatch.setattr(inspect.data, "table_files", lambda *_: with_delete)
    with pytest.raises(floe.FloeError, match=r"Invalid position delete file .*no file_path"):
        inspect.read_table(table["location"])


# --- Puffin ----------------------------------------------------------------------------------


def _puffin(blobs: list[tuple[dict[str, Any], bytes]], compress_footer: bool) -> bytes:
    """Lay out a Puffin file by the spec: magic, blobs, magic, payload, size, flags, magic."""
    import lz4.frame

    out = bytearray(b"PFA1")
    metadata = []
    for meta, payload in blobs:
        metadata.append({**meta, "offset": len(out), "length": len(payload)})
        out += payload
    footer = json.dumps({"blobs": metadata, "properties": {"created-by": "test"}}).encode()
    if compress_footer:
        footer = lz4.frame.compress(footer)
    flags = bytes([1 if compress_footer else 0, 0, 0, 0])
    return bytes(out + b"PFA1" + footer + struct.pack("<i", len(footer)) + flags + b"PFA1")


@pytest.mark.parametrize("compress_footer", [False, True])
def test_read_puffin_and_theta_sketch(tmp_path: Path, compress_footer: bool) -> None:
    import zstandard
    from datasketches import update_theta_sketch

    sketch = update_theta_sketch()
    for i in range(1000):
        sketch.update(i)
    serialized = bytes(sketch.compact().serialize())
    theta = {"type": "apache-datasketches-theta-v1", "fields": [1], "snapshot-id": 7,
             "sequence-number": 1, "compression-codec": "zstd"}  # fmt: skip
    raw = {"type": "floe-test", "fields": [2], "snapshot-id": 7, "sequence-number": 1}
    path = tmp_path / "stats.puffin"
    path.write_bytes(
        _puffin(
            [(theta, zstandard.ZstdCompressor().compress(serialized)), (raw, b"plain")],
            compress_footer,
        )
    )

    footer = inspect.read_puffin(f"file://{path}")
    assert [b["type"] for b in footer["blobs"]] == ["apache-datasketches-theta-v1", "floe-test"]
    assert footer["properties"] == {"created-by": "test"}
    assert inspect.read_puffin_blob(str(path), footer["blobs"][1]) == b"plain"
    blob = inspect.read_puffin_blob(str(path), footer["blobs"][0])
    assert blob == serialized
    assert inspect.theta_estimate(blob) == 1000.0


def test_read_puffin_rejects_bad_magic(tmp_path: Path) -> None:
    path = tmp_path / "bad.puffin"
    path.write_bytes(b"PFA0" + _puffin([], compress_footer=False)[4:])
    with pytest.raises(floe.FloeError, match="magic"):
        inspect.read_puffin(str(path))


# --- command line ----------------------------------------------------------------------------


def test_cli_inspect_prints_json(table: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["inspect", table["location"], "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["metadata-file"].endswith("v3.metadata.json")
    assert [s["snapshot-id"] for s in printed["snapshots"]] == table["snapshots"]
    assert len(printed["files"]) == 3
    assert printed["partition-spec"]["fields"][0]["name"] == "region"
    ap = next(f for f in printed["files"] if f["partition"]["region"] == "ap")
    assert ap["lower_bounds"]["1"] == struct.pack("<q", 4).hex()


def test_cli_inspect_prints_a_readable_summary_by_default(
    table: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["inspect", table["location"]]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0] == f"Table            {table['location']}"
    assert "Format version   2" in lines
    assert any(line.split() == ["1", "id", "long", "optional"] for line in lines), text
    assert "Partition spec   id 0: region = identity(region)" in lines
    assert "Sort order       id 0: unsorted" in lines
    newest = table["snapshots"][-1]
    assert any(line.startswith(f"Current snapshot {newest} [branch main]  ") and "append" in line
               for line in lines), text  # fmt: skip
    assert "Recent snapshots 2 of 2, newest first" in lines
    assert next(i for i, line in enumerate(lines) if line.startswith(f"  {newest}")) < next(
        i for i, line in enumerate(lines) if line.startswith(f"  {table['snapshots'][0]}")
    )
    assert any(line.startswith("Data files       3 files, 4 rows,") and line.endswith(
        "in 3 partitions") for line in lines), text  # fmt: skip
    eu = next(line for line in lines if line.strip().startswith("region=eu"))
    assert eu.split()[1:3] == ["1", "2"], eu  # one file of two rows
    assert "Delete files" in lines
    assert any(line.split()[:4] == ["position", "delete", "files", "0"] for line in lines), text
    assert "Statistics files 0 for this snapshot, 0 for other snapshots" in lines
    assert "Indexes          0" in lines
    assert not text.lstrip().startswith("{")
    # an older snapshot: its own files, and it is named as the one shown
    assert cli.main(["inspect", table["location"], "--snapshot", str(table["snapshots"][0])]) == 0
    older = capsys.readouterr().out
    assert f"Snapshot shown   {table['snapshots'][0]}" in older
    assert "Data files       2 files, 3 rows," in older


def test_cli_inspect_missing_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["inspect", str(tmp_path)]) == 1
    assert "Cannot find table metadata" in capsys.readouterr().err


def test_cli_sql_shows_floe_progress_and_keeps_the_users_java_options(jar: Path) -> None:
    option = f"-Dlog4j2.configurationFile={cli.SQL_LOGGING.as_uri()}"
    assert cli.SQL_LOGGING.is_file()
    sql = cli.spark_sql_command("/w", "floe", ["-e", "SELECT 1"])
    assert sql[sql.index("--driver-java-options") + 1] == option
    given = cli.spark_sql_command("/w", "floe", ["--driver-java-options", "-Xss4m", "-e", "x"])
    assert given.count("--driver-java-options") == 1
    assert given[given.index("--driver-java-options") + 1] == f"{option} -Xss4m"
    conf = cli.spark_sql_command("/w", "floe", ["--conf", "spark.driver.extraJavaOptions=-Da=1"])
    assert "--driver-java-options" not in conf
    assert conf[-1] == f"spark.driver.extraJavaOptions={option} -Da=1"
    # a log4j2 configuration of the user's own wins
    mine = ["--driver-java-options", "-Dlog4j2.configurationFile=/my.properties"]
    assert cli.spark_sql_command("/w", "floe", mine)[-2:] == mine


def test_cli_thriftserver_puts_floe_on_the_driver_class_path(jar: Path) -> None:
    """Floe classes must come from the application class loader, not from a JDBC session's
    (closed with the session): test_jdbc_sessions.py shows the failure without it."""

    def class_path(command: list[str]) -> list[str]:
        assert command.count("--driver-class-path") == 1, command
        return command[command.index("--driver-class-path") + 1].split(os.pathsep)

    plain = cli.thriftserver_command("/w", "floe", 1, "localhost", [])
    assert class_path(plain) == [str(jar)]
    given = cli.thriftserver_command("/w", "floe", 1, "localhost", ["--driver-class-path", "/x"])
    assert class_path(given) == [str(jar), "/x"]
    conf = cli.thriftserver_command(
        "/w", "floe", 1, "localhost", ["--conf", "spark.driver.extraClassPath=/y"]
    )
    assert "--driver-class-path" not in conf
    assert f"spark.driver.extraClassPath={jar}{os.pathsep}/y" in conf


def test_cli_thriftserver_driver_class_path_in_every_form_spark_submit_reads(jar: Path) -> None:
    """spark-submit takes --driver-class-path over spark.driver.extraClassPath, and the last of
    several: the jar goes first in each, whatever the form; entries with spaces are kept whole,
    and an empty value gets no empty entry (which Java reads as the working directory)."""

    def server(*passthrough: str) -> list[str]:
        return cli.thriftserver_command("/w", "floe", 1, "localhost", list(passthrough))

    spaced = f"/my jars/a é.jar{os.pathsep}/b.jar"
    both = server("--conf", "spark.driver.extraClassPath=/c", "--driver-class-path", spaced)
    assert both.count("--driver-class-path") == 1
    assert both[both.index("--driver-class-path") + 1] == f"{jar}{os.pathsep}{spaced}"
    assert f"spark.driver.extraClassPath={jar}{os.pathsep}/c" in both
    twice = server("--driver-class-path", "/a", "--driver-class-path", "/b")
    assert [twice[i + 1] for i, a in enumerate(twice) if a == "--driver-class-path"] == [
        f"{jar}{os.pathsep}/a", f"{jar}{os.pathsep}/b"
    ]  # fmt: skip
    assert f"--driver-class-path={jar}{os.pathsep}/d" in server("--driver-class-path=/d")
    assert f"--conf=spark.driver.extraClassPath={jar}{os.pathsep}/e" in server(
        "--conf=spark.driver.extraClassPath=/e"
    )
    short = server("-c", "spark.driver.extraClassPath=/f")
    assert f"spark.driver.extraClassPath={jar}{os.pathsep}/f" in short
    assert "--driver-class-path" not in short
    empty = server("--driver-class-path", "")
    assert empty[empty.index("--driver-class-path") + 1] == str(jar)


def test_cli_sql_leaves_a_users_log4j_configuration_alone(
    jar: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log4j2 configuration of the user's own (log4j2.properties in SPARK_CONF_DIR, the
    environment, either property name, in any form of the driver's options) wins over Floe's."""
    monkeypatch.delenv("SPARK_CONF_DIR", raising=False)
    for name in ("LOG4J_CONFIGURATION_FILE", "LOG4J2_CONFIGURATION_FILE"):
        monkeypatch.delenv(name, raising=False)
    option = f"-Dlog4j2.configurationFile={cli.SQL_LOGGING.as_uri()}"

    def sql(*passthrough: str) -> list[str]:
        return cli.spark_sql_command("/w", "floe", list(passthrough))

    assert option in sql("-e", "SELECT 1")
    legacy = ["--driver-java-options=-Dlog4j.configurationFile=/mine.xml", "-e", "x"]
    assert sql(*legacy)[-3:] == legacy
    conf = ["-c", "spark.driver.extraJavaOptions=-Dlog4j2.configurationFile=/mine.xml"]
    assert sql(*conf)[-2:] == conf and option not in sql(*conf)
    assert f"--driver-java-options={option} -Xss4m" in sql("--driver-java-options=-Xss4m")
    monkeypatch.setenv("LOG4J_CONFIGURATION_FILE", "/mine.properties")
    assert option not in sql("-e", "SELECT 1")
    monkeypatch.delenv("LOG4J_CONFIGURATION_FILE")
    conf_dir = tmp_path / "spark conf é"
    conf_dir.mkdir()
    monkeypatch.setenv("SPARK_CONF_DIR", str(conf_dir))
    assert option in sql("-e", "SELECT 1")
    (conf_dir / "log4j2.properties").write_text("rootLogger.level = info\n")
    assert option not in sql("-e", "SELECT 1")


def test_cli_passes_unknown_arguments_through() -> None:
    args, rest = cli._parser().parse_known_args(
        ["sql", "--warehouse", "w", "-e", "SELECT 1", "--conf", "spark.x=y"]
    )
    assert (args.command, args.warehouse, args.catalog) == ("sql", "w", "floe")
    assert rest == ["-e", "SELECT 1", "--conf", "spark.x=y"]


def test_cli_commands(jar: Path) -> None:
    sql = cli.spark_sql_command("/w", "floe", ["-e", "SELECT 1"])
    assert sql[1].endswith("bin/spark-sql")
    assert sql[-2:] == ["-e", "SELECT 1"]
    assert f"spark.jars={jar}" in sql
    assert "spark.sql.defaultCatalog=floe" in sql
    assert "spark.sql.catalog.floe.warehouse=file:///w" in sql

    server = cli.thriftserver_command("/w", "floe", 10001, "localhost", [])
    assert server[server.index("--class") + 1] == cli.THRIFT_SERVER_CLASS
    assert "hive.server2.thrift.port=10001" in server
    assert "hive.server2.thrift.bind.host=localhost" in server
    assert not any(arg.startswith("spark.sql.defaultCatalog") for arg in server)


def test_one_version_for_the_package_and_the_jar() -> None:
    """floe.__version__ is the only place the version is set: the jar carries the same one."""
    import zipfile

    with zipfile.ZipFile(floe.jar_path()) as jar:
        props = jar.read("io/floe/format/floe-version.properties").decode()
    assert props.strip() == f"version={floe.__version__}"
