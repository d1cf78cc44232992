"""`tankref serve`: the referee under uvicorn, with a clear word when it cannot start."""

from __future__ import annotations

import errno
import gc
import logging
import multiprocessing
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI
from uvicorn.config import LOGGING_CONFIG

from tankref.server.app import create_app
from tankref.server.hosted import Profile, use_json_logs
from tankref.server.limits import protocol_class, within_file_limit
from tankref.server.settings import Settings
from tankref.server.store import StoreError, one_line
from tankref.server.stores import is_postgres, open_store

log = logging.getLogger("tankref.server")

WRITER_SWITCH_INTERVAL = 0.0005  # seconds: see serve()
# Objects allocated, less those freed, between two young garbage collections (Python's
# default is 700): see serve().
YOUNG_GC_THRESHOLD = 20_000


class RefereeServer(uvicorn.Server):
    """uvicorn's server, which first lets held long-polls and streams answer when it stops
    (otherwise they are cancelled at the end of the grace period: an error, not a reply)."""

    def __init__(self, config: uvicorn.Config, app: FastAPI) -> None:
        super().__init__(config)
        self.referee_app = app

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        referee = getattr(self.referee_app.state, "referee", None)
        if referee is not None:
            referee.release_waiters()
        await super().shutdown(sockets)


