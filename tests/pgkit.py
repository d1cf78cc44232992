"""Test kit for the PostgreSQL store: a fresh database per test on the server that
``TANKREF_TEST_PG`` names (a libpq conninfo or a URL; CI's `.ci/run` starts a throwaway
cluster and sets it), dropped afterwards. Unset: the test is skipped, saying why."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
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
