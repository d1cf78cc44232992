"""`tankref demo`: a short seeded game played through the HTTP API, printed turn by turn.

It is how a newcomer sees the referee work without Tabletop Simulator: the same requests
TTS sends (put a tank where it stands, post an action), the same replies (chat lines with
the math). If no referee answers at the URL, it starts one on a temporary database.
"""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

Say = Callable[[str], None]

# Red: Tiger I and Panzer IV H from the south edge; Blue: two Shermans and a T-34/85 from
# the north; a wood and a building between them.
RED = (("R1", "tiger-i", -8.0), ("R2", "panzer-iv-h", 10.0))
BLUE = (("B1", "m4a1-sherman", -12.0), ("B2", "m4a1-sherman", 4.0), ("B3", "t-34-85", 16.0))
TERRAIN = (
    (
        "wood",
        {
            "kind": "forest",
            "name": "Hollow Wood",
            "shape": {"shape": "circle", "x": -14, "z": 0, "radius": 5},
        },
    ),
    (
        "farmhouse",
        {
            "kind": "blocking",
            "name": "Farmhouse",
            "shape": {"shape": "polygon", "points": [[6, -3], [12, -3], [12, 3], [6, 3]]},
        },
    ),
)


class DemoError(RuntimeError):
    pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def referee_url(text: str) -> str:
    """A referee's address as typed (``127.0.0.1:8765``, ``localhost:8765/``, a full URL):
    http:// when no scheme is given, no trailing slash."""
    text = text.strip()
    if "://" not in text:
        text = f"http://{text}"
    try:
        url = httpx.URL(text)
    except httpx.InvalidURL as exc:
        raise DemoError(f"--url {text!r} is not an address: {exc}") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise DemoError(f"--url {text!r}: give http://HOST:PORT, e.g. http://127.0.0.1:8765")
    if url.port is not None and not 1 <= url.port <= 65535:
        raise DemoError(f"--url {text!r}: a port is 1 to 65535, got {url.port}")
    return text.rstrip("/")


# --- the demo tables' tokens, kept for `tankref tables end|delete` ---------------------------


