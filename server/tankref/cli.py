"""The `tankref` command line."""

from __future__ import annotations

import _thread
import argparse
import os
import sys
import threading
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from tankref import __version__
from tankref.core.argtypes import at_least
from tankref.rulesets import DEFAULT_RULESET, get_ruleset, ruleset_names

if TYPE_CHECKING:
    import httpx

    from tankref.core.ruleset import CommandVerb
    from tankref.server.stores import Store

# The verbs whose tool is a ruleset's own (``Ruleset.commands``), with their line in --help.
# The parser knows only the verb and --ruleset, so building it imports no plug-in; the tool's
# own arguments are read in a second step, once its ruleset is loaded.
RULESET_TOOLS: dict[CommandVerb, str] = {
    "cards": "a ruleset's cards (the ids models are tagged with), or check a card folder",
    "rulings": "a ruleset's per-table rulings and their defaults",
    "odds": "exact odds of a shot by a ruleset's rules: hit, damage, destroyed ...",
}


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose refusal is one line (what is wrong, and where help is), not
    the usage block above it."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (`{self.prog} --help` shows the usage)\n")


def worker_count(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if count < 1:
        raise argparse.ArgumentTypeError(f"at least 1, not {count}")
    return count


def port_number(text: str) -> int:
    """A TCP port a referee can listen on or be reached at."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535, got {port}")
    return port


positive = at_least(1)  # an argparse type: a count of 1 or more


def hours(text: str) -> float:
    """A time in hours, more than none (an expiry of 0 would end every table at once)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of hours: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"give a number of hours above 0, got {text}")
    return value


def _cmd_ruleset_tool(args: argparse.Namespace, rest: list[str]) -> int:
    """``tankref VERB --ruleset NAME ...``: the ruleset's own tool for VERB, its arguments
    parsed from ``rest``; a ruleset without one is told so with the rulesets that have it."""
    verb: CommandVerb = args.ruleset_tool
    names = ruleset_names()
    if args.ruleset not in names:
        print(
            f"tankref {verb}: no ruleset {args.ruleset!r} (known: {', '.join(names)})",
            file=sys.stderr,
        )
        return 2
    rules = get_ruleset(args.ruleset)
    tool = next((c for c in rules.commands() if c.verb == verb), None)
    if tool is None:
        offering = _offering(verb, names)
        print(
            f"tankref {verb}: {rules.title} ({rules.name}) offers no `tankref {verb}`; "
            f"rulesets that do: {', '.join(offering) or 'none'}",
            file=sys.stderr,
        )
        return 2
    asks_help = any(arg in ("-h", "--help") for arg in rest)
    epilog = (  # only for --help: it loads every plug-in to say which offer the verb
        f"Every ruleset's own: tankref {verb} --ruleset NAME --help "
        f"({', '.join(_offering(verb, names))})."
        if asks_help
        else None
    )
    parser = Parser(prog=f"tankref {verb}", description=tool.description, epilog=epilog)
    _ruleset_option(parser, verb, names)
    tool.add_arguments(parser)
    # The ruleset was read in the first step: the namespace carries it, the option is for --help.
    tool_args = parser.parse_args(rest, namespace=argparse.Namespace(ruleset=args.ruleset))
    return tool.run(tool_args, sys.stdout, sys.stderr)


def _offering(verb: CommandVerb, names: list[str]) -> list[str]:
    """The rulesets whose tool for ``verb`` answers it (not one that only says why not)."""
    return [
        n for n in names if any(c.verb == verb and c.offered for c in get_ruleset(n).commands())
    ]


def _ruleset_option(parser: argparse.ArgumentParser, verb: str, names: list[str]) -> None:
    parser.add_argument(
        "--ruleset",
        default=DEFAULT_RULESET,
        help=f"whose {verb}: {', '.join(names)} (default {DEFAULT_RULESET})",
    )


def _cmd_rulesets(args: argparse.Namespace) -> int:
    for name in ruleset_names():
        info = get_ruleset(name).info()
        kinds = ", ".join(info.terrain_kinds) or "none"
        setups = ", ".join(s.label for s in info.setups)
        print(f"{name:<5} {info.title} (clauses {info.clause_prefix}-)\n      {info.description}")
        print(f"      terrain kinds: {kinds}\n      setups on the TTS board: {setups}")
    return 0


