-- render: draws what the referee answers and nothing else. Tooltips are the model's name and
-- description; markers are badges (buttons used as labels) and a highlight; smoke, the
-- objective, routed tanks' destinations and the last line of fire are Global vector lines.
local util = use("util")
local seatview = use("seatview")
local model = use("model")
local rulesets = use("rulesets")

local M = {}

M.LINE_OF_FIRE_SECONDS = 4
M.Y = 1.2 -- height of lines above the table top

local MARKER_COLOURS = {
  Destroyed = { 0.1, 0.1, 0.1 },
  Routed = { 0.9, 0.1, 0.1 },
  Shaken = { 1, 0.55, 0 },
  Grizzled = { 0.2, 0.6, 0.2 },
  ["Moving Fast"] = { 0.2, 0.4, 1 },
  Wait = { 0.6, 0.3, 0.8 },
  Immobilized = { 0.5, 0.5, 0.5 },
}
local HIGHLIGHT_ORDER = { "Destroyed", "Routed", "Shaken", "Immobilized" }
local line_of_fire = nil
local line_timer = nil
local scene_rings = nil -- the referee's rings (scene.lua); nil: draw from smoke events

-- Other modules' lines (aids.lua), asked for on every redraw: functions returning a list.
local layers = {}

function M.add_layer(fn)
  table.insert(layers, fn)
end

function M.set_rings(rings)
  scene_rings = rings
  M.lines()
end

local RING_COLOURS = {
  [2] = { 0.6, 0.6, 0.6 },
  [1] = { 0.85, 0.85, 0.85 },
}

-- The chat: printToAll for what happened and why; broadcastToAll (centre of the screen) only
-- for headlines (a new table, the end of the game).
function M.say(text, colour)
  printToAll(text, colour or { 1, 1, 1 })
end

function M.headline(text, colour)
  broadcastToAll(text, colour or { 1, 1, 1 })
end

function M.warn(text)
  printToAll(text, { 1, 0.4, 0.3 })
end

-- Badges: one label per marker, then the picking buttons while a target is being chosen.
function M.redraw_buttons(obj)
  local guid = obj.getGUID()
  obj.clearButtons()
  for i, marker in ipairs(model.markers[guid] or {}) do
    -- Badges stack down the reader's view, over the turret.
    local at = seatview.place(obj, -0.4 - 0.35 * (i - 1), 0.5)
    obj.createButton({
      click_function = "tankref_noop",
      function_owner = Global,
      label = marker,
      tooltip = marker,
      position = at.position,
      rotation = at.rotation,
      scale = at.scale,
      width = 900,
      height = 160,
      font_size = 120,
      color = MARKER_COLOURS[marker] or { 0.3, 0.3, 0.3 },
      font_color = { 1, 1, 1 },
    })
  end
  local pick = model.picks[guid]
  if pick ~= nil then
    -- A target's pick is read by the side shooting at it: the other side.
    local reader = nil
    if pick.click == "tankref_pick_target" then
      reader = seatview.other(seatview.side_of(obj))
    end
    local at = seatview.place(obj, 0.6, 0.7, reader)
    obj.createButton({
      click_function = pick.click,
      function_owner = Global,
      label = pick.label,
      tooltip = pick.tooltip,
      position = at.position,
      rotation = at.rotation,
      scale = at.scale,
      width = 1800,
      height = 220,
      font_size = 110,
      color = { 1, 0.85, 0.2 },
      font_color = { 0, 0, 0 },
    })
  end
end

local function highlight(obj, markers)
  for _, wanted in ipairs(HIGHLIGHT_ORDER) do
    for _, m in ipairs(markers) do
      if m == wanted then
        obj.highlightOn(MARKER_COLOURS[m])
        return
      end
    end
  end
  obj.highlightOff()
end

-- Entries that take actions back, and moves (a drop snapped to a hex centre or a yard space,
-- a move chosen from the menu): the models go to where the referee now has them.
local RESTORING = { undo = true, void = true, move = true }

-- One tank as the referee sees it (a TankView): tooltip, badges, highlight, facing; with
-- `restore`, its position too (a routed tank's drive is shown as a mark instead: the
-- player moves the model).
function M.tank(view, restore)
  local obj = getObjectFromGUID(view.tank_id)
  if obj == nil then
    return
  end
  obj.setName(view.name)
  obj.setDescription(view.tooltip or "")
  model.markers[view.tank_id] = view.markers or {}
  M.redraw_buttons(obj)
  highlight(obj, view.markers or {})
  model.known[view.tank_id] = { x = view.x, z = view.z, facing = view.facing }
  -- The referee turns models (best armour to the shot): follow it, unless a player holds
  -- the model or has just moved it (that move is not answered yet: the view is older).
  local rot = obj.getRotation()
  local free = obj.held_by_color == nil and not model.moving[view.tank_id]
  if free and util.turn_between(rot.y, view.facing) > 2 then
    obj.setRotation({ rot.x, view.facing, rot.z })
  end
  local pos = obj.getPosition()
  if restore and free and math.abs(pos.x - view.x) + math.abs(pos.z - view.z) > 0.25 then
    obj.setPosition({ view.x, pos.y, view.z })
  end
