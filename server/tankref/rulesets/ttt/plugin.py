"""TinyTableTopTanks as the server sees it: the ruleset surface in ``tankref.core.ruleset``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.luck import LuckTrial
from tankref.core.results import Result
from tankref.core.ruleset import ModelState, TableSummary, TankPut, TankView, from_wire
from tankref.core.scene import LineOfFire, SceneParts
from tankref.rulesets.ttt import engine, luck, movement, odds, scene, turns
from tankref.rulesets.ttt.actions import (
    ACTION_ADAPTER,
    Action,
    Move,
    PlaceTank,
    PlaceTerrain,
    RemoveTank,
    SetObjective,
)
from tankref.rulesets.ttt.odds import ShotOdds
from tankref.rulesets.ttt.presentation import markers, tooltip
from tankref.rulesets.ttt.state import Options, Player, Scenario, TableState, TerrainPiece

NAME = "ttt"


def _default_players() -> tuple[Player, Player]:
    return (Player(id="Red", edge="south"), Player(id="Blue", edge="north"))


class TableSetup(BaseModel):
    """A TinyTableTopTanks table: the two players and their edges, the scenario, the rulings."""

    model_config = ConfigDict(extra="forbid")

    players: tuple[Player, Player] = Field(
        default_factory=_default_players,
        description="Player ids (TTS colours work well) and their table edges.",
    )
    scenario: Scenario = Field(default_factory=Scenario)
    options: Options = Field(default_factory=Options, description="Per-table rulings.")

    @model_validator(mode="after")
    def _different_players(self) -> TableSetup:
        if self.players[0].id == self.players[1].id:
            raise ValueError("the two players need different ids")
        return self


_TERRAIN_ADAPTER: TypeAdapter[TerrainPiece] = TypeAdapter(TerrainPiece)
_SETUP_ADAPTER: TypeAdapter[TableSetup] = TypeAdapter(TableSetup)


@dataclass(frozen=True)
class TinyTableTopTanks(ModelState):
    name: str = NAME
    title: str = "TinyTableTopTanks"
    clause_prefix: str = "TTT"
    state_model: ClassVar[type[BaseModel]] = TableState
    damage_deck: ClassVar[bool] = True  # TTT-E7

    # --- tables ----------------------------------------------------------------------------
    @property
    def setup_model(self) -> type[BaseModel]:
        return TableSetup

    def parse_setup(self, data: object) -> TableSetup:
        return from_wire(_SETUP_ADAPTER, data)

    def new_table(self, setup: BaseModel, dice: DiceState) -> TableState:
        assert isinstance(setup, TableSetup)
        return engine.new_table(
            setup.players, scenario=setup.scenario, options=setup.options, dice=dice
        )

    def summary(self, state: Any) -> TableSummary:
        """The shared summary with ``phase``: which of the turn's two phases (TTT-T1)."""
        table = self._state(state)
        return super().summary(table).model_copy(update={"phase": turns.phase_name(table)})

    def tank_views(self, state: Any, tank_ids: list[str] | None = None) -> list[TankView]:
        assert isinstance(state, TableState)
        ids = sorted(state.tanks) if tank_ids is None else tank_ids
        views = []
        for tank_id in ids:
            tank = state.tanks.get(tank_id)
            if tank is None:
                continue
            views.append(
                TankView(
                    tank_id=tank.id,
                    name=tank.name,
                    card=tank.card.id,
                    player=tank.player,
                    x=tank.x,
                    z=tank.z,
                    facing=tank.facing,
                    on_table=tank.on_table,
                    in_play=tank.in_play,
                    markers=markers(tank),
                    tooltip=tooltip(tank),
                )
            )
        return views

    def scene_parts(self, state: Any) -> SceneParts:
        assert isinstance(state, TableState)
        return scene.scene_parts(state)

    def line_of_fire(self, state: Any, result: Result) -> LineOfFire | None:
        assert isinstance(state, TableState)
        return scene.line_of_fire(state, result)

    # --- actions ---------------------------------------------------------------------------
    def parse_action(self, data: object) -> Action:
        return from_wire(ACTION_ADAPTER, data)

    def action_schema(self) -> dict[str, Any]:
        return ACTION_ADAPTER.json_schema()

    def tank_remove(self, state: Any, tank_id: str) -> Action:
        """The model was taken off the table (the rules decide whether that may be)."""
        return RemoveTank(tank_id=tank_id)

    def tank_put(self, state: Any, tank_id: str, put: TankPut) -> Action | None:
        """Setup: (re)place the tank. Play: a move the engine classifies; None for drift."""
        assert isinstance(state, TableState)
        tank = state.tanks.get(tank_id)
        if state.status == "setup" or tank is None:
            if tank is not None and _same_placement(tank, put, state.options):
                return None
            return PlaceTank(
                tank_id=tank_id,
                card=put.card,
                player=put.player,
                x=put.x,
                z=put.z,
                facing=put.facing,
                hull_down=bool(put.hull_down),
                reserve=put.reserve,
                name=put.name,
            )
        move = Move(tank_id=tank_id, x=put.x, z=put.z, facing=put.facing, hull_down=put.hull_down)
        if movement.is_drift(state, move):
            return None
        return move

    def terrain_put(self, state: Any, piece_id: str, data: object) -> PlaceTerrain:
        fields = dict(data) if isinstance(data, dict) else {}
        piece = from_wire(_TERRAIN_ADAPTER, {**fields, "id": piece_id})
        return PlaceTerrain(piece=piece)

    def terrain_schema(self) -> dict[str, Any]:
        schema = TerrainPiece.model_json_schema()
        schema["properties"].pop("id", None)
        schema["required"] = [r for r in schema.get("required", []) if r != "id"]
        schema["title"] = "TerrainBody"
        return schema

    def objective_put(self, state: Any, x: float, z: float) -> SetObjective:
        return SetObjective(x=x, z=z)

    def adjudicate(
        self, state: Any, action: Any, dice: SuppliedDice | None = None
    ) -> engine.Adjudication:
        return engine.adjudicate(state, action, dice)

    def options_for(self, state: Any, tank_id: str) -> list[dict[str, Any]]:
        return [o.to_dict() for o in engine.options_for(state, tank_id)]

    def odds(
        self, state: Any, shooter_id: str, target_id: str | None, **choices: Any
    ) -> list[ShotOdds]:
        """``choices``: ``grizzled_reroll`` (the Engage's declaration, ask mode) and
        ``friends`` (also the target's friends' morale checks)."""
        declared = choices.get("grizzled_reroll")
        friends = bool(choices.get("friends", False))
        if target_id is None:
            return odds.odds_for_shooter(state, shooter_id, declared=declared, friends=friends)
        return [odds.odds_against(state, shooter_id, target_id, declared=declared, friends=friends)]

    def luck_trials(self, state_before: Any, action: Any, result: Result) -> list[LuckTrial]:
        """The chances this adjudicated action's dice had (``rulesets.ttt.luck``)."""
        return luck.luck_trials(state_before, action, result)


def _same_placement(tank: Any, put: TankPut, options: Options) -> bool:
    """A setup report that changes nothing the referee tracks (TTS re-reports on every drop)."""
    return (
        tank.card.id == put.card
        and tank.player == put.player
        and (put.name is None or put.name == tank.name)
        and tank.on_table == (not put.reserve)
        and (put.hull_down is None or put.hull_down == tank.hull_down)
        and (
            put.reserve
            or (
                abs(tank.x - put.x) <= options.move_tolerance
                and abs(tank.z - put.z) <= options.move_tolerance
                and not movement.turned(tank.facing, put.facing, options.facing_tolerance)
            )
        )
    )


def ruleset() -> TinyTableTopTanks:
    return TinyTableTopTanks()
