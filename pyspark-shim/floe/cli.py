"""The ``floe`` command: demo, sql, thriftserver, connect, inspect, indexes."""

from __future__ import annotations

import argparse
import datetime
import decimal
import itertools
import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from floe.errors import FloeError
from floe.spark import floe_conf

THRIFT_SERVER_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"
CONNECT_SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
DEFAULT_WAREHOUSE = "warehouse"
# The command-line tools use Floe as their only catalog: no Hive metastore (no metastore_db/).
_CLI_CONF = {"spark.sql.catalogImplementation": "in-memory"}


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args, passthrough = parser.parse_known_args(argv)
    if passthrough and args.command not in ("sql", "thriftserver", "connect"):
        parser.error(f"unrecognized arguments: {' '.join(passthrough)}")
    try:
        if args.command == "demo":
            from floe.demo import run_demo

            run_demo(args.warehouse, catalog=args.catalog)
            return 0
        if args.command == "sql":
            _exec_spark(spark_sql_command(args.warehouse, args.catalog, passthrough))
        if args.command == "thriftserver":
            _exec_spark(_server_command(thriftserver_command, args, passthrough))
        if args.command == "connect":
            command = _server_command(connect_command, args, passthrough)
            return run_in_foreground(command, f"sc://{_url_host(args.host)}:{args.port}")
        if args.command == "inspect":
            if args.json:
                print(
                    json.dumps(inspect_summary(args.path, args.snapshot), indent=2, default=_json)
                )
            else:
                from floe.inspect.report import table_report

                print(table_report(args.path, args.snapshot))
            return 0
        if args.command == "indexes":
            summary = indexes_summary(args.path, args.snapshot, args.index, args.value, args.prefix)
            print(json.dumps(summary, indent=2, default=_json))
            return 0
    except FloeError as e:
        print(f"floe: {e}", file=sys.stderr)
        return 1
    parser.print_help()
    return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="floe", description=__doc__, allow_abbrev=False)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = commands.add_parser(
        "demo", help="create, fill and query a demo table", allow_abbrev=False
    )
    _add_catalog_options(demo)

    sql = commands.add_parser(
        "sql",
        help="Spark's spark-sql shell with Floe as the default catalog; other arguments go to it",
        allow_abbrev=False,
    )
    _add_catalog_options(sql)

    thrift = commands.add_parser(
        "thriftserver",
        help="Spark's Thrift JDBC/ODBC server (foreground) with the Floe catalog; "
        "other arguments go to spark-submit",
        allow_abbrev=False,
    )
    _add_catalog_options(thrift)
    thrift.add_argument("--port", type=int, default=10000, help="JDBC port (default 10000)")
    thrift.add_argument(
        "--host", default="localhost", help="interface to listen on (default localhost)"
    )
    thrift.add_argument(
        "--allow-unauthenticated",
        action="store_true",
        help="listen on a non-loopback --host without authentication (trusted networks only)",
    )

    connect = commands.add_parser(
        "connect",
        help="a Spark Connect server (foreground) with Floe as the default catalog; "
        "other arguments (--conf k=v, --master ...) go to spark-submit",
        allow_abbrev=False,
    )
    _add_catalog_options(connect)
    connect.add_argument(
        "--port", type=int, default=15002, help="Spark Connect port (default 15002)"
    )
    connect.add_argument(
        "--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)"
    )
    connect.add_argument(
        "--allow-unauthenticated",
        action="store_true",
        help="listen on a non-loopback --host without an authentication token "
        "(trusted networks only)",
    )

    inspect = commands.add_parser(
        "inspect",
        help="print a readable summary of a table: schema, partitioning, snapshots, files per "
        "partition, delete files, statistics and indexes (--json: metadata, snapshots and live "
        "files as JSON, bytes as hex)",
        allow_abbrev=False,
    )
    inspect.add_argument("path", help="table location (path or file: URI)")
    inspect.add_argument("--snapshot", type=int, default=None, help="snapshot id (default current)")
    inspect.add_argument(
        "--json", action="store_true", help="print the machine form (JSON) instead of the summary"
    )

    indexes = commands.add_parser(
        "indexes",
        help="print a table's secondary indexes as JSON; with --index and --value or --prefix, "
        "the data files a lookup through that index must read",
        allow_abbrev=False,
    )
    indexes.add_argument("path", help="table location (path or file: URI)")
    indexes.add_argument("--snapshot", type=int, default=None, help="snapshot id (default current)")
    indexes.add_argument("--index", help="the index to look values up in")
    indexes.add_argument(
        "--value",
        action="append",
        help="a value of the indexed column (repeat for IN): integer, ISO date or datetime, "
        "decimal, true/false, hex for binary",
    )
    indexes.add_argument("--prefix", help="a string prefix (LIKE 'prefix%%')")
    return parser


