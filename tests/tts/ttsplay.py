"""Two players at the fake TTS table: they only use what TTS shows them (the board's buttons,
a tank's right-click menu, the Fire buttons over targets, dragging models). To decide, they
read the referee the way a player reads a tooltip or the browser page (GET requests only);
every write goes through the Lua scripts, except the one the test says comes from another
device."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from faketts import FakeTTS

# tts_table(url, keep=..., seed=..., physics=..., moves=...): see conftest.py
Table = Callable[..., FakeTTS]


@dataclass
class Game:
    tts: FakeTTS
    url: str
    board: str
    log: list[str] = field(default_factory=list)

    # --- reading (what the players can see) ------------------------------------------------
    @property
    def saved(self) -> dict[str, Any]:
        """Global's saved state (onSave), as TTS keeps it in the save."""
        state: dict[str, Any] = json.loads(self.tts.save()["LuaScriptState"])
        return state

    @property
    def table_id(self) -> str:
        return str(self.saved["table_id"])

    def read(self, rest: str = "") -> Any:
        reply = httpx.get(f"{self.url}/tables/{self.table_id}{rest}", timeout=10)
        assert reply.status_code == 200, reply.text
        return reply.json()

    def options(self, guid: str) -> dict[str, dict[str, Any]]:
        return {o["kind"]: o for o in self.read(f"/tanks/{guid}/options")}

    def allowed(self, guid: str, kind: str) -> bool:
        option = self.options(guid).get(kind)
        return bool(option and option["allowed"])

    def summary(self) -> dict[str, Any]:
        table: dict[str, Any] = self.read()["table"]
        return table

    # --- doing (through the Lua) -----------------------------------------------------------
    def press(self, label: str) -> None:
        self.tts.click(self.board, label)
        self.tts.settle()

    def begin(self) -> None:
        """New table, crew roll, start: the first turn's first phase, as the host plays it."""
        for label in ("New table", "Crew roll", "Start game"):
            self.press(label)

    def seat(self, guid: str) -> str:
        """The seat of the model's side (its side: tag): its own player gives its orders."""
        side = next((t[5:] for t in self.tts.get(guid).tags if t.startswith("side:")), "Red")
        return side if side in ("Red", "Blue") else "Red"

    def order(self, guid: str, item: str) -> None:
        self.tts.menu(guid, item, color=self.seat(guid))
        self.tts.settle()

    def engage(self, shooter: str, target: str) -> None:
        self.order(shooter, "Engage")
        self.tts.click(target, "Fire", color=self.seat(shooter))
        self.tts.settle()

    def drive(self, guid: str, x: float, z: float, yaw: float | None = None) -> None:
        self.tts.drop(guid, x, z, yaw, color=self.seat(guid))
        self.tts.settle()

    def toward(self, guid: str, target: str, inches: float) -> None:
        """Drive straight at the target, ``inches`` at most, ending facing it."""
        a, b = self.tts.get(guid).position, self.tts.get(target).position
        dx, dz = b[0] - a[0], b[2] - a[2]
        dist = math.hypot(dx, dz)
        k = min(inches, max(0.0, dist - 8)) / dist
        yaw = math.degrees(math.atan2(dx, dz)) % 360
        self.drive(guid, round(a[0] + dx * k, 2), round(a[2] + dz * k, 2), round(yaw, 1))


def fight(game: Game, own: str, enemy: str) -> None:
    """A tank's phase: recover if it must, engage if it may."""
    if game.allowed(own, "recover"):
        game.order(own, "Recover")
    if game.allowed(own, "engage"):
        game.engage(own, enemy)


def guid_of(tts: FakeTTS, nickname: str) -> str:
    """The GUID of the piece whose name starts with ``nickname`` (e.g. "Red 1")."""
    for obj in tts.objects.values():
        if obj.nickname.startswith(nickname) or obj.nickname.startswith(nickname + ":"):
            return obj.guid
    raise KeyError(nickname)
