"""How ``tankref serve`` configures uvicorn for the write path (issue 18)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tankref.server.app import create_app
from tankref.server.serve import referee_config
from tankref.server.settings import Settings


@pytest.mark.parametrize(
    ("level", "logged"), [("debug", True), ("info", True), ("warning", False), ("error", False)]
)
def test_the_access_log_is_built_only_where_it_prints(
    tmp_path: Path, level: str, logged: bool
) -> None:
    """``--log-level`` info and debug print every request (the CLI's help says so); above
    info uvicorn is told not to build access lines at all, which it otherwise does for
    every request before the logger drops them."""
    app = create_app(Settings(db_path=tmp_path / "config.sqlite3"))
    config = referee_config(app, "127.0.0.1", 8765, level)
    assert config.access_log is logged