def _add_catalog_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--warehouse", default=DEFAULT_WAREHOUSE, help="warehouse path or URI (default ./warehouse)"
    )
    parser.add_argument("--catalog", default="floe", help="catalog name (default floe)")


def spark_home() -> Path:
    """Return the Spark distribution inside the installed pyspark package."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def _conf_args(warehouse: str, catalog: str, default: bool) -> list[str]:
    conf = {**_CLI_CONF, **floe_conf(warehouse, catalog=catalog, default=default)}
    args: list[str] = []
    for key, value in conf.items():
        args += ["--conf", f"{key}={value}"]
    return args


def spark_sql_command(warehouse: str, catalog: str, passthrough: Sequence[str]) -> list[str]:
    """Return the spark-sql command line with Floe configured as the default catalog, and Floe's
    progress lines (logger ``io.floe.progress``) shown on stderr."""
    script = spark_home() / "bin" / "spark-sql"
    return [
        "bash", str(script), *_conf_args(warehouse, catalog, default=True),
        *_with_progress_logging(passthrough),
    ]  # fmt: skip


#: The log4j2 configuration of `floe sql`: Spark's shell level, and Floe's progress at INFO.
SQL_LOGGING = Path(__file__).with_name("log4j2-sql.properties")
_DRIVER_OPTIONS_CONF = "spark.driver.extraJavaOptions"
#: The names under which log4j2 reads a configuration file of the user's (system property, or
#: environment variable).
_LOG4J_CONFIGURATION = ("log4j2.configurationFile", "log4j.configurationFile")
_LOG4J_CONFIGURATION_ENV = ("LOG4J_CONFIGURATION_FILE", "LOG4J2_CONFIGURATION_FILE")
#: The files log4j2 finds on the class path, where Spark's launcher puts SPARK_CONF_DIR.
_LOG4J_FILES = ("log4j2-test.properties", "log4j2-test.xml", "log4j2.properties", "log4j2.xml",
                "log4j2.yaml", "log4j2.yml", "log4j2.json", "log4j2.jsn")  # fmt: skip


def _user_log4j_configuration(passthrough: Sequence[str]) -> bool:
    """Whether the user configured log4j2 themselves: a configuration file named in the driver's
    Java options or the environment, or a log4j2 file in Spark's configuration directory."""
    if any(any(name in arg for name in _LOG4J_CONFIGURATION) for arg in passthrough):
        return True
    if any(os.environ.get(name) for name in _LOG4J_CONFIGURATION_ENV):
        return True
    conf_dir = os.environ.get("SPARK_CONF_DIR") or str(spark_home() / "conf")
    return any((Path(conf_dir) / name).is_file() for name in _LOG4J_FILES)


def _with_progress_logging(passthrough: Sequence[str]) -> list[str]:
    """``passthrough`` with ``-Dlog4j2.configurationFile`` naming SQL_LOGGING added to the driver's
    Java options (the user's own options kept), unless the user configured log4j2 themselves."""
    if _user_log4j_configuration(passthrough):
        return list(passthrough)
    option = f"-Dlog4j2.configurationFile={SQL_LOGGING.as_uri()}"
    return _prepend_driver_setting(
        passthrough, "--driver-java-options", _DRIVER_OPTIONS_CONF, option, " "
    )


