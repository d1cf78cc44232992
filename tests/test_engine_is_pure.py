"""The engine is pure: importing every module of ``tankref.core`` and ``tankref.rulesets``
pulls in no web framework, database or network server, and no engine source opens a file
except the card loader."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import tankref

SERVER = Path(tankref.__file__).resolve().parent
ENGINE_DIRS = (SERVER / "core", SERVER / "rulesets")
CARD_LOADER = SERVER / "core" / "carddata.py"

FORBIDDEN = (
    "fastapi",
    "starlette",
    "uvicorn",
    "sqlite3",
    "_sqlite3",
    "sqlalchemy",
    "aiosqlite",
    "websockets",
    "httpx",
    "requests",
    "http.server",
    "socketserver",
)

_IMPORT_ALL = """
import importlib, json, pkgutil, sys
import tankref.core, tankref.rulesets
names = []
for pkg in (tankref.core, tankref.rulesets):
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        importlib.import_module(info.name)
        names.append(info.name)
print(json.dumps({"imported": names, "modules": sorted(sys.modules)}))
"""


def test_engine_imports_no_web_or_database_module() -> None:
    """Every engine module imports in a fresh interpreter without loading a web framework, a
    database driver or a socket server (checked in sys.modules)."""
    out = subprocess.run(
        [sys.executable, "-c", _IMPORT_ALL], capture_output=True, text=True, check=True
    )
    report = json.loads(out.stdout)
    imported = set(report["imported"])
    assert {
        "tankref.core.dice",
        "tankref.core.geometry",
        "tankref.rulesets.ttt.engine",
        "tankref.rulesets.ttt.selfplay",
    } <= imported
    loaded = report["modules"]
    bad = sorted(
        name for name in loaded for f in FORBIDDEN if name == f or name.startswith(f + ".")
    )
    assert bad == [], bad


def test_engine_sources_open_no_files_but_the_card_loader() -> None:
    """No engine source calls open( (builtin, Path.open, io.open...) except core/carddata.py,
    the card loader."""
    sources = sorted(p for d in ENGINE_DIRS for p in d.rglob("*.py"))
    assert CARD_LOADER in sources and len(sources) > 10
    pattern = re.compile(r"\bopen\(")
    offenders = [
        f"{path.relative_to(SERVER)}:{n}: {line.strip()}"
        for path in sources
        if path != CARD_LOADER
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []
    # The check can fire: the loader itself does open its files.
    assert pattern.search(CARD_LOADER.read_text(encoding="utf-8"))
