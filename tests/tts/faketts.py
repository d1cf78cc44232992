"""A fake of the Tabletop Simulator scripting API, faithful where our scripts depend on it.

Each script (Global, and every object that has one) runs in its own real Lua 5.2 runtime
(lupa), as TTS gives each script its own environment. What the scripts can reach is only what
``api-names.json`` lists (the real API's names): other globals are removed, and every object
or request handed to Lua refuses any attribute not in its class's list.

As documented for TTS (see /work/shared/tts/FACTS.md):
- ``WebRequest`` does REAL HTTP (httpx, in worker threads) and delivers the callback on a later
  tick, on the main thread; a 4xx/5xx reply does not set ``is_error``; a network failure does.
  ``dispose()`` abandons a request (its callback never runs).
- ``JSON.encode`` turns an empty table into ``[]``; ``JSON.decode`` drops nulls.
- ``Wait.time`` / ``Wait.frames`` / ``Wait.condition`` run from a tick loop; ``Wait.stop``.
- ``error()`` accepts only a string (MoonSharp).
- Dice settle some frames after ``roll()``; their face comes from the fake's own seeded
  physics (``random.Random(seed)``), which is the table's dice, not the referee's.

Seats and the table's behaviour (FACTS.md "The table, the physical world and seats", from the
API docs ``events.md``, ``player/instance.md``, ``object.md``, ``base.md``):
- Every player callback carries the seat colour (``onObjectDrop(player_color, obj)``, button
  ``(obj, player_clicker_color, alt_click)``, menu ``(player_color, ...)``, ``onChat(message,
  sender)`` with a Player, ``onScriptingButtonDown(index, player_color)``); ``Player[colour]``
  has ``host``, ``promoted``, ``admin``, ``seated``, ``steam_name``, ``getPointerPosition()``.
- The Global context menu opens only on a point no object covers (the table or empty space).
- ``Global.setVectorLines`` replaces every Global line, players' Vector Paint included.
- A dropped or moved object rests only after it settles; a held object never rests; a
  destroyed object raises on any member but ``isDestroyed``; a non-interactable object cannot
  be picked up.
- ``onLoad`` runs again on rewind, with the older save's objects and script state.

The test plays the players: ``drop``, ``rotate``, ``menu`` (context menu item), ``click``
(a button), ``global_menu``; and reads what players see: names, descriptions, buttons,
highlights, vector lines, chat.
"""

from __future__ import annotations

import copy
import json
import math
import random
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fakeworld
import httpx
from lupa import lua52

API: dict[str, list[str]] = json.loads(
    (Path(__file__).with_name("api-names.json")).read_text(encoding="utf-8")
)["sections"]

# Stock Lua globals MoonSharp lacks (FACTS.md): removed from every runtime.
_MISSING_IN_MOONSHARP = ("io", "debug", "require", "load", "loadfile", "dofile", "package")


class LuaScriptError(RuntimeError):
    """A script raised (TTS would print it in red and carry on; a test should fail)."""


@dataclass
class Chat:
    text: str
    kind: str  # broadcast | print | log | player (typed by a player)
    to: str | None = None  # printToColor's player colour: only that player sees it


@dataclass
class _Timer:
    id: int
    runtime: Any
    fn: Any
    due_time: float | None = None
    due_frame: int | None = None
    condition: Any = None
    timeout_at: float | None = None
    timeout_fn: Any = None
    repeat: int = 1
    interval: float = 0.0


@dataclass
class _Http:
    view: Any
    runtime: Any
    callback: Any
    future: Future[Any]
    frame: int


@dataclass
class FakeObject:
    guid: str
    name: str = "BlockSquare"  # the TTS object type
    nickname: str = ""
    description: str = ""
    position: list[float] = field(default_factory=lambda: [0.0, 1.0, 0.0])
    rotation: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    scale: list[float] = field(default_factory=lambda: [1.0, 1.0, 1.0])
    tags: list[str] = field(default_factory=list)
    colour: list[float] = field(default_factory=lambda: [1.0, 1.0, 1.0])
    script: str = ""
    script_state: str = ""
    buttons: list[dict[str, Any]] = field(default_factory=list)
    menu: list[tuple[str, Any, Any]] = field(default_factory=list)  # label, fn, runtime
    highlight: list[float] | None = None
    vector_lines: list[Any] = field(default_factory=list)
    value: int = 1
    resting: bool = True
    settle_frame: int = 0
    settle_time: float = 0.0
    rolling: bool = False  # a die thrown by roll(): its face is decided when it settles
    held_by: str | None = None
    destroyed: bool = False
    interactable: bool = True
    runtime: Any = None


@dataclass
class FakePlayer:
    """A seat (TTS colour) and who sits there. A colour nobody holds is unseated."""

    colour: str
    seated: bool = True
    host: bool = False
    promoted: bool = False
    steam_name: str = ""
    pointer: list[float] = field(default_factory=lambda: [0.0, 1.0, 0.0])
    # Dialogs open on this player's screen: (description, options, default, callback).
    dialogs: list[tuple[str, list[str], Any, Any]] = field(default_factory=list)


# TTS's seat colours (Player.getColors() in player/manager.md); Grey is a spectator, Black the GM.
SEAT_COLOURS = (
    "White", "Brown", "Red", "Orange", "Yellow", "Green",
    "Teal", "Blue", "Purple", "Pink", "Grey", "Black",
)  # fmt: skip

