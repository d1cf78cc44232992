"""Loading card data files (TOML) with every problem reported at once.

A wargamer editing a card file wants the whole list of what is wrong (file, entry, field),
not one error per run. Rulesets describe their entries with pydantic models; this module
reads the files and gathers the problems.
"""

from __future__ import annotations

import importlib.resources
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from tankref.core.dice import DieSpec
from tankref.core.errors import DataError

M = TypeVar("M", bound=BaseModel)


def shipped_dir(ruleset: str) -> Path:
    """The folder of card data that ships inside the package for ``ruleset``."""
    root = importlib.resources.files("tankref.cards") / ruleset
    return Path(str(root))


def read_toml(path: Path, problems: list[str]) -> dict[str, Any] | None:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        problems.append(f"{path}: file not found")
    except OSError as exc:  # a folder that is a file, a file that is a folder, no permission
        problems.append(f"{path}: cannot be read: {exc.strerror or exc}")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        problems.append(f"{path}: not valid TOML: {exc}")
    return None


def _field_path(loc: Iterable[int | str]) -> str:
    return ".".join(str(p) for p in loc) or "(entry)"


def parse_entries(
    path: Path,
    table: str,
    model: type[M],
    data: dict[str, Any],
    problems: list[str],
    label_key: str = "id",
) -> Iterator[M]:
    """Validate each ``[[table]]`` entry of a file, collecting problems instead of stopping."""
    entries = data.get(table)
    if not isinstance(entries, list) or not entries:
        problems.append(f"{path}: expected one or more [[{table}]] entries")
        return
    for index, raw in enumerate(entries):
        label = f"{table} #{index + 1}"
        if isinstance(raw, dict) and isinstance(raw.get(label_key), str):
            label += f" ({raw[label_key]})"
        try:
            yield model.model_validate(raw)
        except ValidationError as exc:
            for err in exc.errors():
                problems.append(f"{path}: {label}: {_field_path(err['loc'])}: {err['msg']}")


def read_dice(folder: Path, problems: list[str], need: dict[str, str]) -> dict[str, DieSpec]:
    """The dice of ``folder/dice.toml`` by name; each die in ``need`` (name -> what the rules
    roll it for) that the file lacks is a problem."""
    path = folder / "dice.toml"
    dice: dict[str, DieSpec] = {}
    data = read_toml(path, problems)
    if data is None:
        return dice
    for die in parse_entries(path, "die", DieSpec, data, problems, label_key="name"):
        dice[die.name] = die
    for name, why in need.items():
        if name not in dice:
            problems.append(f"{path}: no {name} die ({why})")
    return dice


def raise_if(problems: list[str]) -> None:
    if problems:
        raise DataError(problems)


def fingerprint(folder: Path) -> str:
    """A short hash of every data file under ``folder``: which card data decided a result."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix == ".toml"):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]