class QueryRedaction(logging.Filter):
    """Logs name the path of a request, never its query: a client that sends a token as
    ``?token=`` is refused, and its token must not end up in the log either."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(_without_query(a) for a in record.args)
        return True


def _without_query(arg: object) -> object:
    if isinstance(arg, str) and arg.startswith("/") and "?" in arg:
        return arg.split("?", 1)[0] + "?[query not logged]"
    return arg


def redact_queries_in_logs() -> None:
    for name in ("uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, QueryRedaction) for f in logger.filters):
            logger.addFilter(QueryRedaction())


def referee_config(app: FastAPI, host: str, port: int, log_level: str) -> uvicorn.Config:
    """How the referee is served, here and in the tests and benches."""
    settings: Settings = app.state.settings
    limits = within_file_limit(settings.limits)
    proxies, json_logs = settings.profile.forwarded_allow_ips, settings.profile.json_logs
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        http=protocol_class(limits),
        ws="websockets-sansio",
        timeout_graceful_shutdown=2,  # held long-polls must not delay a stop
        timeout_keep_alive=limits.keep_alive_seconds,
        limit_concurrency=limits.max_connections,
        h11_max_incomplete_event_size=limits.head_bytes,
        server_header=False,
        # The client's address from X-Forwarded-For / X-Forwarded-Proto only when the
        # connection comes from a proxy the hosted profile names (none by default).
        proxy_headers=bool(proxies),
        forwarded_allow_ips=list(proxies) or None,
        # Above info the access log prints nothing, but uvicorn still builds each line's
        # parts (the path quoted again) before the logger drops it: not built at all then.
        # JSON logs have their own access line (hosted.AccessLog).
        access_log=log_level.lower() in ("trace", "debug", "info") and not json_logs,
        # JSON logs: uvicorn keeps the handlers hosted.use_json_logs set (its own config
        # would give its loggers plain-text handlers of their own).
        log_config=None if json_logs else LOGGING_CONFIG,
    )
    redact_queries_in_logs()  # once uvicorn has set its loggers up (Config does)
    return config


def port_free(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        if sys.platform != "win32":
            # As uvicorn binds: a port left in TIME_WAIT by a referee just stopped is free.
            # (On Windows the same flag would let us bind a port another server holds.)
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host.strip("[]"), port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


def serve(
    host: str,
    port: int,
    db_path: Path | str,
    *,
    log_level: str = "warning",
    allowed_hosts: tuple[str, ...] = (),
    workers: int = 1,
    profile: Profile | None = None,
) -> int:
    """``db_path``: an SQLite file, or a PostgreSQL URL (``stores.is_postgres``);
    ``workers``: referee processes sharing it (PostgreSQL only, ``run_workers``);
    ``profile``: the hosted profile's settings (None: the default referee)."""
    if workers > 1 and not is_postgres(db_path):
        print(
            f"tankref: --workers {workers} needs a PostgreSQL database (--db postgresql://...); "
            "an SQLite file is kept by one referee process",
            file=sys.stderr,
        )
        return 2
    db: dict[str, Any] = (
        {"db_url": str(db_path)} if is_postgres(db_path) else {"db_path": Path(db_path)}
    )
    profile = (profile or Profile()).completed()
    settings = Settings(host=host, port=port, profile=profile, **db)
    if allowed_hosts:
        settings = Settings(
            host=host,
            port=port,
            allowed_hosts=(*settings.allowed_hosts, *allowed_hosts),
            profile=profile,
            **db,
        )
    try:  # fail here, in one plain line, not with a traceback from inside uvicorn
        store = open_store(db_path)
        try:
            store.check_readable()
            store.check_writable()
        finally:
            store.close()
        where = store.where  # a URL without its password
    except (StoreError, OSError) as exc:
        print(f"tankref: cannot open the database: {one_line(exc, 400)}", file=sys.stderr)
        return 2
    try:
        free = port_free(host, port)
    except OSError as exc:
        print(f"tankref: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return 2
    if not free:
        print(
            f"tankref: port {port} on {host} is in use. Is a referee already running? "
            f"(check http://{host}:{port}/health) Or pick another: tankref serve --port {port + 1}",
            file=sys.stderr,
        )
        return 2
    for line in banner(host, port):
        print(line)
    print(f"database: {where}")
    if workers > 1:
        print(f"{workers} worker processes share it")
    if profile.public:
        for line in hosted_lines(profile):
            print(line)
    elif not settings.loopback:
        names = ", ".join(settings.allowed_hosts)
        print(
            f"warning: listening on {_bracketed(host)}:{port}, beyond this computer: anyone who "
            "can reach it can read every table, its log, the live page and the API docs, and "
            "can create tables; playing needs each table's token, which travels unencrypted "
            f"(plain HTTP). It answers to any IP address and to these names: {names} "
            "(add one with --allow-host NAME).",
            file=sys.stderr,
        )
    print("Ctrl+C stops it; nothing acknowledged is ever lost.", flush=True)
    # Before the workers start: the supervisor's own lines are logged as theirs are (one JSON
    # object a line with --json-logs).
    _tune(log_level, json_logs=profile.json_logs)
    if workers > 1:
        run_workers(settings, host.strip("[]"), port, log_level, workers)
        print(f"Stopped; every acknowledged action is in {where}.", flush=True)
        return 0
    try:
        app = create_app(settings)
        RefereeServer(referee_config(app, host.strip("[]"), port, log_level), app).run()
    except KeyboardInterrupt:
        # uvicorn has stopped cleanly and raises Ctrl+C again for whoever runs it: that is
        # us, and one line says all a player needs (not a traceback under the banner).
        pass
    print(f"Stopped; every acknowledged action is in {where}.", flush=True)
    return 0


def _tune(log_level: str, *, json_logs: bool = False) -> None:
    """The process's settings for serving (each worker's too)."""
    if json_logs:
        use_json_logs(log_level)
    else:
        logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    # The log's writer thread (store.GroupCommit) needs the GIL for a moment several times a
    # commit; at the default 5 ms switch interval it waits behind a busy event loop each
    # time (paced engage p50 went 5 -> 24 ms). Half a millisecond keeps it a short wait.
    sys.setswitchinterval(WRITER_SWITCH_INTERVAL)
    # A write allocates thousands of short-lived objects (models, dicts): at Python's default
    # a young collection runs every few requests, and what is alive at that moment (the
    # request's half-built reply) is promoted and later swept again with every table in
    # memory. Fewer young collections leave that garbage to die young: the collector's share
    # of a write's CPU fell from about 0.12 to 0.03 ms (issue 18's write path), and a young
    # collection of this size takes about a millisecond.
    gc.set_threshold(YOUNG_GC_THRESHOLD, 10, 10)


# A worker that stops is started again, but no sooner than this after its last start (one that
# cannot start, say while the database is away, is not restarted in a tight loop).
RESTART_AFTER = 1.0


def run_workers(settings: Settings, host: str, port: int, log_level: str, count: int) -> None:
    """``count`` referee processes on one listening socket, bound here and shared (the kernel
    spreads the connections), each with its own event loop, tables in memory and database
    connections; they hear each other's writes through the database (``Referee.listen``).
    A worker that dies (killed, crashed) is replaced; Ctrl+C or SIGTERM stops them all, each
    answering its held long-polls first.

    Our own small supervisor, not uvicorn's ``workers=``: that one rebuilds the app from an
    import string and serves it with a plain ``uvicorn.Server`` and a pickled ``Config``;
    neither our settings, nor the HTTP protocol class made for these limits (a class made at
    run time does not pickle), nor ``RefereeServer``'s stop would reach the workers."""
    # Bound as uvicorn binds; its "Uvicorn running on ..." line is not said (the banner says
    # where, and a plain line would break --json-logs' one JSON object a line).
    binding = uvicorn.Config(app="unused", host=host, port=port, log_config=None)
    with _quiet_uvicorn():
        listening = binding.bind_socket()
    spawn = multiprocessing.get_context("spawn")  # a fresh interpreter: no forked threads

    def start() -> tuple[multiprocessing.process.BaseProcess, float]:
        worker = spawn.Process(
            target=_worker,
            args=(settings, host, port, log_level, listening),
            name="tankref-worker",
        )
        worker.start()
        return worker, time.monotonic()

    stopping = threading.Event()
    before = {
        sig: signal.signal(sig, lambda *_: stopping.set())
        for sig in (signal.SIGINT, signal.SIGTERM)
    }
    workers = [start() for _ in range(count)]
    try:
        while not stopping.wait(0.2):
            for n, (worker, started) in enumerate(workers):
                if worker.is_alive() or time.monotonic() - started < RESTART_AFTER:
                    continue
                log.warning(
                    "worker %s stopped (exit %s); starting another", worker.pid, worker.exitcode
                )
                workers[n] = start()
    finally:
        for worker, _ in workers:
            if worker.is_alive():
                worker.terminate()  # SIGTERM: uvicorn's graceful stop
        for worker, _ in workers:
            worker.join(10)
            if worker.is_alive():
                worker.kill()
                worker.join()
        for sig, handler in before.items():
            signal.signal(sig, handler)
        listening.close()


@contextmanager
def _quiet_uvicorn() -> Iterator[None]:
    said = logging.getLogger("uvicorn.error")
    level = said.level
    said.setLevel(logging.WARNING)
    try:
        yield
    finally:
        said.setLevel(level)


def _worker(
    settings: Settings, host: str, port: int, log_level: str, listening: socket.socket
) -> None:
    """One of ``run_workers``' processes."""
    _tune(log_level, json_logs=settings.profile.json_logs)
    try:
        app = create_app(settings)
        RefereeServer(referee_config(app, host, port, log_level), app).run(sockets=[listening])
    except KeyboardInterrupt:
        pass


def hosted_lines(profile: Profile) -> list[str]:
    """What the hosted profile does, said under the banner."""
    expiry = profile.expire_after_hours
    return [
        "hosted profile: meant to sit behind a TLS-terminating reverse proxy "
        f"(X-Forwarded-For trusted from {', '.join(profile.forwarded_allow_ips) or 'nobody'})",
        f"  at most {profile.tables_per_hour} new tables an hour per address"
        if profile.tables_per_hour is not None
        else "  no limit on new tables",
        f"  tables without a write for {expiry:g} hours are ended (seed revealed, kept)"
        if expiry is not None
        else "  tables never expire",
        "  logs: one JSON object a line on stderr" if profile.json_logs else "  logs: plain text",
    ]


WILDCARDS = ("0.0.0.0", "::", "[::]", "")


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def banner(host: str, port: int) -> list[str]:
    """The addresses to open, first line first. Bound to every interface (0.0.0.0, ::),
    that address is not one a browser opens: this computer's loopback and, when found,
    its address on the local network instead."""
    if host not in WILDCARDS:
        url = f"http://{_bracketed(host)}:{port}"
        return [f"tankref referee on {url}  (live page: {url}/, API docs: {url}/docs)"]
    ipv6 = ":" in host
    # Bound to ::, IPv4 reaches it only where the system maps it (not on Windows): [::1].
    here = f"http://{'[::1]' if ipv6 else '127.0.0.1'}:{port}"
    lines = [
        f"tankref referee on {here}  (live page: {here}/, API docs: {here}/docs)",
        f"listening on all interfaces ({_bracketed(host or '0.0.0.0')}:{port})",
    ]
    lan = lan_address(ipv6=ipv6)
    if lan is not None:
        lines.append(f"from other computers on your network: http://{_bracketed(lan)}:{port}")
    return lines


def lan_address(*, ipv6: bool = False) -> str | None:
    """This computer's address on its local network, if it has one: the source address the
    system would pick to reach a documentation address (RFC 5737 / RFC 3849; a UDP
    "connect" sends nothing)."""
    family, probe = (socket.AF_INET6, "2001:db8::1") if ipv6 else (socket.AF_INET, "192.0.2.1")
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect((probe, 9))
            address = str(s.getsockname()[0])
    except OSError:
        return None
    if address.startswith(("127.", "0.")) or address in ("::1", "::"):
        return None
    return address
