"""Everything above the engine reaches a ruleset through the registry and the ``Ruleset``
interface only (issue 16 item 7): the command line, the TTS save writer and the server import
``tankref.rulesets`` (the registry) and never a module inside one ruleset's package."""

from __future__ import annotations

import ast
from pathlib import Path

import tankref

SERVER = Path(tankref.__file__).resolve().parent
ABOVE_THE_ENGINE = (SERVER / "cli.py", SERVER / "tts", SERVER / "server")
REGISTRY = "tankref.rulesets"
# The registry's own names: anything else imported from it is a ruleset package.
RULESETS = {p.name for p in (SERVER / "rulesets").iterdir() if (p / "__init__.py").is_file()}
IMPORTERS = {"import_module", "__import__"}


def _sources() -> list[Path]:
    found: list[Path] = []
    for place in ABOVE_THE_ENGINE:
        found += [place] if place.is_file() else sorted(place.rglob("*.py"))
    return found


def ruleset_internals(source: str) -> list[tuple[int, str]]:
    """Each import of a module inside a ruleset package (line, what): ``import
    tankref.rulesets.x...``, ``from tankref.rulesets.x... import``, ``from tankref.rulesets
    import x`` for a ruleset package x, and ``import_module("tankref.rulesets.x...")``,
    whether at the top, inside a function or under ``TYPE_CHECKING``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [
                (node.lineno, a.name) for a in node.names if a.name.startswith(REGISTRY + ".")
            ]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith(REGISTRY + "."):
                found.append((node.lineno, node.module))
            elif node.module == REGISTRY:
                found += [
                    (node.lineno, f"{REGISTRY}.{a.name}") for a in node.names if a.name in RULESETS
                ]
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            first = node.args[0]
            if (
                name in IMPORTERS
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
                and first.value.startswith(REGISTRY + ".")
            ):
                found.append((node.lineno, first.value))
    return sorted(found)


def test_the_check_finds_every_way_in() -> None:
    """The check itself: each form of reaching into a ruleset is caught; the registry is not."""
    source = (
        "from tankref.rulesets import DEFAULT_RULESET, get_ruleset, ruleset_names\n"
        "import tankref.rulesets\n"
        "import tankref.rulesets.ttt.cards\n"
        "from tankref.rulesets.afv import plugin\n"
        "from tankref.rulesets import mtc\n"
        "if TYPE_CHECKING:\n"
        "    from tankref.rulesets.ttt.odds import ShotOdds\n"
        "def f():\n"
        "    importlib.import_module('tankref.rulesets.yrd.engine')\n"
    )
    assert [what for _, what in ruleset_internals(source)] == [
        "tankref.rulesets.ttt.cards",
        "tankref.rulesets.afv",
        "tankref.rulesets.mtc",
        "tankref.rulesets.ttt.odds",
        "tankref.rulesets.yrd.engine",
    ]
    assert {"ttt", "afv", "mtc", "yrd"} <= RULESETS


def test_cli_tts_and_server_import_no_ruleset_internals() -> None:
    sources = _sources()
    assert SERVER / "cli.py" in sources and SERVER / "tts" / "save.py" in sources
    assert SERVER / "server" / "referee.py" in sources
    offenders = [
        f"{path.relative_to(SERVER)}:{line}: {what}"
        for path in sources
        for line, what in ruleset_internals(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "reach the ruleset through tankref.rulesets and its Ruleset"
