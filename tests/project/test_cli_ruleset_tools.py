"""`tankref cards|rulings|odds --ruleset NAME`: each is the ruleset's own tool, reached through
its plug-in's ``commands`` (issue 16 item 7); the engine version a result records asks the
ruleset for its data fingerprint."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import pytest

import toyrules
from tankref import __version__
from tankref.cli import main
from tankref.core.carddata import fingerprint, shipped_dir
from tankref.core.ruleset import Command
from tankref.rulesets import get_ruleset, registered
from tankref.server.referee import engine_version
from toyrules.game import ToyTanks

TOY_FOLDER = Path(toyrules.__file__).resolve().parent


def _toy_cards_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--upper", action="store_true", help="shout the names")


def _toy_cards(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    names = ["tankette", "gun tank"]
    for name in names:
        print(name.upper() if args.upper else name, file=stdout)
    print(f"ruleset {args.ruleset}", file=stdout)
    return 0


@dataclass(frozen=True)
class ToyWithTools(ToyTanks):
    """The toy as a ruleset from another package would be: its own ``tankref cards`` and its
    card data in its own folder."""

    def commands(self) -> Sequence[Command]:
        return (Command("cards", "The toy's two tanks.", _toy_cards_arguments, _toy_cards),)

    def data_fingerprint(self) -> str:
        return fingerprint(TOY_FOLDER)


@dataclass(frozen=True)
class BareToy(ToyTanks):
    """The toy under another name, with no tools (every built-in ruleset now has some)."""

    name: str = "bare"


@pytest.fixture
def toy_with_tools() -> Iterator[None]:
    with registered("toy", ToyWithTools):
        yield


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "argv",
    [
        ["cards"],
        ["rulings"],
        ["odds", "tiger-i", "m4a1-sherman", "--side", "side", "--moved", "--cover", "1"],
        ["odds", "is-2", "m4a1-sherman", "--grizzled", "--json"],
    ],
)
def test_default_ruleset_is_ttt_and_says_the_same(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --ruleset the tool is TinyTableTopTanks' (the registry's default): the same
    output, byte for byte, as with --ruleset ttt written before or after its arguments."""
    code, default, err = _run(capsys, *argv)
    assert code == 0 and err == "" and default.strip()
    assert _run(capsys, *argv[:1], "--ruleset", "ttt", *argv[1:]) == (0, default, "")
    assert _run(capsys, *argv, "--ruleset=ttt") == (0, default, "")


