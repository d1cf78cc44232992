"""The adjudication kit every ruleset works with: one action against a private copy.

A ``Context`` holds the working copy of the state (units shared with the caller's state until
a handler writes to one: copy on write), the dice bag, and the result being written. The
engine hands the new state back only when the whole action succeeded, so a refusal, or a
table that still owes dice, leaves the caller's state exactly as it was. ``finish`` settles
the dice and lists what changed on each unit the action touched, with its markers and
tooltip, the same way for every ruleset.

A ruleset subclasses ``Context`` once: where its units live (``unit_maps``), which of their
fields a front end is told about (``tracked``), and how it draws a unit (``view``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import compress, repeat
from operator import contains, is_not, itemgetter
from typing import Any, ClassVar, Generic, NoReturn, Protocol, TypeVar

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from tankref.core.dice import DiceBag, DiceState, DieSpec, SuppliedDice
from tankref.core.errors import RulesError, not_found
from tankref.core.results import Event, Modifier, ModifierTarget, Result, RulingNote, TankChange
from tankref.core.trusted import adopt, built, copied, every_field


def refuse(code: str, clause: str | None, message: str, **details: Any) -> NoReturn:
    """The rules say no: a stable ``code``, the ``clause``, a message a player can act on."""
    raise RulesError(code, clause, message, details)


V = TypeVar("V")


def assign(unit: BaseModel, **values: Any) -> None:
    """Set several fields of a unit the context copied for this action (``Context.edit``) at
    once. The same as assigning them one by one (assignment is never validated; the engine
    computed the values itself, of the fields' types) at a fraction of pydantic's cost per
    assignment, which adds up where a phase resets every tank of a side."""
    unit.__dict__.update(values)


def find_unit(
    units: Mapping[str, V], unit_id: str, field: str = "tank_id", noun: str = "tank"
) -> V:
    """The unit a request names, or UNKNOWN_TANK (not found) naming the field."""
    unit = units.get(unit_id)
    if unit is None:
        not_found(
            "UNKNOWN_TANK", None, f"{field}: no {noun} {unit_id!r} on this table", field=field
        )
    return unit


# The models a context builds with every field given (``core.trusted.adopt``, declared order):
# all of a model's fields are then "set", as building it with keywords marks them.
_EVERY_RULING_FIELD = every_field(RulingNote)
_EVERY_EVENT_FIELD = every_field(Event)
_EVERY_CHANGE_FIELD = every_field(TankChange)
_EVERY_MODIFIER_FIELD = every_field(Modifier)

# Values ``to_jsonable_python`` would hand back as they are: most changes are of these.
_PLAIN = frozenset((str, int, float, bool, type(None)))


# (unit class, id of its tracked names) -> (those names as given, as a tuple, how to read
# them, whether from the unit's instance dict). Keyed by the names' id, not the names:
# hashing a tuple of twenty names for every change cost more than the look-up it keys (the
# names kept in the entry, so a reused id is never taken for them).
_readers: dict[
    tuple[type[BaseModel], int],
    tuple[Sequence[str], tuple[str, ...], Callable[[Any], tuple[Any, ...]], bool],
] = {}
_READERS = 256


def _reader(
    cls: type[BaseModel], tracked: Sequence[str]
) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]], bool]:
    """The tracked names as a tuple, how to read a unit's values of them at once, and
    whether that reads the unit's instance dict rather than the unit: when they are all
    model fields, the dict's values are picked in one C call, with no Python frame (two a
    change record); else they are read one by one off the unit (a tracked property)."""
    known = _readers.get((cls, id(tracked)))
    if known is not None and known[0] is tracked:
        return known[1], known[2], known[3]
    names = tuple(tracked)
    read: Callable[[Any], tuple[Any, ...]]
    of_dict = all(name in cls.model_fields for name in names) and len(names) > 1
    if of_dict:
        read = itemgetter(*names)
    else:

        def read(unit: Any) -> tuple[Any, ...]:
            return tuple(getattr(unit, name) for name in names)

    if len(_readers) >= _READERS:
        _readers.clear()
    _readers[(cls, id(tracked))] = (tracked, names, read, of_dict)
    return names, read, of_dict


class WorkingState(Protocol):
    """A table state the kit can work on: its dice, and a copy to work on."""

    dice: DiceState

    def clone(self) -> Any: ...


S = TypeVar("S", bound=WorkingState)
U = TypeVar("U", bound=BaseModel)


@dataclass(frozen=True)
class Adjudication(Generic[S]):
    """What an adjudication hands back: the new state and the result that explains it."""

    state: S
    result: Result


def computed_modifier(
    clause: str, label: str, amount: int, applies_to: ModifierTarget, ruling: str | None = None
) -> Modifier:
    """``Modifier(...)`` for values the engine worked out itself (of the fields' types), built
    as validation would build it, without validating again: a shot makes several."""
    return adopt(
        Modifier,
        {
            "clause": clause,
            "label": label,
            "amount": amount,
            "applies_to": applies_to,
            "ruling": ruling,
        },
        _EVERY_MODIFIER_FIELD,
    )


class Context(Generic[S, U]):
    """One adjudication's working copy, dice and result.

    Subclasses set ``unit_maps`` (the state's attributes that map unit id -> unit, searched in
    order), ``tracked`` (the fields reported as changes) and override ``view`` (markers and
    tooltip) and ``label`` (how the summary names a unit).
    """

    unit_maps: ClassVar[tuple[str, ...]] = ("tanks",)
    tracked: ClassVar[tuple[str, ...]] = ()
    # Changes listed in the order units were first touched, or sorted by id.
    sorted_changes: ClassVar[bool] = True
    # A ruling already noted for this action is not repeated.
    rulings_once: ClassVar[bool] = False
    _extra_changes: ClassVar[bool] = False
    _own_tracked: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Whether ``_change`` need ask for changes a field-by-field look does not show, and
        # whether the tracked fields differ by unit (else ``tracked``, without a call a unit).
        cls._extra_changes = cls.extra_changes is not Context.extra_changes
        cls._own_tracked = cls.tracked_for is not Context.tracked_for

    def __init__(
        self,
        before: S,
        action: dict[str, Any],
        dice: Mapping[str, DieSpec],
        supplied: SuppliedDice | None,
    ) -> None:
        self.before = before
        self.state: S = before.clone()
        self.bag = DiceBag(self.state.dice, dice, supplied)
        summary: list[str] = []
        # ``say(line)``: a line for the summary. The list's own append, bound once: a
        # handler's every line is then a C call, no Python frame (several per action).
        self.say: Callable[[str], None] = summary.append
        self.result = adopt(
            Result,
            {
                "action": action,
                "summary": summary,
                "rolls": self.bag.rolls,  # the bag's own list: every die in the order thrown
                "modifiers": [],
                "rulings": [],
                "outcome": {},
                "events": [],
                "changes": [],
            },
            {"action"},
        )
        self._touched: dict[str, None] = {}  # insertion-ordered set
        # The units this action touched, in no particular order (``edited``: in order): a
        # live view of them, no call to read it (the after-action checks read it each action).
        self.touched: Collection[str] = self._touched.keys()
        self._copies: dict[str, U] = {}  # unit id -> its private copy in the working state

    # --- units ---------------------------------------------------------------------------
    def _map_of(self, state: S, unit_id: str) -> MutableMapping[str, U] | None:
        for attr in self.unit_maps:
            units: MutableMapping[str, U] = getattr(state, attr)
            if unit_id in units:
                return units
        return None

    def edit(self, unit_id: str) -> U:
        """The unit, privately copied into the working state on first write."""
        unit = self._copies.get(unit_id)
        if unit is not None:  # copied (and touched) already in this action
            return unit
        units: MutableMapping[str, U]
        if len(self.unit_maps) == 1:  # most rulesets: the one map, no search (a C look-up)
            units = getattr(self.state, self.unit_maps[0])
        else:
            found = self._map_of(self.state, unit_id)
            if found is None:
                raise KeyError(unit_id)
            units = found
        unit = units[unit_id] = self._copies[unit_id] = copied(units[unit_id])
        self._touched.setdefault(unit_id)
        return unit

    def add(self, unit_id: str, unit: U, attr: str | None = None) -> U:
        """A new unit in the working state (placed during setup)."""
        getattr(self.state, attr or self.unit_maps[0])[unit_id] = unit
        self._copies[unit_id] = unit
        self._touched.setdefault(unit_id)
        return unit

    def forget(self, unit_id: str) -> None:
        """The unit taken off the table for good (its model removed)."""
        units = self._map_of(self.state, unit_id)
        if units is not None:
            del units[unit_id]
        self._copies.pop(unit_id, None)
        self._touched.setdefault(unit_id)

    def touch(self, unit_id: str) -> None:
        """Report the unit in the changes though none of its fields changed (it acted)."""
        self._touched.setdefault(unit_id)

    @property
    def edited(self) -> list[str]:
        ids = list(self._touched)
        return sorted(ids) if self.sorted_changes else ids

    # --- the result ------------------------------------------------------------------------
    def rule(self, clause: str, text: str, option: str | None = None, value: Any = None) -> None:
        if self.rulings_once and any(
            r.clause == clause and r.text == text for r in self.result.rulings
        ):
            return
        self.result.rulings.append(
            adopt(
                RulingNote,
                {
                    "clause": clause,
                    "text": text,
                    "option": option,
                    "value": None if value is None else str(value),
                },
                _EVERY_RULING_FIELD,
            )
        )

    def modifier(
        self,
        clause: str,
        label: str,
        amount: int,
        applies_to: ModifierTarget,
        ruling: str | None = None,
    ) -> Modifier:
        mod = computed_modifier(clause, label, amount, applies_to, ruling)
        self.result.modifiers.append(mod)
        return mod

    def event(self, kind: str, clause: str | None, text: str, **data: Any) -> None:
        self.result.events.append(
            adopt(
                Event,
                {"kind": kind, "clause": clause, "text": text, "data": data},
                _EVERY_EVENT_FIELD,
            )
        )

    # --- drawing a unit (the ruleset's) ---------------------------------------------------
    def label(self, unit: U) -> str:
        return f"{getattr(unit, 'name', '?')} ({getattr(unit, 'id', '?')})"

    def view(self, unit: U, last_line: str | None) -> tuple[list[str], str]:
        """Its markers and its tooltip (given the last summary line that names it)."""
        return [], ""

    def tracked_for(self, unit: U) -> Sequence[str]:
        return self.tracked

    def extra_changes(self, before: U | None, after: U) -> dict[str, list[Any]]:
        """Changes a field-by-field look does not show (a swapped card ...)."""
        return {}

    # --- the end ---------------------------------------------------------------------------
    def finish(self) -> Adjudication[S]:
        """Settle the dice, list each touched unit's changes: the new state and its result."""
        bag = self.bag
        bag.finish()
        # The settled generator, set as ``assign`` sets a field (the bag's own DiceState),
        # and marked set as assignment marks it.
        state: Any = self.state
        state.__dict__["dice"] = bag.settled_state()
        state.__pydantic_fields_set__.add("dice")
        # Each unit before and after: with one map of units (most rulesets), that map's own
        # ``get``, a C call, not a Python search per unit (a phase's end lists a whole side).
        old_unit: Callable[[str], U | None]
        new_unit: Callable[[str], U | None]
        if len(self.unit_maps) == 1:
            old_unit = getattr(self.before, self.unit_maps[0]).get
            new_unit = getattr(state, self.unit_maps[0]).get
        else:
            old_unit = partial(self._unit, self.before)
            new_unit = partial(self._unit, state)
        changes = self.result.changes
        for unit_id in self.edited:
            changes.append(self._change(unit_id, old_unit(unit_id), new_unit(unit_id)))
        return Adjudication(self.state, self.result)

    def _unit(self, state: S, unit_id: str) -> U | None:
        """The unit in ``state`` (``_map_of``, and the unit in it, in one look)."""
        for attr in self.unit_maps:
            unit: U | None = getattr(state, attr).get(unit_id)
            if unit is not None:
                return unit
        return None

    def _change(self, unit_id: str, before: U | None, after: U | None) -> TankChange:
        """The change record of one touched unit (``before``: None if the action placed it;
        ``after``: None if the action removed it)."""
        if after is None:
            name = str(getattr(before, "name", unit_id)) if before is not None else unit_id
            return built(TankChange, tank_id=unit_id, name=name, changes={"removed": [False, True]})
        diff: dict[str, list[Any]] = {}
        if before is not after:  # a unit only touched (never copied) has no field changes
            tracked, read, of_dict = _reader(
                type(after), self.tracked_for(after) if self._own_tracked else self.tracked
            )
            new_values = read(after.__dict__ if of_dict else after)
            if before is None:
                old_values: tuple[Any, ...] = (None,) * len(tracked)
            else:
                old_values = read(before.__dict__ if of_dict else before)
            if new_values != old_values:
                # A field the action left alone holds the very object it held (the copy shares
                # them): identity sorts out most fields in C, equality decides the rest.
                for field, old, new in compress(
                    zip(tracked, old_values, new_values, strict=True),
                    map(is_not, old_values, new_values),
                ):
                    if old == new:
                        continue
                    # plain values are their own JSON: no call for them
                    diff[field] = [
                        old if type(old) in _PLAIN else to_jsonable_python(old),
                        new if type(new) in _PLAIN else to_jsonable_python(new),
                    ]
        if self._extra_changes:
            diff.update(self.extra_changes(before, after))
        # the last summary line that names it, searched in C (lazily: it stops at the first)
        summary = self.result.summary
        named = map(contains, reversed(summary), repeat(self.label(after)))
        markers, tooltip = self.view(after, next(compress(reversed(summary), named), None))
        name = after.__dict__.get("name", unit_id)
        return adopt(
            TankChange,
            {
                "tank_id": unit_id,
                "name": name if type(name) is str else str(getattr(after, "name", unit_id)),
                "changes": diff,
                "markers": markers,
                "tooltip": tooltip,
            },
            _EVERY_CHANGE_FIELD,
        )
