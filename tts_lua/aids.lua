-- aids: what a unit may do, drawn before the player acts, from the referee's aids read
-- (GET /tables/{id}/tanks/{guid}/aids: shapes in table inches, each naming its clause).
-- While a unit is held by a seat that may move it: its rings, reachable hexes or spaces.
-- "Show arcs" on its menu: its arcs. While a target is picked: the line of fire to each
-- enemy, coloured by how the referee reads it; an enemy it may not engage says why on hover.
-- TTS vector lines have no per-seat view (VectorLine takes points, color, thickness, loop,
-- rotation, square: FACTS.md, api-names.json), so a held unit's shapes are seen by every
-- seat; the chat names the holder. Shapes are read once per unit and log position, and the
-- lines are built when something changes, never per frame.
local util = use("util")
local model = use("model")
local referee = use("referee")
local render = use("render")
local seats = use("seats")

local M = {}

M.COLOURS = {
  clear = { 0.2, 0.85, 0.2 },
  light = { 0.75, 0.9, 0.3 },
  cover = { 0.3, 0.6, 1 },
  heavy = { 1, 0.6, 0.1 },
  smoke = { 0.75, 0.75, 0.75 },
  blocked = { 0.9, 0.1, 0.1 },
}
local RING_COLOURS = { normal = { 0.3, 0.9, 1 }, fast = { 1, 0.85, 0.2 }, rate = { 0.3, 0.9, 1 }, slow = { 1, 0.6, 0.1 } }
local ARC_COLOURS = { front = { 0.2, 0.85, 0.2 }, rear = { 0.9, 0.2, 0.2 } }
local SIDE_COLOUR = { 1, 0.85, 0.2 }
-- render.lua keeps lines at its height with one of these thicknesses as ours (the rest are
-- the players' drawings, kept when Global's lines are replaced).
local RING, ARC, LINE = 0.15, 0.12, 0.2

local cache = {} -- guid -> the aids body, for the log position in body.version
local held = {} -- guid -> seat colour holding it (its shapes drawn)
local arcs_on = {} -- guid -> true while its arcs are shown
local aiming = nil -- {shooter = guid, notes = {guid = description we set, saved}}
local drawn = {} -- the lines of everything above, rebuilt on change

-- The unit's aids, read once per log position (model.state.seq moves with every entry drawn).
function M.fetch(guid, done)
  local found = cache[guid]
  if found ~= nil and found.seen == model.state.seq then
    done(found.body)
    return
  end
  local seq = model.state.seq
  referee.read(referee.path_tank(guid) .. "/aids", function(outcome)
    if not outcome.ok then
      return -- nothing drawn: the referee still checks every move and shot
    end
    cache[guid] = { seen = seq, body = outcome.body }
    done(outcome.body)
  end)
end

local function ring_line(x, z, radius, colour)
  local points = {}
  local steps = 48
  for i = 0, steps do
    local a = 2 * math.pi * i / steps
    table.insert(points, { x + radius * math.sin(a), render.Y, z + radius * math.cos(a) })
  end
  return { points = points, color = colour, thickness = RING }
end

-- A wedge: from the unit out along `start`, round clockwise to `finish`, and back.
local function wedge(arc)
  local span = (arc.finish - arc.start) % 360
  if span == 0 then
    span = 360
  end
  local steps = math.max(2, math.floor(span / 5))
  local points = { { arc.x, render.Y, arc.z } }
  for i = 0, steps do
    local a = math.rad(arc.start + span * i / steps)
    table.insert(points, { arc.x + arc.radius * math.sin(a), render.Y, arc.z + arc.radius * math.cos(a) })
  end
  table.insert(points, { arc.x, render.Y, arc.z })
  return { points = points, color = ARC_COLOURS[arc.id] or SIDE_COLOUR, thickness = ARC }
end

local function hex_line(h, size, flat)
  local points = {}
  local turn = flat and 0 or 30 -- flat: a side faces north, so corners lie at 0, 60 ... from +x
  for i = 0, 6 do
    local a = math.rad(60 * i + turn)
    table.insert(points, { h.x + size * 0.9 * math.cos(a), render.Y, h.z + size * 0.9 * math.sin(a) })
  end
  return { points = points, color = h.road and RING_COLOURS.slow or RING_COLOURS.normal, thickness = RING }
end

local function move_lines(body, out)
  for _, shape in ipairs(body.move or {}) do
    if shape.shape == "ring" then
      table.insert(out, ring_line(shape.x, shape.z, shape.radius, RING_COLOURS[shape.id] or SIDE_COLOUR))
    elseif shape.shape == "hexes" then
      for _, h in ipairs(shape.hexes or {}) do
        table.insert(out, hex_line(h, shape.size, shape.orientation == "flat"))
      end
    elseif shape.shape == "spaces" then
      for _, s in ipairs(shape.spaces or {}) do
        table.insert(out, ring_line(s.x, s.z, 1.5, RING_COLOURS.normal))
      end
    end
  end
end