# How long a dropped or moved model takes to come to rest (game seconds): long enough that a
# script posting 0.3 s after the drop would post a model still sliding.
SETTLE_SECONDS = 0.8


def default_players() -> dict[str, FakePlayer]:
    """Two players: Red hosts the game, Blue joined; a spectator watches in Grey."""
    return {
        "Red": FakePlayer("Red", host=True, steam_name="Rita"),
        "Blue": FakePlayer("Blue", steam_name="Bo"),
        "Grey": FakePlayer("Grey", seated=False, steam_name="Watcher"),
    }


class FakeTTS:
    """One table: objects, scripts, the tick loop, the network."""

    def __init__(self, *, seed: int = 1, frame_seconds: float = 0.002) -> None:
        self.players: dict[str, FakePlayer] = default_players()
        self.objects: dict[str, FakeObject] = {}
        self.world: fakeworld.World | None = None  # the physical world (fakeworld.py)
        self.global_script = ""
        self.global_state = ""
        self.global_runtime: Any = None
        self.global_lines: list[Any] = []
        self.save_lines: list[Any] = []
        self.global_menu_items: list[tuple[str, Any, Any]] = []
        self.chat: list[Chat] = []
        self.errors: list[str] = []
        self.frame = 0
        self._t0 = time.monotonic()
        self._skipped = 0.0
        self._frame_seconds = frame_seconds
        self._timers: dict[int, _Timer] = {}
        self._next_timer = 1
        self._http: list[_Http] = []
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="faketts-http")
        self._client = httpx.Client(timeout=60)
        self.requests: list[tuple[str, str, str]] = []  # method, url, body sent
        self.drop_replies: list[str] = []  # URL fragments: do the request, lose the reply
        self.physics = random.Random(seed)
        self.rolled: list[tuple[str, int]] = []  # (die guid, face) in order of settling
        self.most_polls = 0
        self._views: dict[tuple[int, str], ObjectView] = {}

    # --- time -------------------------------------------------------------------------------
    def now(self) -> float:
        return time.monotonic() - self._t0 + self._skipped

    def skip(self, seconds: float) -> None:
        """Let game time pass at once (nothing real happens faster)."""
        self._skipped += seconds
        self.tick()

    # --- loading ----------------------------------------------------------------------------
    @classmethod
    def from_save(cls, save: dict[str, Any], **kwargs: Any) -> FakeTTS:
        tts = cls(**kwargs)
        tts._load_objects(save)
        tts.global_script = save.get("LuaScript", "")
        tts.global_state = save.get("LuaScriptState", "")
        tts.load()
        return tts

    def _load_objects(self, save: dict[str, Any]) -> None:
        tts = self
        # The save's VectorLines (points3 and an r/g/b colour, the save format) are the Global
        # lines a script then reads with Global.getVectorLines() (points and a colour list).
        tts.global_lines = [_line_from_save(line) for line in save.get("VectorLines", [])]
        tts.save_lines = copy.deepcopy(tts.global_lines)  # for tests: what the save drew
        for state in save["ObjectStates"]:
            t = state["Transform"]
            obj = FakeObject(
                guid=state["GUID"],
                name=state["Name"],
                nickname=state.get("Nickname", ""),
                description=state.get("Description", ""),
                position=[t["posX"], t["posY"], t["posZ"]],
                rotation=[t["rotX"], t["rotY"], t["rotZ"]],
                scale=[t["scaleX"], t["scaleY"], t["scaleZ"]],
                tags=list(state.get("Tags", [])),
                script=state.get("LuaScript", ""),
                script_state=state.get("LuaScriptState", ""),
            )
            tts.objects[obj.guid] = obj
        if "Table" in save:  # a save with a table has a physical world (a hand-made one not)
            tts.world = fakeworld.World(save)
            tts.world.fall(tts)  # nothing under it: it falls and is lost

    def load(self) -> None:
        """Start every script as TTS does when a save is loaded: run it, then onLoad(state)."""
        self.global_runtime = self._runtime(None)
        self.global_runtime.execute(self.global_script)
        for obj in self.objects.values():
            if obj.script:
                obj.runtime = self._runtime(obj)
                obj.runtime.execute(obj.script)
        for obj in list(self.objects.values()):
            if obj.runtime is not None:
                self._call_event(obj.runtime, "onLoad", obj.script_state)
        self._call_event(self.global_runtime, "onLoad", self.global_state)
        self._raise_errors()

    def save(self) -> dict[str, Any]:
        """The save TTS would write now: every script's onSave() kept as its state."""
        state = self._call_event(self.global_runtime, "onSave")
        objects = []
        for obj in self.objects.values():
            if obj.destroyed:
                continue
            obj_state = obj.script_state
            if obj.runtime is not None and obj.runtime.globals().onSave is not None:
                obj_state = self._call_event(obj.runtime, "onSave") or ""
            objects.append(
                {
                    "GUID": obj.guid,
                    "Name": obj.name,
                    "Nickname": obj.nickname,
                    "Description": obj.description,
                    "Tags": list(obj.tags),
                    "Transform": dict(
                        zip(
                            ("posX", "posY", "posZ", "rotX", "rotY", "rotZ"),
                            obj.position + obj.rotation,
                            strict=True,
                        ),
                        scaleX=obj.scale[0],
                        scaleY=obj.scale[1],
                        scaleZ=obj.scale[2],
                    ),
                    "LuaScript": obj.script,
                    "LuaScriptState": obj_state,
                }
            )
        return {
            "SaveName": "fake",
            "LuaScript": self.global_script,
            "LuaScriptState": state or "",
            "ObjectStates": objects,
        }

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._client.close()

    # --- runtimes ---------------------------------------------------------------------------
    def _runtime(self, owner: FakeObject | None) -> Any:
        lua = lua52.LuaRuntime(
            unpack_returned_tuples=True, register_eval=False, attribute_filter=_filter
        )
        g = lua.globals()
        for name in _MISSING_IN_MOONSHARP:
            g[name] = None
        g.python = None
        # MoonSharp: error() takes a string only.
        # lupa 2.8 with Lua 5.2 can hand Lua the wrong Python object once userdata have been
        # collected (scoder/lupa#293: its weak reference table and luaL_ref disagree). A test
        # table lives for seconds: keep every userdata alive instead of risking that.
        lua.execute("collectgarbage('stop')")
        lua.execute(
            "local raw = error\n"
            "error = function(msg, level)\n"
            "  if type(msg) ~= 'string' then raw(\"bad argument #1 to 'error'\", 2) end\n"
            "  raw(msg, (level or 1) + 1)\n"
            "end\n"
            "unpack = table.unpack\n"
            "local keep = {clock = os.clock, date = os.date, difftime = os.difftime, "
            "time = os.time}\n"
            "os = keep\n"
        )
        api = _Api(self, lua)
        for name, value in api.globals().items():
            g[name] = value
        g["Global"] = self._global_view(lua)
        g["self"] = self.view(owner, lua) if owner is not None else g["Global"]
        allowed = set(API["/"]) | {"_G", "_VERSION"}
        for name in list(g.keys()):
            if name not in allowed:
                g[name] = None
        return lua

    def _global_view(self, lua: Any) -> GlobalView:
        return GlobalView(self, lua)

    def view(self, obj: FakeObject | None, lua: Any) -> ObjectView | None:
        if obj is None or obj.destroyed:
            return None
        key = (id(lua), obj.guid)
        if key not in self._views:
            self._views[key] = ObjectView(self, obj, lua)
        return self._views[key]

    def _call(self, lua: Any, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except Exception as exc:  # a script error: record it, as TTS prints it and goes on
            self.errors.append(f"{type(exc).__name__}: {exc}")
            return None

    def _call_event(self, lua: Any, name: str, *args: Any) -> Any:
        fn = lua.globals()[name]
        if fn is None:
            return None
        return self._call(lua, fn, *args)

    def _raise_errors(self) -> None:
        if self.errors:
            errors, self.errors = self.errors, []
            raise LuaScriptError("\n".join(errors))

    # --- the tick loop ----------------------------------------------------------------------
    def tick(self) -> None:
        self.frame += 1
        now = self.now()
        if self.world is not None:
            self.world.fall(self)
        for obj in self.objects.values():
            settled = self.frame >= obj.settle_frame and now >= obj.settle_time
            if obj.resting or obj.destroyed or obj.held_by is not None or not settled:
                continue  # a held object never rests
            obj.resting = True
            if obj.rolling:
                obj.rolling = False
                obj.value = self.physics.randint(1, 6)
                obj.rotation = [0.0, self.physics.uniform(0, 360), 0.0]
                self.rolled.append((obj.guid, obj.value))
        for request in list(self._http):
            if request.future.done() and self.frame > request.frame:
                self._http.remove(request)
                view = request.view
                if view._disposed:
                    continue
                view._finish(request.future)
                if view._dropped:
                    continue
                self._call(request.runtime, request.callback, view)
        for timer in sorted(self._timers.values(), key=lambda t: t.id):
            if timer.id not in self._timers:
                continue
            if timer.condition is not None:
                if self._call(timer.runtime, timer.condition):
                    del self._timers[timer.id]
                    self._call(timer.runtime, timer.fn)
                elif timer.timeout_at is not None and now >= timer.timeout_at:
                    del self._timers[timer.id]
                    if timer.timeout_fn is not None:
                        self._call(timer.runtime, timer.timeout_fn)
                continue
            due = (timer.due_time is not None and now >= timer.due_time) or (
                timer.due_frame is not None and self.frame >= timer.due_frame
            )
            if due:
                timer.repeat -= 1
                if timer.repeat == 0:
                    del self._timers[timer.id]
                elif timer.due_time is not None:
                    timer.due_time = now + timer.interval
                self._call(timer.runtime, timer.fn)

    def run(self, seconds: float = 0.2) -> None:
        """Tick for some real time."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.tick()
            time.sleep(self._frame_seconds)
        self._raise_errors()

    def run_until(self, done: Callable[[], bool], timeout: float = 15.0, what: str = "") -> None:
        """Tick until ``done()`` (checked every frame), failing after ``timeout`` real seconds."""
        end = time.monotonic() + timeout
        while not done():
            if time.monotonic() > end:
                raise TimeoutError(f"timed out waiting for {what or done}")
            self.tick()
            self._raise_errors()
            time.sleep(self._frame_seconds)

    def settle(self, timeout: float = 15.0) -> None:
        """Tick until no request other than the long-poll is in flight and no short timer is
        pending: everything a player action started has happened."""

        def quiet() -> bool:
            # Timers of a second or more (request timeouts, the line of fire fading, a
            # poll retry) are background; shorter ones are part of the action.
            short = [
                t
                for t in self._timers.values()
                if t.condition is not None or t.due_frame is not None or t.interval < 1.0
            ]
            busy = [r for r in self._http if "/events?" not in r.view.url]
            return not busy and not short

        self.run_until(quiet, timeout, "the table to settle")
        self.run(0.05)

    # --- the players' hands -----------------------------------------------------------------
    def get(self, guid: str) -> FakeObject:
        return self.objects[guid]

    def tagged(self, tag: str) -> list[FakeObject]:
        return [o for o in self.objects.values() if tag in o.tags and not o.destroyed]

    def drop(
        self, guid: str, x: float, z: float, yaw: float | None = None, color: str = "Red"
    ) -> None:
        """A player picks the model up, carries it to (x, z), maybe turns it, and drops it."""
        obj = self.objects[guid]
        self._call_event(self.global_runtime, "onObjectPickUp", color, self._gv(obj))
        obj.held_by = color
        obj.position = [x, obj.position[1], z]
        if yaw is not None:
            old = obj.rotation[1]
            obj.rotation = [obj.rotation[0], yaw, obj.rotation[2]]
            self._call_event(
                self.global_runtime, "onObjectRotate", self._gv(obj), yaw, 0, color, old, 0
            )
        obj.held_by = None
        self.unsettle(obj)
        self._call_event(self.global_runtime, "onObjectDrop", color, self._gv(obj))
        if obj.runtime is not None:
            self._call_event(obj.runtime, "onDrop", color)
        self._raise_errors()

    def unsettle(self, obj: FakeObject) -> None:
        """The object was put down or moved: physics moves it a while before it rests."""
        obj.resting = False
        obj.settle_time = max(obj.settle_time, self.now() + SETTLE_SECONDS)

    def rotate(self, guid: str, yaw: float, color: str = "Red") -> None:
        """A player turns a model where it stands (no pick-up)."""
        obj = self.objects[guid]
        old = obj.rotation[1]
        obj.rotation = [obj.rotation[0], yaw, obj.rotation[2]]
        self.unsettle(obj)
        self._call_event(
            self.global_runtime, "onObjectRotate", self._gv(obj), yaw, 0, color, old, 0
        )
        self._raise_errors()

    def menu(
        self, guid: str, label: str, color: str = "Red", at: tuple[float, float] | None = None
    ) -> None:
        """Right-click the model (at the point ``at`` on it, where the pointer then is) and
        choose the item whose label starts with ``label``."""
        obj = self.objects[guid]
        if at is not None:
            self.players_pointer(color, at)
        for item_label, fn, lua in obj.menu:
            if item_label.startswith(label):
                pos = _vector(lua, obj.position)
                self._call(lua, fn, color, pos, self.view(obj, lua))
                self._raise_errors()
                return
        raise KeyError(f"{guid} has no menu item {label!r}: {[m[0] for m in obj.menu]}")

    def covering(self, x: float, z: float) -> list[FakeObject]:
        """The objects whose footprint covers the point (a block is its scale in x and z,
        turned by its yaw; BlockSquare is a 1-unit cube at scale 1, FACTS.md)."""
        found = []
        for obj in self.objects.values():
            if obj.destroyed or obj.name.startswith("Table_"):
                continue
            yaw = math.radians(obj.rotation[1])
            dx, dz = x - obj.position[0], z - obj.position[2]
            # Into the object's own axes (Unity yaw turns +z toward +x).
            a = dx * math.cos(yaw) - dz * math.sin(yaw)
            b = dx * math.sin(yaw) + dz * math.cos(yaw)
            if abs(a) <= obj.scale[0] / 2 and abs(b) <= obj.scale[2] / 2:
                found.append(obj)
        return found

    def global_menu(self, label: str, color: str = "Red", at: tuple[float, float] = (0, 0)) -> None:
        """Right-click the table at ``at``: the Global menu opens only where no object covers
        the point (there the object's own menu opens instead)."""
        over = self.covering(*at)
        if over:
            raise MenuClosed(f"the Global menu does not open over {[o.guid for o in over]}")
        self.players_pointer(color, at)
        for item_label, fn, lua in self.global_menu_items:
            if item_label.startswith(label):
                self._call(lua, fn, color, _vector(lua, [at[0], 1.0, at[1]]))
                self._raise_errors()
                return
        raise KeyError(f"no global menu item {label!r}")

    def players_pointer(self, color: str, at: tuple[float, float]) -> None:
        self.player(color).pointer = [at[0], 1.0, at[1]]

    def player(self, color: str) -> FakePlayer:
        """Player[colour]: every colour exists; one nobody holds is unseated."""
        if color not in self.players:
            self.players[color] = FakePlayer(color, seated=False)
        return self.players[color]

    def say(self, message: str, color: str = "Red") -> bool:
        """A player types in chat: onChat(message, sender Player); False: the script hid it."""
        lua = self.global_runtime
        sender = PlayerView(self, self.player(color), lua)
        shown = self._call_event(lua, "onChat", message, sender)
        self._raise_errors()
        if shown is not False:
            self.chat.append(Chat(f"{color}: {message}", "player"))
        return shown is not False

    def choose(self, color: str, label: str) -> None:
        """The player at ``color`` picks ``label`` in the oldest dialog open on their screen."""
        _, labels, _, callback = self.player(color).dialogs.pop(0)
        self._call(self.global_runtime, callback, label, labels.index(label) + 1, color)
        self._raise_errors()
        self.settle()

    def scripting_key(
        self, index: int, color: str = "Red", at: tuple[float, float] = (0, 0)
    ) -> None:
        """The player points at (x, z) and presses scripting key ``index`` (numpad 1-10)."""
        self.players_pointer(color, at)
        self._call_event(self.global_runtime, "onScriptingButtonDown", index, color)
        self._raise_errors()

    def paint(self, points: list[tuple[float, float, float]], color: str = "Red") -> None:
        """A player draws with Vector Paint: a Global vector line (the save's VectorLines)."""
        rgb = {"Red": [0.86, 0.1, 0.09], "Blue": [0.12, 0.53, 1.0]}.get(color, [1.0, 1.0, 1.0])
        line = {"points": [list(p) for p in points], "color": rgb, "thickness": 0.1}
        self.global_lines.append(line)

    def grab(self, guid: str, color: str = "Red") -> bool:
        """A player picks the object up; a non-interactable one cannot be (False)."""
        obj = self.objects[guid]
        if not obj.interactable or obj.destroyed:
            return False
        self._call_event(self.global_runtime, "onObjectPickUp", color, self._gv(obj))
        obj.held_by = color
        obj.resting = False
        self._raise_errors()
        return True

    def release(self, guid: str) -> None:
        """The player lets go where the object is (no drop event for scripts to post)."""
        obj = self.objects[guid]
        obj.held_by = None
        self.unsettle(obj)

    def destroy(self, guid: str) -> None:
        """The object is deleted (a player pressed Delete, or it fell off the table)."""
        self.objects[guid].destroyed = True

    def rewind(self, save: dict[str, Any]) -> None:
        """Rewind to an older save: objects go back where that save has them, every script
        runs again with that save's state (onLoad), and the chat stays as it was."""
        for request in self._http:
            request.view._disposed = True
        self._http.clear()
        self._timers.clear()
        self._views.clear()
        self.objects = {}
        self._load_objects(save)
        self.global_script = save.get("LuaScript", "")
        self.global_state = save.get("LuaScriptState", "")
        self.load()

    def buttons(self, guid: str) -> list[str]:
        return [b["label"] for b in self.objects[guid].buttons]

    def click(self, guid: str, label: str, color: str = "Red") -> None:
        """Click the model's button whose label starts with ``label``."""
        obj = self.objects[guid]
        for button in obj.buttons:
            if button["label"].startswith(label):
                owner = button["owner"]
                lua = owner.runtime if isinstance(owner, FakeObject) else self.global_runtime
                fn = lua.globals()[button["click_function"]]
                if fn is None:
                    raise KeyError(f"no function {button['click_function']} in its owner")
                self._call(lua, fn, self.view(obj, lua), color, False)
                self._raise_errors()
                return
        raise KeyError(f"{guid} has no button {label!r}: {self.buttons(guid)}")

    def _gv(self, obj: FakeObject) -> ObjectView | None:
        return self.view(obj, self.global_runtime)

    # --- what players see -------------------------------------------------------------------
    def chat_text(self) -> str:
        return "\n".join(c.text for c in self.chat)

    def said(self, fragment: str) -> bool:
        return any(fragment in c.text for c in self.chat)

    def seen_by(self, color: str) -> str:
        """The chat as the player at ``color`` sees it: what went to everyone, and what was
        printed to that colour alone (nobody sees what went to a colour nobody holds)."""
        seated = self.player(color).seated
        return "\n".join(c.text for c in self.chat if c.to is None or (c.to == color and seated))


def _vector_lines(lines: Any) -> list[dict[str, Any]]:
    """Lines as setVectorLines takes them: only VectorLine's parameters (api-names.json). A
    line has no seat or visibility field in TTS, so a script that tries to draw for one seat
    only fails here rather than drawing for everyone unnoticed."""
    out: list[dict[str, Any]] = to_python(lines) or []
    for line in out:
        for key in line:
            assert key in API["VectorLine.Parameters"], f"setVectorLines: unknown field {key}"
    return out


def _line_from_save(line: dict[str, Any]) -> dict[str, Any]:
    colour = line.get("color", {})
    out: dict[str, Any] = {
        "points": [[p["x"], p["y"], p["z"]] for p in line["points3"]],
        "color": [colour.get("r", 1.0), colour.get("g", 1.0), colour.get("b", 1.0)],
        "thickness": line.get("thickness", 0.1),
    }
    if "loop" in line:
        out["loop"] = line["loop"]
    return out


def _vector(lua: Any, xyz: list[float]) -> Any:
    return lua.table_from({"x": xyz[0], "y": xyz[1], "z": xyz[2], 1: xyz[0], 2: xyz[1], 3: xyz[2]})


def _xyz(value: Any) -> list[float]:
    """A Lua vector given as {x=, y=, z=} or {1, 2, 3}."""
    if value["x"] is not None:
        return [float(value["x"]), float(value["y"]), float(value["z"])]
    return [float(value[1]), float(value[2]), float(value[3])]


def to_python(value: Any) -> Any:
    """A Lua value as plain Python; a table with keys 1..n (or empty) becomes a list, as TTS's
    JSON.encode decides (an empty table is ``[]``)."""
    if lua52.lua_type(value) == "table":
        items = list(value.items())
        keys = [k for k, _ in items]
        if all(isinstance(k, int) for k in keys) and sorted(keys) == list(range(1, len(keys) + 1)):
            return [to_python(v) for _, v in sorted(items, key=lambda kv: kv[0])]
        return {str(k): to_python(v) for k, v in items}
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)  # MoonSharp writes 5, not 5.0
    return value


def to_lua(lua: Any, value: Any) -> Any:
    if isinstance(value, dict):
        return lua.table_from({k: to_lua(lua, v) for k, v in value.items() if v is not None})
    if isinstance(value, list):
        return lua.table_from([to_lua(lua, v) for v in value])
    return value


def _filter(obj: Any, name: Any, is_setting: bool) -> Any:
    """Only the real API's names are reachable on objects handed to Lua."""
    section = getattr(type(obj), "SECTION", None)
    if section is None or not isinstance(name, str) or name not in API[section]:
        raise AttributeError(f"not a TTS API name: {name!r} (on {type(obj).__name__})")
    if isinstance(obj, ObjectView) and obj._obj.destroyed and name != "isDestroyed":
        # TTS: a script holding a deleted object gets an error on any member but this one.
        raise AttributeError(f"the object {obj._obj.guid} was destroyed ({name})")
    if is_setting and name not in getattr(type(obj), "_SETTABLE", ()):
        raise AttributeError(f"{name} is read-only in the fake")
    return name


class _Api:
    """The global functions and namespaces of one runtime."""

    def __init__(self, tts: FakeTTS, lua: Any) -> None:
        self.tts = tts
        self.lua = lua

    def _timer(self, fn: Any, **kw: Any) -> int:
        tts = self.tts
        timer = _Timer(id=tts._next_timer, runtime=self.lua, fn=fn, **kw)
        tts._next_timer += 1
        tts._timers[timer.id] = timer
        return timer.id

    def globals(self) -> dict[str, Any]:
        tts, lua = self.tts, self.lua

        def wait_time(fn: Any, seconds: float, repetitions: int = 1) -> int:
            return self._timer(
                fn,
                due_time=tts.now() + seconds,
                repeat=repetitions if repetitions > 0 else -1,
                interval=seconds,
            )

        def wait_frames(fn: Any, frames: int = 1) -> int:
            return self._timer(fn, due_frame=tts.frame + max(1, int(frames)))

        def wait_condition(
            fn: Any, condition: Any, timeout: float | None = None, timeout_fn: Any = None
        ) -> int:
            at = None if timeout is None else tts.now() + timeout
            return self._timer(fn, condition=condition, timeout_at=at, timeout_fn=timeout_fn)

        def wait_stop(timer_id: int) -> bool:
            return tts._timers.pop(int(timer_id), None) is not None

        def custom(
            url: str, method: str, download: bool, data: str, headers: Any, callback: Any
        ) -> WebRequestView:
            hdrs = {str(k): str(v) for k, v in (headers.items() if headers else [])}
            return self._http(url, method, data or "", hdrs, callback)

        def get(url: str, callback: Any) -> WebRequestView:
            return self._http(url, "GET", "", {}, callback)

        def encode(value: Any) -> str:
            return json.dumps(to_python(value), ensure_ascii=False)

        def decode(text: str) -> Any:
            return to_lua(lua, json.loads(text))

        def broadcast(message: str, color: Any = None) -> bool:
            tts.chat.append(Chat(str(message), "broadcast"))
            return True

        def print_all(message: str, color: Any = None) -> bool:
            tts.chat.append(Chat(str(message), "print"))
            return True

        def print_to(message: str, player_color: Any, tint: Any = None) -> bool:
            # The API's player_color is a Player Color: anything else is a script error.
            if player_color not in SEAT_COLOURS:
                raise LuaScriptError(f"printToColor: {player_color!r} is not a player colour")
            tts.chat.append(Chat(str(message), "print", to=str(player_color)))
            return True

        def log(value: Any, *_: Any) -> bool:
            tts.chat.append(Chat(str(value), "log"))
            return True

        def from_guid(guid: str) -> Any:
            return tts.view(tts.objects.get(guid), lua)

        def with_tag(tag: str) -> Any:
            return lua.table_from([tts.view(o, lua) for o in tts.tagged(tag)])

        def objects() -> Any:
            return lua.table_from(
                [tts.view(o, lua) for o in tts.objects.values() if not o.destroyed]
            )

        def add_menu(
            label: str, fn: Any, keep_open: bool = False, require_table: bool = False
        ) -> bool:
            tts.global_menu_items.append((str(label), fn, lua))
            return True

        def ns(section: str, members: dict[str, Any]) -> Any:
            for key in members:
                assert key in API[section], f"the fake defines {section}.{key}, not in the API"
            return lua.table_from(members)

        return {
            "Wait": ns(
                "Wait",
                {
                    "time": wait_time,
                    "frames": wait_frames,
                    "condition": wait_condition,
                    "stop": wait_stop,
                },
            ),
            "WebRequest": ns("WebRequest", {"custom": custom, "get": get}),
            "JSON": ns("JSON", {"encode": encode, "decode": decode}),
            "broadcastToAll": broadcast,
            "printToAll": print_all,
            "printToColor": print_to,
            "print": print_all,
            "log": log,
            "getObjectFromGUID": from_guid,
            "getObjectsWithTag": with_tag,
            "getObjects": objects,
            "getAllObjects": objects,
            "addContextMenuItem": add_menu,
            "Player": self._players(),
        }

    def _players(self) -> Any:
        """Player[colour] for every seat colour, and Player.getPlayers() (the seated ones)."""
        tts, lua = self.tts, self.lua
        seats = {c: PlayerView(tts, tts.player(c), lua) for c in SEAT_COLOURS}

        def seated() -> Any:
            return lua.table_from([v for v in seats.values() if v._player.seated])

        members: dict[str, Any] = dict(seats)
        members["getPlayers"] = seated
        for key in members:
            assert key in API["Player"], f"the fake defines Player.{key}, not in the API"
        return lua.table_from(members)

    def _http(
        self, url: str, method: str, data: str, headers: dict[str, str], callback: Any
    ) -> WebRequestView:
        tts = self.tts
        view = WebRequestView(url)
        tts.requests.append((method, url, data))
        if "/events?" in url:  # long-polls in flight at once (the scripts promise one)
            polls = 1 + sum("/events?" in r.view.url and not r.view._disposed for r in tts._http)
            tts.most_polls = max(tts.most_polls, polls)
        drop = any(fragment in url for fragment in tts.drop_replies)
        if drop:
            tts.drop_replies = [f for f in tts.drop_replies if f not in url]
            view._dropped_reply = True

        def send() -> httpx.Response:
            content = data.encode() if data else None
            return tts._client.request(method, url, content=content, headers=headers)

        future = tts._pool.submit(send)
        tts._http.append(_Http(view, self.lua, callback, future, tts.frame))
        return view


class WebRequestView:
    """The request handed to a WebRequest callback."""

    SECTION = "WebRequestInstance"

    def __init__(self, url: str) -> None:
        self.url = url
        self.text = ""
        self.response_code = 0
        self.is_error = False
        self.error: str | None = None
        self.is_done = False
        self._disposed = False
        self._dropped = False
        self._dropped_reply = False
        self._headers: dict[str, str] = {}

    def _finish(self, future: Future[Any]) -> None:
        self.is_done = True
        try:
            response = future.result()
        except httpx.HTTPError as exc:
            self.is_error = True
            self.error = f"Cannot connect to destination host ({type(exc).__name__})"
            return
        if self._dropped_reply:  # the referee got it; the answer was lost on the way back
            self.is_error = True
            self.error = "Connection reset by peer"
            return
        self.response_code = response.status_code
        self.text = response.text
        self._headers = dict(response.headers)

    def dispose(self) -> None:
        self._disposed = True

    def getResponseHeader(self, name: str) -> str | None:
        return self._headers.get(name.lower())


class GlobalView:
    SECTION = "Global"

    def __init__(self, tts: FakeTTS, lua: Any) -> None:
        self._tts = tts
        self._lua = lua

    def call(self, name: str, params: Any = None) -> Any:
        """Call a Global function from another script: tables are copied across."""
        tts = self._tts
        target = tts.global_runtime
        fn = target.globals()[name]
        if fn is None:
            raise LuaScriptError(f"Global has no function {name}")
        arg = to_lua(target, _copy_across(params))
        result = tts._call(target, fn, arg)
        return to_lua(self._lua, _copy_across(result))

    def setVectorLines(self, lines: Any) -> bool:
        self._tts.global_lines = _vector_lines(lines)
        return True

    def getVectorLines(self) -> Any:
        return to_lua(self._lua, copy.deepcopy(self._tts.global_lines))

    def getGUID(self) -> str:
        return "-1"


def _copy_across(value: Any) -> Any:
    """A value as one script hands it to another: tables copied, objects passed through."""
    if lua52.lua_type(value) == "table":
        return to_python(value)
    return value


class ObjectView:
    """A TTS object as one script sees it (each runtime has its own view, same object)."""

    SECTION = "Object"
    _SETTABLE = ("interactable",)

    def __init__(self, tts: FakeTTS, obj: FakeObject, lua: Any) -> None:
        self._tts = tts
        self._obj = obj
        self._lua = lua

    # identity and text
    def getGUID(self) -> str:
        return self._obj.guid

    def getName(self) -> str:
        return self._obj.nickname

    def setName(self, name: str) -> bool:
        self._obj.nickname = str(name)
        return True

    def getDescription(self) -> str:
        return self._obj.description

    def setDescription(self, text: str) -> bool:
        self._obj.description = str(text)
        return True

    def getTags(self) -> Any:
        return self._lua.table_from(list(self._obj.tags))

    def hasTag(self, tag: str) -> bool:
        return tag in self._obj.tags

    def addTag(self, tag: str) -> bool:
        if tag not in self._obj.tags:
            self._obj.tags.append(tag)
        return True

    def isDestroyed(self) -> bool:
        return self._obj.destroyed

    # transform
    def getPosition(self) -> Any:
        return _vector(self._lua, self._obj.position)

    def setPosition(self, pos: Any) -> bool:
        self._obj.position = _xyz(pos)
        self._tts.unsettle(self._obj)
        return True

    def setPositionSmooth(self, pos: Any, collide: bool = False, fast: bool = False) -> bool:
        return self.setPosition(pos)

    def getRotation(self) -> Any:
        return _vector(self._lua, self._obj.rotation)

    def setRotation(self, rot: Any) -> bool:
        self._obj.rotation = [v % 360 for v in _xyz(rot)]
        return True

    def setRotationSmooth(self, rot: Any, collide: bool = False, fast: bool = False) -> bool:
        return self.setRotation(rot)

    def getScale(self) -> Any:
        return _vector(self._lua, self._obj.scale)

    def getBoundsNormalized(self) -> Any:
        # Blocks are 1 unit a side at scale 1 in the fake.
        size = _vector(self._lua, list(self._obj.scale))
        centre = _vector(self._lua, self._obj.position)
        return self._lua.table_from(
            {"center": centre, "size": size, "offset": _vector(self._lua, [0, 0, 0])}
        )

    @property
    def held_by_color(self) -> str | None:
        return self._obj.held_by

    @property
    def resting(self) -> bool:
        return self._obj.resting

    @property
    def interactable(self) -> bool:
        return self._obj.interactable

    @interactable.setter
    def interactable(self, value: bool) -> None:
        self._obj.interactable = bool(value)

    # dice
    def roll(self) -> bool:
        self._obj.resting = False
        self._obj.rolling = True
        self._obj.settle_frame = self._tts.frame + 12
        return True

    def getValue(self) -> int:
        return self._obj.value

    def setValue(self, value: int) -> bool:
        self._obj.value = int(value)
        return True

    # markers
    def highlightOn(self, color: Any, duration: float | None = None) -> bool:
        self._obj.highlight = [float(v) for v in to_python(color)[:3]] if color else [1, 1, 1]
        return True

    def highlightOff(self, color: Any = None) -> bool:
        self._obj.highlight = None
        return True

    def setColorTint(self, color: Any) -> bool:
        self._obj.colour = [float(v) for v in to_python(color)[:3]]
        return True

    def getColorTint(self) -> Any:
        return self._lua.table_from(list(self._obj.colour))

    def setVectorLines(self, lines: Any) -> bool:
        self._obj.vector_lines = _vector_lines(lines)
        return True

    def getVectorLines(self) -> Any:
        return to_lua(self._lua, copy.deepcopy(self._obj.vector_lines))

    # buttons
    def createButton(self, params: Any) -> bool:
        p = to_python_shallow(params)
        for key in p:
            assert key in API["Button.Parameters.Create"], f"createButton: unknown parameter {key}"
        owner = p.get("function_owner")
        button = {
            "index": len(self._obj.buttons),
            "label": str(p.get("label", "")),
            "tooltip": str(p.get("tooltip", "")),
            "click_function": str(p["click_function"]),
            "owner": owner._obj if isinstance(owner, ObjectView) else None,
            "params": {k: v for k, v in p.items() if k in ("position", "rotation", "scale")},
        }
        self._obj.buttons.append(button)
        return True

    def clearButtons(self) -> bool:
        self._obj.buttons = []
        return True

    def getButtons(self) -> Any:
        return to_lua(
            self._lua,
            [
                {"index": b["index"], "label": b["label"], "tooltip": b["tooltip"]}
                for b in self._obj.buttons
            ],
        )

    # menus
    def addContextMenuItem(self, label: str, fn: Any, keep_open: bool = False) -> bool:
        self._obj.menu.append((str(label), fn, self._lua))
        return True

    def clearContextMenu(self) -> bool:
        self._obj.menu = []
        return True


class MenuClosed(RuntimeError):
    """The player right-clicked where that menu does not open."""


class PlayerView:
    """Player[colour] as a script sees it (player/instance.md)."""

    SECTION = "PlayerInstance"

    def __init__(self, tts: FakeTTS, player: FakePlayer, lua: Any) -> None:
        self._tts = tts
        self._player = player
        self._lua = lua

    @property
    def color(self) -> str:
        return self._player.colour

    @property
    def host(self) -> bool:
        return self._player.host

    @property
    def promoted(self) -> bool:
        return self._player.promoted

    @property
    def admin(self) -> bool:  # "host or promoted" (player/instance.md)
        return self._player.host or self._player.promoted

    @property
    def seated(self) -> bool:
        return self._player.seated

    @property
    def steam_name(self) -> str:
        return self._player.steam_name

    def getPointerPosition(self) -> Any:
        return _vector(self._lua, self._player.pointer)

    def showOptionsDialog(  # the TTS API's name
        self, description: Any, options: Any, default_value: Any, callback: Any
    ) -> bool:
        """showOptionsDialog(description, options, default_value, callback) as the Player API
        declares it (player/instance.md): refuses what TTS would. The callback later gets
        (selected_text, selected_index counted from 1, player_color): FakeTTS.choose."""
        labels = to_python(options)
        if not isinstance(description, str):
            raise TypeError("showOptionsDialog: description must be a string")
        if not (isinstance(labels, list) and labels and all(isinstance(x, str) for x in labels)):
            raise TypeError("showOptionsDialog: options must be a non-empty list of strings")
        if not (isinstance(default_value, int) and 1 <= default_value <= len(labels)) and (
            default_value not in labels
        ):
            raise ValueError("showOptionsDialog: default_value is neither an index nor an option")
        if not callable(callback):
            raise TypeError("showOptionsDialog: callback must be a function")
        self._player.dialogs.append((description, labels, default_value, callback))
        return True


def to_python_shallow(value: Any) -> dict[str, Any]:
    """A parameter table: objects stay objects, nested tables become Python."""
    out: dict[str, Any] = {}
    for k, v in value.items():
        out[str(k)] = v if isinstance(v, ObjectView | GlobalView) else to_python(v)
    return out
