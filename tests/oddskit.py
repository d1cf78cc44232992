"""Shot situations for checking the exact odds against the real referee (tests and bench).

A ``Spec`` describes one Engage: the two cards, where the shooter stands, every modifier the
rules know (moved, Shaken, damage, fast target, concealment, cover, smoke, hull-down), the
crews, the Grizzled policy, the target's morale and the deck. ``build`` makes the started
table (Red's phase of turn 1, "R1" shooting "B1"); ``sample`` adjudicates the shot again and
again with the server's own dice, each time from a different ``DiceState`` seed, and counts
what happened. Nothing is patched: every sample runs ``adjudicate``.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from kit.ttt import Game
from tankref.core.dice import DiceState
from tankref.rulesets.ttt.actions import Engage, GrizzledUse
from tankref.rulesets.ttt.cards import CardSet, default_cards
from tankref.rulesets.ttt.engine import adjudicate
from tankref.rulesets.ttt.morale import morale_result
from tankref.rulesets.ttt.odds import ShotOdds, odds_against
from tankref.rulesets.ttt.state import DeckState, Morale, Options, SmokeScreen, TableState

FriendSet = Literal["", "one", "two", "hidden"]
HullDown = Literal["", "flag", "hill"]

SHOT = Engage(tank_id="R1", target_id="B1")
FRIENDS = ("B2", "B3")


@dataclass(frozen=True)
class Spec:
    """One shot: R1 (shooter) engages B1 (target), B1 at the origin facing north."""

    shooter: str = "tiger-i"
    target: str = "m4a1-sherman"
    bearing: float = 0.0  # where R1 stands, seen from B1's nose (0 = straight ahead)
    best_armour: Literal["auto", "never"] = "auto"
    target_turned: bool = False  # B1 already used its facing change this turn
    moved: bool = False  # TTT-M1
    shaken: bool = False  # TTT-MR1
    optics: int = 0  # Optics Damaged cards (TTT-E7)
    gun: int = 0  # Gun Damaged cards (TTT-E7)
    target_fast: bool = False  # TTT-M2 (a card with fast_evasion costs a die)
    concealment: int = 0  # 1: both in one forest; 2: B1 in a forest, R1 outside (TTT-CN1)
    cover: int = 0  # a cover piece across the line (TTT-CV1)
    cover_rule: Literal["armour", "literal"] = "armour"  # TTT-E5 option
    smoke: tuple[int, ...] = ()  # screens on the line of fire (TTT-SM3)
    smoke_stacking: Literal["strongest", "add"] = "strongest"
    hull_down: HullDown = ""  # TTT-E2: Turret hit
    grizzled: bool = False  # TTT-CR1
    policy: Literal["auto", "ask"] = "auto"
    declared: GrizzledUse | None = None
    reroll_used: bool = False
    target_grizzled: bool = False  # TTT-MO1
    target_morale: Morale = "ok"
    target_immobilized: bool = False
    second_hit: bool = False  # another enemy tank hit B1 this game turn (TTT-MO2 trigger 2)
    pile: tuple[str, ...] = ()  # the deck's draw pile; () = empty: a full deck is shuffled in
    friends: FriendSet = ""  # B1's friends: one (its last mobile friend), two, one hidden
    concealment_rule: Literal["accuracy", "cover"] = "accuracy"  # TTT-CN1 option
    immobilized_turns: bool = False  # TTT-E3 option: an Immobilized target may still turn
    cards: CardSet | None = field(default=None, compare=False)  # other dice or deck data

    def label(self) -> str:
        """A short description of everything that differs from the default shot."""
        base = Spec()
        parts = [f"{self.shooter}>{self.target}@{self.bearing:g}"]
        for name in self.__dataclass_fields__:
            if name in ("shooter", "target", "bearing", "cards"):
                continue
            value = getattr(self, name)
            if value != getattr(base, name):
                parts.append(f"{name}={value}")
        if self.cards is not None:
            parts.append("custom cards")
        return " ".join(parts)


def _at(bearing_deg: float, dist: float) -> tuple[float, float]:
    rad = math.radians(bearing_deg)
    return (round(dist * math.sin(rad), 6), round(dist * math.cos(rad), 6))


def _circle(x: float, z: float, radius: float) -> dict[str, Any]:
    return {"shape": "circle", "x": x, "z": z, "radius": radius}


def build(spec: Spec) -> TableState:
    """The started table for ``spec``: Red's phase of turn 1, R1 free to engage B1."""
    options = Options(
        deploy_depth=48.0,
        turn_limit=50,
        best_armour=spec.best_armour,
        cover=spec.cover_rule,
        smoke_stacking=spec.smoke_stacking,
        grizzled_reroll=spec.policy,
        concealment=spec.concealment_rule,
        immobilized_turns=spec.immobilized_turns,
    )
    kwargs: dict[str, Any] = {"options": options}
    if spec.cards is not None:
        kwargs["cards"] = spec.cards
    g = Game(**kwargs)
    sx, sz = _at(spec.bearing, 20.0)
    mx, mz = sx / 2, sz / 2
    if spec.cover:
        g.terrain("wall", f"cover{spec.cover}", _circle(mx, mz, 2.0))
    if spec.concealment == 1:
        g.terrain("wood", "forest", _circle(mx, mz, 12.0))  # holds both: light
    elif spec.concealment == 2:
        g.terrain("wood", "forest", _circle(0.0, 0.0, 3.0))  # holds B1 only: heavy
    if spec.hull_down == "hill":
        g.terrain("knoll", "hill", _circle(0.0, 0.0, 2.0))
    if spec.friends == "hidden":  # between B2 and B1, clear of every shooter's line of fire
        g.terrain("barn", "blocking", _circle(*_at(315.0, 5.0), 1.5))
    facing_to_target = (spec.bearing + 180.0) % 360
    g.place("R1", spec.shooter, "Red", sx, sz, facing_to_target)
    g.place("B1", spec.target, "Blue", 0.0, 0.0, 0.0, hull_down=spec.hull_down == "flag")
    friends = {"": [], "one": ["B2"], "two": ["B2", "B3"], "hidden": ["B2", "B3"]}[spec.friends]
    spots = {"B2": _at(315.0, 10.0), "B3": _at(225.0, 10.0)}
    for tank_id in friends:
        g.place(tank_id, "m4a1-sherman", "Blue", *spots[tank_id], 0.0)
    g.crew("R1", grizzled=spec.grizzled)
    g.crew("B1", grizzled=spec.target_grizzled)
    for tank_id in friends:
        g.crew(tank_id)
    g.start()

    state = g.state
    tanks = dict(state.tanks)
    tanks["R1"] = tanks["R1"].model_copy(
        update={
            "moved": "normal" if spec.moved else "none",
            "morale": "shaken" if spec.shaken else "ok",
            "optics_damage": spec.optics,
            "gun_damage": spec.gun,
            "reroll_used": spec.reroll_used,
        }
    )
    b1: dict[str, Any] = {
        "moved": "fast" if spec.target_fast else "none",
        "facing_changed": spec.target_turned,
        "morale": spec.target_morale,
        "immobilized": spec.target_immobilized,
    }
    if spec.second_hit:
        b1.update(hit_by=("R9",), hit_turn=state.turn)
    tanks["B1"] = tanks["B1"].model_copy(update=b1)
    smoke = tuple(
        SmokeScreen(id=i + 1, owner="Red", tank_id="R1", ability="test", x=mx, z=mz, strength=s)
        for i, s in enumerate(spec.smoke)
    )
    return state.model_copy(
        update={"tanks": tanks, "smoke": smoke, "deck": DeckState(draw_pile=spec.pile)}
    )


