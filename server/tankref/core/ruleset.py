"""What a rule system plugs into the shared core (which ones exist: ``tankref.rulesets``).

Each ruleset is one package with its rules, card data and tests; the server, the CLI and
the tests reach it through this small surface and never through its internals.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, TextIO, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from tankref.core.aids import Aids
from tankref.core.carddata import fingerprint, shipped_dir
from tankref.core.dice import DiceState, SuppliedDice, dice_taken
from tankref.core.luck import LuckTrial
from tankref.core.results import Result
from tankref.core.scene import LineOfFire, SceneParts

if TYPE_CHECKING:  # a tool's arguments: the core itself parses no command line
    import argparse

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


@dataclass(frozen=True)
class PlayRecord:
    """One seeded self-play game (a conformance hook's answer): the started table the bots
    began from, every action accepted after it in order, and the state the game ended in."""

    start: Any
    actions: tuple[BaseModel, ...]
    final: Any


StepHook = Callable[[Any, BaseModel, Result], None]  # (new state, action, result)


def recorded_play(start: Any, play: Callable[[StepHook], Any]) -> PlayRecord:
    """A ruleset's bots played from ``start`` with a hook that keeps each accepted action:
    the ``self_play`` record (``play(hook)`` returns what has the ``final`` state)."""
    actions: list[BaseModel] = []
    final = play(lambda _state, action, _result: actions.append(action)).final
    return PlayRecord(start, tuple(actions), final)


@dataclass(frozen=True)
class OddsTrial:
    """A chance the ruleset's ``odds`` states, to be checked by sampling (a conformance
    hook's answer): ``action`` adjudicated on fresh server dice shows the outcome, judged by
    ``happened`` on its result, with probability ``p`` (the ``odds`` figure, exact)."""

    label: str  # what the figure is, for a failure message: "p_hit R1 -> B1"
    action: BaseModel
    p: Fraction
    happened: Callable[[Result], bool]


class Ruleset(Protocol):
    @property
    def name(self) -> str: ...  # registry key, e.g. "ttt"

    @property
    def title(self) -> str: ...  # e.g. "TinyTableTopTanks"

    @property
    def clause_prefix(self) -> str: ...  # e.g. "TTT"

    @property
    def damage_deck(self) -> bool: ...  # draws damage cards (the table may draw them by hand)

    def info(self) -> RulesetInfo: ...  # what lists it and lays out its TTS table

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

    # --- aids (issue 20) ---------------------------------------------------------------------
    # Where the unit may move, its arcs, each enemy's line of fire: shapes in table inches
    # from the same checks the adjudication runs (``tankref.core.aids``).
    def aids(self, state: Any, tank_id: str) -> Aids: ...

    # --- conformance hooks -----------------------------------------------------------------
    # What tests/conformance asks of every ruleset besides the above. A toy ruleset answers
    # them in a few lines: a loop of its own bot, its menu entries as actions, one odds figure.

    def self_play(self, seed: int) -> PlayRecord:
        """Play a game from a started table chosen by ``seed`` to its end (over by the rules
        or by a turn limit), on server dice seeded from ``seed``, with bots that choose among
        what ``options_for`` allows. Same seed, same game; every recorded action must replay."""
        ...

    def option_actions(self, state: Any, tank_id: str, option: dict[str, Any]) -> list[BaseModel]:
        """The actions one entry of ``options_for(state, tank_id)`` stands for: an allowed
        entry, the actions it offers (each must be accepted); a refused one, an action of its
        kind (it must be refused with the entry's code and clause). [] where there is none
        to build (a refusal for want of any target, say)."""
        ...

    def odds_trials(self, state: Any) -> list[OddsTrial]:
        """Figures ``odds`` gives in this position, each with the action it is about and how
        to see its outcome in a result; [] when there is no shot to take."""
        ...

    # --- above the engine (server hooks) ---------------------------------------------------
    # What the server asks so that it never reads a ruleset's state or options itself.
    @property
    def odds_choices(self) -> type[BaseModel]: ...  # what an odds query may choose (``odds``)

    # The state as anyone may read it (JSON): its secrets (the dice seed behind the
    # commitment) left out until ``revealed`` (the game is over).
    def public_state(self, state: Any, *, revealed: bool) -> dict[str, Any]: ...

    # The dice a table may send for an adjudication, checked before any roll (None: the
    # referee rolls them all); a refusal raises ``RulesError``.
    def accept_dice(self, state: Any, dice: SuppliedDice) -> SuppliedDice | None: ...

    # --- the command line --------------------------------------------------------------------
    # The tools it offers under tankref's ruleset verbs (``tankref cards|rulings|odds
    # --ruleset NAME``), at most one a verb; none by default.
    def commands(self) -> Sequence[Command]: ...

    # A short hash of the data that decides its results (its card files): part of the engine
    # version every result records. A ruleset whose data lives in its own package says so.
    def data_fingerprint(self) -> str: ...


class NoOddsChoices(BaseModel):
    """An odds query with nothing to choose: whatever it is sent is not read."""


def summary_fields(s: Any) -> dict[str, Any]:
    """``TableSummary``'s fields read from a state with the fields such states share
    (``status``, ``turn``, ``active_player``, ``players`` with an ``id`` each, ``winner``,
    ``game_over_reason``): ``ModelState.summary``'s, and a ruleset's that adds to them."""
    return {
        "status": s.status,
        "turn": s.turn,
        "active_player": s.active_player if s.status == "playing" else None,
        "players": [p.id for p in s.players],
        "winner": s.winner,
        "reason": s.game_over_reason,
    }


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
        return TableSummary(**summary_fields(self._state(state)))

    # --- above the engine: what most rulesets answer the same way ----------------------------
    odds_choices: ClassVar[type[BaseModel]] = NoOddsChoices

    def public_state(self, state: Any, *, revealed: bool) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.dump_state(state))
        dice = data.get("dice")
        if isinstance(dice, dict) and not revealed:
            dice.pop("seed", None)  # the secret behind the commitment, until the game is over
        return data

    def accept_dice(self, state: Any, dice: SuppliedDice) -> SuppliedDice | None:
        """Faces only from a table that rolls its own, a card only from one that draws
        them, and only where the ruleset has a damage deck (``core.dice.dice_taken``)."""
        rules = cast(Ruleset, self)
        return dice_taken(
            self.dice_state(state), dice, damage_deck=rules.damage_deck, title=rules.title
        )

    # --- the command line: no tools; data in tankref's own card folder -----------------------
    def commands(self) -> Sequence[Command]:
        return ()

    def data_fingerprint(self) -> str:
        """The shipped folder ``tankref/cards/<name>`` (the built-in four keep the engine
        versions their tables recorded; a name with no folder hashes nothing)."""
        return fingerprint(shipped_dir(cast(Ruleset, self).name))


# --- what a ruleset says about itself: listed by the referee, the CLI and the TTS save ---------
class SetupChoice(BaseModel):
    """A ready setup a menu offers (the TTS board cycles through them): its ``setup`` is the
    body's ``setup`` as the ruleset's setup model reads it."""

    key: str
    label: str
    setup: dict[str, Any] = Field(default_factory=dict)
    objective: bool = Field(default=False, description="The table has an objective marker.")


class SaveUnit(BaseModel):
    """A unit the TTS save puts on the table: whose, its name there, its card, where."""

    side: str
    nickname: str
    card: str
    name: str = Field(description="What it is called in its description (the card's name).")
    x: float
    z: float
    facing: float


class SaveTerrain(BaseModel):
    """A terrain piece the save lays out, tagged with the ruleset's own kinds (``round``:
    its area is the circle inside its footprint)."""

    nickname: str
    tags: tuple[str, ...]
    x: float
    z: float
    size: tuple[float, float, float] = Field(description="x, height, z in inches.")
    colour: tuple[float, float, float]


class SaveDice(BaseModel):
    """One kind of the table's dice: tagged ``die_<die>``; what its faces count."""

    die: str
    count: int = Field(ge=1)
    sides: Literal[6, 20] = 6
    colour: Literal["white", "red", "green"] = "white"
    nickname: str
    description: str


class SaveSpace(BaseModel):
    """A marked place on the field (a yard's spaces): a flat marker in its side's colour."""

    side: str
    label: str
    x: float
    z: float
    description: str


class SaveTable(BaseModel):
    """What ``tankref tts-save`` lays out for the ruleset, beside the table every save has."""

    deploy: str = Field(default="", description="Where each side deploys (the mat says).")
    units: list[SaveUnit]
    terrain: list[SaveTerrain] = Field(default_factory=list)
    dice: list[SaveDice]
    spaces: list[SaveSpace] = Field(default_factory=list)
    objective: str | None = Field(default=None, description="An objective marker's text.")
    damage_deck: str | None = Field(default=None, description="The deck block's text.")
    hex_width: float | None = Field(
        default=None, description="TTS's hex grid drawn over the field, hexes this wide."
    )


class BoardHints(BaseModel):
    """What the TTS scripts need beyond the option data to offer a ruleset: the setup menu's
    word, the players a table starts with, the board's table actions, menu items every unit
    carries, terrain tags as players say them mapped to the ruleset's kinds, the labels and
    verbs of option kinds, and the option kinds that need more than a click."""

    setup_word: str = "Setup"
    players: list[Any] | None = None
    board: list[dict[str, str]] = Field(default_factory=list)  # {kind, label}
    unit_extra: list[dict[str, str]] = Field(default_factory=list)  # {kind, label}
    reserve: bool = Field(default=False, description="A model off the field is in reserve.")
    arcs: bool = Field(default=False, description="Its units' menus offer Show arcs (aids).")
    terrain: list[dict[str, str]] = Field(default_factory=list)  # {tag, kind}
    labels: dict[str, str] = Field(default_factory=dict)
    verbs: dict[str, str] = Field(default_factory=dict)
    special: dict[str, str] = Field(default_factory=dict)


class RulesetInfo(BaseModel):
    """Everything that lists or lays out a ruleset reads from this one value (the referee's
    ``GET /rulesets``, the CLI, ``tankref tts-save``, the TTS board)."""

    name: str
    title: str
    clause_prefix: str
    description: str = Field(description="One line: what game this is.")
    terrain_kinds: list[str]
    setups: list[SetupChoice] = Field(min_length=1)
    board: BoardHints
    save: SaveTable


# Rows as a plug-in writes its save table: (side, nickname, card, x, z, facing) ...
UnitRow = tuple[str, str, str, float, float, float]
# ... and (nickname, tags, x, z, (size x, height, size z), colour).
TerrainRow = tuple[
    str, tuple[str, ...], float, float, tuple[float, float, float], tuple[float, float, float]
]


def save_units(rows: Iterable[UnitRow], cards: Mapping[str, str]) -> list[SaveUnit]:
    """The save's units from rows; ``cards``: each known card id and the name it shows (a
    row naming a card the ruleset does not have is a mistake in the plug-in)."""
    out = []
    for side, nickname, card, x, z, facing in rows:
        if card not in cards:
            raise ValueError(f"save unit {nickname!r}: no card {card!r}")
        out.append(
            SaveUnit(
                side=side, nickname=nickname, card=card, name=cards[card], x=x, z=z, facing=facing
            )
        )
    return out


def save_terrain(rows: Iterable[TerrainRow]) -> list[SaveTerrain]:
    return [
        SaveTerrain(nickname=n, tags=tags, x=x, z=z, size=size, colour=colour)
        for n, tags, x, z, size, colour in rows
    ]


def numbered_dice(die: str, count: int, sides: Literal[6, 20] = 6) -> SaveDice:
    """Plain dice the referee reads by the number on top."""
    return SaveDice(
        die=die,
        count=count,
        sides=sides,
        nickname=f"{die} die",
        description=f"a {die}: the referee reads its face number",
    )


# --- the command line: a tool a ruleset offers under one of tankref's verbs ------------------
# The verbs are tankref's (its --help lists them without importing a plug-in); what each does
# for a ruleset is the ruleset's.
CommandVerb = Literal["cards", "rulings", "odds"]


@dataclass(frozen=True)
class Command:
    """``tankref VERB --ruleset NAME ...``: the verb's description (its ``--help``), the
    arguments it adds, and what it does with them: ``run(args, stdout, stderr)`` writes to the
    streams it is given and returns the exit code (0 done, 1 bad data, 2 a bad request).
    ``offered`` False: the ruleset has nothing to answer the verb with and its ``run`` says
    why (``core.tools.not_offered``); it is not listed among the rulesets offering it."""

    verb: CommandVerb
    description: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, TextIO, TextIO], int]
    offered: bool = True