def load_tokens(path: Path) -> dict[str, dict[str, str]]:
    """Table id -> {"url", "token"} of the demo tables made on a referee that keeps them."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # none yet, or unreadable: no tokens known
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        str(k): {"url": str(v.get("url", "")), "token": str(v.get("token", ""))}
        for k, v in data.items()
        if isinstance(v, dict)
    }


def save_tokens(path: Path, tokens: dict[str, dict[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Tokens are write credentials: readable by this user only (where the OS has modes).
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(tokens, out, indent=2)


def _up(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=1.0).status_code == 200
    except httpx.HTTPError:
        return False


@dataclass(frozen=True)
class Where:
    url: str
    temporary: bool  # started here, on a temporary database: its tables go with it


@contextmanager
def referee_at(url: str | None, say: Say, *, linger: bool = True) -> Iterator[Where]:
    """A running referee: the one given, or the default, or one started here. One started
    here stays up after the demo until Enter or Ctrl+C (``linger``, on a terminal), so the
    links the demo printed work."""
    if url is not None:
        url = referee_url(url)
        if not _up(url):
            raise DemoError(f"no referee answers at {url} (start one: tankref serve)")
        yield Where(url, temporary=False)
        return
    default = "http://127.0.0.1:8765"
    if _up(default):
        say(f"Using the referee already running at {default}.")
        yield Where(default, temporary=False)
        return
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="tankref-demo-") as folder:
        cmd = [
            sys.executable,
            "-m",
            "tankref",
            "serve",
            "--port",
            str(port),
            "--db",
            str(Path(folder) / "demo.sqlite3"),
            "--log-level",
            "warning",
        ]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        started = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while not _up(started):
                if proc.poll() is not None or time.monotonic() > deadline:
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    raise DemoError(f"the referee did not start: {err.strip()}")
                time.sleep(0.1)
            say(f"Started a referee for this demo at {started} (temporary database).")
            yield Where(started, temporary=True)
            if linger and sys.stdin is not None and sys.stdin.isatty():
                say(
                    f"The demo's referee stays up so the links above work ({started}/ is the "
                    "live page): press Enter or Ctrl+C to stop it. It keeps no tables; "
                    "`tankref serve` runs one that does."
                )
                with suppress(EOFError):
                    input()
            say("The demo's referee stops now; `tankref serve` runs one that keeps its tables.")
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


class DemoTable:
    def __init__(self, client: httpx.Client, say: Say) -> None:
        self.client = client
        self.say = say
        self.table_id = ""
        self.count = 0

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        reply = self.client.request(method, path, json=body)
        try:
            data = reply.json()
        except ValueError:  # something else answers at that address
            raise DemoError(
                f"{method} {path}: {reply.status_code}, not a tankref referee's reply"
            ) from None
        if reply.status_code >= 400:
            message = data.get("message") if isinstance(data, dict) else data
            raise DemoError(f"{method} {path}: {reply.status_code} {message}")
        return data

    def create(self, seed: int) -> str:
        """The demo's table (marked as a demo table); its token, for the caller to keep."""
        made = self.call(
            "POST",
            "/tables",
            {"ruleset": "ttt", "setup": {"scenario": {"kind": "meeting"}},
             "dice": {"seed": f"tankref-demo-{seed:04d}"}, "demo": True},
        )  # fmt: skip
        self.table_id = made["table_id"]
        token: str = made["token"]
        self.client.headers["Authorization"] = f"Bearer {made['token']}"
        self.say(
            f"Table {self.table_id}: TinyTableTopTanks, Meeting Engagement. "
            f"Dice commitment {made['dice']['commitment'][:16]}..."
        )
        return token

    def act(self, action: dict[str, Any]) -> dict[str, Any]:
        self.count += 1
        reply: dict[str, Any] = self.call(
            "POST",
            f"/tables/{self.table_id}/actions",
            {"request_id": f"demo-{self.count}", "action": action},
        )
        self.show(reply)
        return reply

    def put(self, kind: str, item_id: str, body: dict[str, Any]) -> dict[str, Any]:
        reply: dict[str, Any] = self.call("PUT", f"/tables/{self.table_id}/{kind}/{item_id}", body)
        self.show(reply)
        return reply

    def show(self, reply: dict[str, Any]) -> None:
        entry = reply.get("entry")
        if entry:
            for line in entry["chat"]:
                self.say(f"  {line}")

    def read(self) -> dict[str, Any]:
        table: dict[str, Any] = self.call("GET", f"/tables/{self.table_id}")
        return table

    def options(self, tank_id: str) -> dict[str, dict[str, Any]]:
        got = self.call("GET", f"/tables/{self.table_id}/tanks/{tank_id}/options")
        return {o["kind"]: o for o in got if o["allowed"]}


def _toward(x: float, z: float, tx: float, tz: float, step: float) -> tuple[float, float, float]:
    dx, dz = tx - x, tz - z
    dist = math.hypot(dx, dz) or 1.0
    k = min(step, max(0.0, dist - 10.0)) / dist  # close in, but stop 10" short
    facing = math.degrees(math.atan2(dx, dz)) % 360  # yaw 0 faces +z
    return round(x + dx * k, 2), round(z + dz * k, 2), round(facing, 1)


