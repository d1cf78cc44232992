"""A static reader for our TTS Lua: tokens (strings and comments set apart), a block-scope
walk to tell locals from globals, and the facts the tests check.

What it sees: every global name read, called or defined (after tracking ``local``, function
parameters and ``for`` variables per block); every ``Namespace.member`` on an API namespace
(``Wait.time``, ``JSON.encode``, ``math.floor``); every ``value.name(...)`` or
``value:name(...)`` call; forbidden operators and library names outside strings and comments.

What it cannot see: the type of a value, so a call ``obj.name(...)`` on an object is checked
against the members of every TTS class a script can be handed (Object, WebRequestInstance,
...) plus the functions our own modules define; a typo that happens to be another class's
member passes. Fields read without a call (``reply.is_error``) are not checked here: the fake
refuses any non-API attribute at run time instead. Names built at run time (``obj[name]``)
are invisible.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

KEYWORDS = {
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if",
    "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}  # fmt: skip

_LONG_OPEN = re.compile(r"\[(=*)\[")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F.]+(?:[pP][+-]?\d+)?|\d*\.?\d+(?:[eE][+-]?\d+)?")
_OPERATORS = ("...", "..", "==", "~=", "<=", ">=", "::", "//", "<<", ">>")


@dataclass(frozen=True)
class Token:
    kind: str  # name | keyword | number | string | op
    value: str
    line: int


def tokenize(source: str) -> list[Token]:
    tokens: list[Token] = []
    i, line, n = 0, 1, len(source)
    while i < n:
        c = source[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif source.startswith("--", i):
            long = _LONG_OPEN.match(source, i + 2)
            if long:
                close = "]" + long.group(1) + "]"
                end = source.index(close, long.end())
                line += source.count("\n", i, end)
                i = end + len(close)
            else:
                end = source.find("\n", i)
                i = n if end < 0 else end
        elif c in "\"'":
            j = i + 1
            while source[j] != c:
                j += 2 if source[j] == "\\" else 1
            tokens.append(Token("string", source[i + 1 : j], line))
            line += source.count("\n", i, j)
            i = j + 1
        elif (long := _LONG_OPEN.match(source, i)) is not None:
            close = "]" + long.group(1) + "]"
            end = source.index(close, long.end())
            tokens.append(Token("string", source[long.end() : end], line))
            line += source.count("\n", i, end)
            i = end + len(close)
        elif (m := _NAME.match(source, i)) is not None:
            word = m.group()
            tokens.append(Token("keyword" if word in KEYWORDS else "name", word, line))
            i = m.end()
        elif (m := _NUMBER.match(source, i)) is not None and m.group():
            tokens.append(Token("number", m.group(), line))
            i = m.end()
        else:
            op = next((o for o in _OPERATORS if source.startswith(o, i)), c)
            tokens.append(Token("op", op, line))
            i += len(op)
    return tokens


@dataclass
class Facts:
    global_reads: dict[str, int] = field(default_factory=dict)  # name -> first line
    global_defs: dict[str, int] = field(default_factory=dict)
    members: dict[tuple[str, str], int] = field(default_factory=dict)  # (namespace, member)
    calls: dict[str, int] = field(default_factory=dict)  # x.name( / x:name( on any value
    own_functions: set[str] = field(default_factory=set)  # names our code defines as fields
    forbidden: list[str] = field(default_factory=list)


FORBIDDEN_OPS = {"//": "floor division", "&": "bitwise and", "|": "bitwise or",
                 "~": "bitwise not/xor", "<<": "shift", ">>": "shift"}  # fmt: skip
FORBIDDEN_GLOBALS = {"require", "load", "loadstring", "dofile", "loadfile", "io", "utf8",
                     "debug", "setfenv", "getfenv", "module", "package"}  # fmt: skip
FORBIDDEN_MEMBERS = {("string", "pack"), ("string", "unpack"), ("string", "packsize")}


def analyse(source: str) -> Facts:
    tokens = tokenize(source)
    facts = Facts()
    scopes: list[set[str]] = [set()]
    pending: list[str] = []  # for-loop variables, declared when their `do` opens the block
    brackets: list[str] = []

    def is_local(name: str) -> bool:
        return any(name in s for s in scopes)

    def at(k: int) -> Token | None:
        return tokens[k] if 0 <= k < len(tokens) else None

    def val(k: int) -> str:
        t = at(k)
        return t.value if t is not None else ""

    k = 0
    while k < len(tokens):
        t = tokens[k]
        prev, nxt = val(k - 1), val(k + 1)
        if t.kind == "op":
            if t.value in FORBIDDEN_OPS:
                facts.forbidden.append(f"line {t.line}: `{t.value}` ({FORBIDDEN_OPS[t.value]})")
            if t.value in "({[":
                brackets.append(t.value)
            elif t.value in ")}]" and brackets:
                brackets.pop()
            k += 1
            continue
        if t.kind == "keyword":
            v = t.value
            if v == "function":
                # `function a.b.c(` / `function a:b(` / `function name(` / `function (`
                j = k + 1
                path: list[str] = []
                while at(j) is not None and at(j).kind == "name":  # type: ignore[union-attr]
                    path.append(val(j))
                    if val(j + 1) in (".", ":"):
                        j += 2
                    else:
                        j += 1
                        break
                if path:
                    head = path[0]
                    if len(path) == 1 and not is_local(head):
                        facts.global_defs.setdefault(head, t.line)
                    elif len(path) > 1:
                        facts.own_functions.add(path[-1])
                        if not is_local(head):
                            facts.global_reads.setdefault(head, t.line)
                scope: set[str] = set()
                if path and val(j - 2) == ":":
                    scope.add("self")
                if val(j) == "(":
                    j += 1
                    while val(j) != ")":
                        if at(j).kind == "name":  # type: ignore[union-attr]
                            scope.add(val(j))
                        j += 1
                    k = j + 1
                else:
                    k = j
                scopes.append(scope)
                continue
            if v == "local":
                if nxt == "function":
                    scopes[-1].add(val(k + 2))  # then the function branch sees a local name
                    k += 1
                    continue
                j = k + 1
                while at(j) is not None and at(j).kind == "name":  # type: ignore[union-attr]
                    scopes[-1].add(val(j))
                    if val(j + 1) != ",":
                        break
                    j += 2
                k += 1
                continue
            if v == "for":
                j = k + 1
                while val(j) not in ("=", "in"):
                    if at(j).kind == "name":  # type: ignore[union-attr]
                        pending.append(val(j))
                    j += 1
                k = j
                continue
            if v in ("do", "then", "repeat"):
                scopes.append(set(pending))
                pending.clear()
            elif v in ("else", "elseif"):
                scopes.pop()
                if v == "else":
                    scopes.append(set())
            elif v in ("end", "until"):
                scopes.pop()
            k += 1
            continue
        if t.kind == "name":
            name = t.value
            if prev in (".", ":"):
                if nxt in ("(", "{") or (at(k + 1) is not None and at(k + 1).kind == "string"):  # type: ignore[union-attr]
                    facts.calls.setdefault(name, t.line)
                if nxt == "=" and val(k + 2) == "function":
                    facts.own_functions.add(name)
                k += 1
                continue
            in_constructor = bool(brackets) and brackets[-1] == "{"
            if in_constructor and nxt == "=" and prev in ("{", ",", ";"):
                if val(k + 2) == "function":
                    facts.own_functions.add(name)
                k += 1  # a field name in a table constructor
                continue
            if not is_local(name):
                if nxt == "=" and not brackets:
                    facts.global_defs.setdefault(name, t.line)
                else:
                    facts.global_reads.setdefault(name, t.line)
                    if name in FORBIDDEN_GLOBALS:
                        facts.forbidden.append(f"line {t.line}: `{name}` (not in MoonSharp)")
                    if nxt == "." and at(k + 2) is not None:
                        member = val(k + 2)
                        facts.members.setdefault((name, member), t.line)
                        if (name, member) in FORBIDDEN_MEMBERS:
                            facts.forbidden.append(f"line {t.line}: `{name}.{member}`")
                    if name == "error" and (nxt == "{" or (nxt == "(" and val(k + 2) == "{")):
                        facts.forbidden.append(f"line {t.line}: error() with a table")
        k += 1
    return facts


# --- MoonSharp differences (FACTS.md, seen running MoonSharp 2.0) ------------------------------
_SPEC = re.compile(r"%[-+ #0-9.]*[a-zA-Z%]")
# What may stand as a %s argument: text for certain (our string helper, a number formatter, a
# literal). MoonSharp raises on %s of nil, a boolean or a table.
_STRING_MAKERS = (("util", ".", "str", "("), ("util", ".", "num", "("), ("util", ".", "pct", "("))


def _args(tokens: list[Token], k: int) -> tuple[list[list[Token]], int]:
    """The top-level arguments of the call whose `(` is at ``k``, and the index after `)`."""
    args: list[list[Token]] = [[]]
    depth, j = 0, k + 1
    while j < len(tokens):
        t = tokens[j]
        if t.kind == "op" and t.value in "({[":
            depth += 1
        elif t.kind == "op" and t.value in ")}]":
            if depth == 0:
                break
            depth -= 1
        elif t.kind == "op" and t.value == "," and depth == 0:
            args.append([])
            j += 1
            continue
        args[-1].append(t)
        j += 1
    return ([] if args == [[]] else args), j + 1


def moonsharp_differences(source: str) -> list[str]:
    """Latent MoonSharp-vs-Lua-5.2 differences lupa cannot show: a ``%s`` whose argument is not
    certainly text (wrap it in ``util.str``); ``#`` on a field (lists from JSON may hold holes:
    ``util.len``); ``table.sort`` without a comparator, and ``<``/``>`` on a string literal
    (MoonSharp orders strings by the host's culture: ``util.before``)."""
    tokens = tokenize(source)
    found: list[str] = []
    vals = [t.value for t in tokens]
    for k, t in enumerate(tokens):
        if t.kind == "name" and vals[k : k + 4] == ["string", ".", "format", "("]:
            args, _ = _args(tokens, k + 3)
            # The format: one literal, or literals joined by `..`.
            head = args[0] if args else []
            parts = head[0::2]
            if not parts or any(p.kind != "string" for p in parts):
                continue
            if any(j.value != ".." for j in head[1::2]):
                continue
            fmt = "".join(p.value for p in parts)
            specs = [s for s in _SPEC.findall(fmt) if s != "%%"]
            for i, spec in enumerate(specs, start=1):
                if not spec.endswith("s") or i >= len(args):
                    continue
                arg = args[i]
                text = tuple(a.value for a in arg[:4])
                literal = len(arg) == 1 and arg[0].kind == "string"
                if not literal and text not in _STRING_MAKERS:
                    shown = " ".join(a.value for a in arg)
                    found.append(f"line {t.line}: %s of `{shown}` (use util.str)")
        field_length = k + 2 < len(tokens) and tokens[k + 1].kind == "name"
        if t.kind == "op" and t.value == "#" and field_length and vals[k + 2] in ".[:":
            found.append(f"line {t.line}: # on `{vals[k + 1]}{vals[k + 2]}...` (use util.len)")
        if t.kind == "name" and vals[k : k + 4] == ["table", ".", "sort", "("]:
            args, _ = _args(tokens, k + 3)
            if len(args) < 2:
                found.append(f"line {t.line}: table.sort without a comparator (util.before)")
        if t.kind == "op" and t.value in ("<", ">", "<=", ">="):
            around = [tokens[i] for i in (k - 1, k + 1) if 0 <= i < len(tokens)]
            if any(a.kind == "string" for a in around):
                found.append(f"line {t.line}: `{t.value}` on a string (util.before)")
    return found
