-- tracker: posts where models stand. A player's drop or turn becomes one request: events for
-- the same model within a short moment (pick up, rotate, drop) are folded into one post, and
-- it is posted once the model rests (physics slides a dropped model a while) and nobody
-- holds it. Only the seat of the model's side (or the table's referee) moves it: any other
-- seat's move is put back, with a line in the chat, and nothing is sent.
local util = use("util")
local model = use("model")
local referee = use("referee")
local actions = use("actions")
local rulesets = use("rulesets")
local seats = use("seats")
local render = use("render")

local M = {}

M.SETTLE_SECONDS = 0.3 -- events within this moment are one change
M.REST_SECONDS = 10 -- a model still not resting by then is posted where it is
local timers = {}
local lifted_at = {} -- guid -> {x, y, z, yaw}: where the model was picked up

-- The play area is 72" x 48" around the origin: a tank put down outside it is in reserve
-- (where the ruleset has reserves).
local AREA = { x = 36, z = 24 }

local function post_tank(obj, by)
  local info = model.tank_info(obj)
  if info.card == nil or info.player == nil then
    printToAll("tankref: " .. obj.getName() .. " needs tags card:<card id> and side:<player>.", { 1, 0.4, 0.3 })
    return
  end
  local pos = obj.getPosition()
  local body = {
    card = info.card,
    player = info.player,
    x = util.round(pos.x, 2),
    z = util.round(pos.z, 2),
    facing = util.yaw(obj.getRotation().y),
  }
  if rulesets.get(model.table_ruleset()).reserve and (math.abs(pos.x) > AREA.x or math.abs(pos.z) > AREA.z) then
    body.reserve = true
  end
  -- In setup the model's name is the player's: sent on every placement, or a second
  -- placement (turned or moved) would fall back to the card's name.
  if model.state.status == "setup" and obj.getName() ~= "" then
    body.name = string.sub(obj.getName(), 1, 80)
  end
  body.by = by
  actions.put(referee.path_tank(obj.getGUID()), body, obj.getName() .. " moved", obj.getGUID())
end

-- A terrain footprint: its bounds as if unrotated, turned by its yaw about its centre
-- (a circle for pieces tagged "round").
local function footprint(obj)
  local pos = obj.getPosition()
  local size = obj.getBoundsNormalized().size
  if obj.hasTag("round") then
    return { shape = "circle", x = util.round(pos.x, 2), z = util.round(pos.z, 2), radius = util.round(math.max(size.x, size.z) / 2, 2) }
  end
  local yaw = math.rad(obj.getRotation().y)
  local c, s = math.cos(yaw), math.sin(yaw)
  local hx, hz = size.x / 2, size.z / 2
  local points = {}
  for _, corner in ipairs({ { -hx, -hz }, { hx, -hz }, { hx, hz }, { -hx, hz } }) do
    -- Unity yaw turns +z toward +x: local (a, b) lands at (a cos + b sin, -a sin + b cos).
    local x = pos.x + corner[1] * c + corner[2] * s
    local z = pos.z - corner[1] * s + corner[2] * c
    table.insert(points, { util.round(x, 2), util.round(z, 2) })
  end
  return { shape = "polygon", points = points }
end

function M.post_terrain(obj)
  local kind = model.terrain_kind(obj)
  if kind == nil then
    return
  end
  local body = { kind = kind, shape = footprint(obj), name = string.sub(obj.getName(), 1, 80) }
  actions.put(referee.path_terrain(obj.getGUID()), body, "terrain " .. obj.getName())
end

function M.post_objective(obj)
  if not rulesets.table_setup(model.state).objective then
    return
  end
  local pos = obj.getPosition()
  actions.put(referee.path_objective(), { x = util.round(pos.x, 2), z = util.round(pos.z, 2) }, "objective")
end

local function post(obj, by)
  if model.is_tank(obj) then
    post_tank(obj, by)
  elseif model.terrain_kind(obj) ~= nil then
    M.post_terrain(obj)
  elseif model.is_objective(obj) then
    M.post_objective(obj)
  end
end

local function ours(obj)
  return model.is_tank(obj) or model.terrain_kind(obj) ~= nil or model.is_objective(obj)
end

-- A player picked something up: remember where, to put it back if the move is not theirs.
function M.lifted(obj, _)
  if obj == nil or not ours(obj) or lifted_at[obj.getGUID()] ~= nil then
    return
  end
  local p = obj.getPosition()
  lifted_at[obj.getGUID()] = { x = p.x, y = p.y, z = p.z, yaw = obj.getRotation().y }
end

-- A move by a seat that may not make it: the model goes back (where the referee has it, or
-- where it was picked up).
local function put_back(obj)
  local guid = obj.getGUID()
  local was = lifted_at[guid]
  lifted_at[guid] = nil
  if model.known[guid] ~= nil and render.revert(guid) then
    return
  end
  if was ~= nil then
    local rot = obj.getRotation()
    obj.setPosition({ was.x, was.y, was.z })
    obj.setRotation({ rot.x, was.yaw, rot.z })
  end
end

local function allowed(obj, colour)
  if model.is_tank(obj) then
    local side = model.tank_info(obj).player
    return seats.order_for(colour, side, obj.getName() .. " moved")
  end
  return seats.table_order(colour, "moving " .. obj.getName())
end

local function stop(guid)
  if timers[guid] ~= nil then
    Wait.stop(timers[guid])
    timers[guid] = nil
  end
end

-- Something was dropped or turned by `colour`'s player: post it once it rests and nobody
-- holds it, if that seat may move it; else put it back.
function M.changed(obj, colour)
  if not model.has_table() or obj == nil or not ours(obj) then
    return
  end
  local guid = obj.getGUID()
  if obj.held_by_color ~= nil then
    return -- turned while carried: the drop that follows decides (and speaks once)
  end
  local by = allowed(obj, colour)
  if by == nil then
    stop(guid)
    put_back(obj)
    return
  end
  if model.is_tank(obj) then
    model.moving[guid] = true
  end
  stop(guid)
  timers[guid] = Wait.time(function()
    local function go()
      timers[guid] = nil
      lifted_at[guid] = nil
      if obj.isDestroyed() or obj.held_by_color ~= nil then
        return -- the drop that ends the hold posts it
      end
      post(obj, by)
    end
    timers[guid] = Wait.condition(go, function()
      return obj.isDestroyed() or (obj.held_by_color == nil and obj.resting)
    end, M.REST_SECONDS, go)
  end, M.SETTLE_SECONDS)
end

-- At table creation: every piece already on the table, terrain and objective first.
function M.post_all()
  local tanks = {}
  for _, obj in ipairs(getObjects()) do
    if model.terrain_kind(obj) ~= nil then
      M.post_terrain(obj)
    elseif model.is_objective(obj) then
      M.post_objective(obj)
    elseif model.is_tank(obj) then
      table.insert(tanks, obj)
    end
  end
  for _, obj in ipairs(tanks) do
    post_tank(obj)
  end
end

return M
