"""The timing matrix (issue 14): for each effect, at each moment it can arrive, what the tank
may do at once, and what it must and may do at the next two phase boundaries.

The subject is Blue's Sherman "B1" (the second player; Red's Tiger "R1" fires at it). Every
effect comes from one penetrating Tiger hit with the damage card and the green morale die
forced. The moments:

- ``before``: in Red's phase of turn 1, before B1's first phase (a normal Engage);
- ``own_start``: in B1's own phase, before it acts; ``own_moved``: after its Normal Move;
  ``own_engaged``: after it engaged. In its own phase an effect can only arrive by an enemy
  Wait shot (R1 went into Wait in Red's phase);
- ``enemy``: in Red's phase after B1's own phase (B1 moved and engaged), by a normal Engage;
- ``enemy_waiting``: the same, but B1 is in Wait (it could still fire a Wait shot).

Columns: ``now`` = what B1 may do right after the effect (the options a menu shows);
then for each of the next two phase boundaries (an End Phase) what the referee must do for B1
there (``drive``: the Routed drive, TTT-MR2; ``recover``: the TTT-MR4 Recover it rolls) and
what B1 may do right after it. In an enemy phase B1 may do nothing, unless it is in Wait
(``engage``). A row whose effect cannot arise at that moment (a Wait lost where B1 cannot be
in Wait) is listed as such and checked to be impossible.

Rulings the table shows (TTT-R1, TTT-MR1, TTT-MR2, TTT-MR4, TTT-E7):
- an effect in the tank's own phase binds it from its next turn; Recover waits for that turn;
- a Routed tank drives at the end of its own phase unless it already moved in it;
- Crew Stunned means its next own phase (a tank stunned in the enemy's phase keeps its Wait
  shot; one stunned in its own phase finishes that phase);
- a Wait is lost the moment the crew is Shaken; a tank that lost it in its own phase may still
  finish its Normal Move (measured from where it began its phase).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kit.ttt import Game, duel
from tankref.core.errors import RulesError
from tankref.core.results import Result
from tankref.rulesets.ttt.actions import EndPhase, Engage, Move, Recover, Wait
from tankref.rulesets.ttt.engine import options_for
from tankref.rulesets.ttt.state import Options

TIGER_HIT = [5, 1, 1, 1]
TIGER_PEN = [5, 5, 5, 1, 1]  # 6 PEN through the Sherman's front (5)

# effect: (damage card, green morale face)
EFFECTS: dict[str, tuple[str, int]] = {
    "Shaken": ("Glancing Blow", 4),
    "Routed": ("Glancing Blow", 6),
    "Immobilized": ("Immobilized", 1),
    "Shaken+Immobilized": ("Immobilized", 4),  # TTT-MR4 by one hit (either order)
    "Crew Stunned": ("Crew Stunned", 1),
    "Wait lost": ("Glancing Blow", 4),  # Shaken while in Wait (TTT-MR1)
    "Optics Damaged": ("Optics Damaged", 1),  # a damage card that limits no action
}

NOT_POSSIBLE = "cannot arise"


@dataclass(frozen=True)
class Row:
    effect: str
    moment: str
    now: str  # the kinds B1 may do at once, space-separated; "" = nothing
    must1: str = ""  # what the referee does for B1 at the first boundary
    may1: str = ""
    must2: str = ""
    may2: str = ""
    why: str = ""


ALL_OWN = "engage move smoke wait"  # a healthy Sherman that has not acted (smoke: its mortar)

# fmt: off
MATRIX: list[Row] = [
    # --- before its phase: the effect is from a prior round when its phase begins -----------
    Row("Shaken", "before", now="", may1="engage move recover smoke",
        why="TTT-MR1 no Wait; TTT-R1 Recover allowed (prior round)"),
    Row("Routed", "before", now="", may1="recover smoke", must2="drive",
        why="TTT-MR2 drives at the end of its phase; TTT-R1 may Recover first"),
    Row("Immobilized", "before", now="", may1="engage smoke wait", why="TTT-E7 no move"),
    Row("Shaken+Immobilized", "before", now="", may1="recover", must2="recover",
        why="TTT-MR4 only Recover; the referee rolls it if not tried"),
    Row("Crew Stunned", "before", now="", may1="", why="TTT-E7 no action in its next phase"),
    Row("Wait lost", "before", now=NOT_POSSIBLE, why="B1 has had no phase to Wait in"),
    Row("Optics Damaged", "before", now="", may1=ALL_OWN, why="TTT-E7 -1 Accuracy die only"),
    # --- in its own phase, before it acts (a Wait shot) --------------------------------------
    Row("Shaken", "own_start", now="engage move smoke", may2="engage move recover smoke",
        why="TTT-MR1 no Wait at once; TTT-R1 Recover only next turn"),
    Row("Routed", "own_start", now="smoke", must1="drive", may2="recover smoke",
        why="TTT-MR2 it has not moved: drives at the end of this phase"),
    Row("Immobilized", "own_start", now="engage smoke wait", may2="engage smoke wait",
        why="TTT-E7"),
    Row("Shaken+Immobilized", "own_start", now="engage smoke", may2="recover",
        why="TTT-MR4 binds its next turn, no referee roll at the end of this phase"),
    Row("Crew Stunned", "own_start", now=ALL_OWN, may2="",
        why="TTT-E7 its next phase is stunned; it finishes this one"),
    Row("Wait lost", "own_start", now=NOT_POSSIBLE, why="a Wait is reset when its phase begins"),
    Row("Optics Damaged", "own_start", now=ALL_OWN, may2=ALL_OWN, why="TTT-E7"),
    # --- in its own phase, after a Normal Move (a Wait shot) ----------------------------------
    Row("Shaken", "own_moved", now="engage move", may2="engage move recover smoke",
        why="TTT-MR1; TTT-SM1 its reusable smoke is barred after a move"),
    Row("Routed", "own_moved", now="", may2="recover smoke",
        why="TTT-MR2 it moved: no second drive this phase; it drives next phase"),
    Row("Immobilized", "own_moved", now="engage wait", may2="engage smoke wait", why="TTT-E7"),
    Row("Shaken+Immobilized", "own_moved", now="engage", may2="recover", why="TTT-MR4"),
    Row("Crew Stunned", "own_moved", now="engage move wait", may2="", why="TTT-E7"),
    Row("Wait lost", "own_moved", now="engage move", may2="engage move recover smoke",
        why="TTT-MR1 the Wait goes at once; it may still Engage in its own phase"),
    Row("Optics Damaged", "own_moved", now="engage move wait", may2=ALL_OWN, why="TTT-E7"),
    # --- in its own phase, after it engaged (a Wait shot) -------------------------------------
    Row("Shaken", "own_engaged", now="", may2="engage move recover smoke", why="TTT-E1, TTT-MR1"),
    Row("Routed", "own_engaged", now="", must1="drive", may2="recover smoke",
        why="TTT-MR2 it has not moved: drives at the end of this phase"),
    Row("Immobilized", "own_engaged", now="", may2="engage smoke wait", why="TTT-E7"),
    Row("Shaken+Immobilized", "own_engaged", now="", may2="recover", why="TTT-MR4"),
    Row("Crew Stunned", "own_engaged", now="", may2="", why="TTT-E7"),
    Row("Wait lost", "own_engaged", now=NOT_POSSIBLE, why="TTT-W1 no Wait after an Engage"),
    Row("Optics Damaged", "own_engaged", now="", may2=ALL_OWN, why="TTT-E7"),
    # --- in the enemy's phase after its own, by a normal Engage ------------------------------
    Row("Shaken", "enemy", now="", may1="engage move recover smoke", why="TTT-R1 prior round"),
    Row("Routed", "enemy", now="", may1="recover smoke", must2="drive", why="TTT-MR2"),
    Row("Immobilized", "enemy", now="", may1="engage smoke wait", why="TTT-E7"),
    Row("Shaken+Immobilized", "enemy", now="", may1="recover", must2="recover", why="TTT-MR4"),
    Row("Crew Stunned", "enemy", now="", may1="", why="TTT-E7"),
    Row("Wait lost", "enemy", now=NOT_POSSIBLE, why="B1 is not in Wait in this moment"),
    Row("Optics Damaged", "enemy", now="", may1=ALL_OWN, why="TTT-E7"),
    # --- in the enemy's phase while B1 is in Wait ------------------------------------------
    Row("Shaken", "enemy_waiting", now="", may1="engage move recover smoke",
        why="TTT-MR1 the Wait is lost before it can fire"),
    Row("Routed", "enemy_waiting", now="", may1="recover smoke", must2="drive", why="TTT-MR2"),
    Row("Immobilized", "enemy_waiting", now="engage", may1="engage smoke wait",
        why="TTT-W1 it keeps its Wait shot"),
    Row("Shaken+Immobilized", "enemy_waiting", now="", may1="recover", must2="recover",
        why="TTT-MR1, TTT-MR4"),
    Row("Crew Stunned", "enemy_waiting", now="engage", may1="",
        why="TTT-E7 the stun is its next own phase: the Wait shot stands"),
    Row("Wait lost", "enemy_waiting", now="", may1="engage move recover smoke", why="TTT-MR1"),
    Row("Optics Damaged", "enemy_waiting", now="engage", may1=ALL_OWN, why="TTT-E7"),
]
# fmt: on

MOMENTS = ("before", "own_start", "own_moved", "own_engaged", "enemy", "enemy_waiting")


def _table() -> Game:
    """R1 (Tiger) at (0,-20) facing north; B1 (Sherman) at (0,8) facing south, with two
    friends far apart (so B1 stopping does not leave a friend without a mobile one)."""
    return duel(
        blue_at=(0.0, 8.0, 180.0),
        options=Options(deploy_depth=30),
        extra=[
            ("B2", "m4a1-sherman", "Blue", -30.0, 20.0, 180.0),
            ("B3", "m4a1-sherman", "Blue", 30.0, 20.0, 180.0),
        ],
    )


def _reach(moment: str, waiting: bool) -> Game | None:
    """The table at ``moment``, just before R1's shot; None when B1 cannot be in Wait then."""
    g = _table()
    if moment == "before":
        return None if waiting else g
    if moment.startswith("own"):
        g.do(Wait(tank_id="R1"))
        g.do(EndPhase())
        if moment == "own_start":
            return None if waiting else g
        if moment == "own_moved":
            g.do(Move(tank_id="B1", x=0, z=5, facing=180))
            if waiting:
                g.do(Wait(tank_id="B1"))
            return g
        g.do(Engage(tank_id="B1", target_id="R1"), white=[1, 1, 1])
        if waiting:
            g.refused(Wait(tank_id="B1"), "WAIT_AFTER_ENGAGE")
            return None
        return g
    g.do(EndPhase())
    if moment == "enemy":
        g.do(Move(tank_id="B1", x=0, z=5, facing=180))
        g.do(Engage(tank_id="B1", target_id="R1"), white=[1])
        g.do(EndPhase())
        return None if waiting else g
    g.do(Wait(tank_id="B1"))
    g.do(EndPhase())
    return g