def play(
    url: str, seed: int, turns: int, say: Say, keep: Callable[[str, str], None] | None = None
) -> dict[str, Any]:
    """``keep(table_id, token)``: told the demo table's token as soon as it exists."""
    with httpx.Client(base_url=url, timeout=30) as client:
        table = DemoTable(client, say)
        token = table.create(seed)
        if keep is not None:
            keep(table.table_id, token)
        say("Setup: terrain, then tanks where the models stand.")
        for piece_id, body in TERRAIN:
            table.put("terrain", piece_id, body)
        for player, edge_z, facing, tanks in (
            ("Red", -21.0, 0.0, RED),
            ("Blue", 21.0, 180.0, BLUE),
        ):
            for tank_id, card, x in tanks:
                table.put(
                    "tanks",
                    tank_id,
                    {"card": card, "player": player, "x": x, "z": edge_z, "facing": facing},
                )
        table.act({"kind": "crew_roll"})
        table.act({"kind": "start_game"})
        while True:
            state = table.read()
            summary = state["table"]
            if summary["status"] != "playing" or summary["turn"] > turns:
                break
            player = summary["active_player"]
            say(f"-- Turn {summary['turn']}, {player}'s phase --")
            for tank in state["tanks"]:
                if tank["player"] == player and tank["in_play"]:
                    _tank_turn(table, tank, state)
                    if table.read()["table"]["status"] != "playing":
                        break
            if table.read()["table"]["status"] == "playing":
                table.act({"kind": "end_phase", "player": player})
        final = table.read()
        summary = final["table"]
        if summary["status"] == "over":
            say(f"Game over: {summary['reason']}")
        else:
            say(f"The demo stops after {turns} turns.")
        for tank in final["tanks"]:
            status = ", ".join(tank["markers"]) or "fighting"
            say(f"  {tank['name']} ({tank['tank_id']}, {tank['player']}): {status}")
        say(f"Every result above is in the table's log: {url}/tables/{table.table_id}/log")
        return final


def _tank_turn(table: DemoTable, tank: dict[str, Any], state: dict[str, Any]) -> None:
    allowed = table.options(tank["tank_id"])
    engage = allowed.get("engage")
    if engage is None and "move" in allowed and allowed["move"]["detail"]["normal"]:
        enemies = [t for t in state["tanks"] if t["player"] != tank["player"] and t["in_play"]]
        if enemies:
            near = min(enemies, key=lambda t: math.hypot(t["x"] - tank["x"], t["z"] - tank["z"]))
            step = float(allowed["move"]["detail"]["normal"]) * 0.9
            x, z, facing = _toward(tank["x"], tank["z"], near["x"], near["z"], step)
            table.put(
                "tanks",
                tank["tank_id"],
                {"card": tank["card"], "player": tank["player"], "x": x, "z": z,
                 "facing": facing},
            )  # fmt: skip
            engage = table.options(tank["tank_id"]).get("engage")
    if engage is not None:
        targets = engage["detail"]["targets"]
        # The bot takes the likeliest kill (the odds come with the options, as TTS shows them).
        target = max(targets, key=lambda t: (t.get("p_destroyed", 0), -t["range"]))
        if "p_hit" in target:
            table.say(
                f"  {tank['tank_id']} -> {target['target_id']}: hit {target['p_hit']:.0%}, "
                f"penetrate {target['p_penetrate']:.0%}, destroy {target['p_destroyed']:.0%}"
            )
        table.act({"kind": "engage", "tank_id": tank["tank_id"], "target_id": target["target_id"]})
    elif "recover" in allowed:
        table.act({"kind": "recover", "tank_id": tank["tank_id"]})


def run_demo(
    url: str | None, seed: int, turns: int, say: Say = print, tokens: Path | None = None
) -> int:
    """``tokens``: where the demo tables' tokens are kept (on a referee that keeps tables)."""
    try:
        with referee_at(url, say) as where:

            def keep(table_id: str, token: str) -> None:
                if tokens is None or where.temporary:
                    return
                known = load_tokens(tokens)
                known[table_id] = {"url": where.url, "token": token}
                save_tokens(tokens, known)

            final = play(where.url, seed, turns, say, keep)
            if not where.temporary:
                table_id = final["table_id"]
                say(
                    f"Table {table_id} is a demo table and stays on this referee: "
                    f"`tankref tables end {table_id}` ends it, `tankref tables delete "
                    f"{table_id}` deletes it"
                    + (f" (its token is kept in {tokens})." if tokens is not None else ".")
                )
    except DemoError as exc:
        print(f"tankref demo: {exc}", file=sys.stderr)
        return 1
    except httpx.HTTPError as exc:
        print(f"tankref demo: the referee stopped answering: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # the tokens' file cannot be written
        print(f"tankref demo: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("Demo stopped.", flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(run_demo(os.environ.get("TANKREF_URL"), 1, 4))
