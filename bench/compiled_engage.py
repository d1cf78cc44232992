"""Would compiling reach the 60 µs Engage? The Engage and its straight version compiled to C
by mypyc, beside themselves in plain CPython, in the same run (issue 18).

``engage_speed.py`` times the engine's Engage; ``straight_engage.py`` the same shot written
straight (no dispatch, context, plan objects or result models). Both are Python run by
CPython's interpreter. This bench asks what is left when the interpreter is taken away:

- **the engine compiled**: the Engage handler's own modules (``COMPILED``: the shot's
  checks, sides, dice and texts; the morale checks; the damage card) compiled by mypyc, the
  compiler that ships with mypy (a test dependency), everything else as it is;
- **the straight shot compiled**: ``straight_engage.py`` compiled the same way.

mypyc turns typed Python into a C extension module: the same code, run without bytecode.
What it cannot make faster is what the code asks of Python's objects: building the result's
dicts, lists and models, the new state's copies, the texts, the hashes (and on Python
classes it reads attributes the generic way, which can be slower than CPython's own
specialised bytecode). Where compiling takes little off, the time is in the objects; the
straight shot compiled says what this shot's result costs in Python objects at the least
this bench can show.

The build is a copy: the package and the benches are copied to a temporary folder and
compiled there (nothing is written into the checkout). The engine's classes stay Python
classes there (``mypyc_attr(native_class=False)`` is added to each class of a compiled module
in the copy): its trusted constructors (``core.trusted``) build plans and lines through
``object.__new__`` and their ``__dict__``, which a native class refuses.

Each configuration runs in a child process (plain: the checkout; compiled: the copy), which
first proves what it runs: the compiled modules are extension modules, and
``straight_engage.check`` passes (the straight shot gives the engine's result and state).
The children also print a digest of the Engage's result and new state: the compiled engine
must give the plain engine's, byte for byte. The children alternate (``--rounds`` each), so
a busy spell of the machine hits both alike; each prints medians of wall-clock time (as
``engage_speed.py`` prints its figures), and the figures are the medians of those.

Needs a C compiler and Python's headers (as any package that compiles); without them the
bench says so and exits 2.

    python bench/compiled_engage.py [--runs 3000] [--rounds 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
TARGET_US = 60.0  # issue 18's Engage target
# The Engage handler's own code: what ``do_engage`` and the checks after it run.
COMPILED = (
    "tankref/rulesets/ttt/combat.py",
    "tankref/rulesets/ttt/morale.py",
    "tankref/rulesets/ttt/damage.py",
)
COPIED_BENCHES = ("engage_speed.py", "straight_engage.py", "compiled_engage.py")
_CLASS = re.compile(r"^((?:@[^\n]*\n)*)class ", re.MULTILINE)


class BuildFailed(Exception):
    pass


def python_classes(source: str) -> str:
    """``source`` with every top-level class kept a Python class by mypyc."""
    marked = _CLASS.sub(
        lambda m: "@mypyc_attr(native_class=False)\n" + m.group(1) + "class ", source
    )
    future = "from __future__ import annotations\n"
    return marked.replace(future, future + "from mypy_extensions import mypyc_attr\n", 1)


def _mypyc(files: list[str], cwd: Path, env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypyc", *files],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])
        raise BuildFailed(f"mypyc {' '.join(files)} failed (exit {done.returncode}):\n{tail}")


def build(where: Path) -> None:
    """The package and the benches copied under ``where``, the modules compiled there."""
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "build")
    shutil.copytree(REPO / "server" / "tankref", where / "server" / "tankref", ignore=ignore)
    # the cards and Lua the package reads at run time (setuptools maps them into it)
    shutil.copytree(REPO / "cards", where / "server" / "tankref" / "cards", ignore=ignore)
    shutil.copytree(REPO / "tts_lua", where / "server" / "tankref" / "tts_lua", ignore=ignore)
    shutil.copy(REPO / "pyproject.toml", where / "pyproject.toml")  # mypy's settings
    (where / "bench").mkdir()
    for name in COPIED_BENCHES:
        shutil.copy(BENCH / name, where / "bench" / name)
    for module in COMPILED:
        path = where / "server" / module
        path.write_text(python_classes(path.read_text()))
    env = {**os.environ, "MYPYPATH": str(where / "server")}
    _mypyc(list(COMPILED), where / "server", env)
    _mypyc(["straight_engage.py"], where / "bench", env)


def child(runs: int) -> int:
    """Time the engine and the straight shot here; print what was run and the medians."""
    import straight_engage
    from engage_speed import SHOT, full_path_table, time_ns
    from tankref.rulesets.ttt import combat, damage, morale
    from tankref.rulesets.ttt.engine import adjudicate

    state, _ = full_path_table()
    straight_engage.check(state, SHOT)  # raises unless it gives the engine's result and state
    done = adjudicate(state, SHOT)
    digest = hashlib.sha256(
        done.result.model_dump_json().encode() + done.state.model_dump_json().encode()
    ).hexdigest()
    shooter, target = SHOT.tank_id, SHOT.target_id
    run_straight = straight_engage.straight_engage
    engine: list[int] = []
    straight: list[int] = []
    # Each timed in a loop of its own (engage_speed's ``time_ns``, wall clock: the figures
    # compare with its), the loops alternated in blocks so that a busy spell hits both alike.
    blocks = 10
    n = max(1, runs // blocks)
    for block in range(blocks):
        warmup = n if block == 0 else 0
        engine += time_ns(lambda: adjudicate(state, SHOT), n, warmup)
        straight += time_ns(lambda: run_straight(state, shooter, target), n, warmup)
    files = {m.__name__: m.__file__ for m in (combat, morale, damage, straight_engage)}
    print(
        json.dumps(
            {
                "engine_us": statistics.median(engine) / 1000,
                "straight_us": statistics.median(straight) / 1000,
                "digest": digest,
                "files": files,
            }
        )
    )
    return 0


def _measure(script: Path, pythonpath: Path, runs: int) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    done = subprocess.run(
        [sys.executable, str(script), "--child", "--runs", str(runs)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the timing child failed:\n{done.stderr.strip()}")
    figures: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def _compiled(path: object) -> bool:
    return isinstance(path, str) and path.endswith((".so", ".pyd"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3000, help="timed runs a child (default 3000)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="children of each kind, alternated (default 3)"
    )
    parser.add_argument("--keep", type=Path, help="build in this new folder and keep it")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.runs)

    try:
        import mypy.version
    except ImportError:
        print("not measured: mypyc comes with mypy: pip install -e '.[test]'", file=sys.stderr)
        return 2
    temp = None
    if args.keep is None:
        temp = tempfile.TemporaryDirectory(prefix="tankref-mypyc-")
        where = Path(temp.name)
    else:
        where = args.keep
        if where.exists():
            parser.error(f"--keep: {where} exists: give a new folder")
        where.mkdir(parents=True)
    try:
        print(f"compiling with mypyc {mypy.version.__version__} in {where} ...", flush=True)
        t0 = time.monotonic()
        try:
            build(where)
        except BuildFailed as why:
            print(f"not measured: {why}", file=sys.stderr)
            return 2
        print(
            f"compiled in {time.monotonic() - t0:.0f} s: {', '.join(COMPILED)}; straight_engage.py"
        )
        plain: list[dict[str, object]] = []
        built: list[dict[str, object]] = []
        for k in range(args.rounds):
            print(f"round {k + 1} of {args.rounds} ...", flush=True)
            plain.append(_measure(BENCH / "compiled_engage.py", REPO / "server", args.runs))
            built.append(
                _measure(where / "bench" / "compiled_engage.py", where / "server", args.runs)
            )
    finally:
        if temp is not None:
            temp.cleanup()

    for figures in plain:
        files = figures["files"]
        assert isinstance(files, dict)
        if any(_compiled(path) for path in files.values()):
            raise SystemExit(f"the plain child ran compiled modules: {files}")
    for figures in built:
        files = figures["files"]
        assert isinstance(files, dict)
        if not all(_compiled(path) for path in files.values()):
            raise SystemExit(f"the compiled child ran plain modules: {files}")
    digests = {str(f["digest"]) for f in plain + built}
    if len(digests) != 1:
        raise SystemExit("the compiled engine's result or state differs from the plain engine's")
    print("the compiled engine gives the plain engine's result and state, byte for byte")

    def median(rows: list[dict[str, object]], key: str) -> float:
        return statistics.median(float(str(row[key])) for row in rows)

    e_plain, e_built = median(plain, "engine_us"), median(built, "engine_us")
    s_plain, s_built = median(plain, "straight_us"), median(built, "straight_us")
    print(
        f"wall clock, medians of {args.rounds} children x {args.runs} runs each:\n"
        f"  {'':30s} {'CPython':>10s} {'compiled':>10s} {'compiled/CPython':>17s}\n"
        f"  {'engine Engage':30s} {e_plain:8.1f} µs {e_built:7.1f} µs {e_built / e_plain:16.2f}x\n"
        f"  {'the shot written straight':30s} {s_plain:8.1f} µs {s_built:7.1f} µs "
        f"{s_built / s_plain:16.2f}x"
    )
    print(
        f"compiling took off: the engine {e_plain - e_built:+.1f} µs, the straight shot "
        f"{s_plain - s_built:+.1f} µs (a minus: slower compiled); the straight shot compiled = "
        f"{s_built / e_plain:.2f}x the engine, {s_built / TARGET_US:.2f}x the {TARGET_US:g} µs "
        "target"
    )
    verdict = "PASS" if s_built <= TARGET_US else "FAIL"
    print(
        f"{verdict}: the straight shot compiled, {s_built:.1f} µs, against the target of at "
        f"most {TARGET_US:g} µs (what this shot's result costs in Python objects, "
        "no interpreter)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
