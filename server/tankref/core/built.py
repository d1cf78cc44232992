"""Values the engine computed itself, built without checking them again.

A pydantic model validates every field it is given, and a frozen dataclass sets each field
through ``object.__setattr__`` (about six times a plain class's cost): right for what comes
from outside, pure cost for a plan or an answer the engine has just computed, every field of
its declared type. The odds of a whole table build hundreds of them per request, so the
planners and the odds build those with these two functions instead (as ``assign`` sets
fields of a unit the engine copied). Every field must be given: tests compare what they
build with the same values built the ordinary way.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)
D = TypeVar("D")

_set = object.__setattr__


def model(cls: type[M], values: dict[str, Any]) -> M:
    """What ``cls.model_construct(**values)`` builds (every field given, so every field is
    "set"), without its per-field Python loop. ``values`` becomes the model's own dict."""
    built = cls.__new__(cls)
    _set(built, "__dict__", values)
    _set(built, "__pydantic_fields_set__", set(values))
    _set(built, "__pydantic_extra__", None)
    _set(built, "__pydantic_private__", None)
    return built


def frozen(cls: type[D], values: dict[str, Any]) -> D:
    """What the frozen dataclass ``cls``'s ``__init__`` builds from ``values`` (every field
    given, no ``__post_init__``), without a ``object.__setattr__`` call per field."""
    built = object.__new__(cls)
    built.__dict__.update(values)
    return built
