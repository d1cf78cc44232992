-- picker: choosing a target or a point. A "pick" order shows every legal target with its
-- odds on a button over the model, in its tooltip while hovered, and with a highlight;
-- clicking the button posts the order. Combined fire (MTC) also puts a Join button on each
-- friend that could fire along. A "point" order (mortar smoke, getting out) waits for a
-- right-click on the open table, or a scripting key with the pointer on the spot (the table's
-- menu does not open over terrain). Clicks and points are checked against the clicker's seat.
local util = use("util")
local model = use("model")
local render = use("render")
local actions = use("actions")
local orders = use("orders")
local seats = use("seats")
local aids = use("aids")

local M = {}

-- {shooter, item, targets = {guid = saved description}, partners = {guid = joined?}}
local picking = nil
local pointing = nil -- {tank = guid, item}

-- May `colour` give the order of the unit `guid` (its side's seat, or the referee)?
local function order_by(guid, colour, what)
  local obj = getObjectFromGUID(guid)
  local side = obj ~= nil and model.tank_info(obj).player or nil
  return seats.order_for(colour, side, what)
end

local function clear(guid, description)
  local obj = getObjectFromGUID(guid)
  model.picks[guid] = nil
  if obj ~= nil then
    if description ~= nil then
      obj.setDescription(description)
      obj.highlightOff()
    end
    render.redraw_buttons(obj)
  end
end

function M.cancel(colour)
  if picking == nil then
    return
  end
  if colour ~= nil and order_by(picking.shooter, colour, "cancel the target") == nil then
    return
  end
  for guid, description in pairs(picking.targets) do
    clear(guid, description)
  end
  for guid in pairs(picking.partners) do
    clear(guid, nil)
  end
  clear(picking.shooter, nil)
  picking = nil
  aids.stop_aiming()
end

local function joined_names()
  local names = {}
  for guid, on in pairs(picking.partners) do
    if on then
      table.insert(names, getObjectFromGUID(guid) and getObjectFromGUID(guid).getName() or guid)
    end
  end
  table.sort(names, util.before)
  return names
end

local function partner_button(guid)
  local on = picking.partners[guid]
  model.picks[guid] = {
    click = "tankref_pick_partner",
    label = on and "Joins the fire: yes" or "Joins the fire: no",
    tooltip = "Click to add or remove this tank from the combined fire",
  }
  local obj = getObjectFromGUID(guid)
  if obj ~= nil then
    render.redraw_buttons(obj)
  end
end

-- `item`: a pick order from orders.lua ({kind, verb, targets, fields, partners}).
function M.start(shooter_guid, item, _)
  M.cancel()
  local shooter = getObjectFromGUID(shooter_guid)
  local name = shooter_guid
  if shooter ~= nil then
    name = shooter.getName()
  end
  picking = { shooter = shooter_guid, item = item, targets = {}, partners = {} }
  for _, t in ipairs(item.targets) do
    local obj = getObjectFromGUID(t.target_id)
    if obj ~= nil then
      local odds = orders.odds_text(t)
      local range = orders.range_text(t)
      local extra = ""
      if item.partners and util.len(t.partners) > 0 then
        extra = "; could join: " .. table.concat(t.partners, ", ")
        for _, p in ipairs(t.partners) do
          picking.partners[p] = false
        end
      end
      picking.targets[t.target_id] = obj.getDescription()
      obj.setDescription(obj.getDescription() .. "\nIf " .. name .. " fires: " .. odds .. extra)
      obj.highlightOn({ 1, 0.85, 0.2 })
      local head = item.verb
      if range ~= nil then
        head = head .. " (" .. range .. ")"
      end
      model.picks[t.target_id] = {
        click = "tankref_pick_target",
        label = head .. ": " .. odds,
        tooltip = name .. " " .. string.lower(item.verb) .. "s at this unit: " .. odds .. extra,
      }
      render.redraw_buttons(obj)
    end
  end
  for guid in pairs(picking.partners) do
    partner_button(guid)
  end
  if shooter ~= nil then
    model.picks[shooter_guid] = { click = "tankref_cancel_pick", label = "Cancel target", tooltip = "Stop picking a target" }
    render.redraw_buttons(shooter)
  end
  aids.aim(shooter_guid) -- each enemy's line of fire, coloured by the referee's reading
  render.say(name .. ": click " .. item.verb .. " over the target (odds on each).", { 1, 0.85, 0.2 })
end

function M.toggle_partner(obj, colour)
  if picking == nil or obj == nil or picking.partners[obj.getGUID()] == nil then
    return
  end
  if order_by(picking.shooter, colour, "combined fire") == nil then
    return
  end
  local guid = obj.getGUID()
  picking.partners[guid] = not picking.partners[guid]
  partner_button(guid)
end

function M.pick(target_obj, colour)
  if picking == nil or target_obj == nil then
    return
  end
  local target = target_obj.getGUID()
  if picking.targets[target] == nil then
    return
  end
  local by = order_by(picking.shooter, colour, M.label(picking.item))
  if by == nil then
    return
  end
  local shooter, item = picking.shooter, picking.item
  local action = { kind = item.kind, target_id = target }
  for k, v in pairs(item.fields or {}) do
    action[k] = v
  end
  local label = M.label(item)
  if item.partners then
    -- Combined fire: every tank firing is named in tank_ids, the shooter first.
    local ids = { shooter }
    local partners = {}
    for guid, on in pairs(picking.partners) do
      if on then
        table.insert(partners, guid)
      end
    end
    table.sort(partners, util.before)
    for _, guid in ipairs(partners) do
      table.insert(ids, guid)
    end
    if #ids > 1 then
      label = label .. " with " .. table.concat(joined_names(), ", ")
    end
    action.tank_ids = ids
  else
    action.tank_id = shooter
  end
  M.cancel()
  actions.act(action, label, by)
end

function M.label(item)
  return (string.gsub(item.label, " %(.*%)$", ""))
end

function M.arm_point(guid, item, _)
  pointing = { tank = guid, item = item }
  render.say("Point at the spot and press a scripting key (numpad 1), or right-click the open table and choose 'tankref: " .. util.str(item.prompt) .. "'.", { 0.85, 0.85, 0.85 })
end

function M.point_at(position, colour)
  if pointing == nil then
    render.warn("tankref: choose an order that needs a point first (a tank's right-click menu).")
    return
  end
  local by = order_by(pointing.tank, colour, M.label(pointing.item))
  if by == nil then
    return
  end
  local p = pointing
  pointing = nil
  local action = { kind = p.item.kind, tank_id = p.tank, x = util.round(position.x, 2), z = util.round(position.z, 2) }
  for k, v in pairs(p.item.fields or {}) do
    action[k] = v
  end
  actions.act(action, M.label(p.item), by)
end

-- A field object's menu item: the armed point order goes where the player right-clicked.
function M.pointer_point(colour)
  local player = type(colour) == "string" and Player[colour] or nil
  if player == nil then
    return
  end
  M.point_at(player.getPointerPosition(), colour)
end

-- A scripting key: the armed point order goes to the spot under the player's pointer.
function M.key_point(colour)
  if pointing == nil or type(colour) ~= "string" then
    return
  end
  local player = Player[colour]
  if player == nil then
    return
  end
  M.point_at(player.getPointerPosition(), colour)
end

return M
