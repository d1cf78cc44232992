"""Readings the TinyTableTopTanks referee applies where the printed text leaves room but only
one reading is playable: each is reported in the result that uses it, and listed by
``tankref rulings`` and in docs/rulings.md beside the switchable options (``state.Options``)."""

from __future__ import annotations

READINGS: tuple[tuple[str, str], ...] = (
    (
        "TTT-R1",
        "A morale complication is from a prior round once the tank's next own phase begins; "
        "a Recover in the turn it arrived is refused (RECOVER_TOO_SOON).",
    ),
    (
        "TTT-MR4",
        "Shaken and Immobilized binds the tank's next turn: the referee rolls the Recover it "
        "did not try at the end of that phase, never at the end of the phase it happened in; "
        "until then the tank is only Shaken and Immobilized.",
    ),
    (
        "TTT-MR2",
        "A Routed tank drives once a turn, at the end of its own phase; one Routed after it "
        "moved in that phase (a Wait shot) drives at the end of its next phase.",
    ),
    (
        "TTT-E7",
        "Crew Stunned: no action in its next phase, the referee's own for it included (no "
        "TTT-MR4 Recover roll, no Routed drive that phase: they wait one phase).",
    ),
    (
        "TTT-MR1",
        "A crew Shaken (or Routed) while in Wait loses the Wait at once, before it can fire.",
    ),
    (
        "TTT-MR5",
        "Applied both ways round: an Immobilized tank whose crew then Routs bails out too.",
    ),
    (
        "TTT-S3",
        "A phase counts toward the attacker's full turn only if no non-routed defender was "
        'within 12" of the objective at any moment of it.',
    ),
)
