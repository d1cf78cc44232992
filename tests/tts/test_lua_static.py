"""The bundled scripts against what MoonSharp and the TTS API really offer: every API name
they use exists (api-names.json), no syntax or library MoonSharp lacks, and the bundle is the
one the modules make (deterministic, header naming its modules)."""

from __future__ import annotations

from pathlib import Path

import pytest
from faketts import API
from luacheck import analyse, moonsharp_differences, tokenize

from tankref import __version__
from tankref.tts.bundle import SCRIPTS, bundle, module_source

# Namespaces the scripts reach as Namespace.member: their members are listed per section.
NAMESPACES = set(
    [
        "Wait",
        "WebRequest",
        "JSON",
        "math",
        "string",
        "table",
        "os",
        "bit32",
        "Global",
        "Player",
        "Physics",
        "Vector",
        "Color",
        "UI",
        "Time",
        "Turns",
        "coroutine",
    ]
)
# Classes whose instances scripts are handed (objects, requests, players, vectors, colours).
INSTANCE_SECTIONS = ("Object", "WebRequestInstance", "PlayerInstance", "Vector", "Color")
EVENTS = set(API["GlobalEvents"]) | set(API["ObjectEvents"]) | {"onLoad", "onSave"}
LUA_DIR = Path(__file__).resolve().parents[2] / "tts_lua"


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_api_name_the_script_uses_exists(script: str) -> None:
    facts = analyse(bundle(script))
    api_globals = set(API["/"])
    unknown = {
        name: line
        for name, line in facts.global_reads.items()
        if name not in api_globals and name not in facts.global_defs
    }
    assert not unknown, f"globals that are not TTS API names: {unknown}"
    for name in facts.global_defs:
        # A script defines TTS events, and functions buttons / Global.call reach by name.
        assert name in EVENTS or name.startswith("tankref_"), f"stray global {name}"
    for (namespace, member), line in facts.members.items():
        if namespace in NAMESPACES:
            assert member in API[namespace], f"line {line}: {namespace}.{member} is not API"
    instance_members = set().union(*(API[s] for s in INSTANCE_SECTIONS))
    unknown_calls = {
        name: line
        for name, line in facts.calls.items()
        if name not in facts.own_functions
        and name not in instance_members
        and not any(name in API[ns] for ns in NAMESPACES)
    }
    assert not unknown_calls, f"calls that are neither ours nor TTS API: {unknown_calls}"


def test_the_checker_sees_what_it_claims() -> None:
    """The checks above can fail: a made-up call, a global and a library are caught."""
    facts = analyse(
        "local x = getObjectFromGUID('a')\nx.frobnicate(1)\nWait.later(f)\n"
        "local s = string.pack('i', 1)\nfunction helper() end\nprint(y)\n"
    )
    assert "frobnicate" in facts.calls and "frobnicate" not in facts.own_functions
    assert ("Wait", "later") in facts.members
    assert "y" in facts.global_reads and "x" not in facts.global_reads
    assert "helper" in facts.global_defs
    assert any("string.pack" in f for f in facts.forbidden)


FORBIDDEN_SAMPLES = [
    "local a = 7 // 2",
    "local a = 1 & 2",
    "local a = 1 | 2",
    "local a = ~1",
    "local a = 1 << 2",
    "local a = 1 >> 2",
    "local u = utf8.char(65)",
    "local m = require('x')",
    "local f = io.open('x')",
    "local f = load('return 1')",
    "local f = loadstring('return 1')",
    "dofile('x.lua')",
    "error({code = 1})",
]


@pytest.mark.parametrize("sample", FORBIDDEN_SAMPLES)
def test_forbidden_syntax_is_caught(sample: str) -> None:
    assert analyse(sample).forbidden, sample


def test_forbidden_words_in_strings_and_comments_are_fine() -> None:
    source = (
        "-- a // b, require, io.open\nlocal s = 'x // y | z ~ w' -- utf8.char\nlocal t = a ~= b"
    )
    assert analyse(source).forbidden == []


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_no_syntax_or_library_moonsharp_lacks(script: str) -> None:
    assert analyse(bundle(script)).forbidden == []


def test_every_module_is_bundled_somewhere_and_small() -> None:
    shipped = {p.stem for p in LUA_DIR.glob("*.lua")}
    used = set().union(*(set(m) for m in SCRIPTS.values()))
    assert shipped == used, (
        f"modules not in any script: {shipped - used}; missing: {used - shipped}"
    )
    for name in shipped:
        lines = module_source(name).count("\n")
        assert lines < 400, f"{name}.lua has {lines} lines: split it"
        assert module_source(name).startswith(f"-- {name}"), f"{name}.lua: say what it is for"


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_the_bundle_is_deterministic_and_names_its_modules(script: str) -> None:
    text = bundle(script)
    assert text == bundle(script)
    first, second = text.splitlines()[:2]
    assert __version__ in first and repr(script) in first
    assert second == "-- modules: " + ", ".join(SCRIPTS[script])
    for name in SCRIPTS[script]:
        assert f'__modules["{name}"] = function()' in text
        assert module_source(name).rstrip("\n") in text
    assert tokenize(text)  # it reads as Lua


def test_each_bundle_compiles_in_lua52() -> None:
    from lupa import lua52

    lua = lua52.LuaRuntime()
    for script in SCRIPTS:
        compiled = lua.globals().load(bundle(script), script)
        assert compiled is not None, f"{script} does not compile"


# MoonSharp 2.0 differences lupa's Lua 5.2 cannot show (FACTS.md): each sample must be caught.
MOONSHARP_SAMPLES = [
    'local s = string.format("%s moved", name)',  # %s of a value that may be nil
    'local s = string.format("a " .. "%d and %s", 1, flag)',  # formats joined by ..
    "local n = #reply.entries",  # a JSON list: nulls dropped leave holes
    "local n = #t[1]",
    "table.sort(names)",  # culture order
    'if name < "B" then end',
]
MOONSHARP_FINE = [
    'local s = string.format("%s moved, %d%%", util.str(name), 3)',
    'local s = string.format("%s", "literal")',
    "local n = #parts",
    "local n = util.len(reply.entries)",
    "table.sort(names, util.before)",
    "if a < b then end",
]


@pytest.mark.parametrize("sample", MOONSHARP_SAMPLES)
def test_moonsharp_differences_are_caught(sample: str) -> None:
    assert moonsharp_differences(sample), sample


@pytest.mark.parametrize("sample", MOONSHARP_FINE)
def test_moonsharp_safe_forms_pass(sample: str) -> None:
    assert moonsharp_differences(sample) == [], sample


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_no_moonsharp_difference_in_the_scripts(script: str) -> None:
    """Every %s argument is certainly text, no # on JSON data, no culture-dependent order."""
    assert moonsharp_differences(bundle(script)) == []


def test_the_string_helpers_behave_as_moonsharp_needs() -> None:
    """util.str never hands %s a non-string; util.before is ordinal (Lua 5.2's `<` is too,
    MoonSharp's is not); util.len counts a list with a hole up to its last element."""
    from lupa import lua52

    lua = lua52.LuaRuntime()
    util = lua.execute(module_source("util").replace("use(", "nil and use("))
    assert [util.str(v) for v in (None, True, 2.5, "x")] == ["", "true", "2.5", "x"]
    assert util.str(lua.table()).startswith("table")
    assert util.before("B", "a") is True and util.before("a", "B") is False
    assert util.before("ab", "abc") is True and util.before("abc", "abc") is False
    holes = lua.execute("return {1, nil, 3}")
    assert util.len(holes) == 3 and util.len(None) == 0
