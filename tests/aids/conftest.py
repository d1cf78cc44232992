from __future__ import annotations

from collections.abc import Iterator

import pytest

from serverkit import LiveReferee, live_referee


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveReferee]:
    """One real referee (uvicorn, SQLite in a temporary folder) per test module."""
    with live_referee(tmp_path_factory.mktemp("referee") / "referee.sqlite3") as live:
        yield live
