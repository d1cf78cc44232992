-- rulesets: EVERYTHING THE SCRIPTS KNOW PER RULESET, in this one table. Menus are built from
-- what the referee says a unit may do (GET .../options, see orders.lua); this table only
-- names things and covers the choices the generic option data cannot express. A ruleset
-- added to the referee needs an entry here (a title and its setups) and nothing else.
local M = {}

M.ORDER = { "ttt", "afv", "mtc", "yrd" }

M.RULESETS = {
  ttt = {
    title = "TinyTableTopTanks",
    setup_word = "Scenario",
    setups = {
      { key = "meeting", label = "Meeting Engagement", setup = { scenario = { kind = "meeting" } } },
      { key = "ambush", label = "Ambush (Blue ambushes)", setup = { scenario = { kind = "ambush", ambusher = "Blue" } } },
      { key = "objective", label = "Objective (Blue defends)", objective = true, setup = { scenario = { kind = "objective", defender = "Blue" } } },
    },
    players = { { id = "Red", edge = "south" }, { id = "Blue", edge = "north" } },
    board = { { kind = "crew_roll", label = "Crew roll" }, { kind = "start_game", label = "Start game" }, { kind = "end_phase", label = "End phase" } },
    unit_extra = { { kind = "end_phase", label = "End phase" } }, -- its options have no End phase
    reserve = true, -- a model off the play area is in reserve
    arcs = true, -- its units' menus offer "Show arcs" (aids.lua)
    terrain = {
      { tag = "forest", kind = "forest" }, { tag = "building", kind = "blocking" },
      { tag = "blocking", kind = "blocking" }, { tag = "cover+1", kind = "cover1" },
      { tag = "cover1", kind = "cover1" }, { tag = "cover+2", kind = "cover2" },
      { tag = "cover2", kind = "cover2" }, { tag = "hill", kind = "hill" },
    },
    labels = { engage = "Engage", smoke = "Smoke" },
    verbs = { engage = "Fire" },
    -- Smoke: one item per usable ability; a mortar's lands where the player points.
    special = { smoke = "abilities" },
  },
  afv = {
    title = "AFV",
    setup_word = "Setup",
    setups = {
      { key = "standard", label = "10 turns", setup = { options = { turn_limit = 10 } } },
      { key = "short", label = "6 turns", setup = { options = { turn_limit = 6 } } },
    },
    players = { { id = "Red", edge = "south" }, { id = "Blue", edge = "north" } },
    board = { { kind = "start_game", label = "Start game" }, { kind = "end_phase", label = "End phase" } },
    unit_extra = { { kind = "end_phase", label = "End phase" } },
    terrain = {
      { tag = "hill", kind = "hill" }, { tag = "woods", kind = "woods" }, { tag = "forest", kind = "woods" },
      { tag = "cover", kind = "cover" }, { tag = "rough", kind = "rough" }, { tag = "mud", kind = "mud" },
      { tag = "soft", kind = "soft" },
    },
    verbs = { fire = "Fire", spot = "Spot" },
    -- Embark names its carrier; disembark needs a point on the table.
    special = { embark = "carriers", disembark = "point" },
  },
  mtc = {
    title = "Minimal Tank Combat",
    setup_word = "Setup",
    -- The hex grid must match the save's TTS grid (tankref tts-save --ruleset mtc).
    setups = {
      { key = "hexes", label = "2-inch hexes", setup = { grid = { hex_width = 2.0, orientation = "pointy", origin_x = 0, origin_z = 0 } } },
    },
    players = { "Red", "Blue" },
    board = { { kind = "start_game", label = "Start game" }, { kind = "end_phase", label = "End phase" } },
    terrain = {
      { tag = "clear", kind = "clear" }, { tag = "rubble", kind = "rubble" }, { tag = "crater", kind = "crater" },
      { tag = "road", kind = "road" }, { tag = "town", kind = "town" },
    },
    verbs = { fire = "Fire" },
    -- Combined fire: the shooter and the friends the player adds fire together (tank_ids).
    special = { fire = "partners" },
  },
  yrd = {
    title = "Tank yard",
    setup_word = "Setup",
    setups = {
      { key = "even", label = "defence 0 / 0", setup = { players = { { id = "Red", defence = 0 }, { id = "Blue", defence = 0 } } } },
      { key = "dug_in", label = "defence 1 / 2", setup = { players = { { id = "Red", defence = 1 }, { id = "Blue", defence = 2 } } } },
    },
    board = { { kind = "start_game", label = "Start game" }, { kind = "end_turn", label = "End turn" } },
    terrain = {}, -- the yard has no terrain
    labels = { anti_tank = "Anti-tank" },
    verbs = { attack = "Attack", anti_tank = "Fire" },
  },
}

function M.get(name)
  return M.RULESETS[name] or M.RULESETS.ttt
end

-- The chosen setup of the chosen ruleset (the first when the key is unknown).
function M.setup(state)
  local r = M.get(state.ruleset)
  for _, s in ipairs(r.setups) do
    if s.key == state.setup then
      return s
    end
  end
  return r.setups[1]
end

-- The setup of the table in play (chosen when it was created).
function M.table_setup(state)
  return M.setup({ ruleset = state.table_ruleset or state.ruleset, setup = state.table_setup })
end

-- The table to ask the referee for (POST /tables body, without dice).
function M.table_body(state)
  local r = M.get(state.ruleset)
  local setup = {}
  for k, v in pairs(M.setup(state).setup) do
    setup[k] = v
  end
  if r.players ~= nil and setup.players == nil then
    setup.players = r.players
  end
  return { ruleset = state.ruleset or "ttt", setup = setup }
end

return M
