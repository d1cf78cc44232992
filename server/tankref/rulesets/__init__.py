"""Which rulesets this referee knows: the one place that says so.

A ruleset is found through the Python entry point group ``tankref.rulesets`` (a name and a
zero-argument factory returning a ``tankref.core.ruleset.Ruleset``), so one can live in
another installed package; tankref's own four are declared the same way in its
``pyproject.toml``. ``register`` adds one in this process (a test's toy ruleset, a script).

Listing names reads only the installed packages' metadata: a plug-in's code is imported on
its first ``get_ruleset``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the interface only: importing this module stays cheap (the CLI's start)
    from tankref.core.ruleset import Ruleset

ENTRY_POINT_GROUP = "tankref.rulesets"
DEFAULT_RULESET = "ttt"  # what a table, a save or the board is when nobody says

Factory = Callable[[], "Ruleset"]

_registered: dict[str, Factory] = {}  # by register(): win over an installed one
_installed: dict[str, str] | None = None  # name -> "module:attr", read once
_loaded: dict[str, Factory] = {}  # installed factories already imported


def register(name: str, factory: Factory) -> None:
    """Make ``name`` a ruleset in this process (over an installed one of the same name)."""
    _registered[name] = factory


@contextmanager
def registered(name: str, factory: Factory) -> Iterator[None]:
    """``name`` is a ruleset while the ``with`` block runs (a test's toy ruleset), then it is
    gone again (or the one it stood in front of is back)."""
    before = _registered.get(name)
    register(name, factory)
    try:
        yield
    finally:
        if before is None:
            del _registered[name]
        else:
            _registered[name] = before


def _installed_rulesets() -> dict[str, str]:
    global _installed
    if _installed is None:
        found: dict[str, str] = {}
        for point in entry_points(group=ENTRY_POINT_GROUP):
            if found.get(point.name, point.value) != point.value:
                # Two packages claim one name: which one plays would depend on path order.
                raise RuntimeError(
                    f"two installed rulesets are named {point.name!r}: "
                    f"{found[point.name]} and {point.value}"
                )
            found[point.name] = point.value
        _installed = found
    return _installed


def ruleset_names() -> list[str]:
    return sorted(set(_installed_rulesets()) | set(_registered))


def get_ruleset(name: str) -> Ruleset:
    factory = _registered.get(name) or _loaded.get(name)
    if factory is None:
        installed = _installed_rulesets()
        if name not in installed:
            known = ", ".join(ruleset_names()) or (
                f"none: no package declares the entry point group {ENTRY_POINT_GROUP!r}; "
                "reinstall tankref"
            )
            raise KeyError(f"no ruleset {name!r} (known: {known})")
        point = next(p for p in entry_points(group=ENTRY_POINT_GROUP) if p.name == name)
        loaded = point.load()
        if not callable(loaded):
            raise TypeError(f"ruleset {name!r}: {point.value} is not a factory")
        factory = _loaded[name] = loaded
    rules = factory()
    if rules.name != name:
        raise ValueError(f"ruleset registered as {name!r} calls itself {rules.name!r}")
    return rules
