"""Where the referee listens and keeps its database, and the limits it enforces."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from tankref.server.hosted import Profile
from tankref.server.limits import ConnectionLimits

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


DATA_DIR_VARIABLE = "TANKREF_DATA_DIR"


def data_folder() -> Path:
    """Where tankref keeps its files: the user's data folder (e.g. ~/.local/share/tankref on
    Linux, %LOCALAPPDATA%\\tankref on Windows), or the folder ``TANKREF_DATA_DIR`` names."""
    chosen = os.environ.get(DATA_DIR_VARIABLE)
    if chosen:
        return Path(chosen).expanduser()
    return Path(platformdirs.user_data_dir("tankref", appauthor=False))


def default_db_path() -> Path:
    """SQLite file in the user's data folder (``data_folder``)."""
    return data_folder() / "tankref.sqlite3"


def demo_tokens_path() -> Path:
    """The demo tables' tokens (`tankref demo` keeps them for `tankref tables end|delete`)."""
    return data_folder() / "demo-tables.json"


@dataclass(frozen=True)
class Settings:
    db_path: Path = field(default_factory=default_db_path)
    # A PostgreSQL URL (postgresql://...): the log goes there instead of the file db_path.
    db_url: str | None = None
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    # Host names the server answers to, on every binding: a web page elsewhere cannot reach
    # the referee through DNS rebinding. Bound beyond loopback, an IP address also passes
    # (no page can rebind a name to it: its origin would be that address); names need
    # --allow-host.
    allowed_hosts: tuple[str, ...] = ("127.0.0.1", "localhost", "[::1]")
    max_body_bytes: int = 64 * 1024
    body_timeout_seconds: float = 10.0  # a write's whole body must arrive within this
    limits: ConnectionLimits = field(default_factory=ConnectionLimits)
    long_poll_max_seconds: float = 25.0
    log_page_max: int = 500
    # POST .../actions answered by routes.actions.QuickAction (False: by FastAPI's route
    # alone; the tests compare the two).
    quick_actions: bool = True
    # The hosted profile (`tankref serve --public`, hosted.py); the default sets nothing.
    profile: Profile = field(default_factory=Profile)

    @property
    def loopback(self) -> bool:
        return self.host in LOOPBACK_NAMES
