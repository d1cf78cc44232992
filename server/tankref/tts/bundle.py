"""Our Lua bundler: TTS (MoonSharp) has no ``require``, so each object gets one script text.

Each module in ``tankref.tts_lua`` becomes a loader function in a table local to the script;
``use(name)`` runs a loader once and caches what it returns. The module lists are explicit and
ordered (no dependency guessing), the output is deterministic, and its header names the
modules and the tankref version, so a bundled text in a save can be compared with a fresh one.
"""

from __future__ import annotations

from importlib import resources

from tankref import __version__

# Which modules each object script is made of; the last one is the entry (it defines the
# TTS event functions as globals and is run when the script loads).
SCRIPTS: dict[str, tuple[str, ...]] = {
    "global": (
        "util",
        "seatview",
        "wire",
        "rulesets",
        "orders",
        "model",
        "http",
        "referee",
        "render",
        "seats",
        "aids",
        "catalogue",
        "unitmenu",
        "dice",
        "decision",
        "scene",
        "actions",
        "picker",
        "tracker",
        "poller",
        "menus",
        "global",
    ),
}

HEADER = "-- tankref {version}: TTS script '{script}', bundled by tankref.tts.bundle"


def module_source(name: str) -> str:
    """The text of one module shipped in the package."""
    return (resources.files("tankref.tts_lua") / f"{name}.lua").read_text(encoding="utf-8")


def bundle(script: str) -> str:
    """One object's script text: a header, a loader per module, then the entry module run."""
    try:
        modules = SCRIPTS[script]
    except KeyError:
        raise ValueError(f"no TTS script {script!r} (known: {', '.join(SCRIPTS)})") from None
    out = [
        HEADER.format(version=__version__, script=script),
        f"-- modules: {', '.join(modules)}",
        "-- Generated from tts_lua/*.lua: edit those and bundle again, not this text.",
        "local __modules, __loaded = {}, {}",
        "local function use(name)",
        "  local loaded = __loaded[name]",
        "  if loaded == nil then",
        "    local loader = __modules[name]",
        "    if loader == nil then",
        '      error("tankref bundle: no module " .. name)',
        "    end",
        "    loaded = loader() or true",
        "    __loaded[name] = loaded",
        "  end",
        "  return loaded",
        "end",
    ]
    for name in modules:
        source = module_source(name).rstrip("\n")
        out.append(f"-- module {name} " + "-" * max(3, 80 - len(name)))
        out.append(f'__modules["{name}"] = function()')
        out.append(source)
        out.append("end")
    out.append(f'use("{modules[-1]}")')
    return "\n".join(out) + "\n"
