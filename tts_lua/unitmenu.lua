-- unitmenu: each unit's right-click menu, rebuilt from the referee's options for it after
-- every log entry drawn (a move, a shot, a phase ending all change what units may do).
-- One round of option reads at a time; entries arriving meanwhile ask for one more round.
-- Global owns the items (no script on the models), so players' own pieces only need tags.
local util = use("util")
local model = use("model")
local referee = use("referee")
local orders = use("orders")
local aids = use("aids")

local M = {}

-- What runs a chosen item (guid, item, player colour): menus.lua sets it with on_item.
local handler = nil

function M.on_item(fn)
  handler = fn
end

local in_flight = false
local again = false

local function name_of(guid)
  local obj = getObjectFromGUID(guid)
  if obj ~= nil and obj.getName() ~= "" then
    return obj.getName()
  end
  return guid
end

-- Replace the unit's menu with these items (the clicked item is handed over as data).
function M.set(obj, items)
  local guid = obj.getGUID()
  obj.clearContextMenu()
  for _, item in ipairs(items) do
    obj.addContextMenuItem(item.label, function(player_color)
      if item.how == "arcs" then
        aids.toggle_arcs(guid) -- looking is anyone's: no seat check
      elseif handler ~= nil then
        handler(guid, item, player_color)
      end
    end)
  end
end

-- Before a table exists (and for pieces the referee does not know): the info item only.
function M.install()
  for _, obj in ipairs(getObjectsWithTag("tank")) do
    M.set(obj, { { label = orders.INFO_LABEL, how = "info" } })
  end
end

function M.refresh()
  if not model.has_table() then
    return
  end
  aids.refresh() -- shown arcs and held reach follow the new entry
  if in_flight then
    again = true
    return
  end
  local guids = {}
  for guid in pairs(model.known) do
    table.insert(guids, guid)
  end
  table.sort(guids, util.before)
  if #guids == 0 then
    return
  end
  in_flight = true
  local left = #guids
  local table_id = model.state.table_id
  for _, guid in ipairs(guids) do
    referee.options(guid, function(outcome)
      local obj = getObjectFromGUID(guid)
      -- A failed read leaves the menu as it was: the referee still checks every order.
      if outcome.ok and obj ~= nil and model.state.table_id == table_id then
        M.set(obj, orders.items(model.state.ruleset, outcome.body, name_of))
      end
      left = left - 1
      if left == 0 then
        in_flight = false
        if again then
          again = false
          M.refresh()
        end
      end
    end)
  end
end

return M