def _prepend_driver_setting(
    passthrough: Sequence[str], flag: str, conf: str, value: str, separator: str
) -> list[str]:
    """``passthrough`` with ``value`` put first in every place spark-submit reads the driver
    setting from (``flag V``, ``flag=V``, ``--conf conf=V``, ``--conf=conf=V``, ``-c conf=V``):
    the flag wins over the conf, and the last flag over the first, so each gets it. Without any,
    ``flag value`` is added first."""
    args = list(passthrough)
    found = False

    def merged(given: str) -> str:
        return f"{value}{separator}{given}" if given else value

    i = 0
    while i < len(args):
        arg = args[i]
        if arg == flag and i + 1 < len(args):
            args[i + 1] = merged(args[i + 1])
            found, i = True, i + 2
            continue
        if arg.startswith(f"{flag}="):
            args[i] = f"{flag}={merged(arg[len(flag) + 1 :])}"
            found = True
        elif arg in ("--conf", "-c") and i + 1 < len(args):
            if args[i + 1].startswith(f"{conf}="):
                args[i + 1] = f"{conf}={merged(args[i + 1][len(conf) + 1 :])}"
                found = True
            i += 2
            continue
        elif arg.startswith(f"--conf={conf}="):
            args[i] = f"--conf={conf}={merged(arg[len(conf) + 8 :])}"
            found = True
        i += 1
    return args if found else [flag, value, *args]


#: hive.server2.authentication values that check no password.
_NO_AUTHENTICATION = ("NONE", "NOSASL")


def _server_command(
    build: Callable[..., list[str]], args: argparse.Namespace, passthrough: Sequence[str]
) -> list[str]:
    """``build`` (thriftserver_command or connect_command) applied to the parsed server options."""
    return build(
        args.warehouse,
        args.catalog,
        args.port,
        args.host,
        passthrough,
        allow_unauthenticated=args.allow_unauthenticated,
    )


def thriftserver_command(
    warehouse: str,
    catalog: str,
    port: int,
    host: str,
    passthrough: Sequence[str],
    allow_unauthenticated: bool = False,
) -> list[str]:
    """Return the command line that runs the Thrift JDBC server in the foreground.

    Spark's default catalog stays the session catalog: on connect, the server runs
    ``USE <database of the JDBC URL>`` (``default`` when none), which must exist in that catalog.

    A ``host`` other than a loopback one needs authentication (``--hiveconf
    hive.server2.authentication=LDAP|KERBEROS|CUSTOM|PAM``) or ``allow_unauthenticated``:
    otherwise anyone who can reach the port can read and drop every table of the warehouse.
    """
    authentication = _hiveconf(passthrough, "hive.server2.authentication") or "NONE"
    # Hive's server prefers this variable to hive.server2.thrift.bind.host
    listen = os.environ.get("HIVE_SERVER2_THRIFT_BIND_HOST") or host
    if (
        authentication.upper() in _NO_AUTHENTICATION
        and not allow_unauthenticated
        and not is_loopback(listen)
    ):
        raise FloeError(
            f"Refusing to start the Thrift server on {listen!r} without authentication: "
            f"that interface is not loopback (hive.server2.authentication={authentication}), "
            "so anyone who reaches the port could read and drop every table. Configure "
            "authentication (--hiveconf hive.server2.authentication=LDAP, KERBEROS, CUSTOM or "
            "PAM, with its settings), listen on localhost, or pass --allow-unauthenticated "
            "on a trusted network"
        )
    script = spark_home() / "bin" / "spark-submit"
    return [
        "bash",
        str(script),
        "--class",
        THRIFT_SERVER_CLASS,
        "--name",
        "Floe Thrift JDBC/ODBC server",
        *_conf_args(warehouse, catalog, default=False),
        *_with_floe_on_driver_class_path(passthrough),
        "--hiveconf",
        f"hive.server2.thrift.port={port}",
        "--hiveconf",
        f"hive.server2.thrift.bind.host={host}",
    ]


_DRIVER_CLASS_PATH_CONF = "spark.driver.extraClassPath"


def _with_floe_on_driver_class_path(passthrough: Sequence[str]) -> list[str]:
    """``passthrough`` with the Floe jar first on the driver's class path (the user's kept).

    In the Thrift server, a statement a client runs synchronously (PyHive does) loads classes
    through its JDBC session's class loader, which Spark closes with the session: Floe classes
    first loaded there could no longer be loaded by any later statement (NoClassDefFoundError).
    On the driver's class path they are defined by the application class loader, once for all
    sessions (docs/jdbc.md, 'Class loading')."""
    from floe.spark import jar_path

    return _prepend_driver_setting(
        passthrough, "--driver-class-path", _DRIVER_CLASS_PATH_CONF, str(jar_path()), os.pathsep
    )


