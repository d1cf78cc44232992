"""The page's files over HTTP: served by the referee itself, with their types, a strict
Content-Security-Policy and revalidation headers; nothing referenced from elsewhere."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from serverkit import LiveReferee, live_referee
from tankref.server.routes.page import page_files

PAGE_DIR = Path(__file__).resolve().parents[2] / "server" / "tankref" / "server" / "page"


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveReferee]:
    with live_referee(tmp_path_factory.mktemp("page-files") / "referee.sqlite3") as live:
        yield live


def test_the_page_is_served_at_the_root_with_a_self_only_policy(referee: LiveReferee) -> None:
    reply = httpx.get(f"{referee.url}/", timeout=10)
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "text/html; charset=utf-8"
    policy = reply.headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'"
    for name in ("script-src", "style-src", "connect-src"):
        assert directives[name] == "'self'", name  # no CDN, no inline code, no other host
    assert directives["frame-ancestors"] == "'none'"
    assert reply.headers["x-content-type-options"] == "nosniff"
    assert '<script type="module" src="/page/main.js">' in reply.text


@pytest.mark.parametrize(
    ("name", "media_type"),
    [
        ("main.js", "text/javascript; charset=utf-8"),
        ("page.css", "text/css; charset=utf-8"),
        ("icon.svg", "image/svg+xml"),
    ],
)
def test_static_files_have_their_type_and_revalidate(
    referee: LiveReferee, name: str, media_type: str
) -> None:
    reply = httpx.get(f"{referee.url}/page/{name}", timeout=10)
    assert reply.status_code == 200
    assert reply.headers["content-type"] == media_type
    assert reply.headers["cache-control"] == "no-cache"
    assert reply.content == (PAGE_DIR / name).read_bytes()
    again = httpx.get(
        f"{referee.url}/page/{name}", headers={"If-None-Match": reply.headers["etag"]}, timeout=10
    )
    assert again.status_code == 304 and again.content == b""


@pytest.mark.parametrize("name", ["nothing.js", "index.html", "..%2Fapp.py", "page.css.bak"])
def test_unknown_files_are_a_json_404(referee: LiveReferee, name: str) -> None:
    reply = httpx.get(f"{referee.url}/page/{name}", timeout=10)
    assert reply.status_code == 404
    assert reply.json()["code"] == "NOT_FOUND"


def test_every_file_the_page_names_is_served_and_nothing_comes_from_elsewhere(
    referee: LiveReferee,
) -> None:
    """Module imports, the style sheet and the icon resolve to files the referee serves; no
    file names another host (the one URL allowed is the SVG namespace, an identifier)."""
    served = set(page_files())
    assert served == {
        p.name for p in PAGE_DIR.iterdir() if p.suffix in {".html", ".js", ".css", ".svg"}
    }
    for name in served:
        text = (PAGE_DIR / name).read_text()
        for url in re.findall(r"""(?:src|href)="([^"#]+)\"""", text):
            assert url.startswith("/page/") and url[len("/page/") :] in served, (name, url)
        for module in re.findall(r"""from "\./([^"]+)";""", text):
            assert module in served, (name, module)
        external = set(re.findall(r"(?:https?:|wss?:)?//[A-Za-z0-9.-]+\.[a-z]{2,}", text))
        assert external <= {"http://www.w3.org"}, (name, external)
    html = httpx.get(f"{referee.url}/", timeout=10).text
    assert "<script>" not in html and "style=" not in html  # nothing inline: the CSP forbids it


def test_the_page_writes_only_a_seats_own_requests() -> None:
    """Every script reads with GETs alone, except a player's seat (seat.js): it alone writes,
    through api.js's ``request`` (the one place a token header is put), and only its seed and
    its void. Nothing PUTs or DELETEs."""
    writes = {}
    for path in PAGE_DIR.glob("*.js"):
        text = path.read_text()
        assert not re.search(r"\b(PUT|PATCH|DELETE)\b", text), path.name
        if path.name != "api.js":
            assert not re.search(r"\bPOST\b", text), path.name
            assert "Authorization" not in text and "Bearer" not in text, path.name
            assert "fetch(" not in text, path.name  # every request goes through api.js
        if re.search(r"import \{[^}]*\brequest\b[^}]*\} from \"\./api\.js\"", text):
            writes[path.name] = set(re.findall(r'this\.write\([^,]+, "([^"]+)"', text))
        assert "innerHTML" not in text and "insertAdjacentHTML" not in text, path.name
    assert writes == {"seat.js": {"/seeds", "/void"}}