@pytest.mark.parametrize("verb", ["cards", "rulings", "odds"])
def test_a_ruleset_without_the_tool_says_so_and_names_those_with_it(
    verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ruleset offering none of these tools (the toy, as a plug-in without ``commands``):
    exit 2, one plain line naming it and the rulesets that do (the yard's odds only say why
    it has none, so it is not named for odds), nothing on stdout."""
    offering = "afv, mtc, ttt" if verb == "odds" else "afv, mtc, ttt, yrd"
    with registered("bare", BareToy):
        code, out, err = _run(capsys, verb, "--ruleset", "bare", "tiger-i", "m4a1-sherman")
    assert (code, out) == (2, "")
    assert err == (
        f"tankref {verb}: Toy tanks (bare) offers no `tankref {verb}`; rulesets that do: "
        f"{offering}\n"
    )


def test_an_unknown_ruleset_is_named_with_the_known_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(capsys, "odds", "--ruleset", "chess", "tiger-i", "m4a1-sherman")
    assert (code, out) == (2, "")
    assert "no ruleset 'chess'" in err and "known: afv, mtc, ttt, yrd" in err


def test_the_tools_help_is_the_rulesets(capsys: pytest.CaptureFixture[str]) -> None:
    """`tankref odds --help` lists TTT's modifiers (the tool's arguments) and --ruleset."""
    with pytest.raises(SystemExit) as done:
        main(["odds", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: tankref odds ")
    for option in ("--ruleset", "--side", "--grizzled-policy", "--cards-dir", "SHOOTER_CARD"):
        assert option in out
    assert "exact odds (fractions, not sampling)" in out


def test_a_tools_bad_argument_is_refused_by_its_parser(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A bad or unknown argument is argparse's usual refusal (exit 2) from the tool's parser;
    an argument to a command without a tool is refused as before."""
    with pytest.raises(SystemExit) as done:
        main(["odds", "tiger-i", "m4a1-sherman", "--cover", "-1"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "tankref odds: error: argument --cover: must be 0 or more, got -1" in err
    with pytest.raises(SystemExit) as done:
        main(["cards", "--colour", "red"])
    assert done.value.code == 2
    assert "tankref cards: error: unrecognized arguments: --colour red" in capsys.readouterr().err
    with pytest.raises(SystemExit) as done:
        main(["rulesets", "--colour"])
    assert done.value.code == 2
    assert "tankref: error: unrecognized arguments: --colour" in capsys.readouterr().err


def test_a_plug_in_from_another_package_brings_its_own_tool(
    toy_with_tools: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ruleset registered from tests/ (not in tankref) answers `tankref cards --ruleset
    toy` with its own tool and arguments; for `odds` it has none and TTT is named; it is not
    named for the `cards` it now offers."""
    assert _run(capsys, "cards", "--ruleset", "toy", "--upper") == (
        0,
        "TANKETTE\nGUN TANK\nruleset toy\n",
        "",
    )
    code, out, err = _run(capsys, "odds", "--ruleset", "toy", "a", "b")
    assert (code, out) == (2, "")
    assert err.endswith("rulesets that do: afv, mtc, ttt\n") and "Toy tanks (toy)" in err
    with registered("bare", BareToy):
        code, _, err = _run(capsys, "cards", "--ruleset", "bare")
    assert code == 2 and err.endswith("rulesets that do: afv, mtc, toy, ttt, yrd\n")


@pytest.mark.parametrize("name", ["ttt", "afv", "mtc", "yrd"])
def test_engine_version_of_the_built_in_four_is_unchanged(name: str) -> None:
    """The value tables recorded before the hook: tankref's version, the ruleset's name and
    the hash of the folder tankref/cards/<name> (so existing exports still verify clean)."""
    before = f"{__version__}+{name}.cards.{fingerprint(shipped_dir(name))}"
    assert engine_version(name) == before
    assert get_ruleset(name).data_fingerprint() == fingerprint(shipped_dir(name))


def test_engine_version_asks_a_plug_in_for_its_own_data(toy_with_tools: None) -> None:
    """A ruleset living outside tankref fingerprints its own data folder (its card file):
    edit that file and the engine version changes; tankref/cards/toy does not exist."""
    assert not shipped_dir("toy").exists()
    version = engine_version("toy")
    assert version == f"{__version__}+toy.cards.{fingerprint(TOY_FOLDER)}"
    assert version != f"{__version__}+toy.cards.{fingerprint(shipped_dir('toy'))}"


def test_help_imports_no_ruleset(tmp_path: Path) -> None:
    """`tankref --help` and `tankref odds --ruleset afv`'s parser step import no plug-in:
    only the registry's entry point names are read (a fast start)."""
    script = (
        "import json, sys\n"
        "from tankref.cli import build_parser\n"
        "parser = build_parser()\n"
        "parser.parse_known_args(['odds', '--ruleset', 'afv', 'x', 'y'])\n"
        "parser.format_help()\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('tankref.'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    loaded = json.loads(done.stdout)
    assert "tankref.cli" in loaded
    assert [m for m in loaded if m.startswith("tankref.rulesets.")] == []
    assert "tankref.core.ruleset" not in loaded


def test_every_tool_verb_is_in_the_top_level_help() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tankref", "--help"], capture_output=True, text=True, check=True
    )
    for verb in ("cards", "rulings", "odds"):
        assert f"    {verb} " in done.stdout
