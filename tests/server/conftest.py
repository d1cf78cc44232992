from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pgkit import referee_database
from serverkit import LiveReferee, live_referee


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveReferee]:
    """One real referee (uvicorn, SQLite in a temporary folder) per test module."""
    with live_referee(tmp_path_factory.mktemp("referee") / "referee.sqlite3") as live:
        yield live


@pytest.fixture(params=["sqlite", "postgres"])
def referee_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | str]:
    """The database a durability test's referee runs on, once per store: an SQLite file,
    and a fresh PostgreSQL database (skipped without TANKREF_TEST_PG)."""
    with referee_database(request.param, tmp_path) as db:
        yield db


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def any_referee(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveReferee]:
    """``referee`` once per store (the idempotency tests)."""
    folder = tmp_path_factory.mktemp("referee")
    with referee_database(request.param, folder) as db, live_referee(db) as live:
        yield live
