"""`tankref cards|rulings|odds --ruleset NAME` for every ruleset the referee knows (issue 17
item 5): the card ids each ruleset's models are tagged with, its rulings, a shot's odds or a
plain word why there are none, and help text that names the rulesets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from clikit import run_cli
from tankref.rulesets import get_ruleset, ruleset_names

NAMES = ruleset_names()


@pytest.mark.parametrize("name", NAMES)
def test_cards_list_the_ids_the_rulesets_save_tags_models_with(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every card a ruleset's TTS save tags a model with (`card:<id>`) is a row of its list."""
    code, out, err = run_cli(capsys, "cards", "--ruleset", name)
    assert (code, err) == (0, "")
    ids = {line.split()[0] for line in out.splitlines() if line.strip()}
    tagged = {unit.card for unit in get_ruleset(name).info().save.units}
    assert tagged and tagged <= ids, tagged - ids


@pytest.mark.parametrize("name", NAMES)
def test_rulings_list_every_per_table_option_with_its_default(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each field of the options a table's setup takes (POST /tables "options")."""
    code, out, err = run_cli(capsys, "rulings", "--ruleset", name)
    assert (code, err) == (0, "")
    options = get_ruleset(name).setup_model.model_fields["options"].annotation
    assert isinstance(options, type)
    for field, info in options.model_fields.items():  # type: ignore[attr-defined]
        assert f"\n{field} = {info.default!r}\n" in f"\n{out}"


@pytest.mark.parametrize("name", NAMES)
def test_odds_for_the_saves_first_two_opponents_or_why_not(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first unit of each side in the ruleset's save: exact odds (JSON: fractions, never a
    sample), or, where the ruleset has no shot between two cards, one line and exit 2."""
    units = get_ruleset(name).info().save.units
    shooter = units[0]
    target = next(u for u in units if u.side != shooter.side)
    code, out, err = run_cli(capsys, "odds", "--ruleset", name, shooter.card, target.card, "--json")
    offered = any(c.verb == "odds" and c.offered for c in get_ruleset(name).commands())
    if not offered:
        assert (code, out) == (2, "") and len(err.splitlines()) == 1
        return
    assert (code, err) == (0, "")
    found = json.loads(out)
    shots = found if isinstance(found, list) else [found]
    assert shots and all("exact" in shot for shot in shots)
    code, text, err = run_cli(capsys, "odds", "--ruleset", name, shooter.card, target.card)
    assert (code, err) == (0, "") and "exact" in text


@pytest.mark.parametrize("verb", ["cards", "rulings", "odds"])
def test_help_names_every_ruleset(verb: str) -> None:
    """`tankref VERB --help` (the real command): the --ruleset option lists every ruleset,
    and the epilog the ones whose own tool answers the verb."""
    done = subprocess.run(
        [sys.executable, "-m", "tankref", verb, "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert f"whose {verb}: {', '.join(NAMES)} (default ttt)" in text
    offering = [
        n for n in NAMES if any(c.verb == verb and c.offered for c in get_ruleset(n).commands())
    ]
    assert f"tankref {verb} --ruleset NAME --help ({', '.join(offering)})" in text
    assert set(offering) >= {"ttt", "afv", "mtc"}
    top = subprocess.run(
        [sys.executable, "-m", "tankref", "--help"], capture_output=True, text=True, check=True
    )
    assert f"--ruleset {'|'.join(NAMES)}" in " ".join(top.stdout.split())


def _bad_requests(name: str, tmp: Path) -> list[list[str]]:
    garbage = tmp / "garbage"
    garbage.mkdir(exist_ok=True)
    for file in ("units.toml", "designs.toml", "tanks.toml", "pieces.toml", "dice.toml"):
        (garbage / file).write_bytes(b"\xff\xfe not toml")
    a_file = tmp / "a-file.toml"
    a_file.write_text("x = 1\n", encoding="utf-8")
    return [
        ["cards", "--ruleset", name, "--dir", str(a_file)],
        ["cards", "--ruleset", name, "--dir", str(garbage)],
        ["cards", "--ruleset", name, "--dir", str(tmp / "missing")],
        ["cards", "--ruleset", name, "--colour", "red"],
        ["rulings", "--ruleset", name, "extra"],
        ["odds", "--ruleset", name, "no-such-card", "another"],
        ["odds", "--ruleset", name, "x"],
        ["odds", "--ruleset", name, "x", "y", "--range", "-3"],
        ["odds", "--ruleset", name, "x", "y", "--weapon", "-1"],
    ]


@pytest.mark.parametrize("name", NAMES)
def test_bad_requests_get_one_clear_line_never_a_traceback(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Card folders that are a file, garbage or missing; unknown options, cards and numbers:
    a non-zero exit and the problem in words, nothing on stdout, never a traceback."""
    for argv in _bad_requests(name, tmp_path):
        try:
            code, out, err = run_cli(capsys, *argv)
        except SystemExit as done:  # argparse's own refusal
            code, captured = int(str(done.code)), capsys.readouterr()
            out, err = captured.out, captured.err
        assert code in (1, 2), argv
        assert out == "" and err.strip() and "Traceback" not in err, (argv, err)