def _cmd_selfplay(args: argparse.Namespace) -> int:
    if args.ruleset not in ruleset_names():
        print(f"no ruleset {args.ruleset!r} (known: {', '.join(ruleset_names())})", file=sys.stderr)
        return 2
    rules = get_ruleset(args.ruleset)

    for seed in range(args.seed, args.seed + args.games):
        # The ruleset's own seeded bots (its ``self_play`` hook): the started table and every
        # action after it. With --verbose each action is adjudicated again to print its result.
        # One write a line (print writes the text and its newline apart): a Ctrl+C between
        # the two would leave "Stopped." on the end of this line.
        sys.stdout.write(f"== game {seed} ==\n")
        game = rules.self_play(seed)
        if args.verbose:
            state = game.start
            for action in game.actions:
                outcome = rules.adjudicate(state, action)
                state = outcome.state
                for line in outcome.result.summary:
                    print(f"  {line}")
        end = rules.summary(game.final)
        steps = len(game.actions)
        winner = f", winner {end.winner}" if end.winner else ""
        sys.stdout.write(
            f"game {seed}: {end.reason or end.status} (turn {end.turn}, {steps} actions){winner}\n"
        )
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from tankref.server.hosted import Profile, SettingsFileError, read_settings_file
    from tankref.server.serve import serve
    from tankref.server.settings import DEFAULT_HOST, DEFAULT_PORT, default_db_path
    from tankref.server.stores import chosen_db, is_postgres

    given: dict[str, Any] = {}
    if args.settings is not None:
        try:
            given = read_settings_file(Path(args.settings).expanduser())
        except SettingsFileError as err:
            print(f"tankref serve: --settings {err}", file=sys.stderr)
            return 2
    # Flags win over the file; the file over the defaults.
    flags = {k: v for k, v in vars(args).items() if k in SERVE_SETTINGS and v not in (None, [])}
    defaulted = {"host", "port", "log_level", "workers"} - getattr(args, "given", set())
    given |= {k: v for k, v in flags.items() if k not in defaulted or k not in given}
    chosen = chosen_db(given.get("db"))  # --db (or the file's db), else TANKREF_DB
    db: Path | str = default_db_path()
    if chosen is not None:
        db = chosen if is_postgres(chosen) else Path(chosen).expanduser()
    profile = Profile(
        public=bool(given.get("public")),
        forwarded_allow_ips=tuple(given.get("forwarded_allow_ips", ())),
        tables_per_hour=given.get("tables_per_hour"),
        expire_after_hours=given.get("expire_after_hours"),
        json_logs=bool(given.get("json_logs")),
        public_url=given.get("public_url"),
    )
    return serve(
        given.get("host", DEFAULT_HOST),
        given.get("port", DEFAULT_PORT),
        db,
        log_level=given.get("log_level", "warning"),
        allowed_hosts=tuple(given.get("allow_host", ())),
        workers=given.get("workers", 1),
        profile=profile,
    )