def _hiveconf(passthrough: Sequence[str], key: str) -> str | None:
    """The last value of ``key`` among the ``--hiveconf key=value`` (or ``--conf
    spark.hadoop.key=value``) options of ``passthrough``."""
    value = None
    for option, setting in itertools.pairwise(passthrough):
        name, _, given = setting.partition("=")
        if (option == "--hiveconf" and name.strip() == key) or (
            option == "--conf" and name.strip() == f"spark.hadoop.{key}"
        ):
            value = given.strip()
    return value


#: Spark Connect's settings that ``floe connect`` derives from its own options.
_CONNECT_ADDRESS = "spark.connect.grpc.binding.address"
_CONNECT_PORT = "spark.connect.grpc.binding.port"
_CONNECT_TOKEN = "spark.connect.authenticate.token"
_CONNECT_TOKEN_ENV = "SPARK_CONNECT_AUTHENTICATE_TOKEN"


def connect_command(
    warehouse: str,
    catalog: str,
    port: int,
    host: str,
    passthrough: Sequence[str],
    allow_unauthenticated: bool = False,
) -> list[str]:
    """Return the command line that runs a Spark Connect server with Floe configured.

    Floe is the default catalog (as in ``floe sql``): a client's ``spark.sql("SELECT * FROM
    db.t")`` reads ``floe.db.t``. The server listens on ``host`` only.

    Spark Connect checks no credentials unless a bearer token is set (``--conf
    spark.connect.authenticate.token=...`` or ``$SPARK_CONNECT_AUTHENTICATE_TOKEN``). A ``host``
    other than a loopback one needs that token or ``allow_unauthenticated``: otherwise anyone who
    can reach the port can read and drop every table of the warehouse.
    """
    for key in (_CONNECT_ADDRESS, _CONNECT_PORT):
        if _spark_conf(passthrough, key) is not None:
            raise FloeError(
                f"Cannot set {key} for floe connect: it is set from --host and --port; "
                "use those options instead"
            )
    token = _spark_conf(passthrough, _CONNECT_TOKEN) or os.environ.get(_CONNECT_TOKEN_ENV)
    if not token and not allow_unauthenticated and not is_loopback(host):
        raise FloeError(
            f"Refusing to start the Spark Connect server on {host!r} without authentication: "
            "that interface is not loopback and Spark Connect checks no credentials by "
            "default, so anyone who reaches the port could read and drop every table. Set a "
            f"token (--conf {_CONNECT_TOKEN}=... or ${_CONNECT_TOKEN_ENV}; clients pass it as "
            "sc://host:port/;token=... and, off localhost, need TLS in front of the server), "
            "listen on 127.0.0.1, or pass --allow-unauthenticated on a trusted network"
        )
    script = spark_home() / "bin" / "spark-submit"
    return [
        "bash",
        str(script),
        "--class",
        CONNECT_SERVER_CLASS,
        "--name",
        "Floe Spark Connect server",
        *_conf_args(warehouse, catalog, default=True),
        *passthrough,
        "--conf",
        f"{_CONNECT_ADDRESS}={host}",
        "--conf",
        f"{_CONNECT_PORT}={port}",
    ]


def _spark_conf(passthrough: Sequence[str], key: str) -> str | None:
    """The last value of ``key`` among the ``--conf key=value`` options of ``passthrough``."""
    value = None
    for option, setting in itertools.pairwise(passthrough):
        name, _, given = setting.partition("=")
        if option in ("--conf", "-c") and name.strip() == key:
            value = given.strip()
    return value


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


#: Seconds a server has to stop after SIGTERM before it is killed.
STOP_SECONDS = 60


