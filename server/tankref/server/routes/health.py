"""Is the referee up, and what does it know."""

from __future__ import annotations

import ipaddress

from fastapi import APIRouter
from starlette.requests import HTTPConnection

from tankref import __version__
from tankref.rulesets import ruleset_names
from tankref.server.routes.deps import RefereeDep
from tankref.server.schemas import Health, QuarantinedTable

router = APIRouter(tags=["health"])

# No table has this id (ids are URL-safe tokens): its look-up is one index probe.
HEALTH_PROBE = "-health-"


def from_this_computer(connection: HTTPConnection) -> bool:
    """The caller's address is a loopback one (an IPv4 address inside IPv6 counts too);
    anything else, or no address at all, is someone else."""
    client = connection.client
    if client is None:
        return False
    try:
        address = ipaddress.ip_address(client.host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


@router.get("/health", response_model=Health)
async def health(ref: RefereeDep, connection: HTTPConnection) -> Health:
    """Up or not, the version, the rulesets, how many tables; the database file only to a
    caller on this computer (its path names the user's home folder). The database is asked
    one indexed read (a reverse proxy's health check every few seconds costs nothing): 503
    ``DATABASE_UNAVAILABLE`` with Retry-After when it cannot be reached."""
    ref.store.table(HEALTH_PROBE)  # raises StoreFailure: answered 503 by errors.py
    return Health(
        status="ok",
        version=__version__,
        rulesets=ruleset_names(),
        tables=len(ref.rows),
        database=ref.store.where if from_this_computer(connection) else None,
        quarantined=[
            QuarantinedTable(table_id=table_id, reason=reason)
            for table_id, reason in ref.quarantined.items()
        ],
    )