class _Given(argparse.Action):
    """Stores the flag's value and notes that it was given (``args.given``): a flag that has a
    default wins over the --settings file only when it was typed."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        namespace.given = {*getattr(namespace, "given", set()), self.dest}


# What `tankref serve` takes from flags or from its --settings file (hosted.FILE_KEYS).
SERVE_SETTINGS = (
    "host",
    "port",
    "db",
    "log_level",
    "allow_host",
    "workers",
    "public",
    "forwarded_allow_ips",
    "tables_per_hour",
    "expire_after_hours",
    "json_logs",
    "public_url",
)


def _db_named(flag: str | None) -> Path | str:
    """The referee's database a command reads: --db, else TANKREF_DB, else the default file
    (a PostgreSQL URL as given, a file path expanded)."""
    from tankref.server.dburl import chosen_db, is_postgres
    from tankref.server.settings import default_db_path

    chosen = chosen_db(flag)
    if chosen is None:
        return default_db_path()
    return chosen if is_postgres(chosen) else Path(chosen).expanduser()


def _open_to_read(command: str, db: Path | str, missing: str) -> Store | None:
    """The referee's database ``db`` opened through the store interface, either store
    (None: why not was said in one line: no such file, an empty or unreachable PostgreSQL
    database, not a referee's; a URL never with its password). Nothing is made: an empty
    database is not given the referee's tables."""
    from tankref.server.store import StoreError, one_line
    from tankref.server.stores import open_store

    if isinstance(db, Path) and not db.is_file():
        print(f"tankref {command}: no referee database at {db} ({missing})", file=sys.stderr)
        return None
    try:
        return open_store(db, create=False)
    except StoreError as err:
        print(f"tankref {command}: {one_line(err, 400)}", file=sys.stderr)
        return None


def _cmd_luck(args: argparse.Namespace) -> int:
    import sqlite3

    from tankref.server.luck import NoSuchTable, luck_from_store, luck_text
    from tankref.server.store import StoreError, StoreFailure, one_line

    db = _db_named(args.db)
    store = _open_to_read("luck", db, "--db FILE names another")
    if store is None:
        return 1
    try:
        report = luck_from_store(store, args.table_id)
    except (NoSuchTable, StoreError, StoreFailure) as err:
        print(f"tankref luck: {one_line(err, 400)}", file=sys.stderr)
        return 1
    except sqlite3.Error as err:  # readable as SQLite, but not as a referee's tables
        print(f"tankref luck: {db}: cannot read the tables: {one_line(err)}", file=sys.stderr)
        return 1
    finally:
        store.close()
    print(report.model_dump_json(indent=2) if args.json else luck_text(report))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from tankref.server.demo import run_demo
    from tankref.server.settings import demo_tokens_path

    return run_demo(args.url, args.seed, args.turns, tokens=demo_tokens_path())


def tts_saves_folder() -> Path:
    """Where Tabletop Simulator keeps its saves on this OS (its usual place)."""
    home = Path.home()
    if sys.platform == "win32":
        return home / "Documents" / "My Games" / "Tabletop Simulator" / "Saves"
    if sys.platform == "darwin":
        return home / "Library" / "Tabletop Simulator" / "Saves"
    return home / ".local" / "share" / "Tabletop Simulator" / "Saves"


def _cmd_tts_save(args: argparse.Namespace) -> int:
    from tankref.server.demo import DemoError, referee_url
    from tankref.tts.save import write_save

    try:
        url = referee_url(args.url)  # 127.0.0.1:8765 as typed works; ftp:// does not
    except DemoError as err:
        print(f"tankref tts-save: {err}", file=sys.stderr)
        return 2
    path = Path(args.path).expanduser()
    saves = tts_saves_folder()
    if not path.exists() and path.suffix.lower() != ".json":
        # A folder that is not there (a typo, or TTS never saved here): a file by that name
        # would be one TTS never lists, and would then stand in the folder's way.
        if not args.mkdir:
            print(
                f"tankref tts-save: no folder {path}: give an existing folder (TTS keeps saves "
                f"in {saves}), a file name ending in .json, or --mkdir to create the folder",
                file=sys.stderr,
            )
            return 2
        try:
            path.mkdir(parents=True)
        except OSError as err:
            print(f"tankref tts-save: cannot create the folder {path}: {err}", file=sys.stderr)
            return 1
        print(f"Created the folder {path.resolve()}.")
    if path.is_dir() and path.name.lower() == "saves":
        if path.resolve() == saves.resolve() or path.resolve().parent.name == "Tabletop Simulator":
            print(f"{path.resolve()} is Tabletop Simulator's Saves folder: the save gets its "
                  "next numbered name, and TTS lists it under Games > Save & Load.")  # fmt: skip
        else:
            print(f"{path.resolve()} is named Saves, but TTS keeps its saves in {saves}: "
                  "copy the file there for TTS to list it.")  # fmt: skip
    elif path.suffix.lower() == ".json" and not path.parent.is_dir():
        print(
            f"tankref tts-save: no folder {path.parent} to write {path.name} in (TTS keeps "
            f"saves in {saves})",
            file=sys.stderr,
        )
        return 2
    try:
        written = write_save(path, url=url, force=args.force, ruleset=args.ruleset)
    except OSError as err:  # FileExistsError says --force itself
        print(f"tankref tts-save: {err}", file=sys.stderr)
        return 1
    print(f"Wrote {written.resolve()}: load it in Tabletop Simulator (Games > Save & Load).")
    return 0


def _table_client(args: argparse.Namespace, kept: dict[str, str]) -> tuple[str, httpx.Client]:
    """The referee asked: --url, else the one the demo made the table on, else the default."""
    import httpx

    from tankref.server.demo import referee_url

    url = referee_url(args.url or kept.get("url") or "http://127.0.0.1:8765")
    return url, httpx.Client(base_url=url, timeout=30)


def _cmd_tables(args: argparse.Namespace) -> int:
    """``tankref tables [list|end|delete]``: the referee's tables, through its HTTP API."""
    import httpx

    from tankref.server.demo import DemoError, load_tokens, save_tokens
    from tankref.server.settings import demo_tokens_path

    action = args.tables_action or "list"
    say_as = f"tankref tables {action}" if args.tables_action else "tankref tables"
    tokens_file = demo_tokens_path()
    table_id: str = getattr(args, "table_id", "")
    kept = load_tokens(tokens_file).get(table_id, {}) if table_id else {}
    try:
        url, client = _table_client(args, kept)
    except DemoError as err:
        print(f"{say_as}: {err}", file=sys.stderr)
        return 2
    try:
        with client:
            if action == "list":
                return _list_tables(url, client.get("/tables"))
            token = args.token or kept.get("token")
            if not token:
                print(
                    f"{say_as}: no token for table {table_id}: give --token=TOKEN (the one "
                    f"its creator was given; demo tables' tokens are kept in {tokens_file})",
                    file=sys.stderr,
                )
                return 2
            auth = {"Authorization": f"Bearer {token}"}
            if action == "end":
                body: dict[str, str] = {"request_id": "tankref-tables-end"}
                if args.reason:
                    body["reason"] = args.reason
                reply = client.post(f"/tables/{table_id}/end", json=body, headers=auth)
            else:
                reply = client.delete(f"/tables/{table_id}", headers=auth)
    except httpx.HTTPError as err:
        print(f"{say_as}: no referee answers at {url} ({err}); start one: tankref serve",
              file=sys.stderr)  # fmt: skip
        return 1
    if reply.status_code >= 400:
        print(f"{say_as}: {reply.status_code} {_message(reply)}", file=sys.stderr)
        return 1
    answer = _answer(say_as, url, reply)
    if answer is None:
        return 1
    if action == "end":
        summary = answer.get("table", {})
        reason = summary.get("reason")
        print(
            f"Table {table_id} is {summary.get('status', 'over')}"
            + (f": {reason}" if reason else "")
        )
        return 0
    known = load_tokens(tokens_file)
    if known.pop(table_id, None) is not None:
        with suppress(OSError):  # deleted all the same; a stale token does no harm
            save_tokens(tokens_file, known)
    print(f"Deleted table {table_id} and its log ({answer.get('events', 0)} events).")
    return 0


def _answer(say_as: str, url: str, reply: httpx.Response) -> Any:
    """The reply's JSON; None (said in one line) when what answers is not a referee."""
    try:
        return reply.json()
    except ValueError:
        print(f"{say_as}: {url} answered {reply.status_code}, not as a tankref referee does",
              file=sys.stderr)  # fmt: skip
        return None


def _message(reply: httpx.Response) -> str:
    try:
        return str(reply.json().get("message", reply.text))
    except (ValueError, AttributeError):
        return reply.text[:200]


def _list_tables(url: str, reply: httpx.Response) -> int:
    if reply.status_code >= 400:
        print(f"tankref tables: {reply.status_code} {_message(reply)}", file=sys.stderr)
        return 1
    tables = _answer("tankref tables", url, reply)
    if tables is None:
        return 1
    if not tables:
        print(f"No tables on the referee at {url}.")
        return 0
    print(f"{'TABLE':<14} {'RULESET':<8} {'STATUS':<8} {'DEMO':<5} EVENTS")
    for t in tables:
        demo = "demo" if t.get("demo") else "-"
        print(
            f"{t['table_id']:<14} {t['ruleset']:<8} {t['table']['status']:<8} {demo:<5} {t['seq']}"
        )
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from tankref.server.export import Standing, export_document, export_text
    from tankref.server.referee import rebuild
    from tankref.server.store import StoreFailure, one_line

    store = _open_to_read("export", _db_named(args.db), "--db FILE")
    if store is None:
        return 1
    try:
        row = store.table(args.table_id)
        if row is None:
            print(f"tankref export: no table {args.table_id!r} in {store.where}", file=sys.stderr)
            return 1
        events = store.events(row.id)
        text = export_text(export_document(row, events, Standing.of(rebuild(row, events))))
    except StoreFailure as err:  # the database went away while it was read
        print(f"tankref export: {one_line(err, 300)}", file=sys.stderr)
        return 1
    except Exception as err:  # a table the referee sets aside does not export either
        reason = one_line(err, 300)
        print(f"tankref export: table {args.table_id!r} does not load: {reason}", file=sys.stderr)
        return 1
    finally:
        store.close()
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as err:
            print(f"tankref export: cannot write {args.output}: {err}", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    return 0


def _cmd_backup(args: argparse.Namespace) -> int:
    from datetime import datetime

    from tankref.server.dburl import without_password
    from tankref.server.store import StoreError, backup

    db = _db_named(args.db)
    if isinstance(db, str):  # PostgreSQL: its own tool, or a verified copy into a file
        named = without_password(db)
        print(
            f"tankref backup: {named}: copies SQLite files only; back PostgreSQL up with "
            f"pg_dump, or copy its tables into a file: tankref migrate --from {named} "
            "--to sqlite:FILE (each copy verified)",
            file=sys.stderr,
        )
        return 1
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = Path(args.file or f"tankref-backup-{stamp}.sqlite3").expanduser()
    shown = -1

    def progress(copied: int, total: int) -> None:
        nonlocal shown
        percent = 100 * copied // max(total, 1)
        if percent // 10 != shown // 10:  # a line every tenth, not every page
            shown = percent
            print(f"copied {copied} of {total} pages ({percent}%)", file=sys.stderr)

    try:
        done = backup(db, target, progress)
    except StoreError as err:
        print(f"tankref backup: {err}", file=sys.stderr)
        return 1
    print(
        f"backed up {done.tables} table(s), {done.events} event(s) from {db} to {done.path} "
        f"({done.size // 1024} KiB)"
    )
    return 0


def _cmd_migrate(args: argparse.Namespace) -> int:
    from tankref.server.migrate import run

    return run(args.source, args.target)


def _cmd_verify(args: argparse.Namespace) -> int:
    import json
    import re

    from tankref.core.verify import ExportUnreadable, verify_export
    from tankref.server.referee import engine_version

    if args.head is not None and not re.fullmatch(r"[0-9a-fA-F]{8,64}", args.head):
        print(
            f"tankref verify: --head {args.head!r}: give 8 to 64 hex digits, as shown in chat "
            "or on the page",
            file=sys.stderr,
        )
        return 2
    try:
        data = json.loads(Path(args.export).read_text(encoding="utf-8"))
        table = data.get("table") if isinstance(data, dict) else None
        ruleset = table.get("ruleset") if isinstance(table, dict) else None
        # An unknown ruleset has no engine here: verify_export says so (the file, exit 2).
        installed = engine_version(ruleset) if ruleset in ruleset_names() else None
        report = verify_export(data, installed, require_seed=args.require_seed, head=args.head)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as err:
        # ExportUnreadable and broken JSON are ValueErrors: the file, not the game, is wrong
        reason = err if isinstance(err, ExportUnreadable) else f"{type(err).__name__}: {err}"
        print(f"tankref verify: cannot read {args.export}: {reason}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        print("\n".join(report.lines()))
    return 0 if report.ok else 1


READ_DB_HELP = (
    "the referee's database: an SQLite file (default: tankref.sqlite3 in your user data "
    "folder; TANKREF_DB names another) or a PostgreSQL server, postgresql://USER@HOST/DB"
)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tankref",
        description="A referee for tank wargames in Tabletop Simulator (TinyTableTopTanks). "
        "Start here: `tankref serve` runs the referee; `tankref demo` shows it play.",
    )
    parser.add_argument("--version", action="version", version=f"tankref {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    names = ruleset_names()  # installed packages' metadata only: no plug-in is imported

    listing = sub.add_parser(
        "rulesets", help="the rulesets this referee knows: name, title, what each is"
    )
    listing.set_defaults(run=_cmd_rulesets)

    for verb, line in RULESET_TOOLS.items():
        # No -h here: `tankref VERB --help` is the ruleset's tool's (the second step).
        tool = sub.add_parser(verb, help=f"{line} (--ruleset {'|'.join(names)})", add_help=False)
        _ruleset_option(tool, verb, names)
        tool.set_defaults(ruleset_tool=verb)

    play = sub.add_parser("selfplay", help="watch scripted sides play seeded games")
    play.add_argument("--games", type=positive, default=1, help="how many games (default 1)")
    play.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    play.add_argument("--verbose", action="store_true", help="print every adjudication")
    play.add_argument(
        "--ruleset",
        default=DEFAULT_RULESET,
        help=f"which rules the sides play: {', '.join(names)} (default {DEFAULT_RULESET})",
    )
    play.set_defaults(run=_cmd_selfplay)

    from tankref.server.settings import DEFAULT_HOST, DEFAULT_PORT

    serve = sub.add_parser(
        "serve",
        help="run the referee server (TTS and browsers talk to it)",
        description="Run the referee: an HTTP API (docs at /docs) over the rules engine, "
        "with every action kept in an SQLite event log (or a PostgreSQL database).",
    )
    # A flag given wins over the --settings file; one left at its default does not.
    serve.add_argument(
        "--host", default=DEFAULT_HOST, action=_Given, help=f"address (default {DEFAULT_HOST})"
    )
    serve.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_PORT,
        action=_Given,
        help=f"default {DEFAULT_PORT}",
    )
    serve.add_argument(
        "--db",
        help="SQLite database file (default: tankref.sqlite3 in your user data folder; "
        "TANKREF_DB names another), or a PostgreSQL server: postgresql://USER@HOST/DB",
    )
    serve.add_argument(
        "--workers",
        type=worker_count,
        default=1,
        action=_Given,
        metavar="N",
        help="referee processes sharing the database (default 1; more than 1 needs PostgreSQL)",
    )
    serve.add_argument(
        "--log-level",
        default="warning",
        action=_Given,
        choices=("debug", "info", "warning", "error"),
        help="warning (default): the banner and what goes wrong; info: every request too",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another host name clients may use to reach the referee (repeatable; IP "
        "addresses need none when --host is beyond loopback)",
    )
    hosted = serve.add_argument_group(
        "hosted profile (a league's referee behind a TLS proxy: docs/hosting.md)"
    )
    hosted.add_argument(
        "--settings",
        metavar="FILE",
        help="a TOML file whose keys are these flags' names (tables-per-hour = 20); flags win",
    )
    hosted.add_argument(
        "--public",
        action="store_true",
        default=None,
        help="the hosted profile: trust X-Forwarded-For from a proxy on this machine, "
        "at most 20 new tables an hour per address, tables expire after 14 days "
        "without a write, JSON logs (each overridable below)",
    )
    hosted.add_argument(
        "--forwarded-allow-ips",
        action="append",
        metavar="ADDRESS",
        help="a proxy address whose X-Forwarded-For/-Proto are trusted (repeatable; "
        "--public: 127.0.0.1 and ::1)",
    )
    hosted.add_argument(
        "--tables-per-hour",
        type=positive,
        metavar="N",
        help="at most N new tables an hour from one client address (429 beyond)",
    )
    hosted.add_argument(
        "--expire-after-hours",
        type=hours,
        metavar="HOURS",
        help="end a table nobody wrote to for HOURS (its seed revealed; kept read-only)",
    )
    hosted.add_argument(
        "--json-logs", action="store_true", default=None, help="one JSON object a log line"
    )
    hosted.add_argument(
        "--public-url",
        metavar="URL",
        help="the URL players and spectators use (the proxy's), for the links a table's "
        "creator is given",
    )
    serve.set_defaults(run=_cmd_serve)

    luck = sub.add_parser(
        "luck",
        help="observed against expected hits, penetrations and morale failures, per player",
        description="Each player's dice against the exact odds of what they rolled for: hits, "
        "penetrations and morale failures, with how unusual the result is. Reads the "
        "referee's database, an SQLite file or PostgreSQL (the server need not run). Without "
        "TABLE_ID: every table, and each player id over all of them.",
    )
    luck.add_argument("table_id", nargs="?", metavar="TABLE_ID", help="one table (default: all)")
    luck.add_argument("--db", help=READ_DB_HELP)
    luck.add_argument("--json", action="store_true", help="the report as JSON (as the API)")
    luck.set_defaults(run=_cmd_luck)

    export = sub.add_parser(
        "export",
        help="a table's whole log as one JSON document (for tankref verify)",
        description="Writes the table's log as one JSON document: setup, dice commitment, "
        "player seeds, every event with its result and the engine version that decided it, "
        "and the server seed once the game is over. Reads the referee's database, an SQLite "
        "file or PostgreSQL (the same document from either).",
    )
    export.add_argument("table_id", metavar="TABLE_ID", help="the table")
    export.add_argument("--db", help=READ_DB_HELP)
    export.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    export.set_defaults(run=_cmd_export)

    backup = sub.add_parser(
        "backup",
        help="copy the referee's database safely, even while it runs",
        description="Copies the referee's database into FILE with SQLite's online backup, "
        "safe while the referee runs: the copy holds every acknowledged action. (Copying the "
        "file by hand without its -wal file beside it loses the newest actions.) FILE must not "
        "exist yet; the copy is one self-contained file, usable as tankref serve --db FILE. "
        "A PostgreSQL database is backed up with pg_dump, or copied into a file with tankref "
        "migrate --from postgresql://... --to sqlite:FILE (each copy verified).",
    )
    backup.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="where to write the copy (default: tankref-backup-DATE-TIME.sqlite3 here)",
    )
    backup.add_argument(
        "--db",
        help="SQLite database file (default: tankref.sqlite3 in your user data folder; "
        "TANKREF_DB names another)",
    )
    backup.set_defaults(run=_cmd_backup)

    verify = sub.add_parser(
        "verify",
        help="check an export: commitment, every roll, every result",
        description="Checks EXPORT.json: the revealed seed against the commitment, then every "
        "event re-adjudicated with the installed engine (each server roll derived again from "
        "the seeds and the roll counter) and its chat lines made again, and the log's hash "
        "chain computed again; reports the first mismatch by event number and prints the "
        "head. Exit 0 when all match, 1 on a mismatch, 2 when the file cannot be read.",
    )
    verify.add_argument("export", metavar="EXPORT.json", help="a file from tankref export")
    verify.add_argument("--json", action="store_true", help="the report as JSON")
    verify.add_argument(
        "--require-seed",
        action="store_true",
        help="fail when the seed is not revealed yet (the game is not over) or was chosen "
        "by the table's creator",
    )
    verify.add_argument(
        "--head",
        metavar="HEX",
        help="the head noted during the game (8 or more hex digits, from chat or the page): "
        "fail unless the export's hash chain reaches it (a cut or rewritten export)",
    )
    verify.set_defaults(run=_cmd_verify)

    migrate = sub.add_parser(
        "migrate",
        help="copy every table of an SQLite file into a PostgreSQL database (or back), and "
        "verify it",
        description="Copies every table of the source database, with its whole log in order "
        "(and its seat token hashes, spent request ids and snapshots), into the target, "
        "then checks each copy as tankref verify checks an export. A target that already "
        "holds any of the tables is refused, nothing copied. Exit 0 when every table "
        "verifies, 1 when one does not, 2 when refused.",
    )
    migrate.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="sqlite:FILE",
        help="the source: an SQLite file (or a PostgreSQL URL, to copy its tables into a file)",
    )
    migrate.add_argument(
        "--to",
        dest="target",
        required=True,
        metavar="postgresql://...",
        help="the target: a PostgreSQL URL (or sqlite:FILE)",
    )
    migrate.set_defaults(run=_cmd_migrate)

    demo = sub.add_parser(
        "demo",
        help="play a short seeded game through the HTTP API and print it",
        description="Plays a short game through the referee's HTTP API, the way TTS does, and "
        "prints each result. Uses the referee at --url, or the default one if it runs, or "
        "starts one on a temporary database.",
    )
    demo.add_argument(
        "--url",
        help="a running referee, e.g. 127.0.0.1:8765 (default: http://127.0.0.1:8765 if one "
        "runs there, else one started for the demo, up until Enter or Ctrl+C)",
    )
    demo.add_argument("--seed", type=int, default=1, help="dice seed (default 1)")
    demo.add_argument("--turns", type=positive, default=4, help="turns to play (default 4)")
    demo.set_defaults(run=_cmd_demo)

    tables = sub.add_parser(
        "tables",
        help="list the referee's tables; end or delete one (demo tables too)",
        description="Lists the tables of a running referee: id, ruleset, status, demo or not, "
        "events. `tankref tables end TABLE_ID` ends one (the game is over, its seed revealed); "
        "`tankref tables delete TABLE_ID` deletes it with its whole log. Both need the "
        "table's token: a demo table's is found where `tankref demo` kept it; give any "
        "other's with --token.",
    )
    tables.add_argument(
        "--url",
        help="the referee (default: where the demo made the table, else 127.0.0.1:8765)",
    )
    tables.set_defaults(run=_cmd_tables, tables_action=None)
    doing = tables.add_subparsers(dest="tables_action", metavar="ACTION")
    listing_all = doing.add_parser("list", help="every table (the default)")
    listing_all.add_argument("--url", default=argparse.SUPPRESS, help="the referee, as above")
    listing_all.set_defaults(run=_cmd_tables)
    for tables_verb, line in (
        ("end", "end the game (no more actions; the seed is revealed)"),
        ("delete", "delete the table and its whole log, for good"),
    ):
        one = doing.add_parser(tables_verb, help=line, description=line)
        one.add_argument("table_id", metavar="TABLE_ID")
        one.add_argument(
            "--token",
            help="the table's token (a demo table's is known); write --token=TOKEN, as a "
            "token may start with '-'",
        )
        # SUPPRESS: given before the action (`tables --url U end ID`), it is not undone here.
        one.add_argument("--url", default=argparse.SUPPRESS, help="the referee, as above")
        if tables_verb == "end":
            one.add_argument("--reason", help="why, for the log (e.g. 'agreed draw')")
        one.set_defaults(run=_cmd_tables)

    tts_save = sub.add_parser(
        "tts-save",
        help="write a Tabletop Simulator save wired to the referee",
        description="Writes a complete TTS save (JSON): the bundled scripts, a play area, "
        "the tankref board and the ruleset's own table (TinyTableTopTanks: tagged terrain, "
        "an objective marker, white/red/green dice, a damage deck and tanks for both sides). "
        "PATH may be TTS's Saves folder (or any folder): the save then gets the next free "
        "TS_Save_N.json name. A PATH that does not exist must end in .json, or take --mkdir.",
    )
    tts_save.add_argument("path", metavar="PATH", help="a .json file, or a folder (e.g. Saves)")
    tts_save.add_argument(
        "--url",
        default="http://127.0.0.1:8765",
        help="the referee the table talks to (default http://127.0.0.1:8765)",
    )
    tts_save.add_argument("--force", action="store_true", help="overwrite an existing file")
    tts_save.add_argument(
        "--mkdir", action="store_true", help="create PATH as a folder when it does not exist"
    )
    tts_save.add_argument(
        "--ruleset",
        choices=names,
        default=DEFAULT_RULESET,
        help="whose table the save lays out (its units, terrain, dice, marked spaces or hex "
        f"grid: `tankref rulesets` says what each is); the board starts on it (default "
        f"{DEFAULT_RULESET})",
    )
    tts_save.set_defaults(run=_cmd_tts_save)
    return parser


CTRL_C_AGAIN = 0.05  # seconds: long after the C code that swallowed it has handed back


def _ctrl_c_kept(unraisable: Any) -> None:
    """``sys.unraisablehook`` for the commands: a Ctrl+C that C code swallowed is raised again.

    pydantic-core's serialiser reports an error in an ``isinstance`` it makes (a model's
    class is an ABC: its check runs Python code, where a Ctrl+C lands) as "unraisable" and
    carries on: the player's Ctrl+C printed a traceback and the command went on. Here the
    interrupt is sent to the main thread again a moment later, from a timer thread, so it
    arrives once the C code has handed back (sent at once, it lands in this hook and is
    swallowed again), and stops the command as any other Ctrl+C.
    """
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        again = threading.Timer(CTRL_C_AGAIN, _thread.interrupt_main)
        again.daemon = True
        again.start()
        return
    sys.__unraisablehook__(unraisable)


def main(argv: Sequence[str] | None = None) -> int:
    kept = sys.unraisablehook
    sys.unraisablehook = _ctrl_c_kept
    try:
        return _run(argv)
    finally:
        sys.unraisablehook = kept


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    tool = getattr(args, "ruleset_tool", None)
    if rest and tool is None:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")  # as parse_args says it
    try:
        code: int = _cmd_ruleset_tool(args, rest) if tool else args.run(args)
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:  # Ctrl+C: the player asked it to stop; no traceback for that
        print("Stopped.", file=sys.stderr, flush=True)
        return 0
    except Exception as err:
        if os.environ.get("TANKREF_DEBUG"):
            raise
        # Not one a command foresaw (each says its own): still one line, not a traceback.
        text = " ".join(str(err).split())[:300]
        print(
            f"tankref {args.command}: unexpected error, please report it: "
            f"{type(err).__name__}: {text} (TANKREF_DEBUG=1 shows where)",
            file=sys.stderr,
        )
        return 1
    return code


if __name__ == "__main__":
    raise SystemExit(main())
