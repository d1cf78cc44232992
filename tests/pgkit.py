"""Test kit for the PostgreSQL store: a fresh database per test on the server that
``TANKREF_TEST_PG`` names (a libpq conninfo or a URL; CI's `.ci/run` starts a throwaway
cluster and sets it), dropped afterwards. Unset: the test is skipped, saying why."""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

PG_VARIABLE = "TANKREF_TEST_PG"
SKIP_REASON = (
    f"{PG_VARIABLE} is not set: no PostgreSQL server to test against "
    "(CI's .ci/run starts one; e.g. TANKREF_TEST_PG='host=/tmp/pg user=me dbname=postgres')"
)


def server() -> str:
    """The test server's conninfo or URL (the test is skipped when there is none)."""
    named = os.environ.get(PG_VARIABLE, "").strip()
    if not named:
        pytest.skip(SKIP_REASON)
    return named


def _admin(conninfo: str) -> Any:
    import psycopg

    return psycopg.connect(conninfo, autocommit=True, connect_timeout=10)


def url_of(conninfo: str, dbname: str) -> str:
    """A ``postgresql://`` URL for database ``dbname`` on the server ``conninfo`` names
    (what `tankref serve --db` takes): every other setting as a query parameter."""
    from psycopg.conninfo import conninfo_to_dict

    params = {k: str(v) for k, v in conninfo_to_dict(conninfo).items() if k != "dbname"}
    return f"postgresql:///{dbname}?{urlencode(params)}"


@contextmanager
def fresh_database() -> Iterator[str]:
    """A new, empty database on the test server, as a URL; dropped afterwards (its
    connections ended first: a referee a failing test left behind does not keep it)."""
    conninfo = server()
    name = f"tankref_test_{secrets.token_hex(6)}"
    with _admin(conninfo) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url_of(conninfo, name)
    finally:
        with _admin(conninfo) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def dbname(url: str) -> str:
    return url.split("///", 1)[1].split("?", 1)[0]


@contextmanager
def unreachable(url: str) -> Iterator[None]:
    """The database refuses every connection and its open ones are cut, as if its server
    went away; reachable again afterwards."""
    name = dbname(url)
    with _admin(server()) as admin:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
            (name,),
        )
        try:
            yield
        finally:
            admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')


def raw(url: str) -> Any:
    """A plain connection (autocommit) to the test database, as a person with psql has."""
    import psycopg

    return psycopg.connect(url, autocommit=True)


@contextmanager
def referee_database(kind: str, folder: Path) -> Iterator[Path | str]:
    """What a referee is started on: an SQLite file in ``folder``, or a fresh PostgreSQL
    database's URL."""
    if kind == "sqlite":
        yield folder / "referee.sqlite3"
    else:
        with fresh_database() as url:
            yield url


@dataclass
class Cluster:
    """A PostgreSQL cluster of the test's own (``throwaway_cluster``)."""

    folder: Path
    run_as: list[str]  # the command prefix that runs its tools as their unprivileged user
    bin: Path

    @property
    def conninfo(self) -> str:
        return f"host={self.folder} user=tankref dbname=postgres"

    def pg_ctl(self, *args: str) -> None:
        subprocess.run(
            [*self.run_as, str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), *args],
            check=True,
            capture_output=True,
            timeout=60,
        )

    def restart_fast(self, away: float = 0.0) -> None:
        """``pg_ctl restart -m fast``: every connection cut, the server back a moment later;
        ``away``: seconds it stays down between the stop and the start (a restart on this
        machine is quicker than a client's retry)."""
        if not away:
            self.pg_ctl("-l", str(self.folder / "log"), "-w", "-m", "fast", "restart")
            return
        self.pg_ctl("-w", "-m", "fast", "stop")
        time.sleep(away)
        self.start()

    def start(self) -> None:
        options = f"-k {self.folder} -c listen_addresses=''"  # its socket only, no TCP port
        self.pg_ctl("-l", str(self.folder / "log"), "-w", "-o", options, "start")


def _pg_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: p.parts[-3])
    return found[-1].parent if found else None


@contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    """A PostgreSQL server of the test's own (for what no shared server may be put through,
    a restart): initdb and pg_ctl as an unprivileged user (root runs them as
    ``tankref-ci``, the user CI makes), its socket in a temporary folder, no TCP port;
    stopped and removed afterwards. Skipped, saying why, without the binaries or such a
    user (and without ``TANKREF_TEST_PG``, like every PostgreSQL test)."""
    server()  # skipped where PostgreSQL tests are
    pg_bin = _pg_bin()
    if pg_bin is None:
        pytest.skip("no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
    run_as: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="tankref-pg-"))
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam(CI_USER)
        except KeyError:
            shutil.rmtree(folder)
            pytest.skip(f"as root, a throwaway cluster needs the user {CI_USER} (as .ci/run makes)")
        os.chown(folder, user.pw_uid, user.pw_gid)
        run_as = ["runuser", "-u", CI_USER, "--"]
    cluster = Cluster(folder, run_as, pg_bin)
    try:
        subprocess.run(
            [*run_as, str(pg_bin / "initdb"), "-D", str(folder / "data"), "-A", "trust",
             "-U", "tankref"],
            check=True,
            capture_output=True,
            timeout=120,
        )  # fmt: skip
        cluster.start()
        yield cluster
    finally:
        with contextlib.suppress(Exception):
            cluster.pg_ctl("-m", "immediate", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)


CI_USER = "tankref-ci"
