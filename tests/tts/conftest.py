"""Fixtures for the TTS script tests: a live referee and tables loaded from our own save."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from faketts import FakeTTS
from ttsplay import Table

from serverkit import LiveReferee, live_referee
from tankref.tts.save import build_save


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveReferee]:
    """One real referee (uvicorn, SQLite in a temporary folder) per test module."""
    with live_referee(tmp_path_factory.mktemp("referee") / "referee.sqlite3") as live:
        yield live


@pytest.fixture
def tts_table() -> Iterator[Table]:
    """``tts_table(url, keep=..., seed=..., physics=..., moves=..., ruleset=...)``: the save
    `tankref tts-save --ruleset` writes, with the players' changes before loading (pieces
    taken away, the referee seed for a reproducible game), loaded into the fake TTS."""
    made: list[FakeTTS] = []

    def make(
        url: str,
        *,
        keep: tuple[str, ...] | None = None,
        seed: str | None = None,
        physics: int = 1,
        moves: dict[str, tuple[float, float, float]] | None = None,
        state: dict[str, Any] | None = None,
        ruleset: str = "ttt",
    ) -> FakeTTS:
        save = build_save(url, ruleset)
        objects = []
        for obj in save["ObjectStates"]:
            if (
                keep is not None
                and "tank" in obj["Tags"]
                and obj["Nickname"].split(":")[0] not in keep
            ):
                continue
            where = (moves or {}).get(obj["Nickname"].split(":")[0])
            if where is not None:
                t = obj["Transform"]
                t["posX"], t["posZ"], t["rotY"] = where
            objects.append(obj)
        save["ObjectStates"] = objects
        global_state = json.loads(save["LuaScriptState"])
        if seed is not None:
            global_state["seed"] = seed
        global_state.update(state or {})
        save["LuaScriptState"] = json.dumps(global_state)
        tts = FakeTTS.from_save(save, seed=physics)
        made.append(tts)
        # Loaded: the board has asked the referee what its rulesets are (GET /rulesets) and
        # has its answer, as a player finds it when they first look at it.
        tts.settle()
        return tts

    yield make
    for tts in made:
        tts.close()
