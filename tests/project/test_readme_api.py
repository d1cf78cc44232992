"""The API page's table of requests (docs/api.md, linked from the README) stays true to the
app's routes, both ways."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.routing import APIRoute, APIWebSocketRoute

from tankref.server.app import create_app
from tankref.server.settings import Settings

API_PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"
REQUEST = re.compile(r"`(GET|POST|PUT|DELETE|WS) (/[^`?\s]*)")


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path)  # {table_id} and {id} are the same slot


def _routes(router: object, prefix: str = "") -> set[tuple[str, str]]:
    """Every request the app answers. (FastAPI keeps included routers nested.)"""
    found: set[tuple[str, str]] = set()
    for route in getattr(router, "routes", ()):
        inner = getattr(route, "original_router", None)
        if inner is not None:
            found |= _routes(inner, prefix)
        elif isinstance(route, APIRoute) and route.include_in_schema:
            path = _shape(prefix + route.path)
            found |= {(method, path) for method in route.methods - {"HEAD"}}
        elif isinstance(route, APIWebSocketRoute):
            found.add(("WS", _shape(prefix + route.path)))
    return found


def test_every_route_is_on_the_api_page_and_nothing_else() -> None:
    routes = _routes(create_app(Settings(db_path=Path("unused.sqlite3"))).router)
    assert ("WS", "/tables/{}/stream") in routes and ("GET", "/health") in routes
    documented = {(m, _shape(p)) for m, p in REQUEST.findall(API_PAGE.read_text())}
    assert routes - documented == set(), "routes docs/api.md does not list"
    assert documented - routes == set(), "docs/api.md rows with no route behind them"
