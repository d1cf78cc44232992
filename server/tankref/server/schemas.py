"""Request and reply bodies of the HTTP API (validated by pydantic, documented at /docs).

Ruleset-specific parts (a table's setup, an action, a terrain piece) are validated by the
table's ruleset; their JSON schemas are merged into the OpenAPI document by ``app``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import to_json

from tankref.core.dice import DamageCards, SuppliedDice
from tankref.core.geometry import TableArea
from tankref.core.hexgrid import HexGrid
from tankref.core.ruleset import BoardHints, SetupChoice, TableSummary, TankPut, TankView
from tankref.core.scene import LineOfFire, PlayerSide, Ring, TerrainView
from tankref.rulesets import DEFAULT_RULESET

RequestId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=100,
        pattern=r"^[A-Za-z0-9._:-]+$",
        description="Chosen by the client, unique per table: the same id sent again returns "
        "the first result and never rolls again.",
    ),
]


class _Body(BaseModel):
    # Strict: a client that sends "1.5" for a number or 0 for false gets told, not guessed at.
    model_config = ConfigDict(extra="forbid", strict=True)


# The seat colours of Tabletop Simulator (its Player.getColors(): White ... Black).
Seat = Literal[
    "White", "Brown", "Red", "Orange", "Yellow", "Green",
    "Teal", "Blue", "Purple", "Pink", "Grey", "Black",
]  # fmt: skip


class OrderedBy(_Body):
    """Who gave an order at the table: the seat, and whether a host or promoted player gave
    it for a side not their own (acting as the table's referee)."""

    seat: Seat = Field(description="The TTS seat colour of the player who gave the order.")
    as_referee: bool = Field(
        default=False,
        description="True: a host or promoted player ordered for a side that is not theirs.",
    )


class DiceSetup(_Body):
    source: Literal["server", "table"] = Field(
        default="server",
        description="server: the referee rolls (seeded, committed); table: players roll "
        "physical dice and send the faces.",
    )
    damage_cards: DamageCards = Field(
        default="referee",
        description="Rulesets with a damage deck (GET /rulesets: damage_deck): referee: the "
        "referee draws from its "
        "own deck and a supplied card is refused; table: the players draw from a physical "
        "deck, and a penetrating hit answers 409 DICE_NEEDED naming the card wanted "
        "(need.die 'damage_card', the cards left): send the action again with "
        "dice.damage_card.",
    )
    player_seeds: dict[str, str] = Field(
        default_factory=dict,
        max_length=8,
        description="Optional seeds the players add to the server's (player id -> text).",
    )
    seed: str | None = Field(
        default=None,
        min_length=8,
        max_length=128,
        description="For demos and tests only: choose the server seed. The table is marked "
        "seed_chosen, so its dice prove nothing to the other player.",
    )


class CreateTable(_Body):
    ruleset: str = Field(
        default=DEFAULT_RULESET,
        max_length=32,
        description=f"Which rules (default {DEFAULT_RULESET}): GET /rulesets lists each with "
        "its title, setups and terrain kinds.",
    )
    setup: dict[str, Any] = Field(
        default_factory=dict, description="The ruleset's table setup (players, scenario, options)."
    )
    dice: DiceSetup = Field(default_factory=DiceSetup)
    demo: bool = Field(
        default=False,
        description="A table `tankref demo` makes: listed as a demo table, to end and delete.",
    )


class DicePublic(BaseModel):
    source: str
    damage_cards: str = Field(description="Who draws damage cards: referee or table.")
    commitment: str = Field(description="SHA-256 (hex) of the server's secret seed.")
    seed_chosen: bool
    player_seeds: list[str]
    counter: int
    seed: str | None = Field(
        default=None,
        description="The server seed, revealed once the game is over (check it against the "
        "commitment); null while the game goes on.",
    )


class TableCreated(BaseModel):
    table_id: str
    token: str = Field(description="The write token: send it as 'Authorization: Bearer ...'.")
    seat_tokens: dict[str, str] = Field(
        default_factory=dict,
        description="Player -> that player's own seat token, a secret like the table's token "
        "(never shown again): it asks for that player's void and gives that player's seed, "
        "nothing else. A void completes only with two different credentials.",
    )
    seat_links: dict[str, str] = Field(
        default_factory=dict,
        description="Player -> that player's seat link: the live page on this table with the "
        "seat token in the URL's fragment (never sent to the server). A secret like the "
        "token (never shown again): whoever opens it may act for that seat.",
    )
    ruleset: str
    dice: DicePublic
    table: TableSummary


class TableLinks(BaseModel):
    table_id: str
    referee: str = Field(description="The referee's URL: what a TTS board is pointed at.")
    spectator: str = Field(description="The live page on this table (read-only).")
    stream: str = Field(description="The board and the last result only (an OBS source).")
    players: list[str] = Field(
        description="The table's seats; each player's seat token is in the creation reply "
        "alone (the referee keeps only its hash)."
    )
    seat_links: str = Field(
        description="Where the players' seat links are: not here (the referee keeps only the "
        "seat tokens' hashes, so it cannot make them again)."
    )


class VoidOpen(BaseModel):
    seq: int = Field(description="The latest action still in effect; it rolled dice.")
    action: str = Field(description="It in a few words, e.g. 'engage R1 → B1'.")
    asked: list[str] = Field(description="The players who have asked to void it so far.")
    needs: list[str] = Field(description="The players whose ask it still needs.")


class SeatCheck(BaseModel):
    """Whose credential a token is, and what a seat may ask now (nothing secret: the log
    says the same)."""

    table_id: str
    credential: Literal["seat", "table"] = Field(
        description="seat: a player's own seat token; table: the table's token."
    )
    player: str | None = Field(description="The seat token's player; null for the table's.")
    players: list[str] = Field(description="The table's seats.")
    seeds_open: bool = Field(
        description="The table takes player seeds now: the server has drawn no dice yet and "
        "the game goes on (POST /tables/{id}/seeds)."
    )
    seeds_given: list[str] = Field(description="The players who have given a seed.")
    void: VoidOpen | None = Field(
        description="The latest action still in effect, when it rolled dice and the game "
        "goes on: what a void asks for (POST /tables/{id}/void); null: nothing to void."
    )


class TableListItem(BaseModel):
    table_id: str
    ruleset: str
    ruleset_title: str = Field(description="The rule system's name, e.g. 'Minimal Tank Combat'.")
    created_at: str
    seq: int
    table: TableSummary
    demo: bool = Field(default=False, description="Made by `tankref demo`.")


class TableDeleted(BaseModel):
    table_id: str
    deleted: Literal[True]
    events: int = Field(description="How many log entries went with it.")


class TableRead(BaseModel):
    table_id: str
    ruleset: str
    created_at: str
    seq: int = Field(description="How many events the log holds.")
    dice: DicePublic
    table: TableSummary
    damaged: str | None = Field(
        default=None, description="Set when the log could not be replayed: read-only."
    )
    tanks: list[TankView]
    state: dict[str, Any] = Field(description="The whole derived state (secrets removed).")
    head_sha256: str = Field(
        description="The table's head: the hash chain over its log, after its last event."
    )


class Scene(BaseModel):
    """The table as shapes to draw (inches, +z north, facing 0 faces +z): for the live page
    and the TTS scripts, whatever the ruleset."""

    table_id: str
    seq: int
    ruleset: str
    ruleset_title: str = Field(description="The rule system's name, e.g. 'Minimal Tank Combat'.")
    table: TableSummary
    area: TableArea | None = Field(description="The playing area; None where a ruleset has none.")
    players: list[PlayerSide]
    tanks: list[TankView]
    terrain: list[TerrainView]
    rings: list[Ring] = Field(description="Smoke at its current strength, the objective.")
    line_of_fire: LineOfFire | None = Field(description="The most recent shot, if any.")
    grid: HexGrid | None = Field(
        default=None, description="Hex rulesets: the grid the map's hexes lie on (to draw)."
    )


class TankPutRequest(TankPut):
    request_id: RequestId | None = None
    by: OrderedBy | None = Field(default=None, description="Who moved the model (logged).")


class ObjectivePut(_Body):
    x: float = Field(ge=-10_000, le=10_000, allow_inf_nan=False)
    z: float = Field(ge=-10_000, le=10_000, allow_inf_nan=False)
    request_id: RequestId | None = None


class ActionRequest(_Body):
    request_id: RequestId
    action: dict[str, Any] = Field(description="The action; its 'kind' says which.")
    dice: SuppliedDice | None = Field(
        default=None,
        description="Table dice only: the faces rolled, per die colour, in order of use; "
        "damage_card: the card drawn, only on a table whose players draw them "
        "(dice.damage_cards: table) and only once asked.",
    )
    by: OrderedBy | None = Field(default=None, description="Who gave the order (logged).")


class LogEntry(BaseModel):
    """One accepted action with its full result, as logged and streamed."""

    seq: int
    at: str
    request_id: str | None
    kind: str
    action: dict[str, Any]
    dice: dict[str, Any] | None = None
    result: dict[str, Any]
    chat: list[str] = Field(description="One or two lines with the math, for the game chat.")
    tanks: list[TankView] = Field(description="Every tank the action changed, ready to draw.")
    table: TableSummary
    by: OrderedBy | None = Field(default=None, description="Who gave the order, if said.")
    previous_sha256: str | None = Field(
        default=None,
        description="The log's hash chain before this entry (absent on entries logged before "
        "the chain existed; the export carries it for every event).",
    )
    chain_sha256: str | None = Field(
        default=None,
        description="The hash chain after this entry: the table's head while it is the last. "
        "Note its first 8 digits at the end of a game; 'tankref verify --head' checks an "
        "export against it.",
    )


_SERIALISED = ("result", "table")  # the parts log_entry_json takes as JSON already


def _entry_layout() -> list[str | tuple[str, ...]]:
    """``LogEntry``'s fields in order: each part given as JSON on its own, the fields between
    them in runs (each run serialised in one call)."""
    layout: list[str | tuple[str, ...]] = []
    run: list[str] = []
    for name in LogEntry.model_fields:
        if name in _SERIALISED:
            if run:
                layout.append(tuple(run))
                run = []
            layout.append(name)
        else:
            run.append(name)
    if run:
        layout.append(tuple(run))
    return layout


_ENTRY_LAYOUT = _entry_layout()


def log_entry_json(*, result: bytes, table: bytes, **fields: Any) -> str:
    """``LogEntry(..., result=, table=, **fields).model_dump_json()``, byte for byte (tested),
    built from the parts: what the referee built itself is not validated again, and the two
    parts it has serialised already go in as they are (the result, whose digest is taken
    of these very bytes; the table's summary, which the reply carries too). The fields
    between them go in runs, one ``to_json`` of a dict each (its braces dropped), not one
    call per field. A field of ``LogEntry`` left out is a KeyError, not a silently shorter
    entry."""
    given = {"result": result, "table": table}
    parts = [
        b'"%s":%s' % (part.encode(), given[part])
        if isinstance(part, str)
        else to_json({name: fields[name] for name in part})[1:-1]
        for part in _ENTRY_LAYOUT
    ]
    return (b"{%s}" % b",".join(parts)).decode()


class Reply(BaseModel):
    applied: bool = Field(description="False: nothing to adjudicate (the model only drifted).")
    replayed: bool = Field(description="True: this request id was applied before; same result.")
    seq: int
    entry: LogEntry | None
    table: TableSummary
    head_sha256: str = Field(description="The table's head: its log's hash chain, as of now.")


class LogPage(BaseModel):
    entries: list[LogEntry]
    last_seq: int = Field(description="The newest sequence number on the table.")
    next_after: int | None = Field(description="Pass as 'after' for the next page; None: done.")
    taken_back: dict[str, int] = Field(
        default_factory=dict,
        description="Entries on this page since undone or voided: their seq -> the seq of the "
        "undo or void event (the entries stay in the log, marked).",
    )


class QuarantinedTable(BaseModel):
    table_id: str
    reason: str = Field(description="Why the table does not load; it is left as it is.")


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    rulesets: list[str]
    tables: int
    database: str | None = Field(
        default=None,
        description="The database in use (a file, or a PostgreSQL URL without its password), "
        "told only to callers on the referee's own computer (a path names the user's home "
        "folder).",
    )
    quarantined: list[QuarantinedTable] = Field(
        default_factory=list,
        description="Tables that could not be loaded at start-up (set aside, read-only); "
        "every other table is served.",
    )


class RulesetListing(BaseModel):
    """One ruleset as the referee describes it (``GET /rulesets``): what a client needs to
    offer it (the TTS board builds its ruleset menu from these)."""

    name: str = Field(description="Its key: POST /tables takes it as ruleset.")
    title: str
    clause_prefix: str = Field(description="Its clauses' IDs start with this, e.g. TTT.")
    description: str
    terrain_kinds: list[str] = Field(description="The kinds its terrain pieces may be.")
    setups: list[SetupChoice] = Field(
        description="Ready setups a menu offers, the first the default."
    )
    setup_schema: dict[str, Any] = Field(description="JSON schema of POST /tables setup.")
    board: BoardHints = Field(description="What the TTS scripts need beyond option data.")
    damage_deck: bool = Field(description="It draws damage cards (the table may draw them).")


class ErrorReply(BaseModel):
    """Every refusal (4xx): what went wrong, the field or the rules clause it is about."""

    code: str = Field(description="Stable code: UNKNOWN_TABLE, INVALID, NOT_YOUR_PHASE, ...")
    message: str = Field(description="For the player: names the field or the clause.")
    field: str | None = Field(default=None, description="The request field at fault, if any.")
    clause: str | None = Field(default=None, description="The rules clause that refused it.")
    details: dict[str, Any] = Field(default_factory=dict)
