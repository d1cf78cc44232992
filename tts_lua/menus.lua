-- menus: what players click. The tankref board (an object tagged tankref_board) carries the
-- table-wide buttons; the same choices are on the table's right-click menu; each tank's own
-- menu (see tank.lua) arrives here through Global.call.
local util = use("util")
local model = use("model")
local referee = use("referee")
local http = use("http")
local render = use("render")
local actions = use("actions")
local picker = use("picker")
local tracker = use("tracker")
local poller = use("poller")
local scene = use("scene")
local items = use("items")

local M = {}

M.SCENARIOS = {
  { kind = "meeting", label = "Meeting Engagement" },
  { kind = "ambush", label = "Ambush (Blue ambushes)" },
  { kind = "objective", label = "Objective (Blue defends)" },
}
M.PLAYERS = { { id = "Red", edge = "south" }, { id = "Blue", edge = "north" } }

local function scenario_label()
  for _, s in ipairs(M.SCENARIOS) do
    if s.kind == model.state.scenario then
      return s.label
    end
  end
  return model.state.scenario
end

local function dice_label()
  if model.state.dice == "table" then
    return "Dice: rolled on the table"
  end
  return "Dice: the referee rolls"
end

local BOARD = {
  { fn = "tankref_board_scenario", label = function() return "Scenario: " .. scenario_label() end, tip = "Choose before creating the table" },
  { fn = "tankref_board_dice", label = dice_label, tip = "Table dice: roll the physical dice when asked" },
  { fn = "tankref_board_new", label = function() return "New table" end, tip = "Create a table on the referee and post every piece" },
  { fn = "tankref_board_crew", label = function() return "Crew roll" end, tip = "Roll every crew (setup)" },
  { fn = "tankref_board_start", label = function() return "Start game" end, tip = "Setup is done" },
  { fn = "tankref_board_end_phase", label = function() return "End phase" end, tip = "End the active player's phase" },
  { fn = "tankref_board_retry", label = function() return "Retry" end, tip = "Send the last unanswered request again (same request id)" },
}

function M.draw_board()
  for _, board in ipairs(getObjectsWithTag("tankref_board")) do
    board.clearButtons()
    for i, b in ipairs(BOARD) do
      board.createButton({
        click_function = b.fn,
        function_owner = Global,
        label = b.label(),
        tooltip = b.tip,
        position = { 0, 0.6, -1.5 + 0.5 * (i - 1) },
        width = 2200,
        height = 220,
        font_size = 140,
      })
    end
    local status = "no table yet"
    if model.has_table() then
      status = "table " .. model.state.table_id .. " (" .. (model.state.status or "?") .. ")"
    end
    board.setDescription("Referee: " .. model.state.url .. "\n" .. status)
  end
end

