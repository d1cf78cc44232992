"""Where the referee listens and keeps its database, and the limits it enforces."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from tankref.server.limits import ConnectionLimits

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


def default_db_path() -> Path:
    """SQLite file in the user's data directory (e.g. ~/.local/share/tankref on Linux)."""
    return Path(platformdirs.user_data_dir("tankref", appauthor=False)) / "tankref.sqlite3"


@dataclass(frozen=True)
class Settings:
    db_path: Path = field(default_factory=default_db_path)
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

    @property
    def loopback(self) -> bool:
        return self.host in LOOPBACK_NAMES
