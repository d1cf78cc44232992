"""Takes the README's screenshot of the live page (docs/img/page.png) from a real demo game.

It starts a referee on a temporary database and a free port, plays `tankref demo` against it,
opens the page on the demo's table in Debian's Chromium through Playwright (which never
downloads a browser here), picks a tank so its odds show, and saves the picture. Run it from
the repository with the test extras installed (`python -m pip install -e ".[test]"`):

    python docs/tools/screenshot.py [--out docs/img/page.png] [--width 1280 --height 720]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_health(url: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"no referee answered at {url}/health within {seconds:.0f} s")


def take(url: str, out: Path, size: tuple[int, int], pick: str, profile: Path) -> None:
    tables = httpx.get(f"{url}/tables", timeout=10).json()
    rows = tables["tables"] if isinstance(tables, dict) else tables
    table_id = rows[-1]["table_id"] if "table_id" in rows[-1] else rows[-1]["id"]
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": size[0], "height": size[1]},
        )
        page = context.new_page()
        page.goto(f"{url}/#/tables/{table_id}")
        page.wait_for_selector("#log > li")
        tank = page.locator(f'#board .tank[data-tank="{pick}"]')
        if tank.count():
            tank.first.click()  # a picked tank shows its odds against each enemy
        page.wait_for_timeout(1500)  # let the odds and luck panels draw
        out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out))
        context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "page.png")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--seed", type=int, default=1, help="the demo's dice seed")
    parser.add_argument("--pick", default="R1", help="the tank whose odds show (default R1)")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing: apt-get install -y chromium")
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        serve = [sys.executable, "-m", "tankref", "serve", "--port", str(port)]
        referee = subprocess.Popen(
            [*serve, "--db", str(Path(tmp) / "tankref.sqlite3")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_health(url)
            demo = [sys.executable, "-m", "tankref", "demo", "--url", url]
            subprocess.run(
                [*demo, "--seed", str(args.seed)],
                check=True,
                stdout=subprocess.DEVNULL,
                stdin=subprocess.DEVNULL,
                timeout=300,
            )
            take(url, args.out, (args.width, args.height), args.pick, Path(tmp) / "profile")
        finally:
            referee.terminate()
            referee.wait(timeout=30)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