function M.cycle_scenario()
  for i, s in ipairs(M.SCENARIOS) do
    if s.kind == model.state.scenario then
      model.state.scenario = M.SCENARIOS[(i % #M.SCENARIOS) + 1].kind
      break
    end
  end
  M.draw_board()
end

function M.toggle_dice()
  if model.state.dice == "table" then
    model.state.dice = "server"
  else
    model.state.dice = "table"
  end
  M.draw_board()
end

function M.new_table()
  local scenario = { kind = model.state.scenario }
  if scenario.kind == "ambush" then
    scenario.ambusher = "Blue"
  elseif scenario.kind == "objective" then
    scenario.defender = "Blue"
  end
  local dice = { source = model.state.dice }
  if model.state.seed ~= nil then
    dice.seed = model.state.seed
  end
  local body = { ruleset = "ttt", setup = { players = M.PLAYERS, scenario = scenario }, dice = dice }
  referee.create_table(body, function(outcome)
    if not outcome.ok then
      render.warn(http.explain(outcome, "New table", model.state.url))
      return
    end
    picker.cancel()
    model.new_table(outcome.body.table_id, outcome.body.token)
    render.say(string.format("tankref: table %s, %s; %s.", model.state.table_id, scenario_label(), string.lower(dice_label())), { 0.6, 1, 0.6 })
    M.draw_board()
    render.lines()
    tracker.post_all()
    poller.start()
  end)
end

-- A saved game reopened: redraw every tank from the referee, then listen again.
function M.resume()
  referee.read_table(function(outcome)
    if not outcome.ok then
      render.warn(http.explain(outcome, "Resuming table " .. tostring(model.state.table_id), model.state.url))
      return
    end
    for _, view in ipairs(outcome.body.tanks or {}) do
      render.tank(view)
    end
    model.state.status = outcome.body.table.status
    render.lines()
    scene.refresh()
    M.draw_board()
    render.say("tankref: resumed table " .. model.state.table_id .. ".", { 0.6, 1, 0.6 })
    poller.start()
  end)
end

local function refusal(option, what)
  if option == nil then
    return "tankref: " .. what .. ": not offered now."
  end
  local text = "tankref: " .. what .. " is not possible now: " .. (option.reason or option.code or "refused")
  if option.clause ~= nil then
    text = text .. " (" .. option.clause .. ")"
  end
  return text
end

local function with_options(guid, what, use_them)
  referee.options(guid, function(outcome)
    if not outcome.ok then
      render.warn(http.explain(outcome, what, model.state.url))
      return
    end
    local by_kind = {}
    for _, o in ipairs(outcome.body) do
      by_kind[o.kind] = o
    end
    use_them(by_kind, outcome.body)
  end)
end

-- A tank's menu item: params = {guid, item, color}.
function M.tank_item(params)
  local guid, key = params.guid, params.item
  if not items.known(key) then
    return
  end
  if not model.has_table() then
    render.warn("tankref: no table yet. Choose 'New table' on the tankref board first.")
    return
  end
  if key == "wait" then
    actions.act({ kind = "wait", tank_id = guid }, "Wait")
  elseif key == "recover" then
    actions.act({ kind = "recover", tank_id = guid }, "Recover")
  elseif key == "end_phase" then
    actions.act({ kind = "end_phase" }, "End phase")
  elseif key == "engage" then
    with_options(guid, "Engage", function(by_kind)
      local o = by_kind.engage
      if o == nil or not o.allowed then
        render.warn(refusal(o, "Engage"))
        return
      end
      picker.start(guid, o.detail.targets or {})
    end)
  elseif key == "smoke" then
    with_options(guid, "Smoke", function(by_kind)
      local o = by_kind.smoke
      if o == nil or not o.allowed then
        render.warn(refusal(o, "Smoke"))
        return
      end
      -- Cards carry one smoke ability each; the first allowed one is used.
      local ability = o.detail.abilities[1]
      if ability.kind == "mortar" then
        picker.arm_mortar(guid, ability.ability)
      else
        actions.act({ kind = "smoke", tank_id = guid, ability = ability.ability }, "Smoke")
      end
    end)
  elseif key == "options" then
    with_options(guid, "Options", function(_, list)
      local may, may_not = {}, {}
      for _, o in ipairs(list) do
        if o.allowed then
          table.insert(may, o.kind)
        else
          table.insert(may_not, o.kind .. " (" .. (o.reason or o.code or "") .. ")")
        end
      end
      printToAll("May: " .. table.concat(may, ", "), { 0.7, 1, 0.7 })
      if #may_not > 0 then
        printToAll("May not: " .. table.concat(may_not, "; "), { 1, 0.8, 0.6 })
      end
    end)
  end
end

function M.install()
  addContextMenuItem("tankref: new table", function() M.new_table() end)
  addContextMenuItem("tankref: crew roll", function() actions.act({ kind = "crew_roll" }, "Crew roll") end)
  addContextMenuItem("tankref: start game", function() actions.act({ kind = "start_game" }, "Start game") end)
  addContextMenuItem("tankref: end phase", function() actions.act({ kind = "end_phase" }, "End phase") end)
  addContextMenuItem("tankref: retry", function() actions.retry() end)
  addContextMenuItem("tankref: mortar smoke here", function(_, position) picker.mortar_at(position) end)
  M.draw_board()
end

-- "!tankref url http://host:port" in chat points the table at another referee.
function M.chat(message)
  local url = string.match(message, "^!tankref url%s+(%S+)")
  if url ~= nil then
    model.state.url = string.gsub(url, "/+$", "")
    M.draw_board()
    render.say("tankref: referee URL is now " .. model.state.url, { 0.6, 1, 0.6 })
    return false
  end
  if string.match(message, "^!tankref") then
    render.say("tankref: referee " .. model.state.url .. ", table " .. tostring(model.state.table_id) .. ", " .. util.num(model.state.seq) .. " entries drawn.")
    return false
  end
  return true
end

return M