@dataclass
class Tally:
    """What ``n`` real adjudications of one shot did."""

    n: int = 0
    hit: int = 0
    penetrated: int = 0
    destroyed: int = 0
    morale_failure: int = 0
    cards: Counter[str] = field(default_factory=Counter)
    friend_failure: Counter[str] = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        self.n += other.n
        self.hit += other.hit
        self.penetrated += other.penetrated
        self.destroyed += other.destroyed
        self.morale_failure += other.morale_failure
        self.cards.update(other.cards)
        self.friend_failure.update(other.friend_failure)


def sample(
    state: TableState, n: int, seed_base: str, declared: GrizzledUse | None, start: int = 0
) -> Tally:
    """Adjudicate the shot ``n`` times on the server's dice, seeds ``{seed_base}-{i}`` for i
    from ``start`` (so a long run can be split into chunks with seeds of their own)."""
    shot = Engage(tank_id="R1", target_id="B1", grizzled_reroll=declared)
    tally = Tally(n=n)
    for i in range(start, start + n):
        trial = state.model_copy(update={"dice": DiceState(seed=f"{seed_base}-{i}")})
        adj = adjudicate(trial, shot)
        outcome = adj.result.outcome
        tally.hit += bool(outcome.get("hit"))
        tally.penetrated += bool(outcome.get("penetrated"))
        tally.destroyed += adj.state.tanks["B1"].destroyed
        card = outcome.get("damage_card")
        if card is not None:
            tally.cards[card] += 1
        for event in adj.result.events:
            if event.kind != "morale_check" or morale_result(event.data["face"]) == "ok":
                continue
            who = event.data["tank_id"]
            if who == "B1":
                tally.morale_failure += 1
            else:
                tally.friend_failure[who] += 1
    return tally


