"""The page tests' browser: one Chromium per test module, with a fresh profile."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pagekit import chromium


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's Chromium through Playwright (see pagekit)."""
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context
