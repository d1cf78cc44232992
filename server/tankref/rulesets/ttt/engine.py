"""The TinyTableTopTanks referee: a pure function from (state, action, dice) to (state, result).

- ``new_table`` makes a table in setup.
- ``options_for`` says what a tank may do now (and why not), without changing anything
  (``options``: the same checks the handlers run).
- ``adjudicate`` applies one action to a private copy and returns the new state with the
  structured result; a refusal raises a ``RulesError`` and the caller's state is untouched.
"""

from __future__ import annotations

from collections.abc import Sequence

from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.dispatch import ANY, PLAY, SETUP, Dispatch, Step
from tankref.core.errors import BadValue, RulesError
from tankref.core.geometry import TableArea
from tankref.rulesets.ttt import combat, morale, movement, setup, smoke, turns
from tankref.rulesets.ttt.actions import (
    Action,
    CrewRoll,
    EndPhase,
    Engage,
    Move,
    PlaceTank,
    PlaceTerrain,
    Recover,
    RemoveTank,
    SetObjective,
    Smoke,
    StartGame,
    Wait,
)
from tankref.rulesets.ttt.adjudication import Adjudication, Context
from tankref.rulesets.ttt.cards import CardSet, default_cards
from tankref.rulesets.ttt.options import legal_actions, options_for
from tankref.rulesets.ttt.state import Options, Player, Scenario, TableState

__all__ = ["Adjudication", "adjudicate", "legal_actions", "new_table", "options_for"]


def new_table(
    players: Sequence[Player] | None = None,
    *,
    scenario: Scenario | None = None,
    options: Options | None = None,
    area: TableArea | None = None,
    cards: CardSet | None = None,
    dice: DiceState | None = None,
) -> TableState:
    """A table in setup. Defaults: players Red (south edge) and Blue (north), Meeting Engagement."""
    players = tuple(players or (Player(id="Red", edge="south"), Player(id="Blue", edge="north")))
    if len(players) != 2:
        raise BadValue("TWO_PLAYERS", "TTT-T1", "players: TinyTableTopTanks is for two players")
    if players[0].id == players[1].id:
        raise BadValue("TWO_PLAYERS", "TTT-T1", "players: the two players need different ids")
    scenario = scenario or Scenario()
    ids = {p.id for p in players}
    for role in ("first_player", "ambusher", "defender"):
        who = getattr(scenario, role)
        if who is not None and who not in ids:
            raise BadValue("UNKNOWN_PLAYER", "TTT-S1", f"scenario.{role}: {who!r} is not a player")
    if scenario.kind == "ambush" and scenario.ambusher is None:
        raise RulesError(
            "AMBUSHER_NEEDED", "TTT-S2", "scenario.ambusher: name the ambushing player"
        )
    if scenario.kind == "objective" and scenario.defender is None:
        raise RulesError(
            "DEFENDER_NEEDED", "TTT-S3", "scenario.defender: name the defending player"
        )
    state = TableState(
        players=(players[0], players[1]),
        order=(players[0].id, players[1].id),
        scenario=scenario,
        options=options or Options(),
        area=area or TableArea(),
        rules=(cards or default_cards()).rules,
        dice=dice or DiceState(),
    )
    state.order = turns.phase_order(state)
    return state


# Each action kind: its handler and when it may be taken. Setup actions are refused once the
# game has started (TTT-S1); a tank's actions wait for the game to start (TTT-T1). A Move
# is taken in setup too: there its handler says to place the tank instead (USE_PLACE_TANK).
DISPATCH: Dispatch[Context] = Dispatch(
    Action,
    {
        PlaceTank: Step(setup.do_place_tank, SETUP, "TTT-S1", "place_tank"),
        RemoveTank: Step(setup.do_remove_tank, SETUP, "TTT-S1", "remove_tank"),
        PlaceTerrain: Step(setup.do_place_terrain, SETUP, "TTT-S1", "place_terrain"),
        SetObjective: Step(setup.do_set_objective, SETUP, "TTT-S1", "set_objective"),
        CrewRoll: Step(setup.do_crew_roll, SETUP, "TTT-S1", "crew_roll"),
        StartGame: Step(turns.do_start_game, SETUP, "TTT-S1", "start_game"),
        Move: Step(movement.do_move, ANY, "TTT-T1"),
        Engage: Step(combat.do_engage, PLAY, "TTT-T1"),
        Wait: Step(movement.do_wait, PLAY, "TTT-T1"),
        Recover: Step(morale.do_recover, PLAY, "TTT-T1"),
        Smoke: Step(smoke.do_smoke, PLAY, "TTT-T1"),
        EndPhase: Step(turns.do_end_phase, PLAY, "TTT-T1"),
    },
)


def adjudicate(
    state: TableState,
    action: Action,
    dice: SuppliedDice | None = None,
    cards: CardSet | None = None,
) -> Adjudication:
    """Apply ``action``; raise ``RulesError`` (state untouched) if the rules refuse it."""
    ctx = Context(state, action.model_dump(), dice, cards or default_cards())
    DISPATCH(ctx, state, action)
    if ctx.state.status == "playing":
        # What any action can set off: morale checks (TTT-MO2), a side with no tank left,
        # a defender near the objective at this moment of the phase (TTT-S3).
        morale.resolve_morale(ctx)
        turns.check_elimination(ctx)
        turns.watch_objective(ctx)
    return ctx.finish()
