"""Table dice through the Lua: the referee answers DICE_NEEDED, the script rolls that many
physical dice of that colour, waits until they rest, reads their faces and sends the whole
action again under the same request id; nothing applies until it is complete."""

from __future__ import annotations

import json

from ttsplay import Game, Table, guid_of

from serverkit import LiveReferee


def _actions_sent(game: Game) -> list[dict[str, object]]:
    return [json.loads(body) for method, url, body in game.tts.requests if url.endswith("/actions")]


def test_physical_dice_are_rolled_read_and_sent(referee: LiveReferee, tts_table: Table) -> None:
    tts = tts_table(referee.url, keep=("Red 1", "Blue 1"), physics=11)
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    r1, b1 = guid_of(tts, "Red 1"), guid_of(tts, "Blue 1")
    game.press("Dice: the referee rolls")
    assert "Dice: rolled on the table" in tts.buttons(game.board)
    game.press("New table")
    assert game.read()["dice"]["source"] == "table"
    colour = {
        o.guid: tag[4:] for o in tts.objects.values() for tag in o.tags if tag.startswith("die_")
    }

    def rolled(die: str, start: int) -> list[int]:
        return [face for guid, face in tts.rolled[start:] if colour[guid] == die]

    # Crew roll: one green die per crew.
    game.press("Crew roll")
    crew = [e for e in game.read("/log?limit=500")["entries"] if e["kind"] == "crew_roll"]
    assert len(crew) == 1  # applied once, when complete
    assert crew[0]["dice"]["faces"]["green"] == rolled("green", 0)
    sent = [a for a in _actions_sent(game) if a["action"]["kind"] == "crew_roll"]
    # Asked with no dice, then sent again (one die per crew: twice) with every face so far.
    assert len(sent) == 3
    assert len({a["request_id"] for a in sent}) == 1  # the same request id
    assert "dice" not in sent[0]
    assert [a["dice"]["faces"]["green"] for a in sent[1:]] == [
        rolled("green", 0)[:1],
        rolled("green", 0),
    ]

    game.press("Start game")
    mark = len(tts.rolled)
    game.engage(r1, b1)
    engage = [e for e in game.read("/log?limit=500")["entries"] if e["kind"] == "engage"]
    assert len(engage) == 1
    faces = engage[0]["dice"]["faces"]
    assert faces["white"] == rolled("white", mark)  # every white die read, in order
    assert faces.get("red", []) == rolled("red", mark)
    assert tts.said("Rolling 4 white dice for Accuracy")
    assert tts.said("Accuracy: ")
    sent = [a for a in _actions_sent(game) if a["action"]["kind"] == "engage"]
    assert len({a["request_id"] for a in sent}) == 1 and len(sent) >= 2


def test_a_grabbed_or_deleted_die_neither_hangs_nor_crashes_the_read(
    referee: LiveReferee, tts_table: Table
) -> None:
    """FACTS.md: a held die never rests and a deleted one errors on access; the script makes
    its dice non-interactable while read, skips dice in a hand, and rolls a spoilt batch again."""
    tts = tts_table(referee.url, keep=("Red 1", "Blue 1"), physics=5)
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    game.press("Dice: the referee rolls")
    game.press("New table")
    greens = [o.guid for o in tts.tagged("die_green")]
    assert tts.grab(greens[0], color="Blue")  # a player holds one green die before the roll
    tts.click(game.board, "Crew roll", color="Red")
    tts.run_until(lambda: not tts.get(greens[1]).resting, 5, "a green die to be rolled")
    assert tts.get(greens[1]).interactable is False
    assert tts.grab(greens[1], color="Blue") is False  # cannot be taken while it is read
    tts.settle(timeout=30)
    crew = [e for e in game.read("/log?limit=500")["entries"] if e["kind"] == "crew_roll"]
    assert len(crew) == 1 and len(crew[0]["dice"]["faces"]["green"]) == 2
    assert tts.get(greens[1]).interactable is True  # given back once read
    assert tts.get(greens[0]).held_by == "Blue"  # the held die was never rolled

    # A die deleted while it rolls: that batch is rolled again with the dice left.
    tts.release(greens[0])
    tts.run(0.2)
    game.press("Start game")
    game.order(guid_of(tts, "Red 1"), "Engage")
    tts.click(guid_of(tts, "Blue 1"), "Fire", color="Red")
    whites = [o.guid for o in tts.tagged("die_white")]
    tts.run_until(lambda: not tts.get(whites[0]).resting, 5, "the white dice to be rolled")
    tts.destroy(whites[0])
    tts.settle(timeout=30)
    assert tts.said("was taken or deleted while rolling")
    engage = [e for e in game.read("/log?limit=500")["entries"] if e["kind"] == "engage"]
    assert len(engage) == 1
    assert tts.said("Why: ")  # each modifier's reason and clause, under the math
