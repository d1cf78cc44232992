"""The game's flow every ruleset shares: setup, playing, over; the turn; whose it is; the end.

A ruleset's table state keeps these fields under the same names (``status``, ``turn``,
``winner``, ``game_over_reason`` and an ``active_player``), so the core can guard them and
sum them up once. One refusal code per meaning, whatever the ruleset; a client (the Lua, the
page, a bot) reads the same code from every game:

==================  ====================================================================
code                meaning (codes it replaced)
==================  ====================================================================
NOT_STARTED         the game is still in setup (GAME_NOT_STARTED, NOT_PLAYING)
SETUP_OVER          setup is over: nothing more is placed (NOT_IN_SETUP, ALREADY_STARTED)
GAME_OVER           the game has ended (NOT_PLAYING once over)
NOT_YOUR_PHASE      another player's phase or turn (NOT_YOUR_TURN)
WRONG_STEP          the right player, the wrong step of the phase (WRONG_PHASE)
NO_TANKS            a side has nothing on the table to start with (NO_UNITS, NO_TANK)
DESTROYED           the acting unit is destroyed (TANK_DESTROYED)
IMMOBILIZED         the unit cannot move (IMMOBILISED)
NOT_AN_ENEMY        a target of one's own side (TARGET_NOT_ENEMY)
TARGET_NOT_ON_TABLE the target is not on the table (TARGET_GONE)
OFF_TABLE           a point or hex off the table's map (OFF_MAP)
==================  ====================================================================

Codes in a game's own words (``ALREADY_ENGAGED``, ``MUST_RECOVER`` ...) stay the ruleset's.
"""

from __future__ import annotations

from typing import Literal, NoReturn, Protocol

from tankref.core.errors import RulesError

GameStatus = Literal["setup", "playing", "over"]

NOT_STARTED = "NOT_STARTED"
SETUP_OVER = "SETUP_OVER"
GAME_OVER = "GAME_OVER"
NOT_YOUR_PHASE = "NOT_YOUR_PHASE"
WRONG_STEP = "WRONG_STEP"
NO_TANKS = "NO_TANKS"
DESTROYED = "DESTROYED"
IMMOBILIZED = "IMMOBILIZED"
NOT_AN_ENEMY = "NOT_AN_ENEMY"
TARGET_NOT_ON_TABLE = "TARGET_NOT_ON_TABLE"
OFF_TABLE = "OFF_TABLE"

# The codes each of these replaced, for the record (and a test that none comes back).
REPLACED: dict[str, str] = {
    "GAME_NOT_STARTED": NOT_STARTED,
    "NOT_PLAYING": NOT_STARTED,
    "NOT_IN_SETUP": SETUP_OVER,
    "ALREADY_STARTED": SETUP_OVER,
    "NOT_YOUR_TURN": NOT_YOUR_PHASE,
    "WRONG_PHASE": WRONG_STEP,
    "NO_UNITS": NO_TANKS,
    "NO_TANK": NO_TANKS,
    "TANK_DESTROYED": DESTROYED,
    "IMMOBILISED": IMMOBILIZED,
    "TARGET_NOT_ENEMY": NOT_AN_ENEMY,
    "TARGET_GONE": TARGET_NOT_ON_TABLE,
    "OFF_MAP": OFF_TABLE,
}


class FlowState(Protocol):
    """What the core reads of any ruleset's table state."""

    @property
    def status(self) -> GameStatus: ...

    @property
    def turn(self) -> int: ...

    @property
    def winner(self) -> str | None: ...

    @property
    def game_over_reason(self) -> str | None: ...

    @property
    def active_player(self) -> str | None: ...


def _refuse(code: str, clause: str | None, message: str) -> NoReturn:
    raise RulesError(code, clause, message)


def require_setup(state: FlowState, clause: str | None, what: str = "that") -> None:
    """Setup only: placing units and terrain, rolling for crews ... Once the game is over
    every action is GAME_OVER, whatever its kind (one answer for a finished game)."""
    require_not_over(state, clause)
    if state.status != "setup":
        _refuse(SETUP_OVER, clause, f"{what} is done only during setup; the game has started")


def require_playing(state: FlowState, clause: str | None) -> None:
    """A game under way: not still in setup, not over."""
    if state.status == "setup":
        _refuse(NOT_STARTED, clause, "the game has not started yet (start_game)")
    if state.status == "over":
        reason = f": {state.game_over_reason}" if state.game_over_reason else ""
        _refuse(GAME_OVER, clause, f"the game is over{reason}")


def require_not_over(state: FlowState, clause: str | None = None) -> None:
    if state.status == "over":
        reason = f": {state.game_over_reason}" if state.game_over_reason else ""
        _refuse(GAME_OVER, clause, f"the game is over{reason}")


def require_turn_of(state: FlowState, player: str, clause: str | None, what: str = "phase") -> None:
    """The game under way and ``player`` the one whose phase (or turn) it is."""
    require_playing(state, clause)
    if player != state.active_player:
        _refuse(NOT_YOUR_PHASE, clause, f"it is {state.active_player}'s {what}, not {player}'s")
