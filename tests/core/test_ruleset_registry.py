"""Which rulesets exist is said in one place (``tankref.rulesets``, over the entry point group
``tankref.rulesets``), and each ruleset says what it is in one ``RulesetInfo`` that the
referee, the CLI and the TTS save read."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tankref.rulesets import DEFAULT_RULESET, ENTRY_POINT_GROUP, get_ruleset, ruleset_names

ROOT = Path(__file__).resolve().parents[2]


def test_the_built_in_four_are_declared_as_entry_points() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    assert set(declared[ENTRY_POINT_GROUP]) == {"afv", "mtc", "ttt", "yrd"}
    assert {"afv", "mtc", "ttt", "yrd"} <= set(ruleset_names())
    assert DEFAULT_RULESET in ruleset_names()


def test_listing_rulesets_imports_no_plugin() -> None:
    """Cheap imports: naming the rulesets reads package metadata only; a plug-in's code is
    imported when it is first used."""
    probe = (
        "import sys; from tankref.rulesets import ruleset_names, get_ruleset;"
        "mine = lambda: sorted(m for m in sys.modules if m.startswith('tankref.rulesets.'));"
        "names = ruleset_names(); before = mine(); get_ruleset('mtc'); after = mine();"
        "print(names, before, 'tankref.rulesets.mtc.plugin' in after, "
        "any(m.startswith('tankref.rulesets.ttt') for m in after))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['afv', 'mtc', 'ttt', 'yrd'] [] True False"


def test_an_unknown_ruleset_is_named_with_the_known_ones() -> None:
    with pytest.raises(KeyError, match=r"no ruleset 'chess' \(known: afv, mtc, ttt, yrd"):
        get_ruleset("chess")


@pytest.mark.parametrize("name", ["afv", "mtc", "ttt", "yrd"])
def test_each_ruleset_describes_itself_in_one_value(name: str) -> None:
    """Its info agrees with the plug-in; every setup it offers is one its setup model takes;
    every terrain tag the board maps lands on one of its terrain kinds; every unit of its TTS
    table names one of its cards (checked when the info is built)."""
    rules = get_ruleset(name)
    info = rules.info()
    assert (info.name, info.title, info.clause_prefix) == (name, rules.title, rules.clause_prefix)
    assert info.description and info.setups and info.save.units and info.save.dice
    for choice in info.setups:
        players = info.board.players
        body = {
            **choice.setup,
            **({"players": players} if players and "players" not in choice.setup else {}),
        }
        rules.parse_setup(body)
    assert {t["kind"] for t in info.board.terrain} <= set(info.terrain_kinds)
    tags = {tag for piece in info.save.terrain for tag in piece.tags}
    assert tags - {"round"} <= {t["tag"] for t in info.board.terrain}


def test_the_yard_is_titled_by_its_printed_heading() -> None:
    """The rule text's own heading ("Chapter 12: Tanks and Their Mechanics."), everywhere the
    yard is listed: the plug-in, GET /rulesets (from the same info) and the TTS save."""
    from tankref.tts.save import build_save

    yard = get_ruleset("yrd")
    assert yard.title == yard.info().title == "Chapter 12: Tanks and Their Mechanics"
    assert build_save(ruleset="yrd")["SaveName"] == "tankref: Chapter 12: Tanks and Their Mechanics"
