"""The tank yard as the server sees it: the ruleset surface in ``tankref.core.ruleset``.

The table's concepts map onto the shared ones honestly: tanks and pieces are models the
table reports by their TTS position (the referee finds the space under them); there is no
terrain and no objective, so those requests are refused with a clear code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from tankref.core.adjudication import Adjudication
from tankref.core.aids import Aids
from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.errors import RulesError
from tankref.core.geometry import TableArea
from tankref.core.luck import LuckTrial
from tankref.core.results import Result
from tankref.core.ruleset import (
    Command,
    ModelState,
    OddsTrial,
    PlayRecord,
    RulesetInfo,
    TankPut,
    TankView,
    from_wire,
)
from tankref.core.scene import LineOfFire, SceneParts
from tankref.rulesets.yrd import about, engine, scene, selfplay
from tankref.rulesets.yrd import aids as yrd_aids
from tankref.rulesets.yrd import tools as yrd_tools
from tankref.rulesets.yrd.actions import (
    ACTION_ADAPTER,
    Action,
    AntiTank,
    Attack,
    EndTurn,
    Move,
    PlacePiece,
    PlaceTank,
    RemoveTank,
    StartGame,
)
from tankref.rulesets.yrd.anti_tank import anti_tank_contest
from tankref.rulesets.yrd.attack import attack_contest
from tankref.rulesets.yrd.cards import default_cards
from tankref.rulesets.yrd.contest import SUCCESS, verdict_odds
from tankref.rulesets.yrd.odds import AttackOdds, odds_for
from tankref.rulesets.yrd.presentation import unit_views
from tankref.rulesets.yrd.state import (
    TANK_SPACES,
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
    ) -> Adjudication[TableState]:
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
            c = attack_contest(state_before, tank, state_before.pieces[action.target_id])
        else:
            c = anti_tank_contest(state_before, state_before.tanks[action.target_id])
        v = verdict_odds(c)
        p = v["win"] + v["graze"] + v["critical_success"]
        happened = str(result.outcome.get("verdict")) in SUCCESS
        return [LuckTrial(player=tank.player, measure="hit", p=p, happened=happened)]

    def aids(self, state: Any, tank_id: str) -> Aids:
        """Where it may move, its arcs, its lines of fire (``rulesets.yrd.aids``)."""
        return yrd_aids.aids(self._state(state), tank_id)

    def commands(self) -> Sequence[Command]:
        """``tankref cards`` and ``rulings --ruleset yrd``, and an ``odds`` that says why it
        has no shot to price (``rulesets.yrd.tools``)."""
        return yrd_tools.COMMANDS

    # --- conformance hooks -------------------------------------------------------------------
    def self_play(self, seed: int) -> PlayRecord:
        """``selfplay.play_game``, from ``random_table(seed)`` (built the same again): the
        steps it reports up to the start of the match are the ones that table took."""
        actions: list[BaseModel] = []
        game = selfplay.play_game(seed, on_step=lambda _s, action, _r: actions.append(action))
        started = next(i for i, a in enumerate(actions) if isinstance(a, StartGame)) + 1
        return PlayRecord(selfplay.random_table(seed), tuple(actions[started:]), game.final)

    def option_actions(self, state: Any, tank_id: str, option: dict[str, Any]) -> list[BaseModel]:
        """Each space or target listed; refused, a move to the first other space or an attack
        on the first enemy piece or tank (none when the refusal is for want of any); the end
        of the turn asked for by the tank's owner (a piece has no turn to end)."""
        assert isinstance(state, TableState)
        kind, allowed, detail = option["kind"], option["allowed"], option.get("detail") or {}
        tank = state.tanks.get(tank_id)
        owner = tank.player if tank else state.pieces[tank_id].player
        if allowed:
            if kind == "move":
                return [Move(tank_id=tank_id, space=s["space"]) for s in detail["spaces"]]
            if kind in ("attack", "anti_tank"):
                attack = Attack if kind == "attack" else AntiTank
                return [
                    attack(tank_id=tank_id, target_id=t["target_id"]) for t in detail["targets"]
                ]
            return [EndTurn(player=owner)]
        if option["code"] in ("NO_SPACE", "NO_TARGETS"):
            return []
        if kind == "move":
            here = tank.space if tank else None
            return [Move(tank_id=tank_id, space=next(s for s in TANK_SPACES if s != here))]
        if kind == "attack":
            pieces = sorted(p.id for p in state.pieces.values() if p.player != owner)
            return [Attack(tank_id=tank_id, target_id=p) for p in pieces[:1]]
        if kind == "anti_tank":
            tanks = sorted(t.id for t in state.tanks.values() if t.player != owner)
            return [AntiTank(tank_id=tank_id, target_id=t) for t in tanks[:1]]
        return [EndTurn(player=owner)] if tank else []

    def odds_trials(self, state: Any) -> list[OddsTrial]:
        """The active tank's attacks: the chance the offender wins the contest (YRD-AT1,
        YRD-AN1; grazes and critical successes included), as the result's ``hit`` says."""
        assert isinstance(state, TableState)
        tank = state.tank_of(state.active_player)
        if tank is None:
            return []
        try:
            figures = odds_for(state, tank.id, None)
        except RulesError:
            return []
        trials = []
        for figure in figures:
            attack = Attack if figure.attack == "artillery" else AntiTank
            trials.append(
                OddsTrial(
                    f"p_hit {figure.shooter} -> {figure.target} ({figure.attack})",
                    attack(tank_id=figure.shooter, target_id=figure.target),
                    Fraction(figure.exact["p_hit"]),
                    lambda result: bool(result.outcome.get("hit")),
                )
            )
        return trials


def ruleset() -> TankYard:
    return TankYard()
