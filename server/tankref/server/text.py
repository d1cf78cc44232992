"""Text the referee accepts from a client: one rule for every string of every request (body
keys and values, the path, the query), checked before any route runs, so nothing is stored
that cannot be served again.

Refused: lone surrogates (they cannot be written out as UTF-8: a table that kept one answered
500 for ever), control characters, bidi overrides and isolates (they make a name read as
another in the log and in TTS chat), and zero-width characters (``Red`` and ``Red`` + a
zero-width space would be two players who look the same). Accepted text is put in Unicode
normal form C, so the same name typed two ways is one id.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

# Bidi embeddings, overrides and isolates, and the marks that steer them.
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)}
_ZERO_WIDTH = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u180e"}


@dataclass(frozen=True)
class BadText:
    """Where the text is (``dice.player_seeds``) and what is wrong with it."""

    field: str
    problem: str
    in_key: bool = False

    @property
    def message(self) -> str:
        return (
            f"{self.field}: {self.problem} is not allowed in {'a key' if self.in_key else 'text'}"
        )


def text_problem(text: str) -> str | None:
    """What makes ``text`` unacceptable, or None."""
    for char in text:
        code = ord(char)
        if 0xD800 <= code <= 0xDFFF:
            return f"a lone surrogate (U+{code:04X})"
        if char in _BIDI:
            return f"a bidi control character (U+{code:04X})"
        if char in _ZERO_WIDTH:
            return f"a zero-width character (U+{code:04X})"
        if unicodedata.category(char) == "Cc":
            return f"a control character (U+{code:04X})"
    return None


def check_json(data: Any) -> tuple[Any, BadText | None]:
    """``data`` (decoded JSON, changed in place) with every string in normal form C, or the
    first bad string. Compare with a copy taken before to learn whether anything changed.

    Iterative, not recursive: a body nested thousands deep is refused by the JSON decoder or
    walked here without exhausting the stack."""
    root: list[Any] = [data]
    stack: list[tuple[Any, Any, str]] = [(root, 0, "")]
    while stack:
        parent, key, where = stack.pop()
        value = parent[key]
        if isinstance(value, str):
            problem = text_problem(value)
            if problem is not None:
                return data, BadText(where or "body", problem)
            parent[key] = unicodedata.normalize("NFC", value)
        elif isinstance(value, dict):
            renamed: dict[str, Any] = {}
            for name, item in value.items():
                problem = text_problem(name)
                if problem is not None:
                    return data, BadText(where or "body", problem, in_key=True)
                renamed[unicodedata.normalize("NFC", name)] = item
            if len(renamed) != len(value):
                return data, BadText(where or "body", "the same key written two ways")
            parent[key] = renamed
            for name in renamed:
                stack.append((renamed, name, f"{where}.{name}" if where else name))
        elif isinstance(value, list):
            for index in range(len(value)):
                stack.append((value, index, f"{where}.{index}" if where else str(index)))
    return root[0], None
