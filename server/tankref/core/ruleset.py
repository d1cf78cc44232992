"""What a rule system plugs into the shared core, and the registry of those known.

Each ruleset is one package with its rules, card data and tests; the server, the CLI and
the tests reach it through this small surface and never through its internals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel

from tankref.core.dice import SuppliedDice
from tankref.core.results import Result


class Outcome(Protocol):
    @property
    def state(self) -> BaseModel: ...

    @property
    def result(self) -> Result: ...


class Ruleset(Protocol):
    @property
    def name(self) -> str: ...  # registry key, e.g. "ttt"

    @property
    def title(self) -> str: ...  # e.g. "TinyTableTopTanks"

    @property
    def clause_prefix(self) -> str: ...  # e.g. "TTT"

    def parse_action(self, data: object) -> BaseModel: ...

    def load_state(self, text: str | bytes) -> BaseModel: ...

    def adjudicate(self, state: Any, action: Any, dice: SuppliedDice | None = None) -> Outcome: ...


_REGISTRY: dict[str, Callable[[], Ruleset]] = {}


def register(name: str, factory: Callable[[], Ruleset]) -> None:
    _REGISTRY[name] = factory


def get_ruleset(name: str) -> Ruleset:
    if not _REGISTRY:
        _register_builtin()
    try:
        return _REGISTRY[name]()
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise KeyError(f"no ruleset {name!r} (known: {known})") from None


def ruleset_names() -> list[str]:
    if not _REGISTRY:
        _register_builtin()
    return sorted(_REGISTRY)


def _register_builtin() -> None:
    from tankref.rulesets import ttt

    register(ttt.NAME, ttt.ruleset)
