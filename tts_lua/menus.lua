-- menus: what players click. The tankref board (an object tagged tankref_board) carries the
-- table-wide buttons (the ruleset, its setup, the dice, New table and the ruleset's own
-- table actions); the same choices are on the table's right-click menu; each unit's own
-- menu is built from the referee's options (unitmenu.lua) and its items arrive here.
local util = use("util")
local seatview = use("seatview")
local model = use("model")
local referee = use("referee")
local http = use("http")
local render = use("render")
local actions = use("actions")
local picker = use("picker")
local tracker = use("tracker")
local poller = use("poller")
local scene = use("scene")
local rulesets = use("rulesets")
local catalogue = use("catalogue")
local unitmenu = use("unitmenu")
local seats = use("seats")

local M = {}

local function ruleset()
  return rulesets.get(model.state.ruleset)
end

-- The table actions are the table's own ruleset's (the board's choice is for the next one).
local function table_ruleset()
  return rulesets.get(model.table_ruleset())
end

local function dice_label()
  if model.state.dice == "table" then
    return "Dice: rolled on the table"
  end
  return "Dice: the referee rolls"
end

-- The board's buttons; `act` ones are the ruleset's table actions, by position.
local function board_buttons()
  local r = ruleset()
  local out = {
    { fn = "tankref_board_ruleset", label = "Ruleset: " .. r.title, tip = "Choose before creating the table" },
    { fn = "tankref_board_scenario", label = r.setup_word .. ": " .. rulesets.setup(model.state).label, tip = "Choose before creating the table" },
    { fn = "tankref_board_dice", label = dice_label(), tip = "Table dice: roll the physical dice when asked" },
    { fn = "tankref_board_new", label = "New table", tip = "Create a table on the referee and post every piece" },
  }
  for i, a in ipairs(table_ruleset().board) do
    table.insert(out, { fn = "tankref_board_act_" .. i, label = a.label, tip = "The whole table: " .. a.label })
  end
  table.insert(out, { fn = "tankref_board_retry", label = "Retry", tip = "Send the last unanswered request again (same request id)" })
  return out
end

function M.draw_board()
  for _, board in ipairs(getObjectsWithTag("tankref_board")) do
    board.clearButtons()
    for i, b in ipairs(board_buttons()) do
      -- The first button at the top as its reader sees the board, one row every 0.55 in.
      local at = seatview.place(board, 2.2 - 0.55 * (i - 1), 0.05)
      board.createButton({
        click_function = b.fn,
        function_owner = Global,
        label = b.label,
        tooltip = b.tip,
        position = at.position,
        rotation = at.rotation,
        scale = at.scale,
        width = 2200,
        height = 200,
        font_size = 130,
      })
    end
    local status = "no table yet"
    if model.has_table() then
      status = table_ruleset().title .. " table " .. model.state.table_id .. " (" .. (model.state.status or "?") .. ")"
    end
    local cards = "damage cards: the referee draws (!tankref cards table: from the deck)"
    if model.state.cards == "table" then
      cards = "damage cards: drawn from the deck (!tankref cards referee: the referee draws)"
    end
    board.setDescription("Referee: " .. model.state.url .. "\n" .. status .. "\n" .. cards)
  end
end

function M.toggle_dice(colour)
  if not seats.referee_only(colour, "Choosing the dice") then
    return
  end
  if model.state.dice == "table" then
    model.state.dice = "server"
  else
    model.state.dice = "table"
  end
  M.draw_board()
end

function M.board_action(i, colour)
  local a = table_ruleset().board[i]
  if a == nil then
    return
  end
  local by = seats.table_order(colour, a.label)
  if by ~= nil then
    actions.act({ kind = a.kind }, a.label, by)
  end
end

-- Retry: whoever may give orders here; a New table waiting to be resent, the host only.
function M.retry(colour)
  local job = actions.pending()
  if job == nil and catalogue.retry() then
    return -- a New table that waited for the referee's rulesets asks again
  end
  if job ~= nil and job.create then
    if seats.referee_only(colour, "Retrying New table") then
      actions.retry()
    end
    return
  end
  if job == nil or seats.table_order(colour, "Retry") ~= nil then
    actions.retry()
  end
end

function M.new_table(colour)
  if seats.referee_only(colour, "New table") then
    catalogue.learn(function(ok) if ok then M.create_table() end end, "New table")
  end
end

function M.create_table()
  local body = rulesets.table_body(model.state)
  body.dice = { source = model.state.dice }
  if model.state.cards == "table" and ruleset().damage_deck then
    body.dice.damage_cards = "table" -- only a ruleset with a damage deck draws from it
  end
  if model.state.seed ~= nil then
    body.dice.seed = model.state.seed
  end
  actions.create(body, ruleset().title .. ", " .. rulesets.setup(model.state).label, rulesets.setup(model.state).key)
end

local function table_created(job, outcome)
  picker.cancel()
  model.new_table(outcome.body.table_id, outcome.body.token, outcome.body.seat_tokens, outcome.body.seat_links)
  model.state.table_ruleset = job.body.ruleset
  model.state.table_setup = job.table_setup
  model.state.players = (outcome.body.table or {}).players
  local seated = seats.assign(model.state.players)
  local who = {}
  for _, side in ipairs(model.state.players or {}) do
    table.insert(who, util.str(side) .. " sits at " .. util.str(seated[side]))
  end
  render.headline(string.format("tankref: table %s, %s; %s.", util.str(model.state.table_id), util.str(job.what), util.str(string.lower(dice_label()))), { 0.6, 1, 0.6 })
  render.say("tankref: " .. table.concat(who, ", ") .. "; the host and promoted players may act for any side as the table's referee.")
  M.draw_board()
  render.lines()
  scene.refresh()
  tracker.post_all()
  poller.start()
end

-- A saved game reopened, or rewound (onLoad runs on rewind, with a state that may be older
-- than the referee's): every model goes where the referee has it, and listening goes on
-- from the referee's last entry, so nothing already said is said again.
function M.resume()
  referee.read_table(function(outcome)
    if not outcome.ok then
      render.warn(http.explain(outcome, "Resuming table " .. util.str(model.state.table_id), model.state.url))
      return
    end
    for _, view in ipairs(outcome.body.tanks or {}) do
      render.tank(view, true)
    end
    if type(outcome.body.seq) == "number" and outcome.body.seq > model.state.seq then
      model.state.seq = outcome.body.seq
    end
    model.state.status = outcome.body.table.status
    model.state.players = outcome.body.table.players
    if model.state.seats == nil then
      seats.assign(model.state.players)
    end
    render.lines()
    scene.refresh(true)
    unitmenu.refresh()
    M.draw_board()
    render.say("tankref: resumed table " .. util.str(model.state.table_id) .. "; every model is where the referee has it.", { 0.6, 1, 0.6 })
    poller.start()
  end)
end

-- Everything the unit may and may not do now, with the reasons and clauses.
local function tell_options(guid)
  referee.options(guid, function(outcome)
    if not outcome.ok then
      render.warn(http.explain(outcome, "Options", model.state.url))
      return
    end
    local may, may_not = {}, {}
    for _, o in ipairs(outcome.body) do
      if o.allowed then
        table.insert(may, o.kind)
      else
        local why = o.reason or o.code or ""
        if o.clause ~= nil then
          why = why .. ", " .. o.clause
        end
        table.insert(may_not, o.kind .. " (" .. why .. ")")
      end
    end
    local obj = getObjectFromGUID(guid)
    local name = obj ~= nil and obj.getName() or guid
    printToAll(name .. " may: " .. (#may > 0 and table.concat(may, ", ") or "nothing now"), { 0.7, 1, 0.7 })
    if #may_not > 0 then
      printToAll("May not: " .. table.concat(may_not, "; "), { 1, 0.8, 0.6 })
    end
  end)
end

-- A unit's menu item (orders.lua describes the kinds), chosen by `colour`'s player: anyone
-- may ask what it may do; its orders are its side's seat's (or the table's referee's).
function M.run_item(guid, item, colour)
  if not model.has_table() then
    render.warn("tankref: no table yet. Choose 'New table' on the tankref board first.")
    return
  end
  if item.how == "info" then
    tell_options(guid)
    return
  end
  local by
  if item.how == "table" then
    by = seats.table_order(colour, item.label)
  else
    local obj = getObjectFromGUID(guid)
    local side = obj ~= nil and model.tank_info(obj).player or nil
    by = seats.order_for(colour, side, picker.label(item))
  end
  if by == nil then
    return
  end
  if item.how == "table" then
    actions.act({ kind = item.kind }, item.label, by)
  elseif item.how == "act" then
    local action = { kind = item.kind, tank_id = guid }
    for k, v in pairs(item.fields or {}) do
      action[k] = v
    end
    actions.act(action, picker.label(item), by)
  elseif item.how == "pick" then
    picker.start(guid, item, by)
  elseif item.how == "point" then
    picker.arm_point(guid, item, by)
  elseif item.how == "drag" then
    local obj = getObjectFromGUID(guid)
    render.say(string.format("%s: drag the model to move (%s).", util.str(obj ~= nil and obj.getName() or guid), util.str(item.text)), { 0.85, 0.85, 0.85 })
  end
end

function M.install()
  catalogue.on_learnt(M.draw_board)
  unitmenu.on_item(M.run_item)
  actions.on_table_created(table_created)
  addContextMenuItem("tankref: new table", function(colour) M.new_table(colour) end)
  addContextMenuItem("tankref: start game", function(colour)
    local by = seats.table_order(colour, "Start game")
    if by ~= nil then
      actions.act({ kind = "start_game" }, "Start game", by)
    end
  end)
  addContextMenuItem("tankref: end phase / turn", function(colour)
    local board = table_ruleset().board
    local last = board[#board]
    local by = last and seats.table_order(colour, last.label) -- nil: no table action yet
    if by ~= nil then
      actions.act({ kind = last.kind }, last.label, by)
    end
  end)
  addContextMenuItem("tankref: retry", function(colour) M.retry(colour) end)
  addContextMenuItem("tankref: mortar smoke here", function(colour, position) picker.point_at(position, colour) end)
  addContextMenuItem("tankref: get out here", function(colour, position) picker.point_at(position, colour) end)
  -- The table's menu does not open over an object (the play area, terrain): the same items on
  -- every field piece that is not a unit, a die or the board take the pointer's spot.
  for _, obj in ipairs(getObjects()) do
    local die = util.tag_value(obj, "die_") ~= nil
    if not model.is_tank(obj) and not die and not obj.hasTag("tankref_board") then
      obj.addContextMenuItem("tankref: mortar smoke here", function(colour) picker.pointer_point(colour) end)
      obj.addContextMenuItem("tankref: get out here", function(colour) picker.pointer_point(colour) end)
    end
  end
  unitmenu.install()
  M.draw_board()
end

-- "!tankref void [EVENT]": the typing player's side asks to void the latest roll (or EVENT);
-- it is voided once every side has asked, each with its own seat token.
function M.void(colour, seq)
  local side = seats.side_of(colour)
  if side == nil then
    render.warn("tankref: " .. util.str(seats.who(colour)) .. " sits at no side of this table: only a side's own seat asks to void.")
    return
  end
  seq = seq or model.state.last_rolled
  if seq == nil then
    render.warn("tankref: no roll to void yet.")
    return
  end
  actions.control("void", { seq = seq, player = side }, "Void (" .. util.str(side) .. ")", side)
end

-- "!tankref url https://host[:port][/prefix]" (or http://) in chat points the table at another referee; "!tankref
-- cards table|referee" says who draws the damage cards at the next table (both for the host or
-- a promoted player: the host's scripts send the table's token to that URL); "!tankref card
-- NAME" answers the referee asking for the card drawn. `sender` is the Player who typed it.
function M.chat(message, sender)
  local colour = sender ~= nil and sender.color or nil
  local url = string.match(message, "^!tankref url%s+(%S+)")
  if url ~= nil then
    if not seats.referee_only(colour, "Setting the referee URL") then
      return false
    end
    local checked, why = util.referee_url(url)
    if checked == nil then
      render.warn(string.format("tankref: %s is not a referee URL (%s): give %s. The referee "
        .. "URL stays %s.", util.str(url), util.str(why), util.str(util.URL_FORM), util.str(model.state.url)))
      return false
    end
    model.state.url = checked
    rulesets.loaded = false -- another referee may play others: ask it at New table
    M.draw_board()
    render.say("tankref: referee URL is now " .. model.state.url, { 0.6, 1, 0.6 })
    return false
  end
  local card = string.match(message, "^!tankref card%s+(.+)$")
  if card ~= nil then
    actions.card(card, colour)
    return false
  end
  local cards = string.match(message, "^!tankref cards%s+(%a+)")
  if cards == "table" or cards == "referee" then
    if not seats.referee_only(colour, "Choosing who draws damage cards") then
      return false
    end
    model.state.cards = cards
    M.draw_board()
    render.say("tankref: at the next New table, damage cards are drawn by the " .. (cards == "table" and "players from the deck" or "referee") .. ".", { 0.6, 1, 0.6 })
    return false
  end
  -- Ending the game and taking an action back are the table referee's rulings.
  if string.match(message, "^!tankref end") then
    if seats.referee_only(colour, "Ending the game") then
      local reason = string.match(message, "^!tankref end%s+(.+)$")
      local text = "ended at the table by " .. seats.who(colour)
      if reason ~= nil then
        text = string.sub(reason .. " (" .. text .. ")", 1, 200)
      end
      actions.control("end", { reason = text }, "End of game")
    end
    return false
  end
  -- A void is each side's own ask, sent with its seat token: the side of the player who typed.
  if string.match(message, "^!tankref void") then
    M.void(colour, tonumber(string.match(message, "^!tankref void%s+(%d+)")))
    return false
  end
  if string.match(message, "^!tankref seatlink") then
    seats.send_link(colour)
    return false
  end
  if string.match(message, "^!tankref undo") then
    if seats.referee_only(colour, "Undo") then
      actions.control("undo", {}, "Undo")
    end
    return false
  end
  if string.match(message, "^!tankref") then
    render.say("tankref: referee " .. model.state.url .. ", table " .. util.str(model.state.table_id) .. " (" .. table_ruleset().title .. "), " .. util.num(model.state.seq) .. " entries drawn.")
    return false
  end
  return true
end

return M
