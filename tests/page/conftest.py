"""The page tests' browser: one Chromium per test module, with a fresh profile; and a page
of a real referee, for tests that run the page's own modules in it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pagekit import chromium
from serverkit import live_referee


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's Chromium through Playwright (see pagekit)."""
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context


@pytest.fixture(scope="module")
def referee_page(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The page of a live referee (no table): its modules import as the page's own do."""
    with live_referee(tmp_path_factory.mktemp("referee") / "referee.sqlite3") as live:
        page = browser.new_page()
        page.goto(f"{live.url}/")
        yield page
        page.close()