def _may(g: Game) -> str:
    return " ".join(sorted(o.kind for o in options_for(g.state, "B1", odds=False) if o.allowed))


def _must(result: Result) -> str:
    done = []
    if any(e.kind == "rout_move" and e.data["tank_id"] == "B1" for e in result.events):
        done.append("drive")
    if any(r["tank_id"] == "B1" for r in result.outcome.get("recovers", [])):
        done.append("recover")
    return " ".join(done)


def _boundary(g: Game, must: str) -> Result:
    """End the phase; a referee Recover roll is forced to fail (green 5), any other roll is
    not expected (the engine would answer DICE_NEEDED)."""
    return g.do(EndPhase(), green=[5] if "recover" in must else [])


@pytest.mark.parametrize("row", MATRIX, ids=[f"{r.effect}@{r.moment}" for r in MATRIX])
def test_timing_matrix_TTT_MR1_MR2_MR4_R1_E7_W1(row: Row) -> None:
    """TTT-MR1, TTT-MR2, TTT-MR4, TTT-R1, TTT-E7, TTT-W1: one cell of the matrix."""
    card, green = EFFECTS[row.effect]
    g = _reach(row.moment, waiting=row.effect == "Wait lost")
    if row.now == NOT_POSSIBLE:
        assert g is None, row.why
        return
    assert g is not None
    was_waiting = g.tank("B1").waiting
    g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=TIGER_HIT,
        red=TIGER_PEN,
        card=card,
        green=[green],
    )
    if row.effect == "Wait lost":
        assert was_waiting and not g.tank("B1").waiting
    assert _may(g) == row.now, f"now ({row.why})"
    r = _boundary(g, row.must1)
    assert (_must(r), _may(g)) == (row.must1, row.may1), f"first boundary ({row.why})"
    r = _boundary(g, row.must2)
    assert (_must(r), _may(g)) == (row.must2, row.may2), f"second boundary ({row.why})"


def test_the_matrix_is_complete() -> None:
    """Every effect at every moment has exactly one row."""
    cells = [(r.effect, r.moment) for r in MATRIX]
    assert sorted(cells) == sorted((e, m) for e in EFFECTS for m in MOMENTS)


def test_a_refused_option_names_its_clause_TTT_R1() -> None:
    """The matrix reads "may" from the options; each refusal there carries the code and clause
    the action gets (here Recover in the phase the crew was Shaken: TTT-R1)."""
    g = _reach("own_start", waiting=False)
    assert g is not None
    g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=TIGER_HIT,
        red=TIGER_PEN,
        card="Glancing Blow",
        green=[4],
    )
    (rec,) = [o for o in options_for(g.state, "B1", odds=False) if o.kind == "recover"]
    assert (rec.code, rec.clause) == ("RECOVER_TOO_SOON", "TTT-R1")
    with pytest.raises(RulesError) as info:
        g.do(Recover(tank_id="B1"), green=[1])
    assert info.value.code == rec.code