local function rebuild()
  local out = {}
  local guids = {}
  for guid in pairs(held) do
    table.insert(guids, guid)
  end
  table.sort(guids, util.before)
  for _, guid in ipairs(guids) do
    move_lines(cache[guid].body, out)
  end
  guids = {}
  for guid in pairs(arcs_on) do
    table.insert(guids, guid)
  end
  table.sort(guids, util.before)
  for _, guid in ipairs(guids) do
    for _, arc in ipairs(cache[guid].body.arcs or {}) do
      table.insert(out, wedge({ id = arc.id, x = arc.x, z = arc.z, start = arc.start, finish = arc["end"], radius = arc.radius }))
    end
  end
  if aiming ~= nil and cache[aiming.shooter] ~= nil then
    for _, line in ipairs(cache[aiming.shooter].body.lines or {}) do
      table.insert(out, { points = { { line.x1, render.Y, line.z1 }, { line.x2, render.Y, line.z2 } }, color = M.COLOURS[line.reading] or SIDE_COLOUR, thickness = LINE })
    end
  end
  drawn = out
  render.lines()
end

-- render.lines() asks for these each time it redraws Global's lines.
function M.lines()
  return drawn
end

render.add_layer(M.lines)

local function name_of(guid)
  local obj = getObjectFromGUID(guid)
  if obj ~= nil and obj.getName() ~= "" then
    return obj.getName()
  end
  return guid
end

local function may_move(obj, colour)
  local side = model.tank_info(obj).player
  return colour ~= nil and (seats.seat_of(side) == colour or seats.is_referee(colour))
end

local function move_words(body)
  local parts = {}
  for _, shape in ipairs(body.move or {}) do
    if shape.shape == "ring" then
      table.insert(parts, util.str(shape.label) .. " (" .. util.str(shape.clause) .. ")")
    elseif shape.shape == "hexes" then
      table.insert(parts, util.num(#(shape.hexes or {})) .. " hexes within reach (" .. util.str(shape.clause) .. ")")
    elseif shape.shape == "spaces" then
      table.insert(parts, util.num(#(shape.spaces or {})) .. " spaces (" .. util.str(shape.clause) .. ")")
    end
  end
  return table.concat(parts, "; ")
end

-- onObjectPickUp: the holder's seat may move it: draw where it may go (for every seat: TTS
-- cannot draw for one), or say why it may not move. Another seat's pick-up draws nothing.
function M.lifted(obj, colour)
  if obj == nil or not model.has_table() or not model.is_tank(obj) or not may_move(obj, colour) then
    return
  end
  local guid = obj.getGUID()
  M.fetch(guid, function(body)
    if obj.isDestroyed() or obj.held_by_color == nil then
      return -- dropped before the answer came: nothing to show
    end
    if #(body.move or {}) == 0 then
      local why = body.move_refused or {}
      render.say(string.format("%s may not move now: %s (%s).", util.str(name_of(guid)), util.str(why.message), util.str(why.clause)), { 1, 0.8, 0.6 })
      return
    end
    held[guid] = colour
    render.say(string.format("%s holds %s: %s.", util.str(seats.who(colour)), util.str(name_of(guid)), util.str(move_words(body))), { 0.7, 0.9, 1 })
    rebuild()
  end)
end

-- onObjectDrop: the shapes go (the chat then says what the move counts as, from the referee).
function M.dropped(obj)
  if obj == nil or held[obj.getGUID()] == nil then
    return
  end
  held[obj.getGUID()] = nil
  rebuild()
end

-- "Show arcs" on a unit's menu: its arcs on, or off again. Anyone may look.
function M.toggle_arcs(guid)
  if arcs_on[guid] then
    arcs_on[guid] = nil
    rebuild()
    return
  end
  M.fetch(guid, function(body)
    if #(body.arcs or {}) == 0 then
      render.say(name_of(guid) .. ": no arcs in these rules.", { 0.85, 0.85, 0.85 })
      return
    end
    arcs_on[guid] = true
    rebuild()
  end)
end

function M.arcs_shown(guid)
  return arcs_on[guid] == true
end

-- A target is being picked for `shooter`: each enemy's line of fire in the colour of its
-- reading; an enemy it may not engage gets the reason in its tooltip (hover).
function M.aim(shooter)
  M.stop_aiming()
  aiming = { shooter = shooter, notes = {} }
  local this = aiming
  M.fetch(shooter, function(body)
    if aiming ~= this then
      return -- the pick was over before the answer came
    end
    for _, line in ipairs(body.lines or {}) do
      local obj = getObjectFromGUID(line.target_id)
      if obj ~= nil and not line.may_fire and line.refused ~= nil then
        local saved = obj.getDescription()
        local note = string.format("%s\n%s may not engage it: %s (%s).", util.str(saved), util.str(name_of(shooter)), util.str(line.refused.message), util.str(line.refused.clause))
        obj.setDescription(note)
        this.notes[line.target_id] = { saved = saved, shown = note }
      end
    end
    rebuild()
  end)
end

function M.stop_aiming()
  if aiming == nil then
    return
  end
  for guid, note in pairs(aiming.notes) do
    local obj = getObjectFromGUID(guid)
    if obj ~= nil and obj.getDescription() == note.shown then
      obj.setDescription(note.saved) -- unless the referee has redrawn it meanwhile
    end
  end
  aiming = nil
  rebuild()
end

-- A new log entry: held and shown shapes are read again (the unit's reach may have changed).
function M.refresh()
  local guids = {}
  for guid in pairs(arcs_on) do
    guids[guid] = true
  end
  for guid in pairs(held) do
    guids[guid] = true
  end
  for guid in pairs(guids) do
    M.fetch(guid, function()
      rebuild()
    end)
  end
end

return M
