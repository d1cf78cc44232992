"""Typed TinyTableTopTanks actions: what a player (or TTS on their behalf) asks the referee."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from tankref.rulesets.ttt.state import TerrainPiece

TankId = Annotated[str, Field(min_length=1, max_length=64)]
Coord = Annotated[float, Field(ge=-10_000, le=10_000, allow_inf_nan=False)]
Facing = Annotated[float, Field(ge=-3600, le=3600, allow_inf_nan=False)]
GrizzledUse = Literal["accuracy", "penetration", "none"]
BestArmourChoice = Literal["turn", "stay"]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PlaceTank(_Action):
    """Setup: put a tank on the table (or in reserve, off the table)."""

    kind: Literal["place_tank"] = "place_tank"
    tank_id: TankId
    card: str = Field(min_length=1, max_length=64)
    player: str = Field(min_length=1, max_length=32)
    x: Coord = 0.0
    z: Coord = 0.0
    facing: Facing = 0.0
    hull_down: bool = False
    reserve: bool = False
    name: str | None = Field(default=None, max_length=80)


class RemoveTank(_Action):
    kind: Literal["remove_tank"] = "remove_tank"
    tank_id: TankId


class PlaceTerrain(_Action):
    kind: Literal["place_terrain"] = "place_terrain"
    piece: TerrainPiece


class SetObjective(_Action):
    kind: Literal["set_objective"] = "set_objective"
    x: Coord
    z: Coord


class CrewRoll(_Action):
    """TTT-C1. ``tank_id`` None rolls for every tank whose crew is still unknown."""

    kind: Literal["crew_roll"] = "crew_roll"
    tank_id: TankId | None = None


class StartGame(_Action):
    kind: Literal["start_game"] = "start_game"


class Move(_Action):
    """A tank's new position and facing as TTS reports it; the referee classifies it."""

    kind: Literal["move"] = "move"
    tank_id: TankId
    x: Coord
    z: Coord
    facing: Facing
    hull_down: bool | None = None


class Engage(_Action):
    kind: Literal["engage"] = "engage"
    tank_id: TankId
    target_id: TankId
    # Only read when the table's Grizzled option is "ask" (TTT-CR1): where it may be spent.
    grizzled_reroll: GrizzledUse | None = None
    # Only with the best_armour option "ask" (TTT-E3): the target's owner's answer to the
    # DECISION_NEEDED reply, sent again under the same request id.
    best_armour: BestArmourChoice | None = None


class Wait(_Action):
    kind: Literal["wait"] = "wait"
    tank_id: TankId


class Recover(_Action):
    kind: Literal["recover"] = "recover"
    tank_id: TankId
    # Only read when the Grizzled option is "ask": the friend lending its reroll (TTT-CR1).
    lender_id: TankId | None = None


class Smoke(_Action):
    kind: Literal["smoke"] = "smoke"
    tank_id: TankId
    ability: str = Field(min_length=1, max_length=60)
    x: Coord | None = None  # mortar aim point (TTT-SM2)
    z: Coord | None = None


class EndPhase(_Action):
    kind: Literal["end_phase"] = "end_phase"
    player: str | None = None


Action = Annotated[
    PlaceTank
    | RemoveTank
    | PlaceTerrain
    | SetObjective
    | CrewRoll
    | StartGame
    | Move
    | Engage
    | Wait
    | Recover
    | Smoke
    | EndPhase,
    Field(discriminator="kind"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)


def parse_action(data: object) -> Action:
    return ACTION_ADAPTER.validate_python(data)
