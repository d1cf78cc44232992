"""AFV as the server sees it: the ruleset surface in ``tankref.core.ruleset``."""

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
from tankref.core.geometry import TableArea, distance
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
    recorded_play,
)
from tankref.core.scene import LineOfFire, PlayerSide, SceneParts, TerrainView
from tankref.rulesets.afv import NAME, about, engine, selfplay
from tankref.rulesets.afv import aids as afv_aids
from tankref.rulesets.afv import tools as afv_tools
from tankref.rulesets.afv.actions import (
    ACTION_ADAPTER,
    Action,
    Disembark,
    Embark,
    Evade,
    Fire,
    Move,
    PlaceTank,
    PlaceTerrain,
    RemoveTank,
    Spot,
)
from tankref.rulesets.afv.odds import ShotOdds, hit_distribution, odds_for
from tankref.rulesets.afv.presentation import markers, tooltip, unit_label
from tankref.rulesets.afv.state import AfvOptions, AfvPlayer, TableState, TerrainPiece


def _default_players() -> tuple[AfvPlayer, AfvPlayer]:
    return (AfvPlayer(id="Red", edge="south"), AfvPlayer(id="Blue", edge="north"))


class AfvSetup(BaseModel):
    """An AFV table: the two players (the first moves first, AFV-SEQ1), the table area in
    inches, and the per-table rulings."""

    model_config = ConfigDict(extra="forbid")

    players: tuple[AfvPlayer, AfvPlayer] = Field(
        default_factory=_default_players,
        description="Player ids (TTS colours work well) and their table edges; the first "
        "listed is player A, who moves and fires first.",
    )
    area: TableArea = Field(default_factory=TableArea, description="The table, in inches.")
    options: AfvOptions = Field(default_factory=AfvOptions, description="Per-table rulings.")

    @model_validator(mode="after")
    def _different_players(self) -> AfvSetup:
        if self.players[0].id == self.players[1].id:
            raise ValueError("the two players need different ids")
        return self


_TERRAIN_ADAPTER: TypeAdapter[TerrainPiece] = TypeAdapter(TerrainPiece)
_SETUP_ADAPTER: TypeAdapter[AfvSetup] = TypeAdapter(AfvSetup)
_TERRAIN_LABEL = {
    "hill": "Hill (blocks sight and direct fire)",
    "woods": "Woods (blocks sight; cover for infantry)",
    "cover": "Cover for infantry",
    "rough": "Rough terrain",
    "mud": "Mud",
    "soft": "Soft terrain",
}