def run_in_foreground(command: list[str], url: str) -> int:
    """Run a server ``command`` until it exits or this process gets SIGINT (Ctrl-C) or SIGTERM.

    Prints ``url`` once the server accepts connections. On SIGINT or SIGTERM the server gets
    SIGTERM (Spark stops its session and the server in its shutdown hooks); after it has stopped
    the return value is 0. Otherwise the server's own exit code is returned.
    """
    env = dict(os.environ, SPARK_HOME=str(spark_home()))
    sys.stdout.flush()
    server = subprocess.Popen(command, env=env)
    stopping: list[int] = []

    def stop(signum: int, frame: object) -> None:
        stopping.append(signum)
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        _announce_when_listening(server, url, stopping)
        while True:
            try:
                code = server.wait(timeout=STOP_SECONDS if stopping else None)
                break
            except subprocess.TimeoutExpired:
                print(
                    f"floe: server still running {STOP_SECONDS}s after SIGTERM; killing it",
                    file=sys.stderr,
                )
                server.kill()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if stopping:
        print("floe: server stopped", file=sys.stderr)
        return 0
    return code


def _announce_when_listening(
    server: subprocess.Popen[bytes], url: str, stopping: list[int]
) -> None:
    import socket
    import time
    from urllib.parse import urlsplit

    address = urlsplit(url.replace("sc://", "http://", 1))
    host = address.hostname or "localhost"
    host = "localhost" if host in ("0.0.0.0", "::") else host
    while server.poll() is None and not stopping:
        try:
            with socket.create_connection((host, address.port or 0), timeout=1):
                print(f"floe: Spark Connect server listening on {url}", file=sys.stderr)
                return
        except OSError:
            time.sleep(0.5)


def is_loopback(host: str) -> bool:
    """True when every address ``host`` names is a loopback one (127.0.0.0/8, ::1)."""
    import ipaddress
    import socket

    if not host.strip():
        return False  # Hive listens on every interface when no host is set
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    addresses = {str(info[4][0]).split("%")[0] for info in infos}
    return bool(addresses) and all(ipaddress.ip_address(a).is_loopback for a in addresses)


def _exec_spark(command: list[str]) -> NoReturn:
    env = dict(os.environ, SPARK_HOME=str(spark_home()))
    sys.stdout.flush()
    os.execvpe(command[0], command, env)


def inspect_summary(path: str, snapshot_id: int | None = None) -> dict[str, Any]:
    """Return what ``floe inspect`` prints: metadata summary, snapshots and live files."""
    from floe import inspect

    metadata = inspect.load_table_metadata(path)
    snapshot = inspect.find_snapshot(metadata, snapshot_id)
    schemas = {s.get("schema-id"): s for s in metadata.get("schemas", [])}
    specs = {s.get("spec-id"): s for s in metadata.get("partition-specs", [])}
    return {
        "metadata-file": str(inspect.metadata_file(path)),
        "format-version": metadata.get("format-version"),
        "table-uuid": metadata.get("table-uuid"),
        "location": metadata.get("location"),
        "current-snapshot-id": metadata.get("current-snapshot-id"),
        "schema": schemas.get(metadata.get("current-schema-id"), metadata.get("schema")),
        "partition-spec": specs.get(metadata.get("default-spec-id")),
        "properties": metadata.get("properties", {}),
        "snapshots": metadata.get("snapshots", []),
        "files-of-snapshot": snapshot["snapshot-id"] if snapshot else None,
        "files": inspect.table_files(path, snapshot["snapshot-id"]) if snapshot else [],
    }


def indexes_summary(
    path: str,
    snapshot_id: int | None = None,
    index: str | None = None,
    values: Sequence[str] | None = None,
    prefix: str | None = None,
) -> Any:
    """Return what ``floe indexes`` prints: the indexes, or one lookup's answer."""
    import dataclasses

    from floe import inspect

    if index is None:
        if values or prefix is not None:
            raise FloeError("--value and --prefix need --index (the index to look them up in)")
        return [
            {**dataclasses.asdict(i), "uncovered_files": i.uncovered_files, "stale": i.stale}
            for i in inspect.table_indexes(path, snapshot_id)
        ]
    if bool(values) == (prefix is not None):
        raise FloeError(f"Give --value (one or more) or --prefix to look up in index {index}")
    if prefix is not None:
        answer = inspect.files_with_prefix(path, index, prefix, snapshot_id)
    else:
        parsed = [inspect.parse_value(path, index, v) for v in values or ()]
        answer = inspect.files_for_values(path, index, parsed, snapshot_id)
    return dataclasses.asdict(answer)


def _json(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    raise TypeError(f"Cannot write {type(value).__name__} as JSON")


if __name__ == "__main__":
    sys.exit(main())
