"""`tankref serve` and `tankref demo` as a newcomer meets them."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from serverkit import live_referee
from tankref.cli import main


def test_serve_help_lists_the_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--host", "--port", "--db", "--log-level", "--allow-host"):
        assert flag in out


def test_serve_says_plainly_when_the_port_is_taken(tmp_path: Path) -> None:
    """A second referee on a busy port exits 2 with what to do, not a traceback."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "tankref", "serve", "--port", str(port),
             "--db", str(tmp_path / "x.sqlite3")],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert done.returncode == 2
    assert f"port {port}" in done.stderr and "--port" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo keeps its tables' tokens in the data folder: the test's, not the user's."""
    monkeypatch.setenv("TANKREF_DATA_DIR", str(tmp_path / "data"))


def _demo_lines(url: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["demo", "--url", url, "--turns", "2", "--seed", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # The table id and its URL differ per run; everything the referee decided must not.
    return [ln for ln in lines if not ln.startswith("Table ") and "/tables/" not in ln]


def test_demo_plays_a_seeded_game_through_the_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo sets up, plays two turns over HTTP and prints every result; the same seed
    prints the same game."""
    with live_referee(tmp_path / "demo.sqlite3") as live:
        first = _demo_lines(live.url, capsys)
        second = _demo_lines(live.url, capsys)
    text = "\n".join(first)
    assert "-- Turn 1, Red's phase --" in text
    assert "-- Turn 2, Blue's phase --" in text
    assert "engages" in text and "Accuracy:" in text
    assert "R1 -> B" in text and "destroy" in text  # the odds shown before each shot
    assert "crew roll" in text
    assert first == second


def test_demo_with_a_dead_url_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """Given a URL where nothing answers, the demo says so and exits 1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["demo", "--url", f"http://127.0.0.1:{port}"]) == 1
    assert "no referee answers" in capsys.readouterr().err


def test_demo_without_a_url_runs_its_own_referee(tmp_path: Path) -> None:
    """With no referee on the default port, `tankref demo` starts one on a temporary
    database, plays, and stops it."""
    done = subprocess.run(
        [sys.executable, "-m", "tankref", "demo", "--turns", "1"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "-- Turn 1, Red's phase --" in done.stdout
    assert "Started a referee" in done.stdout or "already running" in done.stdout
