"""The export format of a table's log, and the check anyone can run on an export.

``verify_export`` checks the commitment (SHA-256 of the revealed server seed), re-adjudicates
every event with the installed engine through the same ``Timeline`` the referee uses (so
every server roll is derived again from the seed, the player seeds and the roll counter),
compares each result with the logged one and the state with the logged checkpoints, and
reports the first mismatch with its event number. It computes the log's hash chain again
(``tankref.core.chain``) and, given the head a player noted during the game, fails an export
that does not reach it (cut short or rewritten). Pure: the caller reads the file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from tankref.core import chain
from tankref.core.errors import RulesError
from tankref.core.results import chat_lines
from tankref.core.ruleset import Ruleset
from tankref.core.timeline import Timeline, describe, first_state, result_digest, state_digest
from tankref.rulesets import get_ruleset

FORMAT = "tankref.table-export"
FORMAT_VERSION = 2  # 2: the hash chain (version 1 exports, without it, still verify)
READABLE_VERSIONS = (1, FORMAT_VERSION)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PlayerSeed(_Strict):
    player: str | None  # None: a table from before seed owners were kept
    seed: str


class ExportTable(_Strict):
    id: str
    ruleset: str
    created_at: str
    version: str  # the engine that created the table
    setup: dict[str, Any]
    dice_source: str
    damage_cards: str = "referee"  # who drew the damage cards (absent from older exports)
    commitment: str  # SHA-256 (hex) of the server seed, published at creation
    seed_chosen: bool
    player_seeds: list[PlayerSeed]  # given at creation; later ones are player_seed events
    seed: str | None  # the server seed, once the game is over; else null
    status: str
    damaged: str | None
    last_seq: int
    head_sha256: str | None = None  # the hash chain after the last event (None: version 1)
    # each void ask needed its own credential (absent: a table from before seat tokens)
    seat_credentials: bool = False


class ExportEvent(_Strict):
    seq: int
    kind: str
    request_id: str | None
    action: dict[str, Any]
    dice: dict[str, Any] | None
    result: dict[str, Any]
    result_sha256: str
    state_sha256: str | None
    version: str  # the tankref and card-data version that decided it
    at: str
    chat: list[str]
    undone_by: int | None  # seq of the undo that took it back
    voided_by: int | None  # seq of the void that took it back
    previous_sha256: str | None = None  # the hash chain before this event (None: version 1)
    chain_sha256: str | None = None  # and after it


class ExportDocument(_Strict):
    format: str
    format_version: int
    table: ExportTable
    events: list[ExportEvent]


class ExportUnreadable(ValueError):
    """Not an export this tankref can read."""


@dataclass(frozen=True)
class Finding:
    seq: int | None  # None: about the table (the commitment, the event count)
    where: str
    message: str

    @property
    def line(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class Report:
    table_id: str
    ruleset: str
    events: int
    readjudicated: int = 0
    seed_revealed: bool = False
    head: str = ""  # the hash chain after the export's last event, computed from its content
    head_reached_at: int | None = None  # the event whose link is the head given (--head)
    problems: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        first = self.problems[0] if self.problems else None
        return {
            "ok": self.ok,
            "table_id": self.table_id,
            "ruleset": self.ruleset,
            "events": self.events,
            "readjudicated": self.readjudicated,
            "seed_revealed": self.seed_revealed,
            "head": self.head,
            "head_reached_at": self.head_reached_at,
            "first_mismatch": None if first is None else {"seq": first.seq, "text": first.line},
            "problems": [{"seq": p.seq, "text": p.line} for p in self.problems],
            "notes": self.notes,
        }

    def lines(self) -> list[str]:
        verdict = "OK" if self.ok else f"FAILED ({len(self.problems)} problem(s))"
        out = [
            f"table {self.table_id} ({self.ruleset}), {self.events} events: {verdict}; "
            f"{self.readjudicated} re-adjudicated",
            f"head {chain.short(self.head)} ({self.head}) after event {self.events}",
        ]
        out += [f"MISMATCH {p.line}" for p in self.problems]
        out += [f"note: {n}" for n in self.notes]
        return out


def read_export(data: object) -> ExportDocument:
    """The document, or ``ExportUnreadable`` saying what is wrong with it."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ExportUnreadable(f"not a tankref table export (format {FORMAT!r} expected)")
    if data.get("format_version") not in READABLE_VERSIONS:
        raise ExportUnreadable(
            f"export format version {data.get('format_version')!r}; this tankref reads "
            f"versions {' and '.join(str(v) for v in READABLE_VERSIONS)}"
        )
    try:
        return ExportDocument.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ExportUnreadable(f"{where}: {first['msg']}") from None


