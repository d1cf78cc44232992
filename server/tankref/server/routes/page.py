"""The live table page: ``GET /`` and its few static files, all shipped inside the package.

Nothing is fetched from anywhere else (tables are often played offline), and the
Content-Security-Policy says so to the browser: scripts, styles, images and connections
come from this referee only. The page reads with plain GETs and one WebSocket; it never
asks for a token. Its only writes are a player's own (their seed, their void), with the
seat token their seat link gave it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Annotated

from fastapi import APIRouter, Path, Request, Response

from tankref.server.errors import ApiError

router = APIRouter(tags=["page"])

# 'self' only; no inline script or style (data is put in with textContent, styles through
# the CSSOM), no frames, no forms, no plugins.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}


@dataclass(frozen=True)
class PageFile:
    body: bytes
    media_type: str
    etag: str


@cache
def page_files() -> dict[str, PageFile]:
    """Every file of the page, read once from the installed package."""
    found: dict[str, PageFile] = {}
    for item in (resources.files("tankref.server") / "page").iterdir():
        suffix = "." + item.name.rsplit(".", 1)[-1]
        if item.is_file() and suffix in _TYPES:
            body = item.read_bytes()
            etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
            found[item.name] = PageFile(body, _TYPES[suffix], etag)
    return found


def _serve(request: Request, file: PageFile) -> Response:
    # Revalidated on every load (cheap: a 304 when unchanged), so an upgraded referee never
    # runs a page half old, half new.
    headers = {
        "Cache-Control": "no-cache",
        "ETag": file.etag,
        "Content-Security-Policy": CONTENT_SECURITY_POLICY,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }
    if request.headers.get("if-none-match") == file.etag:
        return Response(status_code=304, headers=headers)
    return Response(file.body, media_type=file.media_type, headers=headers)


@router.get(
    "/",
    response_class=Response,
    responses={200: {"description": "The page (HTML).", "content": {"text/html": {}}}},
)
async def table_page(request: Request) -> Response:
    """The live page: the tables, and for each a top-down view, the log with the dice and
    the clauses, the odds of a selected tank and the luck of each player. Read-only, but
    for a player's own seed and void once opened on their seat link.
    ``/?view=stream#/tables/{id}``: the board and the last result only, on a transparent
    page (an OBS browser source)."""
    return _serve(request, page_files()["index.html"])


FileName = Annotated[str, Path(description="A file of the page, e.g. 'main.js'.")]


@router.get(
    "/page/{name}",
    response_class=Response,
    responses={
        200: {
            "description": "The file (script, style sheet or image).",
            "content": {"text/javascript": {}, "text/css": {}, "image/svg+xml": {}},
        },
        404: {"description": "The page has no such file."},
    },
)
async def page_file(name: FileName, request: Request) -> Response:
    """One of the page's scripts, style sheets or images (no CDN: all ship with tankref)."""
    file = page_files().get(name)
    if file is None or name == "index.html":
        raise ApiError(404, "NOT_FOUND", f"name: the page has no file {name!r}", field="name")
    return _serve(request, file)
