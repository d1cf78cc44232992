"""`tankref selfplay --ruleset mtc`: seeded Minimal Tank Combat games from the command line."""

from __future__ import annotations

import subprocess
import sys


def test_selfplay_command_plays_mtc_games() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tankref", "selfplay", "--ruleset", "mtc", "--games", "3"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [line for line in out.stdout.splitlines() if line.startswith("game ")]
    assert len(lines) == 3 and all("actions" in line for line in lines)
    bad = subprocess.run(
        [sys.executable, "-m", "tankref", "selfplay", "--ruleset", "nope"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "known:" in bad.stderr and "mtc" in bad.stderr
