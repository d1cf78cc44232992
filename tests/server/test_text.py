"""The one text rule every request passes (``tankref.server.text``), against Unicode's own
tables (Python's ``unicodedata``), code point by code point."""

from __future__ import annotations

import json
import unicodedata

from tankref.server.text import check_json, plain_json, text_problem

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


def test_a_body_passed_on_its_bytes_alone_would_have_passed_the_walk_unchanged() -> None:
    """``plain_json`` lets the guards skip ``check_json``: whatever it passes, the walk passes
    too and changes nothing; every refused code point and every one not in normal form C,
    raw or escaped, in a key or a value, is left to the walk."""
    codes = [*range(0x3000), *BIDI_CONTROLS, *ZERO_WIDTH, 0xFEFF, 0x1F600, 0x10FFFF]
    passed = 0
    for code in codes:
        char = chr(code)
        for obj in ({"request_id": f"r{char}", "action": {"kind": "wait"}}, {f"k{char}": 1}):
            for raw in (
                json.dumps(obj).encode(),
                json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass"),
            ):
                try:
                    data = json.loads(raw)
                except ValueError:
                    continue
                if plain_json(raw):
                    passed += 1
                    checked = check_json(data)
                    assert checked.bad is None and not checked.changed, f"U+{code:04X} {raw!r}"
    assert passed > 0
    # Raw DEL is valid JSON and refused text: the bytes alone must not pass it.
    assert not plain_json(b'{"request_id": "r\x7f"}')
    assert check_json(json.loads(b'{"request_id": "r\x7f"}')).bad is not None
    # What a client sends every action: passed on its bytes (the guards' quick way).
    assert plain_json(b'{"request_id": "t0-00012", "action": {"kind": "engage", "tank_id": "A7"}}')
