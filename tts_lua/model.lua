-- model: what Global remembers. `state` is saved with the game (onSave) so a reloaded table
-- resumes: referee URL, table id and token, the last log entry drawn, the request counter
-- (ids must never repeat on a table) and the smoke screens being drawn.
local util = use("util")
local rulesets = use("rulesets")

local M = {}

M.DEFAULT_URL = "http://127.0.0.1:8765"

M.state = {
  url = M.DEFAULT_URL,
  table_id = nil,
  token = nil,
  seat_tokens = nil, -- side -> that side's own seat token (a void, its seed): secrets, like token
  seat_links = nil, -- side -> that side's seat link (the live page as that seat): secrets too
  last_rolled = nil, -- seq of the latest entry drawn that rolled dice ("!tankref void" voids it)
  seq = 0, -- every log entry up to here has been drawn
  counter = 0,
  session = nil,
  ruleset = "ttt", -- the board's choice for the next table
  setup = nil, -- the key of that ruleset's setup choice (nil: its first)
  table_ruleset = nil, -- the ruleset of the table in play
  table_setup = nil, -- and its setup's key
  players = nil, -- the table's players, as the referee names them
  dice = "server",
  cards = "referee", -- who draws TTT's damage cards at the next table: referee | table
  seed = nil, -- tests and demos only: the referee's seed (the table is marked seed_chosen)
  status = nil,
  smoke = {}, -- smoke id (string) -> {x, z, strength}
  pending = nil, -- a write that got no answer: Retry sends it again, same request id
}

-- Per-session data, not saved: rebuilt from the referee on load.
M.shown = {} -- seq -> true for entries drawn out of order (above state.seq)
M.known = {} -- tank guid -> {x, z, facing} as the referee last confirmed it
M.markers = {} -- tank guid -> marker list (badges)
M.picks = {} -- tank guid -> {label, tooltip} while a target is being picked
M.rout = {} -- tank guid -> {x, z}: where a Routed tank must drive
M.moving = {} -- tank guid -> true from a player's drop/turn until the referee answers it

function M.load(saved)
  if saved == nil or saved == "" then
    return
  end
  local ok, data = pcall(JSON.decode, saved)
  if not ok or type(data) ~= "table" then
    return
  end
  for k, v in pairs(data) do
    M.state[k] = v
  end
  if type(M.state.smoke) ~= "table" then
    M.state.smoke = {}
  end
  -- A save edited by hand may name a URL the board cannot use: said once, and the board
  -- asks the default referee until the host sets another.
  local url, why = util.referee_url(M.state.url)
  if url == nil then
    local problem = string.format("tankref: the save's referee URL %s is not one (%s): give %s "
      .. "with !tankref url. Using %s meanwhile.", util.str(M.state.url), util.str(why),
      util.str(util.URL_FORM), util.str(M.DEFAULT_URL))
    M.state.url = M.DEFAULT_URL
    return problem
  end
  M.state.url = url
end

function M.save()
  return JSON.encode(M.state)
end

function M.table_ruleset()
  return M.state.table_ruleset or M.state.ruleset or "ttt"
end

function M.has_table()
  return M.state.table_id ~= nil and M.state.token ~= nil
end

function M.new_table(table_id, token, seat_tokens, seat_links)
  M.state.table_id = table_id
  M.state.token = token
  M.state.seat_tokens = seat_tokens or {}
  M.state.seat_links = seat_links or {}
  M.state.last_rolled = nil
  M.state.seq = 0
  M.state.smoke = {}
  M.state.pending = nil
  M.state.status = "setup"
  M.shown, M.known, M.markers, M.picks, M.rout, M.moving = {}, {}, {}, {}, {}, {}
  -- A fresh prefix per table keeps ids unique even if the counter was lost with a save.
  -- os.time() is fractional in MoonSharp: whole seconds, so ids keep to [A-Za-z0-9._:-].
  M.state.session = string.format("%d", math.floor(os.time()))
  M.state.counter = 0
end

-- A side's seat link, as the referee made it at New table; a table made before the referee
-- gave seat links has its link made here the referee's way, from the board's referee URL.
function M.seat_link(side)
  local link = (M.state.seat_links or {})[side]
  if link ~= nil then
    return link
  end
  local token = (M.state.seat_tokens or {})[side]
  if token == nil or M.state.table_id == nil then
    return nil
  end
  return M.state.url .. "/#/tables/" .. util.escape(M.state.table_id) .. "/seat/"
    .. util.escape(side) .. "/" .. util.escape(token)
end

-- A loaded or rewound game starts a fresh id prefix: a rewind brings back an older counter,
-- and an id the referee has seen would answer with that older request's result.
function M.fresh_session()
  M.state.session = string.format("%d.%d", math.floor(os.time()), math.random(1, 999999))
end

function M.next_request_id()
  M.state.counter = M.state.counter + 1
  return string.format("tts-%s-%d", util.str(M.state.session or "0"), M.state.counter)
end

-- True the first time an entry is seen; keeps state.seq at the highest entry below which
-- everything has been drawn, so the long-poll never skips one that arrived out of order.
function M.mark_shown(seq)
  if seq <= M.state.seq or M.shown[seq] then
    return false
  end
  M.shown[seq] = true
  while M.shown[M.state.seq + 1] do
    M.shown[M.state.seq + 1] = nil
    M.state.seq = M.state.seq + 1
  end
  return true
end

-- Tanks carry their card and owner in tags ("card:tiger-i", "side:Red") so players can set
-- up their own pieces without editing scripts.
function M.is_tank(obj)
  return obj ~= nil and obj.hasTag("tank")
end

function M.tank_info(obj)
  return {
    card = util.tag_value(obj, "card:"),
    player = util.tag_value(obj, "side:"),
  }
end

-- Terrain tags as players say them, mapped to the table ruleset's kinds (rulesets.lua).
function M.terrain_kind(obj)
  if obj == nil or not obj.hasTag("terrain") then
    return nil
  end
  for _, t in ipairs(rulesets.get(M.table_ruleset()).terrain) do
    if obj.hasTag(t.tag) then
      return t.kind
    end
  end
  return nil
end

function M.is_objective(obj)
  return obj ~= nil and obj.hasTag("objective")
end

return M
