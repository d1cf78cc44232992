"""What a rule system plugs into the shared core, and the registry of those known.

Each ruleset is one package with its rules, card data and tests; the server, the CLI and
the tests reach it through this small surface and never through its internals.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.luck import LuckTrial
from tankref.core.results import Result
from tankref.core.scene import LineOfFire, SceneParts

T = TypeVar("T")


def from_wire(adapter: TypeAdapter[T], data: object) -> T:
    """Validate what a client sent as JSON, strictly: ``"1.5"`` is not a number and ``0`` is
    not ``false`` (lax coercion would make a typo look like a legal action)."""
    return adapter.validate_json(json.dumps(data, allow_nan=True), strict=True)


class TankPut(BaseModel):
    """A tank model as the table reports it (by its TTS GUID): where it stands and whose it is.

    The ruleset decides what that means: a placement during setup, a move during play, or
    nothing at all when the model only drifted.
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    card: str = Field(min_length=1, max_length=64, description="Tank card id, e.g. tiger-i.")
    player: str = Field(min_length=1, max_length=32, description="The owner's player id.")
    x: float = Field(ge=-10_000, le=10_000, allow_inf_nan=False, description="Inches.")
    z: float = Field(ge=-10_000, le=10_000, allow_inf_nan=False, description="Inches.")
    facing: float = Field(
        ge=-3600, le=3600, allow_inf_nan=False, description="Yaw in degrees; 0 faces +z."
    )
    hull_down: bool | None = Field(default=None, description="None: as before.")
    reserve: bool = Field(default=False, description="Setup only: kept off the table.")
    name: str | None = Field(default=None, max_length=80)


class TankView(BaseModel):
    """One tank as a front end draws it: where, whose, its markers and tooltip text."""

    tank_id: str
    name: str
    card: str
    player: str
    x: float
    z: float
    facing: float
    on_table: bool
    in_play: bool
    markers: list[str]
    tooltip: str


class TableSummary(BaseModel):
    """Where the game stands, in words every ruleset shares."""

    status: str  # setup | playing | over
    turn: int
    active_player: str | None
    players: list[str]
    winner: str | None = None
    reason: str | None = None
    phase: str | None = Field(
        default=None,
        description="Where the game is within the turn, in the ruleset's words, while it is "
        "under way: the step of the active player's turn where a ruleset has several (MTC: "
        "movement, combat), or which phase of the turn (TTT: first, second); None where a "
        "turn is all one.",
    )


class Outcome(Protocol):
    @property
    def state(self) -> Any: ...

    @property
    def result(self) -> Result: ...


class Ruleset(Protocol):
    @property
    def name(self) -> str: ...  # registry key, e.g. "ttt"

    @property
    def title(self) -> str: ...  # e.g. "TinyTableTopTanks"

    @property
    def clause_prefix(self) -> str: ...  # e.g. "TTT"

    @property
    def damage_deck(self) -> bool: ...  # draws damage cards (the table may draw them by hand)

    # --- tables ----------------------------------------------------------------------------
    @property
    def setup_model(self) -> type[BaseModel]: ...  # players, scenario, options ...

    def parse_setup(self, data: object) -> BaseModel: ...  # from the wire: strict JSON types

    def new_table(self, setup: BaseModel, dice: DiceState) -> Any: ...

    def load_state(self, text: str | bytes) -> Any: ...

    def dump_state(self, state: Any) -> str: ...

    def dice_state(self, state: Any) -> DiceState: ...

    # The state with its dice generator replaced (a player seed added; the counter kept when
    # an action is taken back): a new state, the old one untouched.
    def with_dice(self, state: Any, dice: DiceState) -> Any: ...

    def summary(self, state: Any) -> TableSummary: ...

    def tank_views(self, state: Any, tank_ids: list[str] | None = None) -> list[TankView]: ...

    def scene_parts(self, state: Any) -> SceneParts: ...  # terrain, rings, players: to draw

    def line_of_fire(self, state: Any, result: Result) -> LineOfFire | None: ...  # a shot's line

    # --- actions ---------------------------------------------------------------------------
    def parse_action(self, data: object) -> BaseModel: ...  # strict JSON types

    def action_schema(self) -> dict[str, Any]: ...  # JSON schema of the action union

    def tank_put(self, state: Any, tank_id: str, put: TankPut) -> BaseModel | None: ...

    def tank_remove(self, state: Any, tank_id: str) -> BaseModel: ...  # model taken away

    def terrain_put(self, state: Any, piece_id: str, data: object) -> BaseModel: ...

    def terrain_schema(self) -> dict[str, Any]: ...

    def objective_put(self, state: Any, x: float, z: float) -> BaseModel: ...

    def adjudicate(self, state: Any, action: Any, dice: SuppliedDice | None = None) -> Outcome: ...

    def options_for(self, state: Any, tank_id: str) -> list[dict[str, Any]]: ...

    def odds(
        self, state: Any, shooter_id: str, target_id: str | None, **choices: Any
    ) -> Sequence[BaseModel]: ...  # against one target, or every enemy it may Engage, best first

    def luck_trials(self, state_before: Any, action: Any, result: Result) -> list[LuckTrial]: ...


class ModelState:
    """The state plumbing of a ruleset whose table state is one pydantic model with a
    ``dice`` field and a ``clone()`` (a working copy): load it, dump it, read its dice,
    replace its dice (what undo and void need) and sum it up. A plugin sets ``state_model``."""

    state_model: ClassVar[type[BaseModel]]
    damage_deck: ClassVar[bool] = False  # a ruleset that draws damage cards says so

    def _state(self, state: Any) -> Any:
        if not isinstance(state, self.state_model):
            raise TypeError(f"not a {self.state_model.__name__}: {type(state).__name__}")
        return state

    def load_state(self, text: str | bytes) -> Any:
        return self.state_model.model_validate_json(text)

    def dump_state(self, state: Any) -> str:
        return cast(str, self._state(state).model_dump_json())

    def dice_state(self, state: Any) -> DiceState:
        return cast(DiceState, self._state(state).dice)

    def with_dice(self, state: Any, dice: DiceState) -> Any:
        copy = self._state(state).clone()
        copy.dice = dice.model_copy()
        return copy

    def summary(self, state: Any) -> TableSummary:
        """From the fields such states share (``status``, ``turn``, ``active_player``,
        ``players`` with an ``id`` each, ``winner``, ``game_over_reason``); a ruleset whose
        state says more (a step name, players as plain ids) gives its own."""
        s = self._state(state)
        return TableSummary(
            status=s.status,
            turn=s.turn,
            active_player=s.active_player if s.status == "playing" else None,
            players=[p.id for p in s.players],
            winner=s.winner,
            reason=s.game_over_reason,
        )


_REGISTRY: dict[str, Callable[[], Ruleset]] = {}


def register(name: str, factory: Callable[[], Ruleset]) -> None:
    _REGISTRY[name] = factory


def get_ruleset(name: str) -> Ruleset:
    if not _REGISTRY:
        _register_builtin()
    try:
        return _REGISTRY[name]()
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise KeyError(f"no ruleset {name!r} (known: {known})") from None


def ruleset_names() -> list[str]:
    if not _REGISTRY:
        _register_builtin()
    return sorted(_REGISTRY)


def _register_builtin() -> None:
    from tankref.rulesets import afv, mtc, ttt, yrd

    register(ttt.NAME, ttt.ruleset)
    register(mtc.NAME, mtc.ruleset)
    register(afv.NAME, afv.ruleset)
    register(yrd.NAME, yrd.ruleset)
