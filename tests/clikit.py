"""Running ``tankref`` in-process for a test: the exit code and what it wrote."""

from __future__ import annotations

import pytest

from tankref.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``tankref ARGV...`` through ``main``: (exit code, stdout, stderr)."""
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err
