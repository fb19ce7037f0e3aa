"""R6 (goal G8): the Thrift JDBC server's binding and authentication rules, secret-like table
properties masked, and remove_orphan_files refusing a location outside the table.

One `floe thriftserver` is started with its default --host and Hive's CUSTOM authentication (a
test-only PasswdAuthenticationProvider): it must listen on loopback only, refuse a wrong password
and, once logged in, show secret-like properties masked over JDBC. The launcher's own rule (no
non-loopback bind without authentication) is checked without starting a server. See
docs/reliability.md, R6.
"""

from __future__ import annotations

import ipaddress
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import reliability_figures
import sql_runner
from jvm_support import support_classpath

from floe import cli
from floe.errors import FloeError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

PASSWORD = "r6-right-password"
SECRETS = {
    "s3.secret-access-key": "SEKRIT-1",
    "client.token": "SEKRIT-2",
    "jdbc.password": "SEKRIT-3",
    "gcs.oauth2.credential": "SEKRIT-4",
    "adls.sas-token.account": "SEKRIT-5",
}
_PROPERTIES = ", ".join(f"'{k}' = '{v}'" for k, v in SECRETS.items())


def test_launcher_refuses_a_non_loopback_bind_without_authentication(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    start = time.monotonic()
    refused = 0
    for host in ("0.0.0.0", "::", "", "192.0.2.10"):
        with pytest.raises(FloeError, match="without authentication") as err:
            cli.thriftserver_command("/w", "floe", 10001, host, [])
        assert repr(host) in str(err.value) and "--allow-unauthenticated" in str(err.value)
        refused += 1
    # through the command line: an error and exit code 1, nothing started
    assert cli.main(["thriftserver", "--host", "0.0.0.0", "--warehouse", "/w"]) == 1
    assert "Refusing to start the Thrift server on '0.0.0.0'" in capsys.readouterr().err
    refused += 1
    # NONE spelled out, and Hive's own bind-host variable, are no way around the rule
    with pytest.raises(FloeError, match="without authentication"):
        cli.thriftserver_command(
            "/w", "floe", 1, "0.0.0.0", ["--hiveconf", "hive.server2.authentication=NONE"]
        )
    monkeypatch.setenv("HIVE_SERVER2_THRIFT_BIND_HOST", "0.0.0.0")
    with pytest.raises(FloeError, match=r"'0\.0\.0\.0' without authentication"):
        cli.thriftserver_command("/w", "floe", 1, "localhost", [])
    refused += 2
    monkeypatch.delenv("HIVE_SERVER2_THRIFT_BIND_HOST")
    # loopback, configured authentication, or the explicit opt-out start
    for host in ("localhost", "127.0.0.1", "::1"):
        assert f"hive.server2.thrift.bind.host={host}" in cli.thriftserver_command(
            "/w", "floe", 1, host, []
        )
    for auth in (
        ["--hiveconf", "hive.server2.authentication=LDAP"],
        ["--conf", "spark.hadoop.hive.server2.authentication=CUSTOM"],
    ):
        assert "hive.server2.thrift.bind.host=0.0.0.0" in cli.thriftserver_command(
            "/w", "floe", 1, "0.0.0.0", auth
        )
    assert cli.thriftserver_command("/w", "floe", 1, "0.0.0.0", [], allow_unauthenticated=True)
    reliability_figures.record(
        "R6",
        launcher_binds_refused=refused,
        launcher_seconds=round(time.monotonic() - start, 2),
    )


@pytest.fixture(scope="module")
def thrift_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """`floe thriftserver` with its default --host and CUSTOM authentication; yields its port."""
    workdir = tmp_path_factory.mktemp("r6-thrift")
    runner = sql_runner.load()
    port = runner._free_port()
    log_path = workdir / "thriftserver.log"
    command = [
        sys.executable, "-m", "floe.cli", "thriftserver",
        "--port", str(port),
        "--warehouse", str(workdir / "warehouse"),
        "--master", "local[1]",
        "--driver-class-path", str(support_classpath()),
        "--driver-java-options", f"-Dfloe.test.thrift-password={PASSWORD}",
        "--conf", "spark.ui.enabled=false",
        "--conf", f"spark.sql.warehouse.dir={workdir / 'spark-warehouse'}",
        "--hiveconf", "hive.server2.authentication=CUSTOM",
        "--hiveconf",
        "hive.server2.custom.authentication.class=io.floe.testing.ThriftFixedPasswordAuthenticator",
    ]  # fmt: skip
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            command, cwd=workdir, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            runner._wait_for_port(port, server, log_path)
            yield port
        finally:
            runner._stop(server)


def _listening_addresses(port: int) -> set[str]:
    """The local addresses of the sockets listening on ``port`` (from /proc/net/tcp, tcp6)."""
    found: set[str] = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state != "0A" or int(hex_port, 16) != port or len(address) != width:
                continue
            # each 32-bit word is in host (little-endian) order
            raw = b"".join(bytes.fromhex(address[i : i + 8])[::-1] for i in range(0, width, 8))
            ip = ipaddress.ip_address(raw)
            mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
            found.add(str(mapped or ip))
    return found


def _jdbc(port: int, passwords: list[str], *statements: str) -> list[str]:
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    classpath = os.pathsep.join([str(support_classpath()), f"{jars}/*"])
    done = subprocess.run(
        ["java", "-cp", classpath, "io.floe.testing.ThriftLoginCheck",
         f"jdbc:hive2://localhost:{port}/", "r6user", ",".join(passwords), *statements],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return [line for line in done.stdout.splitlines() if line.split(" ")[0].split("\t")[0] in
            ("LOGIN-REFUSED", "LOGIN-OK", "ROW", "DONE", "ERROR")]  # fmt: skip


def test_thrift_server_listens_on_loopback_and_checks_passwords(thrift_server: int) -> None:
    start = time.monotonic()
    addresses = _listening_addresses(thrift_server)
    assert addresses, f"nothing listens on port {thrift_server}"
    assert all(ipaddress.ip_address(a).is_loopback for a in addresses), addresses
    table = "floe.r6srv.t"
    lines = _jdbc(
        thrift_server,
        ["wrong-password", "", PASSWORD],
        "CREATE NAMESPACE IF NOT EXISTS floe.r6srv",
        f"CREATE TABLE {table} (id INT) TBLPROPERTIES ({_PROPERTIES}, 'plain' = 'visible')",
        f"SHOW TBLPROPERTIES {table}",
        f"DESCRIBE TABLE EXTENDED {table}",
        f"SHOW CREATE TABLE {table}",
        "CALL floe.system.remove_orphan_files(table => 'r6srv.t', location => '/etc')",
    )
    assert [line.split(" ")[0] for line in lines[:3]] == [
        "LOGIN-REFUSED", "LOGIN-REFUSED", "LOGIN-OK"
    ], lines  # fmt: skip
    text = "\n".join(lines)
    assert not any(secret in text for secret in SECRETS.values()), text
    assert "ROW\tplain\tvisible" in text, text
    assert sum(f"ROW\t{key}\t*********(redacted)" in text for key in SECRETS) == len(SECRETS)
    assert lines[-1].startswith("ERROR") and "/etc" in lines[-1], lines[-1]
    reliability_figures.record(
        "R6",
        server_listen_addresses=",".join(sorted(addresses)),
        server_wrong_passwords_refused=2,
        server_secret_properties_masked_over_jdbc=len(SECRETS),
        server_seconds=round(time.monotonic() - start, 1),
    )


def test_secret_properties_are_masked_everywhere(spark: SparkSession, namespace: str) -> None:
    """SHOW TBLPROPERTIES, SHOW CREATE TABLE, DESCRIBE EXTENDED, every metadata table and the
    error of a failed ALTER: no secret value appears, the keys do."""
    table = f"floe.{namespace}.secrets"
    spark.sql(f"CREATE TABLE {table} (id INT) TBLPROPERTIES ({_PROPERTIES}, 'plain' = 'v')")
    spark.sql(f"INSERT INTO {table} VALUES (1)")
    outputs: dict[str, list[Any]] = {
        "SHOW TBLPROPERTIES": spark.sql(f"SHOW TBLPROPERTIES {table}").collect(),
        "SHOW TBLPROPERTIES key": spark.sql(
            f"SHOW TBLPROPERTIES {table} ('client.token')"
        ).collect(),
        "SHOW CREATE TABLE": spark.sql(f"SHOW CREATE TABLE {table}").collect(),
        "DESCRIBE EXTENDED": spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect(),
    }
    for meta in ("snapshots", "metadata_log_entries"):
        outputs[meta] = spark.sql(f"SELECT * FROM {table}.{meta}").collect()
    with pytest.raises(Exception) as err:
        spark.sql(
            f"ALTER TABLE {table} SET TBLPROPERTIES ('write.format.default' = 'orc', "
            "'other.password' = 'SEKRIT-6')"
        )
    outputs["error"] = [str(err.value)]
    masked = 0
    for what, rows in outputs.items():
        text = str(rows)
        leaked = [v for v in [*SECRETS.values(), "SEKRIT-6"] if v in text]
        assert not leaked, (what, leaked, text)
        masked += sum(key in text for key in SECRETS)
    assert "'client.token', value='*********(redacted)'" in str(outputs["SHOW TBLPROPERTIES key"])
    assert spark.table(table).count() == 1
    reliability_figures.record("R6", secret_property_outputs_checked=len(outputs))


def test_remove_orphan_files_refuses_locations_outside_the_table(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    table = f"{namespace}.orph"
    spark.sql(f"CREATE TABLE floe.{table} (id INT)")
    spark.sql(f"INSERT INTO floe.{table} VALUES (1)")
    refused = 0
    for location in (
        "/etc",
        "file:///etc",
        str(warehouse.parent),
        f"{warehouse}/{namespace}/orph/..",
    ):
        with pytest.raises(Exception, match=r"outside|not inside|inside the table") as err:
            spark.sql(
                f"CALL floe.system.remove_orphan_files(table => '{table}', "
                f"location => '{location}', older_than => current_timestamp(), "
                "allow_short_interval => true)"
            ).collect()
        assert location.split("/")[-1] in str(err.value) or "/etc" in str(err.value), str(err.value)
        refused += 1
    assert Path("/etc/hostname").exists() or Path("/etc/passwd").exists()
    assert spark.table(f"floe.{table}").count() == 1
    reliability_figures.record("R6", orphan_locations_refused=refused)
