"""The `tankref` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tankref import __version__
from tankref.core.errors import DataError, RulesError
from tankref.rulesets import DEFAULT_RULESET, ruleset_names

if TYPE_CHECKING:
    from tankref.rulesets.ttt.cards import TankCard
    from tankref.rulesets.ttt.odds import ShotOdds


def _cmd_cards(args: argparse.Namespace) -> int:
    from tankref.rulesets.ttt.cards import load_cards

    try:
        cards = load_cards(Path(args.dir) if args.dir else None)
    except DataError as err:
        print(err, file=sys.stderr)
        return 1
    print(f"{'id':<18} {'name':<28} {'move':>5} {'acc':>3} {'pen':>3}  armour F/S/R/T  smoke")
    for card in sorted(cards.tanks.values(), key=lambda c: (c.nation, c.id)):
        a = card.armour
        smoke = ", ".join(
            f"{s.kind} -{s.strength}" + (f' {s.range:g}"' if s.range else "") + f" x{s.uses}"
            for s in card.smoke
        )
        print(
            f"{card.id:<18} {card.name[:28]:<28} {card.movement:>5g} {card.accuracy:>3} "
            f"{card.penetration:>3}  {a.front}/{a.side}/{a.rear}/{a.turret:<9} {smoke}"
        )
    deck = sum(c.count for c in cards.rules.deck)
    print(
        f"\n{len(cards.tanks)} tank cards; dice: {', '.join(cards.rules.dice)}; deck: {deck} cards"
    )
    return 0


def _cmd_rulings(args: argparse.Namespace) -> int:
    from tankref.rulesets.ttt.readings import READINGS
    from tankref.rulesets.ttt.state import Options

    for name, field in Options.model_fields.items():
        print(f"{name} = {field.default!r}\n    {field.description or ''}")
    # Chosen with the dice when the table is created (POST /tables "dice"), not an option.
    print(
        "dice.damage_cards = 'referee'\n    TTT-E7: who draws the damage card: the referee "
        "from its own deck, or 'table' (the hit tank's owner draws from a physical deck; the "
        "referee asks for the card once the shot penetrated)"
    )
    print("\nReadings applied and reported in the result (one playable reading, no option):")
    for clause, text in READINGS:
        print(f"{clause}\n    {text}")
    return 0


def _cmd_rulesets(args: argparse.Namespace) -> int:
    from tankref.rulesets import get_ruleset

    for name in ruleset_names():
        info = get_ruleset(name).info()
        kinds = ", ".join(info.terrain_kinds) or "none"
        setups = ", ".join(s.label for s in info.setups)
        print(f"{name:<5} {info.title} (clauses {info.clause_prefix}-)\n      {info.description}")
        print(f"      terrain kinds: {kinds}\n      setups on the TTS board: {setups}")
    return 0


def _cmd_selfplay(args: argparse.Namespace) -> int:
    from tankref.rulesets import get_ruleset

    if args.ruleset not in ruleset_names():
        print(f"no ruleset {args.ruleset!r} (known: {', '.join(ruleset_names())})", file=sys.stderr)
        return 2
    rules = get_ruleset(args.ruleset)

    for seed in range(args.seed, args.seed + args.games):
        # The ruleset's own seeded bots (its ``self_play`` hook): the started table and every
        # action after it. With --verbose each action is adjudicated again to print its result.
        print(f"== game {seed} ==")
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
        print(
            f"game {seed}: {end.reason or end.status} (turn {end.turn}, {steps} actions)"
            + (f", winner {end.winner}" if end.winner else "")
        )
    return 0


def _count(text: str) -> int:
    """A whole number of 0 or more (dice, cover, concealment, smoke)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _pick_card(cards: dict[str, TankCard], wanted: str, role: str) -> TankCard | None:
    """The card with id ``wanted``; else say so on stderr, naming the closest ids."""
    import difflib

    if wanted in cards:
        return cards[wanted]
    by_name = {card.name.lower(): card_id for card_id, card in cards.items()}
    close = difflib.get_close_matches(wanted.lower(), sorted(cards), n=3, cutoff=0.5)
    close += [
        by_name[name]
        for name in difflib.get_close_matches(wanted.lower(), sorted(by_name), n=3, cutoff=0.5)
        if by_name[name] not in close
    ]
    hint = f"did you mean {', '.join(close)}?" if close else f"known: {', '.join(sorted(cards))}"
    print(f"tankref odds: unknown {role} card {wanted!r}: {hint}", file=sys.stderr)
    return None


def _pct(p: float) -> str:
    return f"{100 * p:7.2f}%"


