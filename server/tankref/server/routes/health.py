"""Is the referee up, and what does it know."""

from __future__ import annotations

from fastapi import APIRouter

from tankref import __version__
from tankref.rulesets import ruleset_names
from tankref.server.routes.deps import RefereeDep
from tankref.server.schemas import Health, QuarantinedTable

router = APIRouter(tags=["health"])


@router.get("/health", response_model=Health)
async def health(ref: RefereeDep) -> Health:
    return Health(
        status="ok",
        version=__version__,
        rulesets=ruleset_names(),
        tables=len(ref.rows),
        database=str(ref.store.path),
        quarantined=[
            QuarantinedTable(table_id=table_id, reason=reason)
            for table_id, reason in ref.quarantined.items()
        ],
    )
