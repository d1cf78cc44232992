"""The package as a user installs it: a plain (non-editable) wheel carries the card data."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _shipped_folders(top: Path, package: str) -> set[str]:
    """`package` and every folder under `top` that holds a file, as dotted package names."""
    folders = {top} | {
        d
        for d in top.rglob("*")
        if d.is_dir() and d.name != "__pycache__" and any(f.is_file() for f in d.iterdir())
    }
    return {".".join((package, *d.relative_to(top).parts)) for d in folders}


def test_every_folder_that_ships_is_listed_in_pyproject() -> None:
    """setuptools is told the package list by hand (cards/ maps into tankref.cards); the
    folders that hold only data (cards per ruleset, the live page) are listed too, since
    setuptools warns through a player's `pip install .` about each one that is not."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = (
        _shipped_folders(ROOT / "server" / "tankref", "tankref")
        | _shipped_folders(ROOT / "cards", "tankref.cards")
        | _shipped_folders(ROOT / "tts_lua", "tankref.tts_lua")
    )
    assert found == listed


def test_the_wheel_builds_without_warnings(tmp_path: Path) -> None:
    """A player's `pip install .` is quiet: no deprecated license table, no data folder
    missing from the package list (setuptools prints a screen for each)."""
    built = subprocess.run(
        [
            sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
            "--no-build-isolation", "-w", str(tmp_path), "-v",
        ],
        check=True,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )  # fmt: skip
    output = built.stdout + built.stderr
    assert "Warning" not in output, [line for line in output.splitlines() if "Warning" in line]
    wheel = next(tmp_path.glob("tankref-*.whl"))
    metadata = zipfile.ZipFile(wheel).read("tankref-0.1.0.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata


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
