"""A table's history as its event log tells it, replayed one way everywhere.

The log holds game actions (adjudicated by the ruleset) and the referee's own *control*
events, whose logged action is ``{"control": KIND, ...}`` (no ``kind`` key, so no ruleset
action can be mistaken for one):

- ``undo``: takes back the latest action still in effect, when it rolled no dice;
- ``void``: the same for an action that rolled dice, once every player has asked (the first
  requests are logged as ``void_request`` entries, pending until a new action lapses them);
- ``end_game``: the players end the game by agreement (the table is over; the seed revealed);
- ``player_seed``: a player adds a dice seed while no server die has been drawn.

Undone and voided entries stay in the log; the later event marks them. Taking an action back
restores the state before it but never rewinds the dice: voided rolls stay spent, else the
voided result would tell everyone the next dice.

``Timeline`` is used by the referee (live writes and start-up replay), by export/verify and
by the replay bench, so there is one implementation of "what the log means". Pure: no I/O.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel
from pydantic_core import to_json

from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.errors import BadValue, RulesError
from tankref.core.results import Event, Result, TankChange
from tankref.core.ruleset import Ruleset, TableSummary

CONTROL = "control"
CONTROL_KINDS = ("undo", "void", "end_game", "player_seed")
AGREED_END = "the players ended the game by agreement"


def result_digest(result: dict[str, Any]) -> str:
    """SHA-256 of a result as logged (JSON-ready dict): replaying must reproduce it."""
    return hashlib.sha256(to_json(result)).hexdigest()


def state_digest(rules: Ruleset, state: Any) -> str:
    return hashlib.sha256(rules.dump_state(state).encode()).hexdigest()


def describe(action: dict[str, Any]) -> str:
    """A logged action in a few words: ``engage R1 → B1``, ``end_phase``, ``undo 12``."""
    if CONTROL in action:
        kind = str(action[CONTROL])
        target = action.get("seq") or action.get("player")
        return f"{kind} {target}" if target is not None else kind
    words = [str(action.get("kind", "action"))]
    if action.get("tank_id"):
        words.append(str(action["tank_id"]))
    if action.get("target_id"):
        words += ["→", str(action["target_id"])]
    return " ".join(words)


def _spoken(action: dict[str, Any]) -> str:
    """For chat lines: ``R1's engage``."""
    kind = str(action.get("kind", "action")).replace("_", " ")
    tank = action.get("tank_id") or action.get("player")
    return f"{tank}'s {kind}" if tank else kind


class LoggedEvent(Protocol):
    """What replay needs of a logged event (``store.EventRow`` and export events fit)."""

    @property
    def seq(self) -> int: ...

    @property
    def action(self) -> dict[str, Any]: ...

    @property
    def dice(self) -> dict[str, Any] | None: ...

    @property
    def result_sha256(self) -> str: ...

    @property
    def state_sha256(self) -> str | None: ...


class ReplayMismatch(RuntimeError):
    """A logged event no longer replays to what was logged."""


@dataclass(frozen=True)
class Done:
    """A game action still in effect: what taking it back needs."""

    seq: int
    action: dict[str, Any]
    before: Any  # the state before it (states share unchanged parts: cheap to keep)
    rolled: bool  # any die rolled (server or table) or the generator drawn from
    tanks: tuple[str, ...]


@dataclass(frozen=True)
class PendingVoid:
    seq: int
    players: tuple[str, ...]  # who has asked so far
    table_asked: bool = False  # one of them asked with the table's token, not a seat's


@dataclass(frozen=True)
class Step:
    """What one event does, worked out on the side; ``Timeline.commit`` makes it so."""

    kind: str  # the game action's kind, or undo | void_request | void | end_game | player_seed
    action: dict[str, Any]
    state: Any
    result: Result
    game: bool = False  # a game action (goes on the undo stack, lapses a pending void)
    rolled: bool = False
    takes_back: int | None = None  # undo / void: the seq taken back
    pending: PendingVoid | None = None
    ended: str | None = None
    seed_player: str | None = None

    def result_json(self) -> dict[str, Any]:
        data: dict[str, Any] = self.result.model_dump(mode="json")
        return data


