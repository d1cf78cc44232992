"""``/docs`` renders with no internet: Swagger UI's files ship with tankref.

Headless Chromium loads the page from a real referee with every request to anywhere else
refused (Playwright's route interception), the way a table without internet sees it; the
viewer must still draw every operation of ``/openapi.json``, and nothing may have been
asked of another host.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from pagekit import Watch
from serverkit import live_referee


def _offline(page: Any, home: str) -> list[str]:
    """Refuse every request that is not to the referee; the refused URLs, as they come."""
    refused: list[str] = []

    def handle(route: Any) -> None:
        url = route.request.url
        if url == home or url.startswith(f"{home}/"):
            route.continue_()
        else:
            refused.append(url)
            route.abort("internetdisconnected")

    page.route("**/*", handle)
    return refused


def _operations(url: str) -> set[tuple[str, str]]:
    document = httpx.get(f"{url}/openapi.json").json()
    return {
        (method.upper(), path)
        for path, operations in document["paths"].items()
        for method in operations
    }


def test_swagger_ui_at_docs_renders_every_operation_offline(browser: Any, tmp_path: Path) -> None:
    with live_referee(tmp_path / "referee.sqlite3") as live:
        expected = _operations(live.url)
        page = browser.new_page()
        watch = Watch(page)
        refused = _offline(page, live.url)
        page.goto(f"{live.url}/docs")
        page.wait_for_selector(".opblock-summary-path", timeout=20_000)
        shown = page.locator(".opblock").evaluate_all(
            """blocks => blocks.map(b => [
                b.querySelector('.opblock-summary-method').textContent.trim(),
                b.querySelector('.opblock-summary-path').dataset.path])"""
        )
        assert {(m, p) for m, p in shown} == expected
        assert ("GET", "/tables/{table_id}/scene") in expected
        assert page.locator(".errors-wrapper").count() == 0
        assert "tankref referee" in page.inner_text(".info .title")
        assert refused == []
        assert watch.errors == []
        # Its files came from the referee, from the package that ships them.
        assert any(u == f"{live.url}/docs-static/swagger-ui-bundle.js" for _, u in watch.requests)
        page.close()


def test_the_viewer_files_are_served_with_their_types(tmp_path: Path) -> None:
    """The files the pages name are there (a package upgrade that moved them fails here)."""
    with live_referee(tmp_path / "referee.sqlite3") as live:
        for name, kind in (("swagger-ui-bundle.js", "javascript"), ("swagger-ui.css", "text/css")):
            reply = httpx.get(f"{live.url}/docs-static/{name}")
            assert reply.status_code == 200, name
            assert kind in reply.headers["content-type"], name
            assert len(reply.content) > 100_000, name
        assert httpx.get(f"{live.url}/docs-static/nothing.js").status_code == 404
        docs = httpx.get(f"{live.url}/docs").text
        assert "cdn" not in docs.lower() and "https://" not in docs
        # No CDN page left behind: ReDoc is not offered (it always fetches its logo online).
        assert httpx.get(f"{live.url}/redoc").status_code == 404
