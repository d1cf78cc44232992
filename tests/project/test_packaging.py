"""The package as a user installs it: a plain (non-editable) wheel carries the card data."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_under_server_is_listed_in_pyproject() -> None:
    """setuptools is told the package list by hand (cards/ maps into tankref.cards)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT / "server").parts)
        for p in (ROOT / "server").rglob("__init__.py")
    }
    assert found | {"tankref.cards", "tankref.tts_lua"} == listed


def test_wheel_ships_the_card_data(tmp_path: Path) -> None:
    """`pip install .` (not only editable installs) must find the shipped cards."""
    subprocess.run(
        [
            sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
            "--no-build-isolation", "-w", str(tmp_path), "-q",
        ],
        check=True,
        cwd=tmp_path,
    )  # fmt: skip
    wheel = next(tmp_path.glob("tankref-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {
        "tankref/cards/ttt/" + str(p.relative_to(ROOT / "cards" / "ttt"))
        for p in (ROOT / "cards" / "ttt").rglob("*.toml")
    }
    assert shipped, "no card files in the source tree"
    assert shipped <= names, sorted(shipped - names)
    assert any(n.startswith("tankref/rulesets/ttt/engine.py") for n in names)
    lua = {"tankref/tts_lua/" + p.name for p in (ROOT / "tts_lua").glob("*.lua")}
    assert lua and lua <= names, sorted(lua - names)  # `tankref tts-save` bundles these
    page = {
        "tankref/server/page/" + p.name
        for p in (ROOT / "server" / "tankref" / "server" / "page").iterdir()
        if p.suffix in {".html", ".js", ".css", ".svg"}
    }
    assert "tankref/server/page/index.html" in page, "the live page's files are missing"
    assert page <= names, sorted(page - names)  # `GET /` serves them from the package