def _ordinal_die(rolls: list[dict[str, Any]], index: int) -> str:
    die = rolls[index].get("die")
    n = sum(1 for r in rolls[: index + 1] if r.get("die") == die)
    return f"{die} die {n}"


def _roll_difference(logged: list[Any], replayed: list[Any]) -> str | None:
    for i, (a, b) in enumerate(zip(logged, replayed, strict=False)):
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict) and a.get("die") == b.get("die"):
            source = "the seed gives" if b.get("source") == "server" else "the table's faces give"
            if a.get("face") != b.get("face"):
                return (
                    f"{_ordinal_die(logged, i)} was face {a.get('face')} in the log, "
                    f"{source} {b.get('face')}"
                )
        return f"roll {i + 1} was {a!r} in the log, re-adjudication gives {b!r}"
    if len(logged) != len(replayed):
        return f"{len(logged)} dice in the log, re-adjudication rolls {len(replayed)}"
    return None


def _difference(logged: Any, replayed: Any, path: str) -> str | None:
    """The first place two JSON values differ, in words."""
    if isinstance(logged, dict) and isinstance(replayed, dict):
        for key in list(logged) + [k for k in replayed if k not in logged]:
            found = _difference(logged.get(key), replayed.get(key), f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(logged, list) and isinstance(replayed, list) and len(logged) == len(replayed):
        for i, (a, b) in enumerate(zip(logged, replayed, strict=True)):
            found = _difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    if logged != replayed:
        return f"{path} is {logged!r} in the log, re-adjudication gives {replayed!r}"
    return None


def _result_difference(logged: dict[str, Any], replayed: dict[str, Any]) -> str | None:
    if logged.get("action") != replayed.get("action"):
        return (
            f"the logged result was decided for {describe(logged.get('action') or {})}, "
            f"not for the action as it stands now ({describe(replayed.get('action') or {})})"
        )
    rolls = _roll_difference(logged.get("rolls") or [], replayed.get("rolls") or [])
    return rolls or _difference(logged, replayed, "result")


def _start(rules: Ruleset, table: ExportTable, seed: str) -> Timeline:
    dice = {
        "source": table.dice_source,
        "damage_cards": table.damage_cards,
        "seed": seed,
        "player_seeds": [s.seed for s in table.player_seeds],
    }
    return Timeline(
        rules,
        first_state(rules, table.setup, dice),
        [s.player for s in table.player_seeds],
        seat_credentials=table.seat_credentials,
    )


def verify_export(
    data: object,
    installed_version: str | None = None,
    *,
    require_seed: bool = False,
    head: str | None = None,
) -> Report:
    """Check an export (parsed JSON). ``installed_version``: the engine doing the check (an
    event decided by another version is named in the report; it fails only on a mismatch).
    ``require_seed``: fail unless the referee's seed is revealed and was not chosen by the
    table's creator. ``head``: a head (8 or more hex digits) noted during the game; the
    export fails unless its hash chain reaches it."""
    doc = read_export(data)
    table = doc.table
    report = Report(table.id, table.ruleset, len(doc.events), seed_revealed=table.seed is not None)
    try:
        rules = get_ruleset(table.ruleset)
    except KeyError as exc:
        raise ExportUnreadable(str(exc)) from None

    _check_seed(table, report, require_seed)
    if not table.seat_credentials:
        report.notes.append(
            "a table from before seat tokens: one credential could ask a void for every player"
        )
    _check_numbering(doc, report)
    links = _check_chain(doc, report)
    report.head = links[-1]
    if head is not None:
        _check_noted_head(head, links, report)
    else:
        report.notes.append(
            f"the head is {chain.short(report.head)} after event {len(doc.events)}: compare "
            "it with the head shown in chat or on the page at the end of the game (verify "
            "--head); without it, an export cut short at the end cannot be told apart"
        )

    versions = sorted({e.version for e in doc.events})
    other = [v for v in versions if installed_version is not None and v != installed_version]
    if other:
        report.notes.append(
            f"events decided by {', '.join(other)}; re-adjudicated with {installed_version}"
        )

    _check_roll_sources(doc, report)
    _readjudicate(rules, doc, report, installed_version)
    return report


def _check_seed(table: ExportTable, report: Report, require_seed: bool) -> None:
    """The revealed seed against the commitment; with ``require_seed``, a seed that is not
    revealed or that the table's creator chose fails."""
    if table.seed is not None:
        digest = hashlib.sha256(table.seed.encode()).hexdigest()
        if digest != table.commitment:
            report.problems.append(
                Finding(
                    None,
                    "table",
                    f"the revealed seed does not match the commitment: its SHA-256 is "
                    f"{digest}, the commitment published at creation is {table.commitment}",
                )
            )
    else:
        report.notes.append(
            "the server seed is not revealed yet (the game is not over): server rolls were "
            "not derived again; events are re-adjudicated up to the first server roll"
        )
        if require_seed:
            report.problems.append(
                Finding(None, "table", "no revealed seed (--require-seed): the game is not over")
            )
    if table.seed_chosen:
        if require_seed:
            report.problems.append(
                Finding(
                    None,
                    "table",
                    "the server seed was chosen by whoever created the table (--require-seed): "
                    "they could know every server roll in advance",
                )
            )
        else:
            report.notes.append("the server seed was chosen at creation (demo or test table)")


def _check_numbering(doc: ExportDocument, report: Report) -> None:
    table = doc.table
    for expected, event in enumerate(doc.events, start=1):
        if event.seq != expected:
            report.problems.append(
                Finding(
                    expected,
                    f"event {expected}",
                    f"missing: the log goes from event {expected - 1} to event {event.seq}",
                )
            )
            break
    # Times only go forward in a log as written (ISO UTC text compares in time order); a
    # clock stepped back could explain one, so it is a note, not a failure.
    for before, event in zip(doc.events, doc.events[1:], strict=False):
        if event.at < before.at:
            report.notes.append(
                f"event {event.seq} was logged at {event.at}, before event {before.seq} "
                f"({before.at}): events were moved, or the host's clock stepped back"
            )
            break
    last = doc.events[-1].seq if doc.events else 0
    if table.last_seq != last and len(report.problems) == 0:
        report.problems.append(
            Finding(
                last + 1,
                "table",
                f"the table had {table.last_seq} events but the export holds {last}",
            )
        )


def chain_links(doc: ExportDocument) -> list[str]:
    """The hash chain as the export's content gives it: the link before the first event,
    then the link after each (the last is the head)."""
    table = doc.table
    links = [
        chain.genesis(
            table_id=table.id,
            ruleset=table.ruleset,
            created_at=table.created_at,
            version=table.version,
            setup=table.setup,
            dice_source=table.dice_source,
            damage_cards=table.damage_cards,
            commitment=table.commitment,
            seed_chosen=table.seed_chosen,
            player_seeds=[(s.player, s.seed) for s in table.player_seeds],
            seat_credentials=table.seat_credentials,
        )
    ]
    for event in doc.events:
        links.append(
            chain.link(
                links[-1],
                seq=event.seq,
                kind=event.kind,
                request_id=event.request_id,
                action=event.action,
                dice=event.dice,
                result_sha256=event.result_sha256,
                state_sha256=event.state_sha256,
                version=event.version,
                at=event.at,
                chat=event.chat,
            )
        )
    return links


def _check_chain(doc: ExportDocument, report: Report) -> list[str]:
    """The hash chain computed again from the export's content. A link the export states
    that differs is a problem (the first only: after a break every later link differs too)."""
    table = doc.table
    links = chain_links(doc)
    stated = [table.head_sha256] + [
        h for e in doc.events for h in (e.previous_sha256, e.chain_sha256)
    ]
    if doc.format_version >= 2 and None in stated:
        # Taking the links out must not turn off their check.
        report.problems.append(
            Finding(None, "table", "the export's hash chain is missing (format version 2)")
        )
    elif table.head_sha256 is None:
        report.notes.append("an export from before the hash chain: the head is computed here")
    for i, event in enumerate(doc.events):
        where = f"event {event.seq} ({describe(event.action)})"
        if event.previous_sha256 not in (None, links[i]):
            report.problems.append(
                Finding(
                    event.seq,
                    where,
                    f"the hash chain breaks before it: its previous_sha256 is "
                    f"{chain.short(event.previous_sha256 or '')}, the table and the events "
                    f"before it hash to {chain.short(links[i])} (something before it was "
                    "changed, dropped or moved)",
                )
            )
            return links
        if event.chain_sha256 not in (None, links[i + 1]):
            report.problems.append(
                Finding(
                    event.seq,
                    where,
                    f"the hash chain breaks at it: its chain_sha256 is "
                    f"{chain.short(event.chain_sha256 or '')}, its content hashes to "
                    f"{chain.short(links[i + 1])} (the event was changed after it was logged)",
                )
            )
            return links
    if table.head_sha256 not in (None, links[-1]):
        report.problems.append(
            Finding(
                None,
                "table",
                f"head_sha256 is {chain.short(table.head_sha256 or '')}, but the export's "
                f"events hash to {chain.short(links[-1])}",
            )
        )
    return links


def _check_noted_head(noted: str, links: list[str], report: Report) -> None:
    """The export must reach the head a player noted: that link must be in its chain (a cut
    export ends before it; a rewritten one has other links)."""
    wanted = noted.lower()
    reached = next((i for i, h in enumerate(links) if h.startswith(wanted)), None)
    if reached is None:
        report.problems.append(
            Finding(
                None,
                "table",
                f"the export does not reach the head {noted} (--head): its chain ends at "
                f"{chain.short(links[-1])} after event {len(links) - 1} and passes no link "
                "starting with it; the log was cut short or rewritten",
            )
        )
        return
    report.head_reached_at = reached
    if reached < len(links) - 1:
        report.notes.append(
            f"the head {noted} (--head) is the chain after event {reached}; the export goes "
            f"on to event {len(links) - 1}"
        )


def _check_roll_sources(doc: ExportDocument, report: Report) -> None:
    """Every roll came from where the table's dice come from. Re-adjudication alone would
    pass a server roll rewritten as table faces (the faces replay to the same result), so a
    server-dice table's events may carry no faces and no roll from the table, a table-dice
    table's no roll from the server, and only a table that draws its own damage cards a card."""
    table = doc.table
    for event in doc.events:
        where = f"event {event.seq} ({describe(event.action)})"
        supplied = event.dice or {}
        found: str | None = None
        sources = {r.get("source") for r in event.result.get("rolls") or [] if isinstance(r, dict)}
        wrong = sorted(str(s) for s in sources - {table.dice_source})
        if table.dice_source == "server" and supplied.get("faces"):
            found = "it carries faces from the table, but the referee rolls this table's dice"
        elif wrong:
            found = f"rolls from {', '.join(wrong)}, but this table's dice come from the " + (
                "referee" if table.dice_source == "server" else "table"
            )
        elif supplied.get("damage_card") is not None and table.damage_cards != "table":
            found = "it carries a damage card from the table, but the referee draws the cards"
        if found is not None:
            report.problems.append(
                Finding(event.seq, where, f"{found} (dice.source: {table.dice_source})")
            )


def _readjudicate(
    rules: Ruleset, doc: ExportDocument, report: Report, installed: str | None
) -> None:
    table = doc.table
    seed = table.seed
    # Without the seed the generator is a stand-in: events are compared until one draws from
    # it, after which nothing can be re-adjudicated.
    timeline = _start(rules, table, seed if seed is not None else f"unrevealed:{table.commitment}")
    gap = next((f.seq for f in report.problems if f.seq is not None), None)
    for expected, event in enumerate(doc.events, start=1):
        where = f"event {event.seq} ({describe(event.action)})"
        if event.seq != expected or (gap is not None and event.seq >= gap):
            report.notes.append(f"events from {expected} on were not re-adjudicated")
            return
        counter = timeline.dice().counter
        try:
            step = timeline.logged_step(event.action, event.dice)
        except (RulesError, ValidationError, ValueError) as exc:
            message = exc.message if isinstance(exc, RulesError) else str(exc).splitlines()[0]
            _mismatch(report, event, where, f"the rules refuse it now: {message}", installed)
            return
        replayed = step.result_json()
        drew = timeline.rules.dice_state(step.state).counter != counter
        if seed is None and drew:
            report.notes.append(
                f"{where} draws the server's dice: events from {event.seq} on can be "
                "re-adjudicated once the seed is revealed"
            )
            return
        found = _result_difference(event.result, replayed)
        if found is None and step.kind != event.kind:
            found = f"logged as {event.kind!r}, re-adjudication makes it {step.kind!r}"
        if found is None:
            found = _chat_difference(event.chat, chat_lines(step.result))
        if found is None and result_digest(replayed) != event.result_sha256:
            found = "its result_sha256 is not the hash of the result"
        if (
            found is None
            and seed is not None
            and event.state_sha256 is not None
            and state_digest(rules, step.state) != event.state_sha256
        ):
            found = "the state after it differs from the logged checkpoint (state_sha256)"
        if found is not None:
            _mismatch(report, event, where, found, installed)
            report.notes.append(f"events after {event.seq} were not re-adjudicated")
            return
        timeline.commit(step, event.seq)
        report.readjudicated += 1
    for event in doc.events:  # the undo / void markers say what the log says
        by = timeline.cancelled.get(event.seq)
        kind = next((e.kind for e in doc.events if e.seq == by), None) if by else None
        marks = (
            by if kind == "undo" else None,
            by if kind == "void" else None,
        )
        if marks != (event.undone_by, event.voided_by):
            report.problems.append(
                Finding(
                    event.seq,
                    f"event {event.seq} ({describe(event.action)})",
                    f"marked undone_by={event.undone_by}, voided_by={event.voided_by}; the log "
                    f"says undone_by={marks[0]}, voided_by={marks[1]}",
                )
            )
            return
    if table.seed is not None and not timeline.over:
        # The referee reveals the seed only once the game is over, and the event that ended
        # it is in every export made after: an export that stops before it was cut.
        report.problems.append(
            Finding(
                None,
                "table",
                f"the seed is revealed, so the game was over, but the export's events stop "
                f"before its end (after event {report.events}): events were cut off the end",
            )
        )


def _chat_difference(logged: list[str], replayed: list[str]) -> str | None:
    """The chat lines the players were shown against the ones the result gives."""
    for i, (a, b) in enumerate(zip(logged, replayed, strict=False), start=1):
        if a != b:
            return f"chat line {i} was {a!r} in the log, the result gives {b!r}"
    if len(logged) != len(replayed):
        return f"{len(logged)} chat line(s) in the log, the result gives {len(replayed)}"
    return None


def _mismatch(
    report: Report, event: ExportEvent, where: str, message: str, installed: str | None
) -> None:
    if installed is not None and event.version != installed:
        message += (
            f" (decided by {event.version}, re-adjudicated with {installed}: the version "
            "difference is the likely cause)"
        )
    report.problems.append(Finding(event.seq, where, message))