def _print_odds(odds: ShotOdds, shooter: TankCard, target: TankCard) -> None:
    print(f"{shooter.name} ({shooter.id}) engages {target.name} ({target.id}): {odds.hit_side}")

    def modifiers(accuracy: bool) -> None:
        for m in odds.modifiers:
            if (m.applies_to == "accuracy_dice") == accuracy:
                print(f"{'':15}{m.amount:+d} {m.label} [{m.clause}]")

    print(f"  Accuracy     {odds.accuracy_dice} white (card {shooter.accuracy})")
    modifiers(accuracy=True)
    cover = f" + cover {odds.cover}" if odds.cover else ""
    print(
        f"  Penetration  {odds.penetration_dice} red (card {shooter.penetration}) vs "
        f"{odds.hit_side} armour {odds.armour}{cover}: {odds.needed} PEN needed"
    )
    modifiers(accuracy=False)
    if odds.grizzled_policy:
        stages = [
            stage
            for stage, ok in (
                ("Accuracy", odds.reroll_accuracy),
                ("Penetration", odds.reroll_penetration),
            )
            if ok
        ]
        where = " or ".join(stages) if stages else "nothing (none declared)"
        print(f"  Grizzled     one reroll, on {where} ({odds.grizzled_policy})")
    rows = [
        ("hit", "p_hit"),
        ("penetrate, given a hit", "p_penetrate_given_hit"),
        ("penetrate", "p_penetrate"),
        ("destroyed", "p_destroyed"),
        ("  by the damage card", "p_destroyed_by_card"),
        ("  crew bails out (TTT-MR5)", "p_bail_out"),
        ("target fails morale", "p_morale_failure"),
    ]
    print(f"\n  {'outcome':<30}{'chance':>8}   exact")
    for label, name in rows:
        print(f"  {label:<30}{_pct(getattr(odds, name))}   {odds.exact[name]}")
    source = "a full deck" if odds.deck_reshuffled else f"the {odds.deck_left} cards left"
    print(f"\n  {'damage card (' + source + ')':<44}{'if pen.':>8}{'overall':>9}")
    for c in odds.cards:
        effect = c.effect.replace("_", " ") + (", catastrophic" if c.catastrophic else "")
        name = f"{c.name} x{c.left}"
        print(f"  {name:<20}{effect:<24}{_pct(c.p_given_penetration)} {_pct(c.p)}")
    if not odds.morale.checks:
        print(f"\n  {odds.morale.why_not}")


def _cmd_odds(args: argparse.Namespace) -> int:
    from tankref.rulesets.ttt.cards import default_cards, load_cards
    from tankref.rulesets.ttt.odds import odds_for_situation
    from tankref.rulesets.ttt.state import Options

    try:
        cards = load_cards(Path(args.cards_dir)) if args.cards_dir else default_cards()
    except DataError as err:
        print(err, file=sys.stderr)
        return 1
    shooter = _pick_card(cards.tanks, args.shooter, "shooter")
    target = _pick_card(cards.tanks, args.target, "target")
    if shooter is None or target is None:
        return 2
    policy = args.grizzled_policy
    options = Options(cover=args.cover_rule, grizzled_reroll="auto" if policy == "auto" else "ask")
    try:
        odds = odds_for_situation(
            shooter,
            target,
            side=args.side,
            moved=args.moved,
            shaken=args.shaken,
            optics_damage=args.optics,
            gun_damage=args.gun,
            target_fast=args.target_fast,
            cover=args.cover,
            concealment=args.concealment,
            smoke=args.smoke,
            grizzled=args.grizzled,
            declared=None if policy == "auto" else policy,
            target_grizzled=args.target_grizzled,
            target_morale=args.target_morale,
            target_immobilized=args.target_immobilized,
            second_hit=args.second_hit,
            options=options,
            rules=cards.rules,
        )
    except RulesError as err:
        print(f"tankref odds: {err.message}", file=sys.stderr)
        return 1
    if args.json:
        print(odds.model_dump_json(indent=2))
    else:
        _print_odds(odds, shooter, target)
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from tankref.server.serve import serve
    from tankref.server.settings import default_db_path

    db = Path(args.db).expanduser() if args.db else default_db_path()
    return serve(
        args.host, args.port, db, log_level=args.log_level, allowed_hosts=tuple(args.allow_host)
    )


def _cmd_luck(args: argparse.Namespace) -> int:
    from tankref.server.luck import NoSuchTable, luck_from_db, luck_text
    from tankref.server.settings import default_db_path

    db = Path(args.db).expanduser() if args.db else default_db_path()
    if not db.is_file():
        print(f"no referee database at {db} (--db FILE names another)", file=sys.stderr)
        return 1
    try:
        report = luck_from_db(db, args.table_id)
    except NoSuchTable as err:
        print(err, file=sys.stderr)
        return 1
    print(report.model_dump_json(indent=2) if args.json else luck_text(report))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from tankref.server.demo import run_demo

    return run_demo(args.url, args.seed, args.turns)


