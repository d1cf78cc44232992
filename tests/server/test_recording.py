"""The referee's recording, made with less work (issue 18), writes what it wrote before: an
event's time is ``datetime``'s own text; the chain's link is the documented recipe's; an event's row
is the dataclass's own; a shot's numbered line is ``model_copy``'s. A write no one waits on
wakes no one, and whoever comes to wait later still waits for the next write."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import random
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import to_json

from tankref.core import chain
from tankref.core.scene import LineOfFire
from tankref.server.referee import _at, _now, _numbered
from tankref.server.store import EventRow, event_row
from trustkit import long_game, open_referee

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def datetime_text(ns: int) -> str:
    """What the referee wrote before: ``datetime.now(UTC)`` (the clock floored to the
    microsecond) in ``isoformat(timespec="milliseconds")``."""
    return (EPOCH + timedelta(microseconds=ns // 1000)).isoformat(timespec="milliseconds")


def test_an_event_s_time_is_datetime_s_own_text() -> None:
    rng = random.Random(18)
    second = 1_764_000_000 * 10**9
    edges = [0, 999_999, 1_000_000, 10**9 - 1, 10**9, second - 1, second, second + 999_999_999]
    # at random, and then forwards and backwards across seconds (a clock set back)
    later = [rng.randrange(0, 4 * 10**18) for _ in range(20_000)]
    near = [second + rng.randrange(-3 * 10**9, 3 * 10**9) for _ in range(20_000)]
    for ns in [*edges, *later, *near, *edges]:
        assert _at(ns) == datetime_text(ns), ns


def test_now_reads_the_clock_datetime_reads() -> None:
    for _ in range(1000):
        before = _now()
        text = datetime.now(UTC).isoformat(timespec="milliseconds")
        after = _now()
        assert before <= text <= after  # the same format: text order is time order


TEXT = st.text(max_size=30)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
HEX = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


@settings(max_examples=300, deadline=None)
@given(
    previous=HEX,
    seq=st.integers(min_value=1, max_value=2**53),
    kind=TEXT,
    request_id=st.none() | TEXT,
    action=st.dictionaries(TEXT, JSON, max_size=5),
    dice=st.none() | st.dictionaries(TEXT, JSON, max_size=3),
    result_sha256=HEX,
    state_sha256=st.none() | HEX,
    version=TEXT,
    at=TEXT,
    chat=st.lists(TEXT, max_size=3),
)
def test_the_link_is_the_documented_recipe(previous: str, **event: Any) -> None:
    """``chain.link`` (its encoder made once, its keys given sorted) hashes the text the
    recipe names: the link before, and the event's ``json.dumps`` with sorted keys and no
    spaces. Every log written before keeps verifying."""
    text = json.dumps(event, sort_keys=True, separators=(",", ":"))
    expected = hashlib.sha256(f"tankref.event\n{previous}\n{text}".encode()).hexdigest()
    assert chain.link(previous, **event) == expected


def test_an_event_row_is_the_dataclass_s_own() -> None:
    values: dict[str, Any] = {
        "table_id": "t1",
        "seq": 7,
        "request_id": None,
        "request_sha256": "a" * 64,
        "action": {"kind": "engage", "tank_id": "R1"},
        "dice": {"faces": {"white": [6]}},
        "entry": "{}",
        "result_sha256": "b" * 64,
        "state_sha256": None,
        "version": "v",
        "created_at": "2026-12-06T10:00:00.000+00:00",
    }
    row = event_row(**values)
    made = EventRow(**values)
    assert row == made and repr(row) == repr(made)
    assert list(vars(row).items()) == list(vars(made).items())
    assert dataclasses.asdict(row) == dataclasses.asdict(made)
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.seq = 8  # type: ignore[misc]


@pytest.mark.parametrize("seq_given", [False, True])
def test_a_numbered_line_is_model_copy_s(seq_given: bool) -> None:
    fields: dict[str, Any] = {
        "shooter_id": "R1",
        "target_id": "B1",
        "x1": 0.0,
        "z1": -16.0,
        "x2": 3.5,
        "z2": 20.0,
        "label": "R1 → B1: hit",
    }
    line = LineOfFire(**fields, **({"seq": 3} if seq_given else {}))
    kept = (dict(line.__dict__), set(line.model_fields_set))
    numbered, copied = _numbered(line, 12), line.model_copy(update={"seq": 12})
    assert numbered is not line and numbered == copied
    assert to_json(numbered) == to_json(copied)
    assert numbered.model_fields_set == copied.model_fields_set
    assert (line.__dict__, line.model_fields_set) == kept  # the line it copied is untouched


def test_a_write_wakes_its_waiters_and_a_later_waiter_waits_for_the_next(tmp_path: Path) -> None:
    ref = open_referee(tmp_path / "wake.sqlite3")
    table_id = long_game(ref, events=3)
    host = ref.host(table_id)
    end_phase = host.rules.parse_action({"kind": "end_phase"})

    async def write(n: int) -> None:
        await ref.submit(host, request_id=f"w{n}", request={"n": n}, build=lambda _: end_phase)

    async def scenario() -> None:
        waiter = asyncio.create_task(host.wait_after(host.seq, 10))
        while host.watchers < 1:
            await asyncio.sleep(0)
        await write(1)
        await asyncio.wait_for(waiter, 5)  # woken by the write, long before its 10 s
        assert host.watchers == 0
        await write(2)  # no one waits on this one
        seq = host.seq
        started = time.monotonic()
        await host.wait_after(seq, 0.2)  # nothing new after it: waits its whole time
        assert time.monotonic() - started >= 0.19
        late = asyncio.create_task(host.wait_after(seq, 10))
        while host.watchers < 1:
            await asyncio.sleep(0)
        await write(3)
        await asyncio.wait_for(late, 5)
        assert host.seq == seq + 1

    asyncio.run(scenario())
