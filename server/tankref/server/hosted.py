"""The hosted profile (`tankref serve --public`, issue 19): a league's referee behind a
TLS-terminating reverse proxy.

What it adds to the default referee, each off unless asked for (the default `tankref serve`
is exactly as before): the client's address taken from ``X-Forwarded-For`` only when the
proxy sends it (uvicorn's ``forwarded_allow_ips``); table creation limited per client address
and per hour; abandoned tables ended by the referee after a time without writes (their seed
revealed, kept read-only, never deleted); structured logs, one JSON object a line.

Settings come from flags or from a TOML file (``--settings FILE``) whose keys mirror the
flags (``tables-per-hour = 20`` or ``tables_per_hour = 20``); flags win.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import tomllib
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tankref.server.errors import ApiError
from tankref.server.store import HOUR, Quota
from tankref.server.stores import Store

log = logging.getLogger("tankref.server")
access = logging.getLogger("tankref.access")

# What --public turns on when neither a flag nor the settings file says otherwise.
PUBLIC_TABLES_PER_HOUR = 20
PUBLIC_EXPIRE_AFTER_HOURS = 14 * 24.0
PUBLIC_PROXIES = ("127.0.0.1", "::1")  # a proxy on the same machine (the documented set-up)
# The referee's own request id for the end it logs: a second sweep (or a second worker's)
# answers the first reply instead of logging the end twice.
EXPIRY_REQUEST_ID = "referee-expiry"


class SettingsFileError(ValueError):
    """The settings file cannot be used: one line says why."""


@dataclass(frozen=True)
class Profile:
    """The hosted profile's settings (None / empty: not set, the default referee's)."""

    public: bool = False
    forwarded_allow_ips: tuple[str, ...] = ()
    tables_per_hour: int | None = None
    expire_after_hours: float | None = None
    json_logs: bool = False
    public_url: str | None = None  # how spectators reach the referee (the proxy's URL)

    def completed(self) -> Profile:
        """--public's defaults for what is not set."""
        if not self.public:
            return self
        return Profile(
            public=True,
            forwarded_allow_ips=self.forwarded_allow_ips or PUBLIC_PROXIES,
            tables_per_hour=(
                PUBLIC_TABLES_PER_HOUR if self.tables_per_hour is None else self.tables_per_hour
            ),
            expire_after_hours=(
                PUBLIC_EXPIRE_AFTER_HOURS
                if self.expire_after_hours is None
                else self.expire_after_hours
            ),
            json_logs=True,
            public_url=self.public_url,
        )


# Settings file keys (as the flags, without --; '-' or '_') and what each value must be.
FILE_KEYS: dict[str, type | tuple[type, ...]] = {
    "host": str,
    "port": int,
    "db": str,
    "log_level": str,
    "allow_host": list,
    "workers": int,
    "public": bool,
    "forwarded_allow_ips": list,
    "tables_per_hour": int,
    "expire_after_hours": (int, float),
    "json_logs": bool,
    "public_url": str,
}


