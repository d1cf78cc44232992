-- seats: who may do what at the table. TTS passes the seat colour of the player behind every
-- click, drop, menu item and chat line; New table maps the ruleset's sides to seats (a side
-- named after a TTS colour sits there; others take Red, then Blue). Only a side's seat moves
-- and orders its units. The host and promoted players are the table's referee: they may act
-- for any side (the chat says so), and only they create tables, change the referee URL, end
-- the game or give rulings. A side's player may ask for their own seat link.
local util = use("util")
local model = use("model")

local M = {}

M.COLOURS = { "White", "Brown", "Red", "Orange", "Yellow", "Green", "Teal", "Blue", "Purple", "Pink", "Grey", "Black" }
local FALLBACK = { "Red", "Blue", "White", "Green", "Yellow", "Purple" }

local function is_colour(name)
  for _, c in ipairs(M.COLOURS) do
    if c == name then
      return true
    end
  end
  return false
end

-- side id -> seat colour, saved with the game (state.seats).
function M.assign(players)
  local seats, taken = {}, {}
  for _, side in ipairs(players or {}) do
    local id = type(side) == "table" and side.id or side
    if type(id) == "string" and is_colour(id) then
      seats[id] = id
      taken[id] = true
    end
  end
  for _, side in ipairs(players or {}) do
    local id = type(side) == "table" and side.id or side
    if type(id) == "string" and seats[id] == nil then
      for _, c in ipairs(FALLBACK) do
        if not taken[c] then
          seats[id], taken[c] = c, true
          break
        end
      end
    end
  end
  model.state.seats = seats
  return seats
end

function M.seat_of(side)
  local seats = model.state.seats or {}
  if seats[side] ~= nil then
    return seats[side]
  end
  if side ~= nil and is_colour(side) then
    return side -- a table from before seats were saved: sides are named after colours
  end
  return nil
end

local function player(colour)
  if type(colour) ~= "string" or not is_colour(colour) then
    return nil
  end
  return Player[colour]
end

function M.is_referee(colour)
  local p = player(colour)
  return p ~= nil and (p.host == true or p.promoted == true)
end

-- "Rita (White)" for the chat.
function M.who(colour)
  local p = player(colour)
  local name = p ~= nil and p.steam_name or nil
  if type(name) == "string" and name ~= "" then
    return name .. " (" .. util.str(colour) .. ")"
  end
  return util.str(colour)
end

function M.side_of(colour)
  if colour == nil then
    return nil
  end
  for side, seat in pairs(model.state.seats or {}) do
    if seat == colour then
      return side
    end
  end
  for _, side in ipairs(model.state.players or {}) do
    if M.seat_of(side) == colour then
      return side
    end
  end
  return nil
end

-- The same line again within a moment (a turn and a drop of one model) is said once.
local last_line, last_at = nil, -10

local function note(text, colour)
  local now = os.time()
  if text == last_line and now - last_at < 2 then
    return
  end
  last_line, last_at = text, now
  printToAll(text, colour)
end

local function refuse(text)
  note("tankref: " .. text, { 1, 0.5, 0.3 })
  return nil
end

-- May `colour` order the units of `side` (`what` names the order)? The `by` the referee logs
-- ({seat, as_referee}), or nil after saying why not in the chat.
function M.order_for(colour, side, what)
  if colour ~= nil and M.seat_of(side) == colour then
    return { seat = colour, as_referee = false }
  end
  if M.is_referee(colour) then
    note(string.format("tankref: %s acts for %s as the table's referee: %s.", util.str(M.who(colour)), util.str(side), util.str(what)), { 0.9, 0.8, 0.5 })
    return { seat = colour, as_referee = true }
  end
  return refuse(string.format("%s may not order %s's units (%s); only the %s seat or the host may.", util.str(M.who(colour)), util.str(side), util.str(what), util.str(M.seat_of(side))))
end

-- Table-wide game steps (crew roll, start game, end phase, retry): a side's seat or a referee.
function M.table_order(colour, what)
  if colour ~= nil and M.side_of(colour) ~= nil then
    return { seat = colour, as_referee = false }
  end
  if M.is_referee(colour) then
    return { seat = colour, as_referee = true }
  end
  return refuse(string.format("%s sits at no side of this table: %s is for the players or the host.", util.str(M.who(colour)), util.str(what)))
end

-- New table, the referee URL, end of game, rulings: the host or a promoted player only.
function M.referee_only(colour, what)
  if M.is_referee(colour) then
    return true
  end
  refuse(string.format("%s is for the host or a promoted player (%s may not).", util.str(what), util.str(M.who(colour))))
  return false
end

-- "!tankref seatlink": the typing player's own seat link (the live page as their side: its
-- seed, its void), printed to that player alone: it is a secret like their seat token.
function M.send_link(colour)
  local function tell(text, tint)
    printToColor(text, colour, tint or { 1, 0.5, 0.3 })
  end
  if not model.has_table() then
    tell("tankref: there is no table yet: the host presses New table first.")
    return
  end
  local side = M.side_of(colour)
  if side == nil then
    tell("tankref: " .. util.str(M.who(colour)) .. " sits at no side of this table: a seat link is for a side's own player.")
    return
  end
  local link = model.seat_link(side)
  if link == nil then
    tell("tankref: this table was made before seat tokens: " .. util.str(side) .. " has no seat link.")
    return
  end
  tell("tankref: your seat link for " .. util.str(side) .. " (a secret: whoever opens it gives your seed and asks your voids; share it with nobody): " .. link, { 0.6, 1, 0.6 })
end

return M