@dataclass(frozen=True)
class Afv(ModelState):
    name: str = NAME
    title: str = "AFV"
    clause_prefix: str = "AFV"
    state_model: ClassVar[type[BaseModel]] = TableState

    def info(self) -> RulesetInfo:
        return about.info()

    # --- tables ----------------------------------------------------------------------------
    @property
    def setup_model(self) -> type[BaseModel]:
        return AfvSetup

    def parse_setup(self, data: object) -> AfvSetup:
        return from_wire(_SETUP_ADAPTER, data)

    def new_table(self, setup: BaseModel, dice: DiceState) -> TableState:
        assert isinstance(setup, AfvSetup)
        return engine.new_table(setup.players, options=setup.options, area=setup.area, dice=dice)

    def tank_views(self, state: Any, tank_ids: list[str] | None = None) -> list[TankView]:
        assert isinstance(state, TableState)
        ids = sorted(state.units) if tank_ids is None else tank_ids
        views = []
        for unit_id in ids:
            unit = state.units.get(unit_id)
            if unit is None:
                continue
            views.append(
                TankView(
                    tank_id=unit.id,
                    name=unit.name,
                    card=unit.card.id,
                    player=unit.player,
                    x=unit.x,
                    z=unit.z,
                    facing=unit.facing,
                    on_table=unit.carried_by is None,
                    in_play=unit.in_play,
                    markers=markers(unit),
                    tooltip=tooltip(unit),
                )
            )
        return views

    def scene_parts(self, state: Any) -> SceneParts:
        assert isinstance(state, TableState)
        return SceneParts(
            area=state.area,
            players=[PlayerSide(id=p.id, edge=p.edge) for p in state.players],
            terrain=[
                TerrainView(
                    id=piece.id,
                    kind=piece.kind,
                    label=piece.name or _TERRAIN_LABEL[piece.kind],
                    shape=piece.shape,
                )
                for piece in state.terrain.values()
            ],
            rings=[],
        )

    def line_of_fire(self, state: Any, result: Result) -> LineOfFire | None:
        """The shot in ``result`` (a Fire that fired), between the two units as they stand."""
        assert isinstance(state, TableState)
        if not result.outcome.get("fired"):
            return None
        shooter = state.units.get(str(result.outcome.get("shooter", "")))
        target = state.units.get(str(result.outcome.get("target", "")))
        if shooter is None or target is None:
            return None
        hits = int(result.outcome.get("hits", 0))
        what = (
            "destroyed" if target.destroyed
            else f"{hits} hit{'s' if hits != 1 else ''}" if hits else "missed"
        )  # fmt: skip
        return LineOfFire(
            shooter_id=shooter.id,
            target_id=target.id,
            x1=shooter.x,
            z1=shooter.z,
            x2=target.x,
            z2=target.z,
            label=f"{unit_label(shooter)} → {unit_label(target)} "
            f"({result.outcome.get('weapon_name')}): {what}",
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
        """Setup: (re)place the unit. Play: a move the engine measures; None for drift.

        AFV has no reserves and no hull-down: a put asking for either is refused."""
        assert isinstance(state, TableState)
        if put.reserve:
            raise RulesError(
                "NO_RESERVE",
                "AFV-SEQ1",
                "reserve: AFV units start on the table",
                {"field": "reserve"},
            )
        if put.hull_down:
            raise RulesError(
                "NO_HULL_DOWN", "AFV-HIT2",
                "hull_down: AFV has no hull-down; tag terrain instead", {"field": "hull_down"},
            )  # fmt: skip
        unit = state.units.get(tank_id)
        tolerance = state.options.move_tolerance
        if state.status == "setup" or unit is None:
            if (
                unit is not None
                and unit.card.id == put.card
                and unit.player == put.player
                and (put.name is None or put.name == unit.name)
                and distance(unit.pos, (put.x, put.z)) <= tolerance
                and abs(((unit.facing - put.facing + 180) % 360) - 180) <= 2
            ):
                return None
            return PlaceTank(
                tank_id=tank_id, card=put.card, player=put.player, x=put.x, z=put.z,
                facing=put.facing, name=put.name,
            )  # fmt: skip
        if unit.carried_by is not None or (
            distance(unit.pos, (put.x, put.z)) <= tolerance
            and abs(((unit.facing - put.facing + 180) % 360) - 180) <= 2
        ):
            return None  # a carried team's model, or a model that only drifted
        return Move(tank_id=tank_id, x=put.x, z=put.z, facing=put.facing)

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

    def objective_put(self, state: Any, x: float, z: float) -> BaseModel:
        raise RulesError("NO_OBJECTIVE", "AFV-SEQ1", "AFV has no objective marker")

    def adjudicate(
        self, state: Any, action: Any, dice: SuppliedDice | None = None
    ) -> Adjudication[TableState]:
        return engine.adjudicate(state, action, dice)

    def options_for(self, state: Any, tank_id: str) -> list[dict[str, Any]]:
        return [o.to_dict() for o in engine.options_for(state, tank_id)]

    def odds(
        self, state: Any, shooter_id: str, target_id: str | None, **choices: Any
    ) -> list[ShotOdds]:
        """Every shot this unit's weapon systems may fire now (or at one target); TTT's
        choices (a Grizzled reroll, friends' morale) do not apply and are ignored."""
        return odds_for(state, shooter_id, target_id)

    def luck_trials(self, state_before: Any, action: Any, result: Result) -> list[LuckTrial]:
        """Each fired shot is one 'hit' chance: P(2d6 + hit + modifiers reaches 8)."""
        out = result.outcome
        if not out.get("fired") or "hit_total" not in out:
            return []
        shooter = state_before.units.get(out["shooter"])
        if shooter is None:
            return []
        hit = shooter.card.weapon[int(out["weapon"])].hit
        modifier = sum(m.amount for m in result.modifiers if m.applies_to == "hit_roll")
        p = 1 - hit_distribution(hit, modifier).get(0, Fraction(0))
        return [LuckTrial(player=shooter.player, measure="hit", p=p, happened=out["hits"] > 0)]

    def aids(self, state: Any, tank_id: str) -> Aids:
        """Where it may move, its arcs, its lines of fire (``rulesets.afv.aids``)."""
        return afv_aids.aids(self._state(state), tank_id)

    def commands(self) -> Sequence[Command]:
        """``tankref cards``, ``rulings`` and ``odds --ruleset afv`` (``rulesets.afv.tools``)."""
        return afv_tools.commands(self)

    # --- conformance hooks -------------------------------------------------------------------
    def self_play(self, seed: int) -> PlayRecord:
        """``selfplay.play_game``: its table is ``random_table(seed)``, built the same again."""
        return recorded_play(
            selfplay.random_table(seed), lambda hook: selfplay.play_game(seed, on_step=hook)
        )

    def option_actions(self, state: Any, tank_id: str, option: dict[str, Any]) -> list[BaseModel]:
        """A move back to where the unit began its phase; every weapon and target, target to
        spot or carrier listed, or (refused) the first one the menu tried, whose refusal it
        reports; getting out beside the carrier, as the menu checks it."""
        assert isinstance(state, TableState)
        unit = state.units[tank_id]
        kind, allowed, detail = option["kind"], option["allowed"], option.get("detail") or {}
        enemies = sorted(
            u.id for u in state.units.values() if u.player != unit.player and u.on_board
        )
        if kind == "move":
            return [Move(tank_id=tank_id, x=unit.start_x, z=unit.start_z, facing=unit.facing)]
        if kind == "evade":
            return [Evade(tank_id=tank_id)]
        if kind == "fire":
            if allowed:
                return [
                    Fire(tank_id=tank_id, target_id=t["target_id"], weapon=w["weapon"])
                    for w in detail["weapons"]
                    for t in w["targets"]
                ]
            return [Fire(tank_id=tank_id, target_id=t, weapon=0) for t in enemies[:1]]
        if kind == "spot":
            if allowed:
                return [Spot(tank_id=tank_id, target_id=t["target_id"]) for t in detail["targets"]]
            infantry = [t for t in enemies if state.units[t].infantry]
            return [Spot(tank_id=tank_id, target_id=t) for t in infantry[:1]]
        if kind == "embark":
            carriers = detail["carriers"] if allowed else sorted(
                u.id
                for u in state.units.values()
                if u.player == unit.player and u.id != tank_id and u.card.carries
            )[:1]  # fmt: skip
            return [Embark(tank_id=tank_id, carrier_id=c) for c in carriers]
        if kind == "disembark":
            at = state.units[unit.carried_by] if unit.carried_by else unit
            return [Disembark(tank_id=tank_id, x=at.x, z=at.z)]
        return []

    def odds_trials(self, state: Any) -> list[OddsTrial]:
        """Each shot the active player's units may fire: its chance of a hit (spotting roll
        included, AFV-HIT1) and of destroying the target (AFV-DMG1)."""
        assert isinstance(state, TableState)
        trials = []
        for unit in sorted(state.units.values(), key=lambda u: u.id):
            menu = {o.kind: o for o in engine.options_for(state, unit.id, odds=False)}
            if unit.player != state.active_player or not menu["fire"].allowed:
                continue
            for shot in odds_for(state, unit.id, None):
                action = Fire(tank_id=unit.id, target_id=shot.target, weapon=shot.weapon)
                label = f"{unit.id} weapon {shot.weapon} -> {shot.target}"
                trials.append(
                    OddsTrial(
                        f"p_hit {label}",
                        action,
                        Fraction(shot.exact["p_hit"]),
                        lambda result: int(result.outcome.get("hits", 0)) > 0,
                    )
                )
                trials.append(
                    OddsTrial(
                        f"p_destroyed {label}",
                        action,
                        Fraction(shot.exact["p_destroyed"]),
                        lambda result: bool(result.outcome.get("destroyed")),
                    )
                )
        return trials


def ruleset() -> Afv:
    return Afv()
