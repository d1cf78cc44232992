-- picker: choosing a target or a point. Engage shows every legal target with its odds (hit /
-- penetrate / kill) on a button over the model, in its tooltip while hovered, and with a
-- highlight; clicking the button fires. Mortar smoke waits for a right-click on the table.
local util = use("util")
local model = use("model")
local render = use("render")
local actions = use("actions")

local M = {}

local picking = nil -- {shooter = guid, targets = {guid = saved description}}
local mortar = nil -- {tank = guid, ability = name}

function M.cancel()
  if picking == nil then
    return
  end
  for guid, description in pairs(picking.targets) do
    local obj = getObjectFromGUID(guid)
    model.picks[guid] = nil
    if obj ~= nil then
      obj.setDescription(description)
      render.redraw_buttons(obj)
      obj.highlightOff()
    end
  end
  local shooter = getObjectFromGUID(picking.shooter)
  model.picks[picking.shooter] = nil
  if shooter ~= nil then
    render.redraw_buttons(shooter)
  end
  picking = nil
end

local function odds_text(t)
  return string.format("hit %s, penetrate %s, kill %s", util.pct(t.p_hit), util.pct(t.p_penetrate), util.pct(t.p_destroyed))
end

-- `targets`: the engage option's targets ({target_id, range, p_hit, p_penetrate, p_destroyed}).
function M.start(shooter_guid, targets)
  M.cancel()
  local shooter = getObjectFromGUID(shooter_guid)
  local name = shooter_guid
  if shooter ~= nil then
    name = shooter.getName()
  end
  picking = { shooter = shooter_guid, targets = {} }
  for _, t in ipairs(targets) do
    local obj = getObjectFromGUID(t.target_id)
    if obj ~= nil then
      local odds = odds_text(t)
      picking.targets[t.target_id] = obj.getDescription()
      obj.setDescription(obj.getDescription() .. "\nIf " .. name .. " fires: " .. odds)
      obj.highlightOn({ 1, 0.85, 0.2 })
      model.picks[t.target_id] = {
        click = "tankref_pick_target",
        label = string.format("Fire (%s\"): %s", util.num(t.range or 0), odds),
        tooltip = name .. " engages this tank: " .. odds,
      }
      render.redraw_buttons(obj)
    end
  end
  if shooter ~= nil then
    model.picks[shooter_guid] = { click = "tankref_cancel_pick", label = "Cancel target", tooltip = "Stop picking a target" }
    render.redraw_buttons(shooter)
  end
  render.say(name .. ": click Fire over the target to engage (odds on each).", { 1, 0.85, 0.2 })
end

function M.pick(target_obj)
  if picking == nil or target_obj == nil then
    return
  end
  local target = target_obj.getGUID()
  if picking.targets[target] == nil then
    return
  end
  local shooter = picking.shooter
  M.cancel()
  actions.act({ kind = "engage", tank_id = shooter, target_id = target }, "Engage")
end

function M.arm_mortar(guid, ability)
  mortar = { tank = guid, ability = ability }
  render.say("Right-click the table where the smoke should land and choose 'tankref: mortar smoke here'.", { 0.85, 0.85, 0.85 })
end

function M.mortar_at(position)
  if mortar == nil then
    render.warn("tankref: choose Smoke on a tank with a smoke mortar first.")
    return
  end
  local m = mortar
  mortar = nil
  actions.act({ kind = "smoke", tank_id = m.tank, ability = m.ability, x = util.round(position.x, 2), z = util.round(position.z, 2) }, "Mortar smoke")
end

return M
