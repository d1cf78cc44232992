"""The one text rule every request passes (``tankref.server.text``), against Unicode's own
tables (Python's ``unicodedata``), code point by code point."""

from __future__ import annotations

import unicodedata

from tankref.server.text import check_json, text_problem

# Unicode's Bidi_Control characters (PropList.txt), and the zero-width format characters.
BIDI_CONTROLS = {*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C}
ZERO_WIDTH = {0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x180E}


def test_every_refused_code_point_and_only_those() -> None:
    """Refused: surrogates (Cs), control characters (Cc), the bidi controls (Unicode's
    Bidi_Control property) and the zero-width characters; every other code point passes."""
    for code in range(0x110000):
        char = chr(code)
        category = unicodedata.category(char)
        refused = category in ("Cs", "Cc") or code in BIDI_CONTROLS or code in ZERO_WIDTH
        assert (text_problem(f"a{char}b") is not None) == refused, f"U+{code:04X}"


def test_a_bad_string_is_named_by_its_place_and_good_ones_come_back_in_nfc() -> None:
    body = {"setup": {"players": [{"id": "Zoe\u0308"}, {"id": "Blue\u200b"}]}}
    checked = check_json(body)
    assert checked.bad is not None
    assert checked.bad.field == "setup.players.1.id"
    assert "zero-width" in checked.bad.message
    fine = check_json({"Zoe\u0308": ["Zoe\u0308", 1, None, {"x": "plain"}]})
    assert fine.bad is None and fine.changed
    assert fine.data == {"Zo\u00eb": ["Zo\u00eb", 1, None, {"x": "plain"}]}
    same = check_json({"plain": ["text", 2.5]})
    assert same.bad is None and not same.changed
    twice = check_json({"Zo\u00eb": 1, "Zoe\u0308": 2})
    assert twice.bad is not None and "two ways" in twice.bad.message


def test_a_deeply_nested_body_does_not_exhaust_the_stack() -> None:
    deep: object = "bad\u202e"
    for _ in range(50_000):
        deep = [deep]
    checked = check_json(deep)
    assert checked.bad is not None and checked.bad.field.count(".") == 49_999
