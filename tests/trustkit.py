"""Long seeded games driven through the real ``Referee`` (in process, real SQLite), with the
odd undo and void among the actions: for the replay tests and ``bench/replay.py``."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from tankref.core.verify import chain_links, read_export
from tankref.server.errors import ApiError
from tankref.server.referee import Referee, TableHost
from tankref.server.schemas import CreateTable
from tankref.server.store import EventStore

SIDES = {"Red": (-20.0, 0.0), "Blue": (20.0, 180.0)}  # z and facing of each side's line


def open_referee(db: Path, *, fast: bool = True) -> Referee:
    store = EventStore(db)
    if fast:  # building a test game: durability on every event is not what is measured
        store.db.execute("PRAGMA synchronous=OFF")
    return Referee(store)


def long_game(ref: Referee, *, events: int, seed: int = 1, card: str = "churchill-vii") -> str:
    """A started 5 v 5 game on server dice (turn limit 200) played by seeded random sides
    until the log holds at least ``events`` events; some waits are undone and some shots
    voided by both players (a few void requests lapse). Returns the table id."""
    created = ref.create_table(
        CreateTable.model_validate(
            {
                "setup": {"options": {"turn_limit": 200}},
                "dice": {"seed": f"trustkit-{seed}", "player_seeds": {"Red": f"red-{seed}"}},
            }
        )
    )
    asyncio.run(_play(ref, ref.host(created.table_id), events, random.Random(seed), card))
    return created.table_id


async def _play(ref: Referee, host: TableHost, events: int, rng: random.Random, card: str) -> None:
    n = 0

    async def act(action: dict[str, Any]) -> dict[str, Any] | None:
        nonlocal n
        n += 1
        try:
            parsed = host.rules.parse_action(action)
            await ref.submit(host, request_id=f"a{n}", request=action, build=lambda _: parsed)
        except ApiError:
            return None  # a refused move: the sides try something else
        return action

    async def control(action: dict[str, Any]) -> None:
        nonlocal n
        n += 1
        await ref.control(host, request_id=f"c{n}", action=action)

    for player, (z, facing) in SIDES.items():
        for i, x in enumerate((-20.0, -10.0, 0.0, 10.0, 20.0)):
            tank = f"{player[0]}{i + 1}"
            await act(
                {"kind": "place_tank", "tank_id": tank, "card": card, "player": player}
                | {"x": x, "z": z, "facing": facing}
            )
    await act({"kind": "crew_roll"})
    await act({"kind": "start_game"})
    while host.seq < events and host.summary().status == "playing":
        player = host.summary().active_player
        for view in host.rules.tank_views(host.state):
            if view.player != player or not view.in_play or host.seq >= events:
                continue
            allowed = {
                o["kind"]: o
                for o in host.rules.options_for(host.state, view.tank_id)
                if o["allowed"]
            }
            roll = rng.random()
            if "engage" in allowed and roll < 0.2:
                target = rng.choice(allowed["engage"]["detail"]["targets"])["target_id"]
                await act({"kind": "engage", "tank_id": view.tank_id, "target_id": target})
                shot = host.seq
                if rng.random() < 0.04:  # both players void the shot
                    for who, cred in (("Red", "table"), ("Blue", "seat")):
                        await control(
                            {"control": "void", "seq": shot, "player": who, "credential": cred}
                        )
                elif rng.random() < 0.03:  # one asks; the next action lapses the request
                    await control(
                        {"control": "void", "seq": shot, "player": player, "credential": "table"}
                    )
            elif "recover" in allowed:
                await act({"kind": "recover", "tank_id": view.tank_id})
            elif "move" in allowed and roll < 0.8:
                step = rng.uniform(-1.5, 1.5)
                await act(
                    {"kind": "move", "tank_id": view.tank_id, "x": view.x + step}
                    | {"z": view.z, "facing": view.facing}
                )
            elif "wait" in allowed:
                await act({"kind": "wait", "tank_id": view.tank_id})
                if rng.random() < 0.1:
                    await control({"control": "undo"})
        if host.summary().status == "playing" and host.seq < events:
            await act({"kind": "end_phase", "player": player})


def rechain(doc: dict[str, Any]) -> None:
    """What a forger who knows the format does after an edit: every link and the head computed
    again with the public chain formula, so the export is consistent with itself."""
    links = chain_links(read_export(doc))
    for i, event in enumerate(doc["events"]):
        event["previous_sha256"], event["chain_sha256"] = links[i], links[i + 1]
    doc["table"]["head_sha256"] = links[-1]
    doc["table"]["last_seq"] = doc["events"][-1]["seq"]