end

-- Set a model where the referee last said it stands, if it is more than a drift away.
function M.follow(guid)
  local obj = getObjectFromGUID(guid)
  local known = model.known[guid]
  if obj == nil or known == nil or obj.held_by_color ~= nil then
    return
  end
  local pos = obj.getPosition()
  if math.abs(pos.x - known.x) + math.abs(pos.z - known.z) > 0.25 then
    obj.setPosition({ known.x, pos.y, known.z })
  end
end

-- Put a model back where the referee has it (a refused move leaves nothing half-applied).
function M.revert(guid)
  local obj = getObjectFromGUID(guid)
  local known = model.known[guid]
  if obj == nil or known == nil then
    return false
  end
  local pos = obj.getPosition()
  local rot = obj.getRotation()
  obj.setPosition({ known.x, pos.y, known.z })
  obj.setRotation({ rot.x, known.facing, rot.z })
  return true
end

local function circle(x, z, radius, colour)
  local points = {}
  local steps = 36
  for i = 0, steps do
    local a = 2 * math.pi * i / steps
    table.insert(points, { x + radius * math.sin(a), M.Y, z + radius * math.cos(a) })
  end
  return { points = points, color = colour, thickness = 0.15 }
end

-- Smoke rings (a -2 screen: 6" and 12"; a -1 screen: 6"), the objective, routed tanks'
-- destinations and the line of fire, all redrawn at once (setVectorLines replaces them).
local function local_rings(lines)
  local ids = {}
  for id in pairs(model.state.smoke) do
    table.insert(ids, id)
  end
  table.sort(ids, util.before)
  for _, id in ipairs(ids) do
    local s = model.state.smoke[id]
    table.insert(lines, circle(s.x, s.z, 6, RING_COLOURS[1]))
    if s.strength >= 2 then
      table.insert(lines, circle(s.x, s.z, 12, RING_COLOURS[2]))
    end
  end
  if rulesets.table_setup(model.state).objective then
    for _, obj in ipairs(getObjectsWithTag("objective")) do
      local p = obj.getPosition()
      table.insert(lines, circle(p.x, p.z, 12, { 1, 0.85, 0.2 }))
    end
  end
end

-- Our lines are the ones at our height with one of our thicknesses; every other Global line
-- is the players' (Vector Paint) and is kept: setVectorLines replaces them all.
local OUR_THICKNESS = { 0.12, 0.15, 0.2 }

local function is_ours(line)
  local first = type(line) == "table" and type(line.points) == "table" and line.points[1] or nil
  if type(first) ~= "table" then
    return false
  end
  local y = first.y or first[2]
  local mine = false
  for _, t in ipairs(OUR_THICKNESS) do
    if type(line.thickness) == "number" and math.abs(line.thickness - t) < 0.001 then
      mine = true
    end
  end
  return mine and type(y) == "number" and math.abs(y - M.Y) < 0.001
end

function M.lines()
  local lines = {}
  for _, line in ipairs(Global.getVectorLines() or {}) do
    if not is_ours(line) then
      table.insert(lines, line)
    end
  end
  if scene_rings ~= nil then
    for _, ring in ipairs(scene_rings) do
      local colour = { 1, 0.85, 0.2 }
      if ring.kind == "smoke" then
        colour = RING_COLOURS[ring.level] or RING_COLOURS[1]
      end
      table.insert(lines, circle(ring.x, ring.z, ring.radius, colour))
    end
  else
    local_rings(lines)
  end
  for guid, point in pairs(model.rout) do
    local obj = getObjectFromGUID(guid)
    if obj ~= nil then
      local p = obj.getPosition()
      table.insert(lines, { points = { { p.x, M.Y, p.z }, { point.x, M.Y, point.z } }, color = { 0.9, 0.1, 0.1 }, thickness = 0.2 })
      table.insert(lines, circle(point.x, point.z, 0.75, { 0.9, 0.1, 0.1 }))
    end
  end
  if line_of_fire ~= nil then
    table.insert(lines, line_of_fire)
  end
  for _, layer in ipairs(layers) do
    for _, line in ipairs(layer()) do
      table.insert(lines, line)
    end
  end
  Global.setVectorLines(lines)
end

local function show_line_of_fire(shooter_id, target_id, hit)
  local a = getObjectFromGUID(shooter_id)
  local b = getObjectFromGUID(target_id)
  if a == nil or b == nil then
    return
  end
  local pa, pb = a.getPosition(), b.getPosition()
  local colour = { 1, 1, 0.3 }
  if hit then
    colour = { 1, 0.3, 0.1 }
  end
  line_of_fire = { points = { { pa.x, M.Y, pa.z }, { pb.x, M.Y, pb.z } }, color = colour, thickness = 0.12 }
  if line_timer ~= nil then
    Wait.stop(line_timer)
  end
  -- Drawn briefly: it says who shot whom, then gets out of the way.
  line_timer = Wait.time(function()
    line_timer = nil
    line_of_fire = nil
    M.lines()
  end, M.LINE_OF_FIRE_SECONDS)
end

local function apply_event(event)
  local data = event.data or {}
  if event.kind == "smoke" then
    model.state.smoke[tostring(data.smoke_id)] = { x = data.x, z = data.z, strength = data.strength }
  elseif event.kind == "smoke_decay" then
    local s = model.state.smoke[tostring(data.smoke_id)]
    if s ~= nil then
      s.strength = data.strength
    end
  elseif event.kind == "smoke_gone" then
    model.state.smoke[tostring(data.smoke_id)] = nil
  elseif event.kind == "rout_move" and data.tank_id ~= nil then
    if data.removed then
      model.rout[data.tank_id] = nil
    else
      model.rout[data.tank_id] = { x = data.x, z = data.z }
      M.say(string.format("Drive the routed %s to the red mark (%s, %s).", util.str(data.tank_id), util.num(data.x), util.num(data.z)), { 0.9, 0.2, 0.2 })
    end
  elseif event.kind == "place_model" and data.tank_id ~= nil then
    local obj = getObjectFromGUID(data.tank_id)
    if obj ~= nil and obj.held_by_color == nil and not model.moving[data.tank_id] then
      local pos = obj.getPosition()
      obj.setPosition({ data.x, pos.y, data.z })
    end
  elseif event.kind == "phase_started" then
    model.rout = {} -- a new phase: last phase's rout marks are done with
  elseif event.kind == "game_over" then
    local winner = data.winner
    if winner ~= nil then
      M.headline("Victory: " .. util.str(winner) .. "! " .. util.str(event.text), { 1, 0.85, 0.2 })
    else
      M.headline("The game ends in a draw. " .. util.str(event.text), { 1, 0.85, 0.2 })
    end
  end
end

-- Each modifier with its reason and clause ("heavy concealment (wood: through a forest) -2,
-- TTT-CN1"): the chat's math alone gives only the numbers.
function M.why(result)
  local parts = {}
  for _, m in ipairs(result.modifiers or {}) do
    local amount = type(m.amount) == "number" and m.amount or 0
    local sign = amount >= 0 and "+" or ""
    local part = string.format("%s %s%s", util.str(m.label), util.str(sign), util.num(amount))
    if m.clause ~= nil then
      part = part .. ", " .. util.str(m.clause)
    end
    table.insert(parts, part)
  end
  if #parts == 0 then
    return nil
  end
  return "Why: " .. table.concat(parts, "; ")
end

-- One log entry (from an action's reply or the long-poll): chat lines with the math and the
-- reasons, then the tanks it changed, then the table-wide drawing. Unknown kinds draw the
-- same way. "by White, as the table's referee" when the referee ordered for a side.
function M.entry(entry)
  if entry == nil or entry.seq == nil or not model.mark_shown(entry.seq) then
    return
  end
  for _, line in ipairs(entry.chat or {}) do
    M.say(line)
  end
  local why = M.why(entry.result or {})
  if why ~= nil then
    M.say(why, { 0.8, 0.8, 0.8 })
  end
  -- The log's head after this result (first 8 hex digits, like a commit id): a player who
  -- notes the last one can check the export later with tankref verify --head.
  if type(entry.chain_sha256) == "string" then
    M.say("log " .. util.num(entry.seq) .. ", head " .. string.sub(entry.chain_sha256, 1, 8), { 0.6, 0.6, 0.6 })
  end
  for _, view in ipairs(entry.tanks or {}) do
    M.tank(view, RESTORING[entry.kind])
  end
  local result = entry.result or {}
  for _, event in ipairs(result.events or {}) do
    apply_event(event)
  end
  local outcome = result.outcome or {}
  if entry.kind == "engage" and outcome.shooter ~= nil and outcome.target ~= nil then
    show_line_of_fire(outcome.shooter, outcome.target, outcome.hit)
  end
  if entry.table ~= nil then
    model.state.status = entry.table.status
  end
  if #(result.rolls or {}) > 0 and (entry.action or {}).control == nil then
    model.state.last_rolled = entry.seq
  elseif entry.kind == "void" or entry.kind == "undo" then
    model.state.last_rolled = nil -- taken back: name the event to void (!tankref void N)
  end
  M.lines()
end

-- An action's reply: its entry, if anything was adjudicated (a drift changes nothing).
function M.reply(reply)
  if reply ~= nil and reply.entry ~= nil then
    M.entry(reply.entry)
  end
end

return M