def _cmd_tts_save(args: argparse.Namespace) -> int:
    from tankref.tts.save import write_save

    try:
        written = write_save(Path(args.path), url=args.url, force=args.force, ruleset=args.ruleset)
    except (FileExistsError, OSError) as err:
        print(f"tankref tts-save: {err}", file=sys.stderr)
        return 1
    print(f"Wrote {written}: load it in Tabletop Simulator (Games > Save & Load).")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from tankref.server.export import Standing, export_document, export_text
    from tankref.server.referee import rebuild
    from tankref.server.settings import default_db_path
    from tankref.server.store import EventStore, StoreError, one_line

    db = Path(args.db).expanduser() if args.db else default_db_path()
    if not db.is_file():
        print(f"tankref export: no referee database at {db} (--db FILE)", file=sys.stderr)
        return 1
    try:
        store = EventStore(db)
    except StoreError as err:
        print(f"tankref export: {err}", file=sys.stderr)
        return 1
    try:
        row = store.table(args.table_id)
        if row is None:
            print(f"tankref export: no table {args.table_id!r} in {db}", file=sys.stderr)
            return 1
        events = store.events(row.id)
        text = export_text(export_document(row, events, Standing.of(rebuild(row, events))))
    except Exception as err:  # a table the referee sets aside does not export either
        reason = one_line(err, 300)
        print(f"tankref export: table {args.table_id!r} does not load: {reason}", file=sys.stderr)
        return 1
    finally:
        store.close()
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _cmd_backup(args: argparse.Namespace) -> int:
    from datetime import datetime

    from tankref.server.settings import default_db_path
    from tankref.server.store import StoreError, backup

    db = Path(args.db).expanduser() if args.db else default_db_path()
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
        installed = engine_version(ruleset) if isinstance(ruleset, str) else None
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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

    cards = sub.add_parser("cards", help="list the tank cards, or check a folder of card files")
    cards.add_argument("--dir", help="a card folder (tanks/*.toml, dice.toml, damage-deck.toml)")
    cards.set_defaults(run=_cmd_cards)

    rulings = sub.add_parser("rulings", help="the per-table rulings and their defaults")
    rulings.set_defaults(run=_cmd_rulings)

    play = sub.add_parser("selfplay", help="watch scripted sides play seeded games")
    play.add_argument("--games", type=int, default=1, help="how many games (default 1)")
    play.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    play.add_argument("--verbose", action="store_true", help="print every adjudication")
    play.add_argument(
        "--ruleset",
        default=DEFAULT_RULESET,
        help=f"which rules the sides play: {', '.join(names)} (default {DEFAULT_RULESET})",
    )
    play.set_defaults(run=_cmd_selfplay)

    odds = sub.add_parser(
        "odds",
        help="exact odds of a shot: hit, penetration, damage card, destroyed, morale",
        description="The exact odds (fractions, not sampling) of SHOOTER_CARD engaging "
        "TARGET_CARD on the side named, with the modifiers given, drawing from a full deck.",
    )
    odds.add_argument("shooter", metavar="SHOOTER_CARD", help="tank card id, e.g. tiger-i")
    odds.add_argument("target", metavar="TARGET_CARD", help="tank card id, e.g. m4a1-sherman")
    odds.add_argument(
        "--side",
        choices=("front", "side", "rear", "turret"),
        default="front",
        help="the side hit (turret: hull-down); default front",
    )
    odds.add_argument("--moved", action="store_true", help="the shooter moved (-2, TTT-M1)")
    odds.add_argument("--shaken", action="store_true", help="Shaken shooter (-1, TTT-MR1)")
    odds.add_argument("--optics", type=_count, default=0, help="Optics Damaged cards (-1 each)")
    odds.add_argument("--gun", type=_count, default=0, help="Gun Damaged cards (-1 red each)")
    odds.add_argument(
        "--target-fast", action="store_true", help="target Moving Fast (TTT-M2, if its card)"
    )
    odds.add_argument("--cover", type=_count, default=0, help="Cover bonus N (TTT-CV1)")
    odds.add_argument(
        "--cover-rule",
        choices=("armour", "literal"),
        default="armour",
        help="TTT-E5: Cover on the armour only (default), or also off the red dice",
    )
    odds.add_argument("--concealment", type=_count, default=0, help="concealment N (TTT-CN1)")
    odds.add_argument("--smoke", type=_count, default=0, help="smoke N on the line (TTT-SM3)")
    odds.add_argument("--grizzled", action="store_true", help="Grizzled shooter (TTT-CR1)")
    odds.add_argument(
        "--grizzled-policy",
        choices=("auto", "accuracy", "penetration", "none"),
        default="auto",
        help="auto: the reroll is spent where it can change the outcome; accuracy, "
        "penetration, none: the ask option with that declaration",
    )
    odds.add_argument("--target-grizzled", action="store_true", help="no morale checks (MO1)")
    odds.add_argument(
        "--target-morale", choices=("ok", "shaken", "routed"), default="ok", help="default ok"
    )
    odds.add_argument("--target-immobilized", action="store_true")
    odds.add_argument(
        "--second-hit",
        action="store_true",
        help="another enemy tank hit the target this turn (TTT-MO2 trigger 2)",
    )
    odds.add_argument("--cards-dir", help="a card folder to read the cards, dice and deck from")
    odds.add_argument("--json", action="store_true", help="the full answer as JSON")
    odds.set_defaults(run=_cmd_odds)

    from tankref.server.settings import DEFAULT_HOST, DEFAULT_PORT

    serve = sub.add_parser(
        "serve",
        help="run the referee server (TTS and browsers talk to it)",
        description="Run the referee: an HTTP API (docs at /docs) over the rules engine, "
        "with every action kept in an SQLite event log.",
    )
    serve.add_argument("--host", default=DEFAULT_HOST, help=f"address (default {DEFAULT_HOST})")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    serve.add_argument(
        "--db", help="SQLite database file (default: tankref.sqlite3 in your user data folder)"
    )
    serve.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another host name clients may use to reach the referee (repeatable; IP "
        "addresses need none when --host is beyond loopback)",
    )
    serve.set_defaults(run=_cmd_serve)

    luck = sub.add_parser(
        "luck",
        help="observed against expected hits, penetrations and morale failures, per player",
        description="Each player's dice against the exact odds of what they rolled for: hits, "
        "penetrations and morale failures, with how unusual the result is. Reads the "
        "referee's database (the server need not run). Without TABLE_ID: every table, and "
        "each player id over all of them.",
    )
    luck.add_argument("table_id", nargs="?", metavar="TABLE_ID", help="one table (default: all)")
    luck.add_argument(
        "--db", help="SQLite database file (default: tankref.sqlite3 in your user data folder)"
    )
    luck.add_argument("--json", action="store_true", help="the report as JSON (as the API)")
    luck.set_defaults(run=_cmd_luck)

    export = sub.add_parser(
        "export",
        help="a table's whole log as one JSON document (for tankref verify)",
        description="Writes the table's log as one JSON document: setup, dice commitment, "
        "player seeds, every event with its result and the engine version that decided it, "
        "and the server seed once the game is over. Reads the referee's database.",
    )
    export.add_argument("table_id", metavar="TABLE_ID", help="the table")
    export.add_argument(
        "--db", help="SQLite database file (default: tankref.sqlite3 in your user data folder)"
    )
    export.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    export.set_defaults(run=_cmd_export)

    backup = sub.add_parser(
        "backup",
        help="copy the referee's database safely, even while it runs",
        description="Copies the referee's database into FILE with SQLite's online backup, "
        "safe while the referee runs: the copy holds every acknowledged action. (Copying the "
        "file by hand without its -wal file beside it loses the newest actions.) FILE must not "
        "exist yet; the copy is one self-contained file, usable as tankref serve --db FILE.",
    )
    backup.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="where to write the copy (default: tankref-backup-DATE-TIME.sqlite3 here)",
    )
    backup.add_argument(
        "--db", help="SQLite database file (default: tankref.sqlite3 in your user data folder)"
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

    demo = sub.add_parser(
        "demo",
        help="play a short seeded game through the HTTP API and print it",
        description="Plays a short game through the referee's HTTP API, the way TTS does, and "
        "prints each result. Uses the referee at --url, or the default one if it runs, or "
        "starts one on a temporary database.",
    )
    demo.add_argument(
        "--url", help="a running referee (default: http://127.0.0.1:8765 or start one)"
    )
    demo.add_argument("--seed", type=int, default=1, help="dice seed (default 1)")
    demo.add_argument("--turns", type=int, default=4, help="turns to play (default 4)")
    demo.set_defaults(run=_cmd_demo)

    tts_save = sub.add_parser(
        "tts-save",
        help="write a Tabletop Simulator save wired to the referee",
        description="Writes a complete TTS save (JSON): the bundled scripts, a play area, "
        "the tankref board and the ruleset's own table (TinyTableTopTanks: tagged terrain, "
        "an objective marker, white/red/green dice, a damage deck and tanks for both sides). "
        "PATH may be TTS's Saves folder: the save then gets the next free TS_Save_N.json name.",
    )
    tts_save.add_argument("path", metavar="PATH", help="a .json file, or a folder (e.g. Saves)")
    tts_save.add_argument(
        "--url",
        default="http://127.0.0.1:8765",
        help="the referee the table talks to (default http://127.0.0.1:8765)",
    )
    tts_save.add_argument("--force", action="store_true", help="overwrite an existing file")
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


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        sys.stderr.close()
        return 0
    return code


if __name__ == "__main__":
    raise SystemExit(main())
