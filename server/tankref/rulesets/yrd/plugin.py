"""The tank yard as the server sees it: the ruleset surface in ``tankref.core.ruleset``.

The table's concepts map onto the shared ones honestly: tanks and pieces are models the
table reports by their TTS position (the referee finds the space under them); there is no
terrain and no objective, so those requests are refused with a clear code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.errors import RulesError
from tankref.core.geometry import TableArea
from tankref.core.luck import LuckTrial
from tankref.core.results import Result
from tankref.core.ruleset import ModelState, RulesetInfo, TankPut, TankView, from_wire
from tankref.core.scene import LineOfFire, SceneParts
from tankref.rulesets.yrd import about, engine, scene
from tankref.rulesets.yrd.actions import (
    ACTION_ADAPTER,
    Action,
    AntiTank,
    Attack,
    Move,
    PlacePiece,
    PlaceTank,
    RemoveTank,
)
from tankref.rulesets.yrd.cards import default_cards
from tankref.rulesets.yrd.contest import SUCCESS, verdict_odds
from tankref.rulesets.yrd.odds import AttackOdds, odds_for
from tankref.rulesets.yrd.presentation import unit_views
from tankref.rulesets.yrd.state import (
    Options,
    Party,
    TableState,
    artillery_at,
    layout_problems,
    tank_space_at,
)

NAME = "yrd"
DRIFT = 0.25  # inches a piece off the artillery spaces may drift without a new report


def _default_players() -> tuple[Party, Party]:
    return (Party(id="Red"), Party(id="Blue"))


class YardSetup(BaseModel):
    """A tank yard table: the two parties (defence value, yard layout), who goes first, the
    rulings."""

    model_config = ConfigDict(extra="forbid")

    players: tuple[Party, Party] = Field(
        default_factory=_default_players,
        description="Party ids (TTS colours work well), defence values and yard layouts "
        "(omitted: the first party's yard along the south, the second's north).",
    )
    first_player: str | None = Field(default=None, description="Default: the first party.")
    options: Options = Field(default_factory=Options, description="Per-table rulings.")

    @model_validator(mode="after")
    def _complete(self) -> YardSetup:
        if self.players[0].id == self.players[1].id:
            raise ValueError("the two parties need different ids")
        if self.first_player is not None and self.first_player not in {p.id for p in self.players}:
            raise ValueError(f"first_player {self.first_player!r} is not a party")
        # The layout is stored whole, defaults filled in: the table replays as it was set.
        self.players = engine.with_yards(self.players)
        problems = layout_problems(self.players, self.options.snap_radius, TableArea())
        if problems:
            raise ValueError("yard layout: " + "; ".join(problems))
        return self


_SETUP_ADAPTER: TypeAdapter[YardSetup] = TypeAdapter(YardSetup)


@dataclass(frozen=True)
class TankYard(ModelState):
    name: str = NAME
    title: str = about.TITLE
    clause_prefix: str = "YRD"
    state_model: ClassVar[type[BaseModel]] = TableState

    def info(self) -> RulesetInfo:
        return about.info()

    # --- tables ----------------------------------------------------------------------------
    @property
    def setup_model(self) -> type[BaseModel]:
        return YardSetup

    def parse_setup(self, data: object) -> YardSetup:
        return from_wire(_SETUP_ADAPTER, data)

    def new_table(self, setup: BaseModel, dice: DiceState) -> TableState:
        assert isinstance(setup, YardSetup)
        return engine.new_table(
            setup.players, options=setup.options, first_player=setup.first_player, dice=dice
        )

    def tank_views(self, state: Any, tank_ids: list[str] | None = None) -> list[TankView]:
        assert isinstance(state, TableState)
        return unit_views(state, tank_ids)

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
        """A model where TTS reports it. A tank card: a placement in setup, a move between its
        yard's spaces in the match (None: still on the same space). A piece card: the piece
        put down or moved, any time (None: it only drifted)."""
        assert isinstance(state, TableState)
        tank = state.tanks.get(tank_id)
        piece = state.pieces.get(tank_id)
        if piece is not None or (tank is None and put.card in default_cards().pieces):
            return self._piece_put(state, tank_id, put)
        if put.reserve:
            raise RulesError(
                "NO_RESERVE",
                "YRD-SP1",
                f"{tank_id}: a party's tank stands in its yard; the tank yard has no reserve",
                {"field": "reserve"},
            )
        same_unit = (
            tank is not None
            and tank.card.id == put.card
            and tank.player == put.player
            and (put.name is None or put.name == tank.name)
        )
        space = tank_space_at(state, put.player, put.x, put.z)
        if tank is not None and same_unit and space == tank.space:
            return None  # re-reported or nudged on the same space: nothing changes
        if state.status == "setup" or tank is None or not same_unit:
            return PlaceTank(
                tank_id=tank_id,
                card=put.card,
                player=put.player,
                x=put.x,
                z=put.z,
                facing=put.facing,
                name=put.name,
            )
        return Move(tank_id=tank_id, x=put.x, z=put.z, facing=put.facing)

    @staticmethod
    def _piece_put(state: TableState, piece_id: str, put: TankPut) -> Action | None:
        piece = state.pieces.get(piece_id)
        if put.reserve:
            return RemoveTank(tank_id=piece_id) if piece is not None else None
        if (
            piece is not None
            and piece.card.id == put.card
            and piece.player == put.player
            and (put.name is None or put.name == piece.name)
        ):
            spot = artillery_at(state, put.x, put.z)
            if spot is not None and spot == (piece.homefield, piece.artillery):
                return None  # still on the same artillery space
            drifted = abs(put.x - piece.x) <= DRIFT and abs(put.z - piece.z) <= DRIFT
            if spot is None and piece.homefield is None and drifted:
                return None
        return PlacePiece(
            piece_id=piece_id,
            card=put.card,
            player=put.player,
            x=put.x,
            z=put.z,
            facing=put.facing,
            name=put.name,
        )

    def terrain_put(self, state: Any, piece_id: str, data: object) -> BaseModel:
        raise RulesError(
            "NO_TERRAIN",
            None,
            "the tank yard has no terrain: tanks stand on their yard's spaces (see the scene)",
        )

    def terrain_schema(self) -> dict[str, Any]:
        return {
            "title": "YardNoTerrain",
            "description": "The tank yard has no terrain: every piece is refused (NO_TERRAIN).",
            "type": "object",
        }

    def objective_put(self, state: Any, x: float, z: float) -> BaseModel:
        raise RulesError("NO_OBJECTIVE", None, "the tank yard has no objective marker")

    def adjudicate(
        self, state: Any, action: Any, dice: SuppliedDice | None = None
    ) -> engine.Adjudication:
        return engine.adjudicate(state, action, dice)

    def options_for(self, state: Any, tank_id: str) -> list[dict[str, Any]]:
        return [o.to_dict() for o in engine.options_for(state, tank_id)]

    def odds(
        self, state: Any, shooter_id: str, target_id: str | None, **choices: Any
    ) -> list[AttackOdds]:
        """The exact odds of the attack the tank's space grants (no choices to make)."""
        assert isinstance(state, TableState)
        return odds_for(state, shooter_id, target_id)

    def luck_trials(self, state_before: Any, action: Any, result: Result) -> list[LuckTrial]:
        """One trial per contest: did the offender win (measure ``hit``), at the exact
        chance the contest had. Automatic failures roll nothing and count for nothing."""
        assert isinstance(state_before, TableState)
        if not isinstance(action, Attack | AntiTank) or not result.rolls:
            return []
        tank = state_before.tanks[action.tank_id]
        if isinstance(action, Attack):
            c = engine.attack_contest(state_before, tank, state_before.pieces[action.target_id])
        else:
            c = engine.anti_tank_contest(state_before, state_before.tanks[action.target_id])
        v = verdict_odds(c)
        p = v["win"] + v["graze"] + v["critical_success"]
        happened = str(result.outcome.get("verdict")) in SUCCESS
        return [LuckTrial(player=tank.player, measure="hit", p=p, happened=happened)]


def ruleset() -> TankYard:
    return TankYard()