def read_settings_file(path: Path) -> dict[str, Any]:
    """The file's settings by flag name (``allow_host``, ``tables_per_hour`` ...)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SettingsFileError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsFileError(f"{path}: not TOML: {exc}") from None
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = key.replace("-", "_")
        kind = FILE_KEYS.get(name)
        if kind is None:
            known = ", ".join(k.replace("_", "-") for k in FILE_KEYS)
            raise SettingsFileError(f"{path}: unknown setting {key!r} (known: {known})")
        # bool is an int in Python: port = true is refused, not taken as 1.
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise SettingsFileError(f"{path}: {key}: {value!r} is not a {_kind_name(kind)}")
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise SettingsFileError(f"{path}: {key}: give a list of texts")
        if kind is not bool and isinstance(value, int | float) and not value > 0:
            raise SettingsFileError(f"{path}: {key}: give a number above 0, got {value}")
        out[name] = value
    return out


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "text", int: "whole number", float: "number", bool: "true or false"}
    names[list] = "list"
    if isinstance(kind, tuple):
        return "number"
    return names.get(kind, kind.__name__)


def profile_fields() -> tuple[str, ...]:
    return tuple(f.name for f in fields(Profile))


# --- links to the live page ---------------------------------------------------------------------


def page_base(public_url: str | None, request_base: str) -> str:
    """Where the live page is: ``--public-url`` when set (the proxy's URL), else the base URL
    the request came to (behind a trusted proxy, its scheme and host)."""
    return (public_url or request_base).rstrip("/")


def table_page(base: str, table_id: str, *, stream: bool = False) -> str:
    """The live page on one table (read-only, for anyone); ``stream``: its stream view."""
    view = "?view=stream" if stream else ""
    return f"{base}/{view}#/tables/{quote(table_id, safe='')}"


def seat_link(base: str, table_id: str, player: str, token: str) -> str:
    """A player's seat link: the live page on the table with the seat token in the URL's
    fragment, which a browser never sends (so it is in no proxy's or access log); the page
    keeps it and takes it out of the address at once."""
    return f"{table_page(base, table_id)}/seat/{quote(player, safe='')}/{quote(token, safe='')}"


# --- table creation per client address and hour ------------------------------------------------


class CreationLimit:
    """At most ``per_hour`` tables created from one client address in any hour, counted by
    the store: in the database on PostgreSQL, so every worker on it shares one count."""

    def __init__(self, per_hour: int, *, clock: Callable[[], float] = time.time) -> None:
        self.per_hour = per_hour
        self.clock = clock  # a wall clock: the workers' times are compared in the database

    def admit(self, store: Store, address: str) -> Quota:
        """Refuses a creation from ``address`` that would pass the limit (429, Retry-After),
        before its body is looked at: the state and the log stay as they were. Admitted, the
        table is made under the quota returned, which checks and counts it again with the
        table (a creation the body refuses does not count)."""
        quota = Quota(address, self.per_hour, self.clock())
        wait = store.creation_wait(quota)
        if wait is not None:
            raise self.refusal(wait)
        return quota

    def refusal(self, wait: int) -> ApiError:
        return ApiError(
            429,
            "TABLE_CREATION_LIMIT",
            f"at most {self.per_hour} tables an hour from one address (tables-per-hour); "
            f"try again in {wait} s",
            details={"tables_per_hour": self.per_hour, "retry_after": wait},
            headers={"Retry-After": str(wait)},
        )


# --- abandoned tables -------------------------------------------------------------------------


def expiry_reason(hours: float) -> str:
    return f"abandoned: no writes for {hours:g} hours (ended by the referee)"


async def expire_abandoned(referee: Any, after_hours: float, now: datetime | None = None) -> int:
    """Ends every table still in play whose last write (or creation) is older than
    ``after_hours``: an ``end_game`` control event logged by the referee, so the seed is
    revealed as at any game's end and the table takes no more actions (GAME_OVER). Kept,
    never deleted. How many were ended."""
    now = now or datetime.now(UTC)
    cutoff = now - timedelta(hours=after_hours)
    ended = 0
    for item in referee.list_tables():
        if item.table.status == "over":
            continue
        last = referee.store.events(item.table_id, after=max(item.seq - 1, 0), limit=1)
        at = last[-1].created_at if last else item.created_at
        if datetime.fromisoformat(at) > cutoff:
            continue
        host = await referee.open(item.table_id)
        action = {"control": "end_game", "reason": expiry_reason(after_hours)}
        try:
            reply = await referee.control(host, request_id=EXPIRY_REQUEST_ID, action=action)
        except ApiError as err:  # over meanwhile, or read-only: nothing to end
            log.info("table %s not expired: %s", item.table_id, err.message)
            continue
        if json.loads(reply)["replayed"]:  # another worker's sweep ended it a moment ago
            log.info("table %s: already expired by another referee process", item.table_id)
            continue
        ended += 1
        log.warning("table %s expired: %s", item.table_id, expiry_reason(after_hours))
    return ended


def sweep_interval(after_hours: float) -> float:
    """Seconds between sweeps: a tenth of the expiry time, at most an hour (a table is ended
    at most a tenth late) and at least a second."""
    return min(HOUR, max(1.0, after_hours * HOUR / 10))


async def expire_forever(app: Any, after_hours: float) -> None:
    """The lifespan's background sweep (cancelled when the referee stops)."""
    while True:
        await asyncio.sleep(sweep_interval(after_hours))
        try:
            await expire_abandoned(app.state.referee, after_hours)
        except Exception:  # a database away for a moment: the next sweep tries again
            log.exception("the expiry sweep failed; trying again later")


# --- structured logs ----------------------------------------------------------------------------


class JsonLines(logging.Formatter):
    """One JSON object a line: time, level, event, and what the record carries (table,
    request id, status, duration). The messages themselves never hold a token or a password
    (paths only, no headers, no query; database URLs without their password)."""

    FIELDS = ("table", "request_id", "status", "duration_ms", "method", "path", "client")

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "event": getattr(record, "event", None) or record.getMessage(),
            "logger": record.name,
        }
        for name in self.FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                out[name] = value
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info).splitlines()[-1]
        return json.dumps(out, ensure_ascii=False)


def use_json_logs(level: str) -> None:
    """Every logger's lines as JSON on stderr (uvicorn's own access log is off: the access
    middleware logs each request instead)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonLines())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    access.setLevel(logging.INFO)  # one line a request, whatever the level of the rest


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class AccessLog:
    """ASGI middleware: one ``request`` line per HTTP request and per WebSocket, with a
    request id (the proxy's ``X-Request-ID`` when it sends one, else a new one; sent back in
    the same header), the table in the path, the status and the duration."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        given = dict(scope.get("headers") or []).get(b"x-request-id", b"")
        request_id = _request_id(given) or secrets.token_hex(8)
        status = 0

        async def sending(message: MutableMapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = list(message.get("headers") or [])
                headers.append((b"x-request-id", request_id.encode()))
                message["headers"] = headers
            elif message["type"] == "websocket.accept":
                status = 101
            elif message["type"] == "websocket.close" and not status:
                status = 403  # closed before it was accepted: refused
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            path: str = scope.get("path", "")
            client = scope.get("client")
            access.info(
                "request",
                extra={
                    "event": "request",
                    "method": scope.get("method", "WS"),
                    "path": path,  # never the query: a token sent there stays out
                    "table": _table_in(path),
                    "request_id": request_id,
                    "status": status or 500,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                    "client": client[0] if client else None,
                },
            )


def _request_id(given: bytes) -> str | None:
    """A proxy's request id, if it is a short plain token (it goes into the log as it is)."""
    text = given.decode("latin-1")
    if 0 < len(text) <= 64 and all(c.isalnum() or c in "-_.:" for c in text):
        return text
    return None


def _table_in(path: str) -> str | None:
    parts = path.split("/")
    if len(parts) > 2 and parts[1] == "tables" and parts[2]:
        return parts[2]
    return None
