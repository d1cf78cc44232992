"""Ctrl+C in a real terminal: the command runs on a pseudo-terminal as its foreground
process group, \\x03 is typed into it, and the terminal (not the test) sends SIGINT, as it
does for a player. The command stops with one line and exit 0, never a traceback.

SIGINT may be ignored where the tests run (CI starts jobs so); the child puts the default
back before it starts, as a shell in a terminal does."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from serverkit import free_port
from tankref import cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pseudo-terminals")


def _in_the_terminal() -> None:  # in the child, between fork and exec
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)  # the pty is its controlling terminal


class Terminal:
    """A command on a pseudo-terminal: what it printed, and a keyboard."""

    def __init__(self, proc: subprocess.Popen[bytes], master: int) -> None:
        self.proc = proc
        self.master = master
        self.text = ""

    def read_until(self, words: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while words not in self.text:
            left = deadline - time.monotonic()
            assert left > 0 and self._read(left), f"never printed {words!r}:\n{self.text}"
        return self.text

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 4096)
        except OSError:  # EIO: the other side is closed
            return False
        self.text += chunk.decode(errors="replace")
        return bool(chunk)

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def finish(self, timeout: float = 60) -> int:
        """Everything it prints until it exits (the terminal then reads as closed); its
        exit status."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._read(deadline - time.monotonic()):
            pass
        return self.proc.wait(timeout=max(1.0, deadline - time.monotonic()))


@contextmanager
def terminal(*argv: str, env: dict[str, str] | None = None) -> Iterator[Terminal]:
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tankref", *argv],
        stdin=slave, stdout=slave, stderr=slave,
        start_new_session=True,  # its own session, so the pty can be its terminal
        preexec_fn=_in_the_terminal,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    os.close(slave)
    try:
        yield Terminal(proc, master)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        os.close(master)


def after(text: str, marker: str) -> list[str]:
    """The lines printed after the one holding ``marker``, without the terminal's echo of
    Ctrl+C (``^C``)."""
    rest = text.split(marker, 1)[1].split("\n", 1)[1] if marker in text else text
    lines = [ln.replace("^C", "").strip() for ln in rest.replace("\r", "").split("\n")]
    return [ln for ln in lines if ln]


def _up(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=1.0).status_code == 200
    except httpx.HTTPError:
        return False


def test_ctrl_c_stops_serve_with_one_line_and_exit_0(tmp_path: Path) -> None:
    """`tankref serve`, Ctrl+C typed in its terminal: one line naming the database that holds
    every acknowledged action, exit 0, no traceback; the table made before it is in the file."""
    db = tmp_path / "ref.sqlite3"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with terminal("serve", "--port", str(port), "--db", str(db)) as term:
        term.read_until("Ctrl+C stops it")
        deadline = time.monotonic() + 30
        while not _up(url):
            assert time.monotonic() < deadline and term.proc.poll() is None, term.text
            time.sleep(0.05)
        made = httpx.post(f"{url}/tables", json={}, timeout=30)
        assert made.status_code == 201
        term.type(b"\x03")
        code = term.finish()
    assert code == 0, term.text
    assert "Traceback" not in term.text and "KeyboardInterrupt" not in term.text
    assert after(term.text, "Ctrl+C stops it") == [
        f"Stopped; every acknowledged action is in {db}."
    ], term.text
    from tankref.server.store import EventStore

    store = EventStore(db)
    try:
        assert made.json()["table_id"] in store.table_ids()
    finally:
        store.close()


def _no_default_referee() -> None:
    if _up("http://127.0.0.1:8765"):
        pytest.skip("a referee runs on the default port: the demo would use it")


@pytest.mark.parametrize(
    ("key", "last_line"),
    [
        (b"\x03", "Demo stopped."),
        (b"\r", "The demo's referee stops now; `tankref serve` runs one that keeps its tables."),
    ],
    ids=["ctrl-c", "enter"],
)
def test_the_demos_own_referee_stays_up_until_enter_or_ctrl_c(
    tmp_path: Path, key: bytes, last_line: str
) -> None:
    """With no referee running, the demo's temporary one stays up after the game so the
    printed links work (the log URL answers), until Enter or Ctrl+C: then one line, exit 0,
    and the referee is gone."""
    _no_default_referee()
    with terminal("demo", "--turns", "1", env={"TANKREF_DATA_DIR": str(tmp_path / "data")}) as term:
        text = term.read_until("press Enter or Ctrl+C to stop it", timeout=120)
        log_url = next(w for ln in text.splitlines() for w in ln.split() if w.endswith("/log"))
        base = log_url.split("/tables/")[0]
        assert httpx.get(log_url, timeout=10).status_code == 200  # the printed link works
        term.type(key)
        code = term.finish()
    assert code == 0, term.text
    assert "Traceback" not in term.text and "KeyboardInterrupt" not in term.text
    assert after(term.text, "press Enter or Ctrl+C to stop it") == [last_line], term.text
    assert not _up(base)


def test_ctrl_c_in_a_long_command_is_one_line(tmp_path: Path) -> None:
    """Any long command (here a thousand self-played games): Ctrl+C, one line, exit 0."""
    with terminal("selfplay", "--games", "1000") as term:
        term.read_until("== game 2 ==", timeout=120)
        term.type(b"\x03")
        code = term.finish()
    assert code == 0, term.text
    assert "Traceback" not in term.text
    assert after(term.text, "== game 1 ==")[-1] == "Stopped."


class _SwallowsCtrlC:
    """Its finaliser gets the Ctrl+C; CPython reports it as "unraisable" and goes on, as
    pydantic-core's serialiser does with one that lands in a model's isinstance check."""

    def __del__(self) -> None:
        raise KeyboardInterrupt


def test_a_ctrl_c_that_c_code_swallowed_still_stops_the_command() -> None:
    """The hook the commands run under raises a swallowed Ctrl+C again, in the main thread,
    instead of printing a traceback and going on (seen: a thousand-game selfplay that
    printed one and played every game)."""
    kept = sys.unraisablehook
    sys.unraisablehook = cli._ctrl_c_kept
    try:
        with pytest.raises(KeyboardInterrupt):
            _SwallowsCtrlC()  # dropped at once: its finaliser runs now
            for _ in range(2000):
                time.sleep(0.001)
    finally:
        sys.unraisablehook = kept
    assert sys.unraisablehook is kept