def first_state(rules: Ruleset, setup: object, dice: object) -> Any:
    """A table's state as it was created, from its setup and dice as stored (JSON): where
    every replay starts (the referee's, the luck count's, verify's)."""
    return rules.new_table(rules.setup_model.model_validate(setup), DiceState.model_validate(dice))


E = TypeVar("E", bound=LoggedEvent)


@dataclass
class Timeline:
    rules: Ruleset
    state: Any
    seed_players: list[str | None] = field(default_factory=list)  # owner of each player seed
    # Each void ask needs its own credential (issue 15). False: a table created before seat
    # tokens existed, which has none to give, so one token may still ask for every player.
    seat_credentials: bool = True
    seq: int = 0
    done: list[Done] = field(default_factory=list)  # the undo stack, oldest first
    pending: PendingVoid | None = None
    ended: str | None = None  # why the players ended the game, if they did
    cancelled: dict[int, int] = field(default_factory=dict)  # taken back -> by which event
    controls: set[int] = field(default_factory=set)  # seqs of control events
    # Re-opened from a snapshot at this seq (0: replayed from the start): the undo stack holds
    # only the actions after it, so taking back one at or before it needs the log replayed
    # from further back first (``reaches_back``).
    floor: int = 0

    # --- a snapshot of it (issue 18): what the log says beside the state -------------------
    def marks(self) -> dict[str, Any]:
        """What a snapshot keeps beside the state (JSON-ready): the undo stack's states are
        not kept (``floor``), the rest is."""
        pending = self.pending
        return {
            "seq": self.seq,
            "seed_players": list(self.seed_players),
            "pending": None
            if pending is None
            else {
                "seq": pending.seq,
                "players": list(pending.players),
                "table": pending.table_asked,
            },
            "ended": self.ended,
            "cancelled": list(self.cancelled.items()),  # in the order taken back
            "controls": sorted(self.controls),
        }

    def marks_after(self, step: Step, seq: int) -> dict[str, Any]:
        """``marks`` once ``step`` is event ``seq`` (worked out on a copy: nothing changes)."""
        after = replace(
            self,
            seed_players=list(self.seed_players),
            done=list(self.done),
            cancelled=dict(self.cancelled),
            controls=set(self.controls),
        )
        after.commit(step, seq)
        return after.marks()

    @classmethod
    def from_marks(
        cls, rules: Ruleset, state: Any, marks: dict[str, Any], *, seat_credentials: bool
    ) -> Timeline:
        """The timeline a snapshot describes (``marks``), its undo stack empty below it."""
        pending = marks["pending"]
        seq = int(marks["seq"])
        return cls(
            rules,
            state,
            list(marks["seed_players"]),
            seat_credentials=seat_credentials,
            seq=seq,
            pending=None
            if pending is None
            else PendingVoid(
                int(pending["seq"]), tuple(pending["players"]), bool(pending["table"])
            ),
            ended=marks["ended"],
            cancelled={int(k): int(v) for k, v in marks["cancelled"]},
            controls={int(k) for k in marks["controls"]},
            floor=seq,
        )

    def reaches_back(self, action: dict[str, Any]) -> bool:
        """Whether this control event would take back an action from before ``floor``, whose
        state before it is not kept here: the log must be replayed from further back first."""
        return self.floor > 0 and not self.done and action.get(CONTROL) in ("undo", "void")

    # --- where the table stands ------------------------------------------------------------
    def summary(self) -> TableSummary:
        return self._summary(self.state, self.ended)

    def summary_after(self, step: Step) -> TableSummary:
        return self._summary(step.state, step.ended or self.ended)

    def _summary(self, state: Any, ended: str | None) -> TableSummary:
        summary = self.rules.summary(state)
        if ended is not None and summary.status != "over":
            summary = summary.model_copy(
                update={"status": "over", "active_player": None, "reason": ended}
            )
        return summary

    @property
    def over(self) -> bool:
        """Over by the rules or by agreement: the server seed may be revealed."""
        return self.ended is not None or self.rules.summary(self.state).status == "over"

    def dice(self) -> DiceState:
        return self.rules.dice_state(self.state)

    def in_effect(self, events: Iterable[E]) -> list[E]:
        """The game actions among ``events`` still in effect, in their order: neither undone
        nor voided, and not the referee's own control events (undo, void, end_game,
        player_seed)."""
        return [e for e in events if e.seq not in self.cancelled and e.seq not in self.controls]

    # --- working out a step (pure: nothing changes until ``commit``) -------------------------
    def act(
        self,
        action: BaseModel,
        dice: SuppliedDice | None = None,
        data: dict[str, Any] | None = None,
    ) -> Step:
        """A game action, adjudicated by the ruleset (a refusal raises ``RulesError``);
        ``data``: the action as JSON when the caller has it already (a logged event)."""
        self._refuse_when_over()
        outcome = self.rules.adjudicate(self.state, action, dice)
        counter = self.rules.dice_state(outcome.state).counter
        rolled = (
            bool(outcome.result.rolls)
            or counter != self.dice().counter
            or (dice is not None and dice.damage_card is not None)
        )
        if data is None:
            data = action.model_dump(mode="json")
        return Step(
            kind=str(data.get("kind", type(action).__name__)),
            action=data,
            state=outcome.state,
            result=outcome.result,
            game=True,
            rolled=rolled,
        )

    def control(self, action: dict[str, Any]) -> Step:
        """A control event (``{"control": ..., ...}``); refusals raise ``RulesError``."""
        # Keys in one order, whatever order they came in (a result echoes its action, and
        # an export sorts keys): the result's hash must not depend on it.
        action = {key: action[key] for key in sorted(action)}
        kind = action.get(CONTROL)
        if kind == "undo":
            return self._undo(action)
        if kind == "void":
            return self._void(action)
        if kind == "end_game":
            return self._end_game(action)
        if kind == "player_seed":
            return self._player_seed(action)
        raise RulesError(
            "UNKNOWN_CONTROL",
            None,
            f"control: no control event {kind!r} (known: {', '.join(CONTROL_KINDS)})",
            {"field": CONTROL},
        )

    def logged_step(self, action: dict[str, Any], dice: dict[str, Any] | None) -> Step:
        """The step a logged event describes (parsed as the referee first took it)."""
        if CONTROL in action:
            return self.control(action)
        supplied = None if dice is None else SuppliedDice.model_validate(dice)
        return self.act(self.rules.parse_action(action), supplied, action)

    def commit(self, step: Step, seq: int) -> None:
        before, self.seq, self.state = self.state, seq, step.state
        if step.game:
            tanks = tuple(c.tank_id for c in step.result.changes)
            self.done.append(Done(seq, step.action, before, step.rolled, tanks))
            self.pending = None  # a new action lapses a pending void request
            return
        self.controls.add(seq)
        if step.takes_back is not None:
            self.done.pop()
            self.cancelled[step.takes_back] = seq
            self.pending = None
        elif step.pending is not None:
            self.pending = step.pending
        if step.ended is not None:
            self.ended = step.ended
        if step.seed_player is not None:
            self.seed_players.append(step.seed_player)

    def replay(self, event: LoggedEvent) -> Step:
        """Apply one logged event, checking it reproduces the logged result (and state, at
        checkpoints); ``ReplayMismatch`` if not. Rules refusals propagate."""
        step = self.logged_step(event.action, event.dice)
        # The model straight to JSON is the same text as its JSON dict (which the live path
        # hashes) at half the cost; the dict is asked only if they ever disagree.
        quick = hashlib.sha256(to_json(step.result)).hexdigest()
        if quick != event.result_sha256 and result_digest(step.result_json()) != (
            event.result_sha256
        ):
            raise ReplayMismatch("the replayed result differs from the result that was logged")
        if event.state_sha256 is not None and (
            state_digest(self.rules, step.state) != event.state_sha256
        ):
            raise ReplayMismatch("the replayed state differs from the state that was logged")
        self.commit(step, event.seq)
        return step

    # --- what a seat may ask now (the checks below refuse the rest) --------------------------
    def seeds_open(self) -> bool:
        """Whether a player may still give a dice seed: the game on, and the server not yet
        drawn from (``_player_seed`` refuses otherwise)."""
        return not self.over and self.dice().counter == 0

    def void_open(self) -> tuple[Done, tuple[str, ...]] | None:
        """The latest action still in effect when a void may be asked of it (it rolled dice
        and the game is on), with the players who have asked so far; None otherwise."""
        if self.over or not self.done or not self.done[-1].rolled:
            return None
        top = self.done[-1]
        same = self._pending_for(top)
        return top, (same.players if same else ())

    def _pending_for(self, top: Done) -> PendingVoid | None:
        return self.pending if self.pending and self.pending.seq == top.seq else None

    # --- the control events -------------------------------------------------------------------
    def _refuse_when_over(self) -> None:
        if self.ended is not None:
            raise RulesError("GAME_OVER", None, f"the game is over: {self.ended}")

    def _refuse_take_back_when_over(self) -> None:
        # The seed is public once the game is over: play must not resume with known dice.
        if self.over:
            raise RulesError(
                "GAME_OVER",
                None,
                "the game is over and its dice seed revealed: nothing can be taken back",
            )

    def _latest(self, seq: object) -> Done:
        if not self.done:
            raise RulesError("NOTHING_TO_UNDO", None, "there is no action to take back")
        top = self.done[-1]
        if seq is not None and seq != top.seq:
            raise RulesError(
                "NOT_LATEST",
                None,
                f"seq: event {seq} is not the latest action still in effect (that is event "
                f"{top.seq}, {_spoken(top.action)}); only the latest can be taken back",
                {"field": "seq", "latest": top.seq},
            )
        return top

    def _restore(self, top: Done) -> Any:
        """The state before ``top``, with today's dice (never rewound)."""
        return self.rules.with_dice(top.before, self.dice())

    def _changes(self, top: Done, state: Any) -> list[TankChange]:
        views = {v.tank_id: v for v in self.rules.tank_views(state, list(top.tanks))}
        changes = []
        for tank_id in top.tanks:
            view = views.get(tank_id)
            if view is None:  # placed by the action taken back: gone again
                changes.append(
                    TankChange(tank_id=tank_id, name=tank_id, changes={"removed": [False, True]})
                )
            else:
                changes.append(
                    TankChange(
                        tank_id=tank_id, name=view.name, markers=view.markers, tooltip=view.tooltip
                    )
                )
        return changes

    def _undo(self, action: dict[str, Any]) -> Step:
        self._refuse_take_back_when_over()
        top = self._latest(action.get("seq"))
        if top.rolled:
            raise RulesError(
                "DICE_ROLLED",
                None,
                f"event {top.seq} ({_spoken(top.action)}) rolled dice: it can only be voided, "
                "and only when both players ask",
                {"seq": top.seq},
            )
        state = self._restore(top)
        line = f"Undone: {_spoken(top.action)} (event {top.seq})"
        result = Result(
            action=action,
            summary=[line],
            outcome={"undone": top.seq},
            events=[Event(kind="undone", text=line, data={"seq": top.seq})],
            changes=self._changes(top, state),
        )
        return Step("undo", action, state, result, takes_back=top.seq)

    def _player(self, action: dict[str, Any]) -> str:
        players = self.summary().players
        player = action.get("player")
        if not isinstance(player, str) or player not in players:
            raise BadValue(
                "UNKNOWN_PLAYER",
                None,
                f"player: {player!r} is not a player at this table ({', '.join(players)})",
                {"field": "player"},
            )
        return player

    def _void(self, action: dict[str, Any]) -> Step:
        self._refuse_take_back_when_over()
        player = self._player(action)
        top = self._latest(action.get("seq"))
        if not top.rolled:
            raise RulesError(
                "NO_DICE_ROLLED",
                None,
                f"event {top.seq} ({_spoken(top.action)}) rolled no dice: undo it instead",
                {"seq": top.seq},
            )
        same = self._pending_for(top)
        asked = same.players if same else ()
        by_table = self.seat_credentials and _void_credential(action) == "table"
        if player in asked:
            raise RulesError(
                "VOID_ALREADY_ASKED",
                None,
                f"player: {player} has already asked to void event {top.seq}; the other "
                "player must ask too",
                {"field": "player", "seq": top.seq},
            )
        if by_table and same is not None and same.table_asked:
            # One credential voting twice would let the token holder re-roll any shot.
            raise RulesError(
                "VOID_NEEDS_TWO_SEATS",
                None,
                f"the table's token has already asked to void event {top.seq} for "
                f"{', '.join(asked)}: one credential asks once; {player} must ask with "
                f"{player}'s own seat token",
                {"seq": top.seq},
            )
        asked = (*asked, player)
        missing = [p for p in self.summary().players if p not in asked]
        what = f"event {top.seq}, {_spoken(top.action)}"
        if missing:
            line = f"Void requested by {player} for {what} (needs {' and '.join(missing)} too)"
            result = Result(
                action=action,
                summary=[line],
                outcome={"void_requested": top.seq, "asked": list(asked), "needs": missing},
            )
            pending = PendingVoid(
                top.seq, asked, by_table or (same is not None and same.table_asked)
            )
            return Step("void_request", action, self.state, result, pending=pending)
        state = self._restore(top)
        line = f"Voided by {' and '.join(asked)}: {what}; its dice stay spent"
        result = Result(
            action=action,
            summary=[line],
            outcome={"voided": top.seq, "players": list(asked)},
            events=[Event(kind="voided", text=line, data={"seq": top.seq})],
            changes=self._changes(top, state),
        )
        return Step("void", action, state, result, takes_back=top.seq)

    def _end_game(self, action: dict[str, Any]) -> Step:
        if self.over:
            raise RulesError("GAME_OVER", None, "the game is already over")
        reason = action.get("reason") or AGREED_END
        line = f"Game over: {reason}. The server's dice seed is revealed."
        result = Result(
            action=action,
            summary=[line],
            outcome={"ended": True, "reason": reason},
            events=[Event(kind="game_over", text=line, data={"by_agreement": True})],
        )
        return Step("end_game", action, self.state, result, ended=str(reason))

    def _player_seed(self, action: dict[str, Any]) -> Step:
        player = self._player(action)
        seed = action.get("seed")
        if not isinstance(seed, str) or not seed:
            raise RulesError("INVALID", None, "seed: give a non-empty text", {"field": "seed"})
        dice = self.dice()
        if self.over:
            raise RulesError("GAME_OVER", None, "the game is over: no more dice seeds")
        if dice.counter != 0:
            raise RulesError(
                "DICE_ALREADY_ROLLED",
                None,
                f"the server has drawn {dice.counter} number(s) from its dice already: a "
                "player seed must come before the first roll",
            )
        if player in self.seed_players:
            raise RulesError(
                "SEED_ALREADY_GIVEN",
                None,
                f"player: {player} has given a dice seed already; it cannot be replaced",
                {"field": "player"},
            )
        seeds = (*dice.player_seeds, seed)
        state = self.rules.with_dice(self.state, dice.model_copy(update={"player_seeds": seeds}))
        line = f"{player} added a dice seed: {seed!r}"
        result = Result(
            action=action,
            summary=[line],
            outcome={"player": player, "seed": seed, "player_seeds": list(seeds)},
        )
        return Step("player_seed", action, state, result, seed_player=player)


def _void_credential(action: dict[str, Any]) -> str:
    """Whose credential asked for a void: a seat's own token ("seat") or the table's token
    acting for its own seat ("table", as the TTS host does). A logged ask that does not say
    counts as the table's: the strict reading, so an edited log cannot pass as two seats."""
    credential = action.get("credential", "table")
    if credential not in ("seat", "table"):
        raise RulesError(
            "UNKNOWN_CREDENTIAL",
            None,
            f"credential: {credential!r} is neither 'seat' nor 'table'",
            {"field": "credential"},
        )
    return str(credential)
