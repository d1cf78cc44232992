"""Tank Yard aids: the spaces a tank may move to (YRD-SP1).

The spaces are read from the move option itself (``engine.options_for``: ``check_may_move``
and ``check_destination`` for each space), so the aid and a move cannot disagree. The yard's
spaces are abstract (no arcs, no lines of sight), so it has no arcs and no lines.
"""

from __future__ import annotations

from tankref.core.aids import Aids, AidSpace, AidSpaces, Refusal
from tankref.rulesets.yrd import engine
from tankref.rulesets.yrd.context import get_tank
from tankref.rulesets.yrd.state import TableState


def aids(state: TableState, unit_id: str) -> Aids:
    """The aids for one tank (or piece) now; an unknown unit is refused (UNKNOWN_TANK)."""
    if unit_id not in state.pieces:
        get_tank(state, unit_id)  # an unknown id: refused like any read of it
    move = next(o for o in engine.options_for(state, unit_id, odds=False) if o.kind == "move")
    out = Aids(tank_id=unit_id)
    if not move.allowed or move.detail is None:
        out.move_refused = Refusal(
            code=move.code or "", clause=move.clause, message=move.reason or ""
        )
        return out
    spaces = [AidSpace(space=s["space"], x=s["x"], z=s["z"]) for s in move.detail["spaces"]]
    out.move.append(
        AidSpaces(
            id="spaces",
            spaces=spaces,
            clause="YRD-SP1",
            label=f"from its {move.detail['from']} space: one move a turn, before it attacks",
        )
    )
    return out
