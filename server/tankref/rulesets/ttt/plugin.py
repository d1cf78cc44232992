"""TinyTableTopTanks as the server sees it: the ruleset surface in ``tankref.core.ruleset``."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from tankref.core.aids import Aids
from tankref.core.dice import DiceState, SuppliedDice
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
    summary_fields,
)
from tankref.core.scene import LineOfFire, SceneParts
from tankref.core.trusted import built, whole
from tankref.rulesets.ttt import about, engine, luck, movement, odds, scene, selfplay, turns
from tankref.rulesets.ttt import aids as ttt_aids
from tankref.rulesets.ttt import tools as ttt_tools
from tankref.rulesets.ttt.actions import (
    ACTION_ADAPTER,
    Action,
    Engage,
    GrizzledUse,
    Move,
    PlaceTank,
    PlaceTerrain,
    Recover,
    RemoveTank,
    SetObjective,
    Smoke,
    Wait,
)
from tankref.rulesets.ttt.odds import ShotOdds
from tankref.rulesets.ttt.presentation import view
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


class OddsChoices(BaseModel):
    """What an odds query may choose: the declaration the Engage would carry, and how far
    the odds look (``odds``)."""

    grizzled_reroll: GrizzledUse | None = Field(
        default=None,
        description="Ask mode: where the Engage would declare the Grizzled reroll.",
    )
    friends: bool = Field(
        default=False,
        description="Also the morale checks the shot may cause among the target's friends.",
    )


@dataclass(frozen=True)
class TinyTableTopTanks(ModelState):
    name: str = NAME
    title: str = "TinyTableTopTanks"
    clause_prefix: str = "TTT"
    state_model: ClassVar[type[BaseModel]] = TableState
    damage_deck: ClassVar[bool] = True  # TTT-E7
    odds_choices: ClassVar[type[BaseModel]] = OddsChoices

    def info(self) -> RulesetInfo:
        return about.info()

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
        """The shared summary (``summary_fields``) with ``phase``: which
        of the turn's two phases (TTT-T1). Made in one model from the state's own values,
        not validated again (one summary an event, logged; the same model, tested)."""
        table = self._state(state)
        return built(TableSummary, **summary_fields(table), phase=turns.phase_name(table))

    def tank_views(self, state: Any, tank_ids: list[str] | None = None) -> list[TankView]:
        assert isinstance(state, TableState)
        ids = sorted(state.tanks) if tank_ids is None else tank_ids
        views = []
        for tank_id in ids:
            tank = state.tanks.get(tank_id)
            if tank is None:
                continue
            status, text = view(tank)  # its markers and tooltip: one look-up for both
            # Made from the state's own values, not validated again (the views of the tanks
            # an event changed are logged with it): every field, in declared order, float()
            # and bool() as validation would make them (the same model, tested).
            views.append(
                whole(
                    TankView,
                    {
                        "tank_id": tank.id,
                        "name": tank.name,
                        "card": tank.card.id,
                        "player": tank.player,
                        "x": float(tank.x),
                        "z": float(tank.z),
                        "facing": float(tank.facing),
                        "on_table": bool(tank.on_table),
                        "in_play": bool(tank.in_play),
                        "markers": status,
                        "tooltip": text,
                    },
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

    def aids(self, state: Any, tank_id: str) -> Aids:
        """Where it may move, its arcs, its lines of fire (``rulesets.ttt.aids``)."""
        return ttt_aids.aids(self._state(state), tank_id)

    # --- conformance hooks -------------------------------------------------------------------
    def self_play(self, seed: int) -> PlayRecord:
        """``selfplay.play_game``: its table is ``random_table(seed)``, built the same again."""
        return recorded_play(
            selfplay.random_table(seed), lambda hook: selfplay.play_game(seed, on_step=hook)
        )

    def option_actions(self, state: Any, tank_id: str, option: dict[str, Any]) -> list[BaseModel]:
        """A move in place, or (refused) an inch on (a tank still to enter has none); every
        target listed, or the
        first enemy on the board (the menu reports the first target's refusal); each smoke
        ability, or the last one (its refusal is the one reported), a mortar aimed at the
        tank's own spot as the menu aims it."""
        assert isinstance(state, TableState)
        tank = state.tanks[tank_id]
        kind, allowed, detail = option["kind"], option["allowed"], option.get("detail") or {}
        if kind == "move":
            if not tank.on_table:
                return []
            if allowed:  # staying put is always within the move; a drive may meet terrain
                return [Move(tank_id=tank_id, x=tank.x, z=tank.z, facing=tank.facing)]
            # A report of the spot it holds is no move at all (TTS re-reports drops): an inch
            # toward the table's centre is one, and stays on the table.
            area = state.area
            cx, cz = (area.x_min + area.x_max) / 2, (area.z_min + area.z_max) / 2
            away = math.hypot(cx - tank.x, cz - tank.z) or 1.0
            x, z = tank.x + (cx - tank.x) / away, tank.z + (cz - tank.z) / away
            return [Move(tank_id=tank_id, x=x, z=z, facing=tank.facing)]
        if kind == "engage":
            if allowed:
                return [
                    Engage(tank_id=tank_id, target_id=t["target_id"]) for t in detail["targets"]
                ]
            enemies = sorted(
                t.id for t in state.tanks.values() if t.player != tank.player and t.on_board
            )
            return [Engage(tank_id=tank_id, target_id=t) for t in enemies[:1]]
        if kind == "smoke":
            names = [a["ability"] for a in detail["abilities"]] if allowed else None
            abilities = [a for a in tank.card.smoke if names is None or a.name in names]
            return [
                Smoke(
                    tank_id=tank_id,
                    ability=a.name,
                    x=tank.x if a.kind == "mortar" else None,
                    z=tank.z if a.kind == "mortar" else None,
                )
                for a in (abilities if allowed else abilities[-1:])
            ]
        if kind == "wait":
            return [Wait(tank_id=tank_id)]
        if kind == "recover":
            return [Recover(tank_id=tank_id)]
        return []

    def odds_trials(self, state: Any) -> list[OddsTrial]:
        """Each shot the active player's tanks may take: its chance of a hit (TTT-E4) and of
        penetrating (TTT-E5), as the Engage's result reports them."""
        assert isinstance(state, TableState)
        trials = []
        for tank in sorted(state.tanks.values(), key=lambda t: t.id):
            if tank.player != state.active_player:
                continue
            menu = {o.kind: o for o in engine.options_for(state, tank.id, odds=False)}
            if not menu["engage"].allowed:
                continue
            for shot in odds.odds_for_shooter(state, tank.id):
                action = Engage(tank_id=tank.id, target_id=shot.target)
                for figure, key in (("p_hit", "hit"), ("p_penetrate", "penetrated")):
                    trials.append(
                        OddsTrial(
                            f"{figure} {tank.id} -> {shot.target}",
                            action,
                            Fraction(shot.exact[figure]),
                            _outcome_says(key),
                        )
                    )
        return trials

    # --- the command line --------------------------------------------------------------------
    def commands(self) -> Sequence[Command]:
        """``tankref cards``, ``rulings`` and ``odds`` (``rulesets.ttt.tools``)."""
        return ttt_tools.COMMANDS


def _outcome_says(key: str) -> Callable[[Result], bool]:
    return lambda result: bool(result.outcome.get(key))


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
