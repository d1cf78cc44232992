-- rulesets: what the scripts know per ruleset, learnt from the referee (GET /rulesets: each
-- ruleset's title, ready setups and the board's words for it, as its plug-in declares them).
-- Menus are built from what the referee says a unit may do (GET .../options, see orders.lua);
-- these entries only name things and cover the choices the option data cannot express. A
-- ruleset added to the referee needs nothing here.
local M = {}

M.ORDER = {} -- the referee's rulesets, in its order
M.RULESETS = {}
M.loaded = false

-- A ruleset the referee has not described (yet): enough to draw the board and say so.
local function unknown(name)
  return {
    title = tostring(name or "?"),
    setup_word = "Setup",
    setups = { { key = "default", label = "(asking the referee)", setup = {} } },
    board = {},
    terrain = {},
  }
end

-- GET /rulesets's body: one entry per ruleset, its board words under `board`.
function M.learn(list)
  M.ORDER = {}
  M.RULESETS = {}
  for _, r in ipairs(list or {}) do
    local hints = r.board or {}
    table.insert(M.ORDER, r.name)
    M.RULESETS[r.name] = {
      title = r.title,
      setup_word = hints.setup_word or "Setup",
      setups = r.setups,
      players = hints.players,
      board = hints.board or {},
      unit_extra = hints.unit_extra or {},
      reserve = hints.reserve == true,
      arcs = hints.arcs == true, -- its units' menus offer "Show arcs" (aids.lua)
      terrain = hints.terrain or {},
      labels = hints.labels or {},
      verbs = hints.verbs or {},
      special = hints.special or {},
      damage_deck = r.damage_deck == true,
      terrain_kinds = r.terrain_kinds or {},
    }
  end
  M.loaded = M.ORDER[1] ~= nil
end

function M.get(name)
  return M.RULESETS[name] or unknown(name)
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
  for k, v in pairs(M.setup(state).setup or {}) do
    setup[k] = v
  end
  if r.players ~= nil and setup.players == nil then
    setup.players = r.players
  end
  if next(setup) == nil then
    return { ruleset = state.ruleset or "ttt" } -- an empty table would go as [] (JSON.encode)
  end
  return { ruleset = state.ruleset or "ttt", setup = setup }
end

return M
