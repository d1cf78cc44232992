"""What the rulesets' command-line tools share (``tankref cards|rulings|odds --ruleset NAME``,
each a ``core.ruleset.Command``): the card listing with its folder check, the rulings listing
from a ruleset's options model, picking a card by id with a hint, and the odds of a shot on a
small table built through the ruleset's own actions and answered by its own ``odds`` hook.

Each tool writes to the streams it is given and returns the exit code: 0 done, 1 bad data (a
card folder with problems, a situation the rules refuse), 2 a bad request.
"""

from __future__ import annotations

import argparse
import difflib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel

from tankref.core.argtypes import at_least
from tankref.core.dice import DiceState
from tankref.core.errors import DataError, RulesError
from tankref.core.ruleset import Command, CommandVerb, Ruleset, TableSummary

Reading = tuple[str, str]  # (clause or option, what the referee reads it as)
READINGS_HEADING = "Readings applied and reported in the result (one playable reading, no option):"
TAG_HINT = "Tag each model in TTS card:<id> and side:<player> (e.g. side:Red)."


# A whole number of 0 or more (dice, cover, concealment, smoke ...).
whole_number = at_least(0)


def pick_card(
    names: Mapping[str, str], wanted: str, role: str, stderr: TextIO, verb: str = "odds"
) -> str | None:
    """``wanted`` when it is a card id in ``names`` (id -> name); else say so on stderr,
    naming the closest ids (by id or by name) or, with none close, every id."""
    if wanted in names:
        return wanted
    by_name = {name.lower(): card_id for card_id, name in names.items()}
    close = difflib.get_close_matches(wanted.lower(), sorted(names), n=3, cutoff=0.5)
    close += [
        by_name[name]
        for name in difflib.get_close_matches(wanted.lower(), sorted(by_name), n=3, cutoff=0.5)
        if by_name[name] not in close
    ]
    hint = f"did you mean {', '.join(close)}?" if close else f"known: {', '.join(sorted(names))}"
    print(f"tankref {verb}: unknown {role} card {wanted!r}: {hint}", file=stderr)
    return None


# --- tankref cards -------------------------------------------------------------------------


def cards_command(
    description: str, dir_help: str, listing: Callable[[Path | None], Iterable[str]]
) -> Command:
    """``tankref cards``: the lines ``listing`` makes of the shipped cards, or of the folder
    ``--dir`` names; a folder with problems lists every one of them (exit 1)."""

    def arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--dir", help=dir_help)

    def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
        try:
            lines = list(listing(Path(args.dir) if args.dir else None))
        except DataError as err:
            print(err, file=stderr)
            return 1
        for line in lines:
            print(line, file=stdout)
        return 0

    return Command("cards", description, arguments, run)


# --- tankref rulings -----------------------------------------------------------------------


def rulings_command(
    description: str,
    options: type[BaseModel],
    readings: Sequence[Reading],
    more_options: Sequence[Reading] = (),
) -> Command:
    """``tankref rulings``: each per-table option of ``options`` with its default and what it
    decides (its field description), ``more_options`` chosen elsewhere, then the readings
    the referee applies where only one is playable."""

    def arguments(parser: argparse.ArgumentParser) -> None:
        return None

    def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
        for name, field in options.model_fields.items():
            print(f"{name} = {field.default!r}\n    {field.description or ''}", file=stdout)
        for name, text in more_options:
            print(f"{name}\n    {text}", file=stdout)
        if readings:
            print(f"\n{READINGS_HEADING}", file=stdout)
            for clause, text in readings:
                print(f"{clause}\n    {text}", file=stdout)
        return 0

    return Command("rulings", description, arguments, run)


# --- tankref odds --------------------------------------------------------------------------


def not_offered(verb: CommandVerb, description: str, why: str) -> Command:
    """A verb the ruleset has nothing to answer with, and says why (exit 2), whatever it is
    given; ``tankref`` does not list it among the rulesets that offer the verb."""

    def arguments(parser: argparse.ArgumentParser) -> None:
        # The arguments the verb takes elsewhere (cards, --json ...): the answer is the same.
        parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
        parser.add_argument("anything", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)

    def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
        print(f"tankref {verb}: {why}", file=stderr)
        return 2

    return Command(verb, description, arguments, run, offered=False)


def shot_arguments(parser: argparse.ArgumentParser, shooter: str, target: str) -> None:
    """SHOOTER_CARD, TARGET_CARD (with an example id each) and --json, as every odds tool."""
    parser.add_argument("shooter", metavar="SHOOTER_CARD", help=f"card id, e.g. {shooter}")
    parser.add_argument("target", metavar="TARGET_CARD", help=f"card id, e.g. {target}")
    parser.add_argument("--json", action="store_true", help="the full answer as JSON")


def a_table(rules: Ruleset, setup: object, actions: Iterable[object]) -> Any:
    """A fresh table of ``rules`` from ``setup`` (wire JSON), with ``actions`` (wire JSON)
    adjudicated in order as the referee would: a refused one raises its ``RulesError``. The
    referee's dice roll whatever the actions need (an initiative roll, say) from a fixed seed,
    so the same request builds the same table."""
    state = rules.new_table(rules.parse_setup(setup), DiceState(source="server", seed="tools"))
    for action in actions:
        state = rules.adjudicate(state, rules.parse_action(action)).state
    return state


def play_until(
    rules: Ruleset, state: Any, ready: Callable[[TableSummary], bool], step: object, limit: int = 8
) -> Any:
    """Adjudicate ``step`` (wire JSON, e.g. ending the phase) until ``ready`` holds of the
    table's summary; a table that does not get there within ``limit`` steps is a mistake in
    the tool, not the user's."""
    for _ in range(limit):
        if ready(rules.summary(state)):
            return state
        state = rules.adjudicate(state, rules.parse_action(step)).state
    raise AssertionError(f"{rules.name}: the table never got ready for the shot")


def odds_run(
    names: Callable[[], Mapping[str, str]],
    figures: Callable[[argparse.Namespace, str, str], Sequence[BaseModel]],
    show: Callable[[argparse.Namespace, Sequence[BaseModel], TextIO], None],
) -> Callable[[argparse.Namespace, TextIO, TextIO], int]:
    """The run of an odds tool: both cards picked from ``names`` (unknown: exit 2), the
    ``figures`` for them (the ruleset's odds hook; a refusal: its message, exit 1), then
    ``show`` them, or all of them as JSON."""

    def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
        known = names()
        shooter = pick_card(known, args.shooter, "shooter", stderr)
        target = pick_card(known, args.target, "target", stderr)
        if shooter is None or target is None:
            return 2
        try:
            found = figures(args, shooter, target)
        except RulesError as err:
            clause = f" ({err.clause})" if err.clause else ""
            print(f"tankref odds: {err.message}{clause}", file=stderr)
            return 1
        if args.json:
            print(json.dumps([f.model_dump(mode="json") for f in found], indent=2), file=stdout)
        else:
            show(args, found, stdout)
        return 0

    return run


def percent(p: float) -> str:
    """A chance as the odds tables print it: 7 wide, 2 decimals."""
    return f"{100 * p:7.2f}%"


def print_chances(rows: Iterable[tuple[str, float, str]], stdout: TextIO) -> None:
    """The odds table every tool prints: each outcome, its chance and the exact fraction."""
    print(f"\n  {'outcome':<30}{'chance':>8}   exact", file=stdout)
    for label, p, exact in rows:
        print(f"  {label:<30}{percent(p)}   {exact}", file=stdout)
