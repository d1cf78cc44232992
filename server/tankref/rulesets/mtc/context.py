"""One Minimal Tank Combat adjudication on the core kit: the tanks, what a client is told of
each, and how the results name them.

Changes are listed in the order the action touched the tanks (a fire: the shooters, then the
target), and a tank's last summary line is found by its name, as the table has always shown.
"""

from __future__ import annotations

from typing import ClassVar

from tankref.core.adjudication import Context, find_unit
from tankref.rulesets.mtc.presentation import markers, tooltip
from tankref.rulesets.mtc.state import TableState, TankState


def get_tank(state: TableState, tank_id: str, field: str = "tank_id") -> TankState:
    return find_unit(state.tanks, tank_id, field)


def label(tank: TankState) -> str:
    """How the summary names a tank: its name and its side."""
    return f"{tank.name} ({tank.player})"


class TableContext(Context[TableState, TankState]):
    """The working copy of a Minimal Tank Combat table for one action."""

    tracked: ClassVar[tuple[str, ...]] = (
        "q",
        "r",
        "destroyed",
        "moved",
        "mp_spent",
        "road_bonus_used",
        "fired",
    )
    sorted_changes: ClassVar[bool] = False

    def label(self, unit: TankState) -> str:
        return unit.name

    def view(self, unit: TankState, last_line: str | None) -> tuple[list[str], str]:
        return markers(self.state, unit), tooltip(self.state, unit, last_line)

    def snap(self, tank: TankState) -> None:
        """Tell the table to set the model in the middle of its hex (MTC-HEX1)."""
        x, z = self.state.grid.center(tank.hex)
        self.event(
            "place_model",
            "MTC-HEX1",
            f"{tank.name} to the centre of hex {tank.hex}",
            tank_id=tank.id,
            x=round(x, 4),
            z=round(z, 4),
            hex=list(tank.hex),
        )
