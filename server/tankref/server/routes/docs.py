"""The API's documentation page, ``/docs`` (Swagger UI), working offline.

FastAPI's own page loads its viewer from a CDN, so at a table without internet it was blank.
The viewer's files come instead from the ``fastapi-offline`` package (which ships Swagger
UI's, Apache-2.0), installed with tankref and served from ``/docs-static``: the browser
fetches nothing from anywhere but this referee. FastAPI's ``/redoc`` is left off: ReDoc
always fetches its logo from its makers' site, and one viewer is enough.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC = "/docs-static"
OAUTH2_REDIRECT = "/docs/oauth2-redirect"
ICON = "/page/icon.svg"  # the live page's icon (fastapi's default is fetched from its site)


def viewer_files() -> Path:
    """Where the installed package keeps the viewer's script and style sheet."""
    return Path(str(resources.files("fastapi_offline") / "static"))


def install(app: FastAPI) -> None:
    """``/docs`` and its files; the app must be made with ``docs_url=None`` and
    ``redoc_url=None`` (else FastAPI's CDN pages answer first)."""
    app.mount(STATIC, StaticFiles(directory=viewer_files()), name="docs-static")
    openapi = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi,
            title=f"{app.title}: API",
            oauth2_redirect_url=OAUTH2_REDIRECT,
            swagger_js_url=f"{STATIC}/swagger-ui-bundle.js",
            swagger_css_url=f"{STATIC}/swagger-ui.css",
            swagger_favicon_url=ICON,
            # No badge from the public validator service (a request off this machine).
            swagger_ui_parameters={"validatorUrl": None},
        )

    @app.get(OAUTH2_REDIRECT, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()
