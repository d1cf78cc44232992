"""`tankref tts-save PATH`: where the save goes. A path that is not there and is not a
.json name is refused (a file named like the folder would be one TTS never lists) unless
--mkdir; a folder gets the next numbered name; TTS's Saves folder is recognised (where TTS
keeps saves per OS: /work/shared/tts/FACTS.md); the chosen full path is printed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tankref.cli import main, tts_saves_folder

# Where TTS keeps its saves on this OS, under the home folder (FACTS.md, "Saves live in").
TTS_SAVES = {
    "win32": ("Documents", "My Games", "Tabletop Simulator", "Saves"),
    "darwin": ("Library", "Tabletop Simulator", "Saves"),
    "linux": (".local", "share", "Tabletop Simulator", "Saves"),
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("USERPROFILE", str(folder))  # Path.home() on Windows
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["tts-save", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_path_that_is_not_there_and_not_json_is_refused(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A typo'd or never-made Saves folder: exit 2, the reason, where TTS keeps saves and
    --mkdir; nothing is written (the name stays free for the folder)."""
    missing = home / "Tabletop Simulator" / "Savse"
    code, out, err = run(capsys, str(missing))
    assert code == 2 and out == ""
    assert f"no folder {missing}" in err and "--mkdir" in err and ".json" in err
    assert str(tts_saves_folder()) in err
    assert len(err.strip().splitlines()) == 1
    assert not missing.exists()


def test_mkdir_creates_the_folder_and_the_save_takes_a_numbered_name(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = home / "new" / "folder"
    code, out, err = run(capsys, str(target), "--mkdir")
    assert code == 0, err
    assert target.is_dir()
    written = target / "TS_Save_1.json"
    assert json.loads(written.read_text(encoding="utf-8"))["ObjectStates"]
    assert f"Created the folder {target.resolve()}." in out
    assert f"Wrote {written.resolve()}:" in out  # the chosen full path


def test_an_existing_folder_gets_the_next_free_name_inside(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = home / "mysaves"
    folder.mkdir()
    (folder / "TS_Save_4.json").write_text("{}")
    code, out, _ = run(capsys, str(folder))
    assert code == 0
    assert f"Wrote {(folder / 'TS_Save_5.json').resolve()}:" in out
    assert "Saves" not in out.split("Wrote")[0]  # nothing said about a Saves folder


def test_ttss_own_saves_folder_is_recognised(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The folder where TTS keeps saves on this OS is named as TTS's Saves folder."""
    saves = home.joinpath(*TTS_SAVES.get(sys.platform, TTS_SAVES["linux"]))
    assert tts_saves_folder() == saves
    saves.mkdir(parents=True)
    code, out, _ = run(capsys, str(saves))
    assert code == 0
    assert f"{saves.resolve()} is Tabletop Simulator's Saves folder" in out
    assert f"Wrote {(saves / 'TS_Save_1.json').resolve()}:" in out


def test_a_folder_named_saves_elsewhere_is_told_where_tts_looks(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = home / "Desktop" / "Saves"
    elsewhere.mkdir(parents=True)
    code, out, _ = run(capsys, str(elsewhere))
    assert code == 0
    assert f"is named Saves, but TTS keeps its saves in {tts_saves_folder()}" in out
    assert (elsewhere / "TS_Save_1.json").is_file()


def test_a_json_name_in_a_missing_folder_is_refused(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = home / "nowhere" / "table.json"
    code, out, err = run(capsys, str(target))
    assert code == 2 and out == ""
    assert f"no folder {target.parent}" in err
    assert not target.parent.exists()


def test_a_json_name_and_a_url_without_a_scheme(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new .json name is written as given; `--url 10.0.0.5:9000` is the http:// URL."""
    target = home / "table.json"
    code, out, err = run(capsys, str(target), "--url", "10.0.0.5:9000")
    assert code == 0, err
    save = json.loads(target.read_text(encoding="utf-8"))
    assert json.loads(save["LuaScriptState"]) == {"url": "http://10.0.0.5:9000"}
    assert f"Wrote {target.resolve()}:" in out


def test_as_a_player_runs_it(tmp_path: Path) -> None:
    """The refusal in a real process: exit 2, one line, no traceback, no file."""
    done = subprocess.run(
        [sys.executable, "-m", "tankref", "tts-save", "Saves"],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "--mkdir" in done.stderr
    assert not (tmp_path / "Saves").exists()
