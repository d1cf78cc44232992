"""What Tabletop Simulator's physical world is, as far as the save writer needs it.

Every number here has a source: a real public save (repository, path, commit), the Knowledge
Base's save format (Berserk-Games/Tabletop-Simulator-Knowledge-Base
``docs/custom-content/save-file-format.md`` @ 6aa30656) or the API docs
(Berserk-Games/Tabletop-Simulator-API ``docs/``). The readings themselves are summarised in
``tests/tts/real_saves.json``; the fake TTS takes its facts from that summary, never from here,
so a wrong number here fails a test. 1 world unit = 1 inch; y is up; +z is north.

The table: ``Table_None`` (no table at all) under one large locked ``BlockSquare`` that is the
surface. The stock tables are too small for a 72" x 48" field with dice trays, the board and
reserve zones beside it (``Table_RPG``'s hand zones, at the rim of its flat top, sit at
x +-30, z +-20: Buyn/TTS_save ``Chess/TS_Save_3.json`` @ a4f5ac2c); a real save that needed more
room does the same (xexuxjy/Saves ``TS_Save_89.json`` @ 30a24069: ``Table_None`` over a locked
200 x 200 tile).
"""

from __future__ import annotations

from dataclasses import dataclass

TABLE = "Table_None"  # a table name TTS knows (API docs ``docs/tables.md`` @ ee9e5d15)

# The height of a stock table's top, kept for the surface so the camera, hand zones and the
# grid (whose PosOffset y defaults to 1: Knowledge Base GridState) sit as on any table:
# a 0.1-thick BlockSquare rests at 1.01, a 0.01-thick BlockRectangle at 0.965 and zero-height
# ones at 0.96 (timur-tabi/canterbury-tts ``TS_Save_1.json`` @ 2d5bb294); Die_6 at scales 0.4
# and 0.45 rest at 1.0921 and 1.1086, which solves to a top of 0.960 (Buyn/TTS_save
# ``Chess/TS_Save_31.json`` @ a4f5ac2c, Table_RPG).
TOP = 0.96

# Built-in objects' sizes at scale 1 (x, y, z), and where their origin rests above what they
# stand on when that is not half their height (models whose pivot is not their centre).
# BlockSquare: "a red cube" (API docs ``docs/built-in-object.md`` @ 0d4d238b), 1 high at
# scale 1 (canterbury-tts above: 0.1 thick rests at top + 0.05, 0 thick at the top): every
# block here is a BlockSquare whose scale is its size in inches.
# Die_6: 0.66 a side at scale 1, from the two resting heights above:
# 2 x (1.1086 - 1.0921) / (0.45 - 0.40) = 0.66.
DIE_6 = 0.66
# Die_6_Rounded: rests at 1.31 at scale 1 on Table_RPG: 2 x (1.31 - 0.96) = 0.70
# (Buyn/TTS_save ``Chess/TS_Save_31.json`` @ a4f5ac2c). Its MaterialIndex picks the colour:
# "D6 Red" is MaterialIndex 1, "D6 Green" 2, "D6 Black" 0, "D6 Blue" 3; the plain "D6" is
# Die_6 MaterialIndex 0 (API docs ``docs/built-in-object.md``; the same saves' ColorDiffuse
# per index agree).
DIE_6_ROUNDED = 0.70
DIE_6_ROUNDED_RED = 1
DIE_6_ROUNDED_GREEN = 2
# Die_20: a built-in (API docs) that no real save in the summary shows resting (the Knowledge
# Base's example has one, tumbling); placed as a short drop: its centre 0.6 above the tray,
# which TTS settles on load. Not confirmed.
DIE_20_DROP = 0.6
# Tileset_Tree / Tileset_Rock (locked dressing): their origin rests 1.6773 / 1.1904 above the
# top at scale 1 (unlocked, settled: Buyn/TTS_save ``Chess/TS_Save_3.json`` @ a4f5ac2c, 2.6373
# and 2.1504 on Table_RPG). Their footprint is not known from a save: kept small and well
# inside the terrain they dress.
TREE_REST = 1.6773
ROCK_REST = 1.1904

# Hand zones: real saves put them just past the rim of the flat top, about 4.8 above it and
# 11.8 x 9.2 x 4.9 in size, turned to face the table (Buyn/TTS_save ``TS_Save_1.json``
# @ a4f5ac2c: Blue at z -20.14 rotY 0; Chess/TS_Save_3: Blue at z +19.84 rotY 180).
HAND_Y = 4.82
HAND_SCALE = (11.77, 9.17, 4.87)

# Grid conventions: 1 world unit is 1 inch on TTS's ruler; y is up; an object at rotation y 0
# faces +z and yaw turns +z toward +x, so its forward is (sin yaw, cos yaw) in (x, z)
# (/work/shared/tts/FACTS.md, from the API docs). The save's Grid.Type counts GridType
# Box, HexHorizontal, HexVertical from 0 (Knowledge Base GridState): 1 is HexHorizontal.
GRID_HEX_HORIZONTAL = 1

# The layout (our choices, in inches): the surface holds the field and, outside it, the dice
# tray (west), the damage block (east), the board (south-east) and each side's reserve strip
# behind its own edge.
FIELD_X, FIELD_Z = 72.0, 48.0
SURFACE_X, SURFACE_Z = 104.0, 76.0
MAT_THICK = 0.1  # the field mat shows 0.1 above the surface
FOOTPRINT_THICK = 0.1  # area terrain: a flat footprint the tanks drive onto
ROUND_FOOTPRINT_THICK = 0.02  # round terrain: a near-flush footprint, its edge drawn round


@dataclass(frozen=True)
class Box:
    """A locked slab: centre x/z, size x/z, and the height of its top."""

    x: float
    z: float
    size_x: float
    size_z: float
    thick: float
    base: float  # what it stands on

    @property
    def y(self) -> float:
        return self.base + self.thick / 2

    @property
    def top(self) -> float:
        return self.base + self.thick


SURFACE = Box(0.0, 0.0, SURFACE_X, SURFACE_Z, 1.0, TOP - 1.0)
FIELD = Box(0.0, 0.0, FIELD_X, FIELD_Z, MAT_THICK, TOP)
DICE_TRAY = Box(-44.0, 0.0, 11.0, 24.0, MAT_THICK, TOP)
RESERVES = {
    "Red": Box(0.0, -30.5, 40.0, 6.0, MAT_THICK, TOP),
    "Blue": Box(0.0, 30.5, 40.0, 6.0, MAT_THICK, TOP),
}
BOARD = Box(40.0, -31.0, 10.0, 6.0, 0.2, TOP)
DAMAGE_BLOCK = Box(44.0, 0.0, 2.5, 3.5, 0.6, TOP)

# Seats: Red plays from the south edge (-z), Blue from the north (+z). A button's position,
# rotation and scale are relative to its object's (API docs ``docs/object.md`` @ 4146a0a3,
# createButton); it is read upright from +z at rotation 0, so a player at -z needs rotation
# y 180 (/work/shared/tts/FACTS.md). tts_lua/seatview.lua turns and un-stretches them.
HANDS = {
    "Red": (0.0, -(SURFACE_Z / 2 + 3.0), 0.0),
    "Blue": (0.0, SURFACE_Z / 2 + 3.0, 180.0),
}


def rest_on(top: float, height: float) -> float:
    """The centre height of a piece of ``height`` resting on a top at ``top``."""
    return top + height / 2
