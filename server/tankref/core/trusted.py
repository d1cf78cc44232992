"""Models the engine builds from values it computed itself: no validation, same model.

Validation is for what comes in from outside (requests, logs, card files). A roll, a
modifier or a result line the engine has just computed is already of its fields' types, and
validating it again cost more than the rules that produced it (issue 18: about twenty
validations per Engage). ``built`` makes the very object validation would have made, fields
in declared order (a model serialises its fields in that order, so the JSON, and the result
hashes in old logs, stay byte for byte the same) with defaults filled in, ``fields_set`` the
names given; ``whole`` the same from every field; ``copied`` is ``model_copy()`` (a shallow
copy) without pydantic's generic path; ``frozen`` builds a frozen dataclass (the planners'
plans and side readings, hundreds per table's odds) without a setattr per field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

M = TypeVar("M", bound=BaseModel)
D = TypeVar("D")

_new = object.__new__
# The setters of ``BaseModel``'s four slots, called straight: what ``object.__setattr__``
# ends in, without its look-up through the class (half the cost of building a small model).
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


class _Shape:
    """A model class's fields in declared order: defaults, and factories for mutable ones."""

    __slots__ = ("factories", "template")

    def __init__(self, cls: type[BaseModel]) -> None:
        self.template: dict[str, Any] = {}
        self.factories: list[tuple[str, Callable[[], Any]]] = []
        for name, info in cls.model_fields.items():
            # required fields hold a placeholder until ``built`` overwrites them in place
            self.template[name] = None if info.default is PydanticUndefined else info.default
            if info.default_factory is not None:
                factory: Any = info.default_factory
                self.factories.append((name, factory))


_SHAPES: dict[type[BaseModel], _Shape] = {}


def _shape(cls: type[BaseModel]) -> _Shape:
    shape = _SHAPES.get(cls)
    if shape is None:
        shape = _SHAPES[cls] = _Shape(cls)
    return shape


def built(cls: type[M], **values: Any) -> M:
    """``cls(**values)`` for values the engine computed, of the fields' types (and every
    required field given): the same object, without validating it."""
    shape = _SHAPES.get(cls) or _shape(cls)
    fields = shape.template.copy()
    fields.update(values)  # an existing key keeps its (declared) place
    for name, factory in shape.factories:
        if name not in values:
            fields[name] = factory()
    return adopt(cls, fields, set(values))


def adopt(cls: type[M], fields: dict[str, Any], given: set[str]) -> M:
    """A ``cls`` holding ``fields`` (every field, in declared order, of its type) as its
    values; ``given``: the names set explicitly (``model_fields_set``)."""
    obj = _new(cls)
    _set_dict(obj, fields)
    _set_fields_set(obj, given)
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


def every_field(cls: type[BaseModel]) -> set[str]:
    """The ``model_fields_set`` of a ``cls`` built with every field given, for ``adopt`` to
    share among all such models: assigning a field only adds its name, which this set holds
    already, so a shared set never changes (a set call less for every roll, ruling, ...)."""
    return set(cls.model_fields)


def adopted(cls: type[M], rows: Iterable[dict[str, Any]], given: frozenset[str]) -> list[M]:
    """``adopt`` for each of ``rows`` (one model each, every field given, ``given`` the names
    set explicitly), in one loop: no call per model (a roll's dice, a hot path)."""
    out: list[M] = []
    for fields in rows:
        obj = _new(cls)
        _set_dict(obj, fields)
        _set_fields_set(obj, set(given))
        _set_extra(obj, None)
        _set_private(obj, None)
        out.append(obj)
    return out


def whole(cls: type[M], values: dict[str, Any]) -> M:
    """``adopt`` for ``values`` that hold every field (in declared order): all of them
    "set", as ``model_construct`` would mark them. ``values`` becomes the model's own dict."""
    return adopt(cls, values, set(values))


def frozen(cls: type[D], values: dict[str, Any]) -> D:
    """What the frozen dataclass ``cls``'s ``__init__`` builds from ``values`` (every field
    given, no ``__post_init__``), without an ``object.__setattr__`` call per field (about
    six times a plain class's cost, paid hundreds of times by one table's odds)."""
    obj = _new(cls)
    obj.__dict__.update(values)
    return obj


# Classes with no extra fields and no private attributes: a copy is its two dicts' copies.
# A set of them: one look-up a copy on the hot path (every edited unit), the rest found once.
_plain: set[type[BaseModel]] = set()


def copied(model: M) -> M:
    """``model.model_copy()``: shallow (the fields' values are shared). A model with extra
    fields or private attributes (none of the engine's state models) takes pydantic's path."""
    cls = model.__class__
    if cls not in _plain:
        if cls.__private_attributes__ or cls.model_config.get("extra") == "allow":
            return model.model_copy()
        _plain.add(cls)
    obj = _new(cls)
    _set_dict(obj, model.__dict__.copy())
    _set_fields_set(obj, model.__pydantic_fields_set__.copy())
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj
