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
    with chromiums(profile) as (context,):
        yield context


@contextmanager
def chromiums(*profiles: Path) -> Iterator[list[Any]]:
    """One Chromium per profile, sharing nothing (storage, cookies): players on two
    computers."""
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
        contexts = []
        for profile in profiles:
            context = playwright.chromium.launch_persistent_context(
                str(profile),
                executable_path=str(CHROMIUM),
                headless=True,
                args=CHROMIUM_ARGS,
                viewport={"width": 1366, "height": 768},
            )
            context.set_default_timeout(TIMEOUT_MS)
            contexts.append(context)
        try:
            yield contexts
        finally:
            for context in contexts:
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


# What is drawn on the board but reaches past the board's own box (cut off).
_CLIPPED = """() => {
  const b = document.getElementById("board").getBoundingClientRect(), out = [];
  for (const n of document.querySelectorAll("#board .tank, #board text, #board .terrain")) {
    const r = n.getBoundingClientRect();
    if (r.left < b.left - 0.5 || r.top < b.top - 0.5
        || r.right > b.right + 0.5 || r.bottom > b.bottom + 0.5) {
      out.push(`${n.getAttribute("class")} ${n.dataset.tank || n.textContent}`);
    }
  }
  return out;
}"""

# Pairs of SVG text elements on the board whose boxes overlap.
_OVERLAPS = """() => {
  const boxes = [...document.querySelectorAll("#board text")]
    .map((n) => [n.textContent, n.getBoundingClientRect()]).filter(([, r]) => r.width && r.height);
  const out = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [s, a] = boxes[i], [t, b] = boxes[j];
    if (Math.min(a.right, b.right) > Math.max(a.left, b.left)
        && Math.min(a.bottom, b.bottom) > Math.max(a.top, b.top)) out.push(`${s} / ${t}`);
  }
  return out;
}"""


def board_clipped(page: Any) -> list[str]:
    """Units, labels and terrain drawn past the board's edge (cut off): none, ideally."""
    found: list[str] = page.evaluate(_CLIPPED)
    return found


def board_overlaps(page: Any) -> list[str]:
    """Pairs of the board's SVG text elements whose bounding boxes overlap."""
    found: list[str] = page.evaluate(_OVERLAPS)
    return found


def check_badges_keyed(page: Any) -> None:
    """Every badge on the board that shortens its marker ("Sh") is in the legend with that
    marker in the ruleset's words ("Sh Shaken"); a badge that is its marker needs no key."""
    drawn = {
        (b.get_attribute("data-badge"), b.get_attribute("data-marker"))
        for b in page.locator("#board .badge").all()
    }
    keyed = {
        (k.get_attribute("data-badge"), k.get_attribute("data-marker"))
        for k in page.locator("#legend .badge-key[data-badge]").all()
    }
    assert {d for d in drawn if d[0] != d[1]} <= keyed, (drawn, keyed)
    for short, marker in keyed:
        key = page.locator(f'#legend .badge-key[data-badge="{short}"][data-marker="{marker}"]')
        assert key.inner_text() == f"{short} {marker}"
    # One badge, one meaning: two markers never share a badge on one board.
    shorts = [short for short, _ in {d for d in drawn}]
    assert len(shorts) == len(set(shorts)), drawn
