"""Minimal Tank Combat as the server sees it: the ruleset surface in ``tankref.core.ruleset``.

How the generic requests map onto a hex game: ``PUT /tanks/{guid}`` places a tank of a design
(``card`` is the design id) in the hex under (x, z) during setup, and in play is a move to
the hex under the drop point (a drop inside the hex it already holds changes nothing);
``PUT /terrain/{guid}`` gives a piece's terrain ``kind`` and the hexes it covers (listed, or
those whose centres lie in its footprint); ``PUT /objective`` is refused (no objective);
``hull_down`` is ignored and ``reserve`` refused (neither exists in this game).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError, ValidationError

from tankref.core.adjudication import Adjudication
from tankref.core.aids import Aids
from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.errors import RulesError
from tankref.core.geometry import Polygon, Shape, TableArea
from tankref.core.hexgrid import Hex, HexGrid
from tankref.core.luck import LuckTrial
from tankref.core.results import Result
from tankref.core.ruleset import (
    Command,
    ModelState,
    OddsTrial,
    PlayRecord,
    RulesetInfo,
    TableSummary,
    TankPut,
    TankView,
    from_wire,
    recorded_play,
)
from tankref.core.scene import LineOfFire, PlayerSide, SceneParts, TerrainView
from tankref.rulesets.mtc import about, engine, selfplay
from tankref.rulesets.mtc import aids as mtc_aids
from tankref.rulesets.mtc import tools as mtc_tools
from tankref.rulesets.mtc.actions import (
    ACTION_ADAPTER,
    Action,
    EndPhase,
    Fire,
    Move,
    PlaceTank,
    PlaceTerrain,
    RemoveTank,
    SetObjective,
)
from tankref.rulesets.mtc.cards import Design
from tankref.rulesets.mtc.context import get_tank
from tankref.rulesets.mtc.fire import check_may_fire, plan_fire
from tankref.rulesets.mtc.odds import ShotOdds, shot_odds
from tankref.rulesets.mtc.presentation import markers, tooltip
from tankref.rulesets.mtc.state import HexTerrain, Options, TableState, TerrainKind

NAME = "mtc"

PlayerId = Field(min_length=1, max_length=32)


class TableSetup(BaseModel):
    """A Minimal Tank Combat table: players, the hex grid and map, terrain, own designs."""

    model_config = ConfigDict(extra="forbid")

    players: tuple[str, str] = Field(default=("Red", "Blue"), description="The two player ids.")
    grid: HexGrid = Field(default_factory=HexGrid, description="Where the hexes lie (MTC-HEX1).")
    area: TableArea = Field(
        default_factory=TableArea,
        description="The map: hexes whose centres lie in this rectangle (inches).",
    )
    terrain: list[HexTerrain] = Field(
        default_factory=list, max_length=1200, description="Terrain per hex; others clear."
    )
    designs: list[Design] = Field(
        default_factory=list,
        max_length=100,
        description="The table's own tank designs (MTC-BP1), added to the shipped ones.",
    )
    options: Options = Field(default_factory=Options)

    @model_validator(mode="after")
    def _players(self) -> TableSetup:
        for p in self.players:
            if not 1 <= len(p) <= 32:
                raise ValueError("player ids are 1 to 32 characters")
        if self.players[0] == self.players[1]:
            raise ValueError("the two players need different ids")
        return self


class TerrainBody(BaseModel):
    """A terrain piece on the hex map: its terrain kind and the hexes it covers."""

    model_config = ConfigDict(extra="forbid")

    kind: TerrainKind
    hexes: list[tuple[int, int]] | None = Field(default=None, max_length=2000)
    shape: Shape | None = None
    name: str = Field(default="", max_length=80)


_SETUP_ADAPTER: TypeAdapter[TableSetup] = TypeAdapter(TableSetup)
_TERRAIN_ADAPTER: TypeAdapter[TerrainBody] = TypeAdapter(TerrainBody)


@dataclass(frozen=True)
class MinimalTankCombat(ModelState):
    name: str = NAME
    title: str = "Minimal Tank Combat"
    clause_prefix: str = "MTC"
    state_model: ClassVar[type[BaseModel]] = TableState

    def info(self) -> RulesetInfo:
        return about.info()

    # --- tables ----------------------------------------------------------------------------
    @property
    def setup_model(self) -> type[BaseModel]:
        return TableSetup

    def parse_setup(self, data: object) -> TableSetup:
        """Strict JSON types; then every design problem at once, each naming its field."""
        setup = from_wire(_SETUP_ADAPTER, data)
        problems = engine.bad_designs(setup.designs, setup.options.max_bp)
        if problems:
            details = [
                InitErrorDetails(
                    type=PydanticCustomError("design", "MTC-BP1: {problem}", {"problem": text}),
                    loc=tuple(int(p) if p.isdigit() else p for p in where.split(".")),
                    input=None,
                )
                for where, text in problems
            ]
            raise ValidationError.from_exception_data("TableSetup", details)
        return setup

    def new_table(self, setup: BaseModel, dice: DiceState) -> TableState:
        assert isinstance(setup, TableSetup)
        return engine.new_table(
            setup.players,
            grid=setup.grid,
            area=setup.area,
            terrain=setup.terrain,
            designs=setup.designs,
            options=setup.options,
            dice=dice,
        )

    def summary(self, state: Any) -> TableSummary:
        assert isinstance(state, TableState)
        return TableSummary(
            status=state.status,
            turn=state.turn,
            active_player=state.active_player,
            players=list(state.players),
            winner=state.winner,
            reason=state.game_over_reason,
            phase=state.step if state.status == "playing" else None,
        )

    def tank_views(self, state: Any, tank_ids: list[str] | None = None) -> list[TankView]:
        assert isinstance(state, TableState)
        ids = sorted(state.tanks) if tank_ids is None else tank_ids
        views = []
        for tank_id in ids:
            tank = state.tanks.get(tank_id)
            if tank is None:
                continue
            x, z = state.grid.center(tank.hex)
            views.append(
                TankView(
                    tank_id=tank.id,
                    name=tank.name,
                    card=tank.design.id,
                    player=tank.player,
                    x=x,
                    z=z,
                    facing=tank.facing,
                    on_table=tank.in_play,
                    in_play=tank.in_play,
                    markers=markers(state, tank),
                    tooltip=tooltip(state, tank),
                )
            )
        return views

    def scene_parts(self, state: Any) -> SceneParts:
        """The map area and its hex grid, and each hex that is not clear as its hexagon."""
        assert isinstance(state, TableState)
        terrain = []
        for key, kind in sorted(state.terrain.items()):
            q, r = (int(v) for v in key.split(","))
            corners = state.grid.corners(Hex(q, r))
            terrain.append(
                TerrainView(
                    id=f"hex:{key}",
                    kind=kind,
                    label=f"{kind} ({key})",
                    shape=Polygon(points=tuple(corners)),
                )
            )
        return SceneParts(
            area=state.area,
            players=[PlayerSide(id=p) for p in state.players],
            terrain=terrain,
            rings=[],
            grid=state.grid,
        )

    def line_of_fire(self, state: Any, result: Result) -> LineOfFire | None:
        """A fire action's line, from its first shooter to the target (hex centres)."""
        assert isinstance(state, TableState)
        out = result.outcome
        if result.action.get("kind") != "fire" or "target" not in out:
            return None
        shooter = state.tanks.get(out["shooters"][0])
        target = state.tanks.get(out["target"])
        if shooter is None or target is None:
            return None
        x1, z1 = state.grid.center(shooter.hex)
        x2, z2 = state.grid.center(target.hex)
        more = len(out["shooters"]) - 1
        return LineOfFire(
            shooter_id=shooter.id,
            target_id=target.id,
            x1=x1,
            z1=z1,
            x2=x2,
            z2=z2,
            label=f"{out['column']}: rolled {out['face']}, {out['result']}"
            + (f" (with {more} more)" if more else ""),
        )

    # --- actions ---------------------------------------------------------------------------
    def parse_action(self, data: object) -> Action:
        return from_wire(ACTION_ADAPTER, data)

    def action_schema(self) -> dict[str, Any]:
        return ACTION_ADAPTER.json_schema()

    def tank_remove(self, state: Any, tank_id: str) -> Action:
        """The model was taken off the table (the rules decide whether that may be)."""
        return RemoveTank(tank_id=tank_id)

    def tank_put(self, state: Any, tank_id: str, put: TankPut) -> Action | None:
        """Setup: (re)place the tank. Play: a move to the hex under the drop; None when the
        model was dropped inside the hex it already holds."""
        assert isinstance(state, TableState)
        tank = state.tanks.get(tank_id)
        h = state.grid.hex_at(put.x, put.z)
        if state.status == "setup" or tank is None:
            if (
                tank is not None
                and tank.design.id == put.card
                and tank.player == put.player
                and tank.hex == h
                and (put.name is None or put.name == tank.name)
                and not put.reserve
            ):
                return None
            return PlaceTank(
                tank_id=tank_id,
                design=put.card,
                player=put.player,
                x=put.x,
                z=put.z,
                facing=put.facing,
                name=put.name,
                reserve=put.reserve,
            )
        if tank.hex == h:
            return None
        return Move(tank_id=tank_id, x=put.x, z=put.z, facing=put.facing)

    def terrain_put(self, state: Any, piece_id: str, data: object) -> PlaceTerrain:
        body = from_wire(_TERRAIN_ADAPTER, data)
        return PlaceTerrain(
            piece_id=piece_id,
            terrain=body.kind,
            hexes=None if body.hexes is None else tuple(body.hexes),
            shape=body.shape,
            name=body.name,
        )

    def terrain_schema(self) -> dict[str, Any]:
        return TerrainBody.model_json_schema()

    def objective_put(self, state: Any, x: float, z: float) -> SetObjective:
        return SetObjective(x=x, z=z)

    def adjudicate(
        self, state: Any, action: Any, dice: SuppliedDice | None = None
    ) -> Adjudication[TableState]:
        return engine.adjudicate(state, action, dice)

    def options_for(self, state: Any, tank_id: str) -> list[dict[str, Any]]:
        return [o.to_dict() for o in engine.options_for(state, tank_id)]

    def odds(
        self, state: Any, shooter_id: str, target_id: str | None, **choices: Any
    ) -> list[ShotOdds]:
        """The shooter firing alone: at one target (refused as the fire would be), or at
        every enemy it may fire at alone now, most likely kill first."""
        assert isinstance(state, TableState)
        if target_id is not None:
            return [shot_odds(plan_fire(state, [shooter_id], target_id))]
        shooter = get_tank(state, shooter_id)
        check_may_fire(state, shooter)
        found = []
        for other in sorted(state.tanks.values(), key=lambda t: t.id):
            if other.player == shooter.player or not other.in_play:
                continue
            try:
                found.append(shot_odds(plan_fire(state, [shooter_id], other.id)))
            except RulesError:
                continue
        return sorted(found, key=lambda o: -o.p_destroyed)

    def luck_trials(self, state_before: Any, action: Any, result: Result) -> list[LuckTrial]:
        """Each attack roll is one chance (measure ``hit``: the target destroyed)."""
        assert isinstance(state_before, TableState)
        out = result.outcome
        if result.action.get("kind") != "fire" or "p_destroyed" not in out:
            return []
        shooter = state_before.tanks[out["shooters"][0]]
        return [
            LuckTrial(
                player=shooter.player,
                measure="hit",
                p=Fraction(out["p_destroyed"]),
                happened=bool(out["destroyed"]),
            )
        ]

    def aids(self, state: Any, tank_id: str) -> Aids:
        """Where it may move, its arcs, its lines of fire (``rulesets.mtc.aids``)."""
        return mtc_aids.aids(self._state(state), tank_id)

    def commands(self) -> Sequence[Command]:
        """``tankref cards``, ``rulings`` and ``odds --ruleset mtc`` (``rulesets.mtc.tools``)."""
        return mtc_tools.commands(self)

    # --- conformance hooks -------------------------------------------------------------------
    def self_play(self, seed: int) -> PlayRecord:
        """``selfplay.play_game``: its table is ``random_table(seed)``, built the same again."""
        return recorded_play(
            selfplay.random_table(seed), lambda hook: selfplay.play_game(seed, on_step=hook)
        )

    def option_actions(self, state: Any, tank_id: str, option: dict[str, Any]) -> list[BaseModel]:
        """Each hex listed, or (refused) staying in its own hex; each target it may fire at
        alone (a listed target without a column is for a joint attack), or (refused) the
        first enemy in play, whose refusal the menu reports; the end of its owner's phase."""
        assert isinstance(state, TableState)
        tank = state.tanks[tank_id]
        kind, allowed, detail = option["kind"], option["allowed"], option.get("detail") or {}
        if kind == "move":
            hexes = [tuple(h["hex"]) for h in detail["hexes"]] if allowed else [tank.hex]
            return [Move(tank_id=tank_id, hex=(q, r)) for q, r in hexes]
        if kind == "fire":
            if allowed:
                targets = [t["target_id"] for t in detail["targets"] if t["column"] is not None]
            else:
                targets = sorted(
                    t.id for t in state.tanks.values() if t.player != tank.player and t.in_play
                )[:1]
            return [Fire(tank_ids=(tank_id,), target_id=t) for t in targets]
        if kind == "end_phase":
            return [EndPhase(player=tank.player)]
        return []

    def odds_trials(self, state: Any) -> list[OddsTrial]:
        """Each attack a tank of the phasing player may make alone: the chance the target is
        destroyed (MTC-CRT1), as the result's ``destroyed`` says."""
        assert isinstance(state, TableState)
        if state.status != "playing" or state.step != "combat":
            return []
        trials = []
        for tank in sorted(state.tanks.values(), key=lambda t: t.id):
            if tank.player != state.active_player or not tank.in_play or tank.fired:
                continue
            for shot in self.odds(state, tank.id, None):
                trials.append(
                    OddsTrial(
                        f"p_destroyed {tank.id} -> {shot.target_id}",
                        Fire(tank_ids=(tank.id,), target_id=shot.target_id),
                        Fraction(shot.exact),
                        lambda result: bool(result.outcome.get("destroyed")),
                    )
                )
        return trials


def ruleset() -> MinimalTankCombat:
    return MinimalTankCombat()