def exact_odds(spec: Spec, state: TableState) -> ShotOdds:
    return odds_against(state, "R1", "B1", declared=spec.declared, friends=bool(spec.friends))


# --- a spread of situations over every modifier ------------------------------------------

SHOOTERS = ("tiger-i", "king-tiger", "m4a1-sherman", "t-34-85", "panzer-iv-h", "is-2", "m5-stuart")
TARGETS = ("m4a1-sherman", "panther-g", "cromwell-iv", "t-34-76", "m5-stuart", "kv-1", "tiger-i")
PILES: tuple[tuple[str, ...], ...] = (
    (),
    ("Explosion", "Immobilized", "Glancing Blow"),
    ("Immobilized", "Immobilized", "Gun Damaged"),
    ("Knocked Out",),
    ("Fire", "Crew Stunned", "Optics Damaged", "Engine Damaged", "Turret Jammed"),
)
AXES: dict[str, tuple[Any, ...]] = {
    "shooter": SHOOTERS,
    "target": TARGETS,
    "bearing": (0.0, 30.0, 90.0, -100.0, 180.0, 150.0),
    "best_armour": ("auto", "auto", "never"),
    "target_turned": (False, False, True),
    "moved": (False, True),
    "shaken": (False, False, True),
    "optics": (0, 0, 0, 1),
    "gun": (0, 0, 0, 1),
    "target_fast": (False, False, True),
    "concealment": (0, 1, 2),
    "cover": (0, 1, 2),
    "cover_rule": ("armour", "literal"),
    "smoke": ((), (), (1,), (2,), (1, 1)),
    "smoke_stacking": ("strongest", "add"),
    "hull_down": ("", "", "", "flag", "hill"),
    "grizzled": (False, True),
    "policy": ("auto", "ask"),
    "declared": (None, "accuracy", "penetration", "none"),
    "reroll_used": (False, False, False, True),
    "target_grizzled": (False, False, True),
    "target_morale": ("ok", "ok", "shaken", "routed"),
    "target_immobilized": (False, False, False, True),
    "second_hit": (False, False, True),
    "pile": PILES,
    "friends": ("", "", "one", "two", "hidden"),
    "concealment_rule": ("accuracy", "cover"),
    "immobilized_turns": (False, True),
}


def spread(count: int, seed: int = 5) -> list[Spec]:
    """``count`` situations: each axis cycles through its values in a shuffled order, so every
    value of every modifier appears about ``count / len(values)`` times, in mixed company."""
    rng = random.Random(seed)
    columns: dict[str, list[Any]] = {}
    for name, values in AXES.items():
        column = [values[i % len(values)] for i in range(count)]
        rng.shuffle(column)
        columns[name] = column
    specs = [Spec(**{name: columns[name][i] for name in AXES}) for i in range(count)]
    return [_legal(s, keep_every_penalty=i % 8 == 0) for i, s in enumerate(specs)]


# Penalties dropped, in this order, until the shooter keeps a white die.
_THIN_OUT: tuple[tuple[str, Any], ...] = (
    ("smoke", ()),
    ("concealment", 0),
    ("moved", False),
    ("optics", 0),
    ("shaken", False),
    ("target_fast", False),
)


def white_dice(spec: Spec) -> int:
    """The white dice the shot will roll (the same arithmetic as TTT-E4's penalties)."""
    cards = default_cards().tanks
    smoke = sum(spec.smoke) if spec.smoke_stacking == "add" else max(spec.smoke, default=0)
    evades = spec.target_fast and cards[spec.target].fast_evasion
    penalty = 2 * spec.moved + spec.shaken + spec.optics + evades + spec.concealment + smoke
    return max(0, cards[spec.shooter].accuracy - penalty)


def _legal(spec: Spec, keep_every_penalty: bool) -> Spec:
    """A declaration only in ask mode; and, so that most shots go on to penetration, cards
    and morale, penalties are thinned out until a white die is left (one shot in eight keeps
    all of them: often no die left, the Engage fails, TTT-E4)."""
    if spec.policy == "auto" and spec.declared is not None:
        spec = replace(spec, declared=None)
    if not keep_every_penalty:
        for name, none in _THIN_OUT:
            if white_dice(spec) > 0:
                break
            spec = replace(spec, **{name: none})
    return spec
