"""How a database is named: ``--db`` or ``TANKREF_DB``, a file path or a PostgreSQL URL, and
the URL as it may be shown (without its password)."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

DB_VARIABLE = "TANKREF_DB"
POSTGRES_SCHEMES = ("postgresql", "postgres")


def is_postgres(db: str | Path) -> bool:
    """A ``postgresql://`` or ``postgres://`` URL (anything else is an SQLite file path)."""
    return isinstance(db, str) and db.split("://", 1)[0].lower() in POSTGRES_SCHEMES


def without_password(url: str) -> str:
    """The URL as it may be printed and logged: its password (and any in the query) out."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # not even a URL: say nothing of what it holds
        return f"{url.split('://', 1)[0]}://..."
    queried = [q.lower().startswith("password=") for q in parts.query.split("&")]
    if password is None and not any(queried):
        return url
    netloc = parts.netloc
    if password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.split(':', 1)[0]}:***@{host}"
    query = "&".join(
        "password=***" if hidden else q
        for q, hidden in zip(parts.query.split("&"), queried, strict=True)
    )
    # By hand: urlunsplit drops the empty host of postgresql:///db?host=/socket/folder.
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")


def chosen_db(flag: str | None) -> str | None:
    """What ``--db`` says, else ``TANKREF_DB`` (None: neither; the default SQLite file)."""
    return flag or os.environ.get(DB_VARIABLE) or None
