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

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

# Every refused character, in one class (control characters are Unicode's Cc: C0, DEL, C1).
_BIDI = "\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
_ZERO_WIDTH = "\u200b-\u200d\u2060\ufeff\u180e"
_REFUSED = re.compile(f"[\ud800-\udfff\x00-\x1f\x7f-\x9f{_BIDI}{_ZERO_WIDTH}]")
_BIDI_SET = re.compile(f"[{_BIDI}]")
_ZERO_WIDTH_SET = re.compile(f"[{_ZERO_WIDTH}]")


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
    found = _REFUSED.search(text)
    if found is None:
        return None
    char = found[0]
    code = f"U+{ord(char):04X}"
    if 0xD800 <= ord(char) <= 0xDFFF:
        return f"a lone surrogate ({code})"
    if _BIDI_SET.match(char):
        return f"a bidi control character ({code})"
    if _ZERO_WIDTH_SET.match(char):
        return f"a zero-width character ({code})"
    return f"a control character ({code})"


@dataclass(frozen=True)
class Checked:
    data: Any  # every string in normal form C
    bad: BadText | None  # the first unacceptable string, if any
    changed: bool  # some string was not in normal form C


def plain_json(body: bytes) -> bool:
    """Whether every string JSON ``body`` decodes to is acceptable and in normal form C, seen
    from its bytes alone (without walking what it decodes to, ``check_json``): ASCII, no
    escape (the only way a JSON string holds a control character, a surrogate or any
    non-ASCII character written in ASCII) and no DEL (the one ASCII control character
    JSON allows unescaped). ASCII text is its own normal form C. False says only "walk it"."""
    return body.isascii() and b"\\" not in body and b"\x7f" not in body


def check_json(data: Any) -> Checked:
    """``data`` (decoded JSON, changed in place) with every string in normal form C, or the
    first bad string.

    Iterative, not recursive: a body nested thousands deep is refused by the JSON decoder or
    walked here without exhausting the stack."""
    root: list[Any] = [data]
    changed = False
    stack: list[tuple[Any, Any, str]] = [(root, 0, "")]
    while stack:
        parent, key, where = stack.pop()
        value = parent[key]
        if isinstance(value, str):
            problem = text_problem(value)
            if problem is not None:
                return Checked(data, BadText(where or "body", problem), changed)
            if not unicodedata.is_normalized("NFC", value):
                parent[key] = unicodedata.normalize("NFC", value)
                changed = True
        elif isinstance(value, dict):
            renamed: dict[str, Any] = {}
            for name, item in value.items():
                problem = text_problem(name)
                if problem is not None:
                    return Checked(data, BadText(where or "body", problem, in_key=True), changed)
                if not unicodedata.is_normalized("NFC", name):
                    name = unicodedata.normalize("NFC", name)
                    changed = True
                renamed[name] = item
            if len(renamed) != len(value):
                return Checked(
                    data, BadText(where or "body", "the same key written two ways"), changed
                )
            parent[key] = renamed
            for name in renamed:
                stack.append((renamed, name, f"{where}.{name}" if where else name))
        elif isinstance(value, list):
            for index in range(len(value)):
                stack.append((value, index, f"{where}.{index}" if where else str(index)))
    return Checked(root[0], None, changed)
