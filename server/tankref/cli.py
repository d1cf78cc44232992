"""The `tankref` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tankref import __version__
from tankref.core.errors import DataError


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
    from tankref.rulesets.ttt.state import Options

    for name, field in Options.model_fields.items():
        print(f"{name} = {field.default!r}\n    {field.description or ''}")
    return 0


def _cmd_selfplay(args: argparse.Namespace) -> int:
    from tankref.rulesets.ttt.selfplay import play_game

    for seed in range(args.seed, args.seed + args.games):

        def show(state: object, action: object, result: object) -> None:
            for line in getattr(result, "summary", []):
                print(f"  {line}")

        print(f"== game {seed} ==")
        record = play_game(seed, on_step=show if args.verbose else None)
        print(
            f"game {seed}: {record.reason} (turn {record.turns}, {record.actions} actions)"
            + (f", winner {record.winner}" if record.winner else "")
        )
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from tankref.server.serve import serve
    from tankref.server.settings import default_db_path

    db = Path(args.db).expanduser() if args.db else default_db_path()
    return serve(
        args.host, args.port, db, log_level=args.log_level, allowed_hosts=tuple(args.allow_host)
    )


def _cmd_demo(args: argparse.Namespace) -> int:
    from tankref.server.demo import run_demo

    return run_demo(args.url, args.seed, args.turns)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tankref",
        description="A referee for tank wargames in Tabletop Simulator (TinyTableTopTanks). "
        "Start here: `tankref serve` runs the referee; `tankref demo` shows it play.",
    )
    parser.add_argument("--version", action="version", version=f"tankref {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    cards = sub.add_parser("cards", help="list the tank cards, or check a folder of card files")
    cards.add_argument("--dir", help="a card folder (tanks/*.toml, dice.toml, damage-deck.toml)")
    cards.set_defaults(run=_cmd_cards)

    rulings = sub.add_parser("rulings", help="the per-table rulings and their defaults")
    rulings.set_defaults(run=_cmd_rulings)

    play = sub.add_parser("selfplay", help="watch scripted sides play seeded games")
    play.add_argument("--games", type=int, default=1, help="how many games (default 1)")
    play.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    play.add_argument("--verbose", action="store_true", help="print every adjudication")
    play.set_defaults(run=_cmd_selfplay)

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
        help="another host name clients may use to reach a loopback referee (repeatable)",
    )
    serve.set_defaults(run=_cmd_serve)

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
