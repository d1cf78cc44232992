"""Test kit for the live page: Debian's headless Chromium through Playwright, and a watch on
what a page did (every request, its WebSockets, script errors).

Chromium comes from Debian (``apt-get install chromium``, done by .ci/run); Playwright never
downloads a browser here. Without it the page tests fail with a message saying so.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
# Headless, and quiet: the machine's network is closed, and without these Chromium keeps
# trying to reach its update, sync and field-trial services.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 10_000


@contextmanager
def chromium(profile: Path) -> Iterator[Any]:
    """Debian's Chromium through Playwright, with a fresh profile in ``profile``."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium "
            "(apt-get install -y --no-install-recommends chromium; .ci/run does this)"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the Python package playwright is missing: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1366, "height": 768},
        )
        context.set_default_timeout(TIMEOUT_MS)
        yield context
        context.close()


class Watch:
    """What one page did: every request (URL and method), WebSockets, and script errors."""

    def __init__(self, page: Any) -> None:
        self.requests: list[tuple[str, str]] = []
        self.sockets: list[str] = []
        self.errors: list[str] = []
        page.on("request", lambda r: self.requests.append((r.method, r.url)))
        page.on("websocket", lambda ws: self.sockets.append(ws.url))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def check_stayed_home(self, url: str) -> None:
        """Nothing left the referee (no CDN, no telemetry) and nothing but GETs was sent."""
        host = url.removeprefix("http://")
        assert self.requests, "the page made no request"
        assert all(u.startswith(f"{url}/") for _, u in self.requests), self.requests
        assert {m for m, _ in self.requests} == {"GET"}, self.requests
        assert all(s.startswith(f"ws://{host}/tables/") for s in self.sockets), self.sockets
        assert self.errors == []
