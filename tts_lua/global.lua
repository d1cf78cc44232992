-- global: the Global script's events. Everything lives in the modules; this wires TTS's
-- event names to them. Global functions other than events start with tankref_ (buttons and
-- Global.call need names).
local model = use("model")
local picker = use("picker")
local tracker = use("tracker")
local menus = use("menus")
local aids = use("aids")
local catalogue = use("catalogue")
local render = use("render")

function onLoad(saved_state)
  local problem = model.load(saved_state)
  menus.install()
  if problem ~= nil then
    render.warn(problem)
  end
  -- What each ruleset is comes from the referee: ask before resuming a table (its board
  -- actions and terrain words are its ruleset's); a referee not yet running is asked again
  -- at New table.
  if model.has_table() then
    model.fresh_session()
  end
  catalogue.learn(function()
    if model.has_table() then
      menus.resume()
    end
  end)
end

-- Runs on every autosave and rewind checkpoint: only encodes a small table.
function onSave()
  return model.save()
end

-- Every player event carries the seat colour of who did it: seats.lua decides what it may do.
function onObjectPickUp(player_color, obj)
  tracker.lifted(obj, player_color)
  aids.lifted(obj, player_color)
end

function onObjectDrop(player_color, obj)
  aids.dropped(obj)
  tracker.changed(obj, player_color)
end

function onObjectRotate(obj, spin, _, player_color, old_spin)
  if spin ~= old_spin then
    tracker.changed(obj, player_color)
  end
end

function onChat(message, sender)
  return menus.chat(message, sender)
end

-- Any scripting key (numpad by default) gives an armed point order the spot under the
-- player's pointer: it works over terrain, where the table's own menu does not open.
function onScriptingButtonDown(_, player_color)
  picker.key_point(player_color)
end

function tankref_pick_target(obj, player_color)
  picker.pick(obj, player_color)
end

function tankref_pick_partner(obj, player_color)
  picker.toggle_partner(obj, player_color)
end

function tankref_cancel_pick(_, player_color)
  picker.cancel(player_color)
end

function tankref_noop() end

function tankref_board_ruleset(_, player_color)
  catalogue.cycle_ruleset(player_color)
end

function tankref_board_scenario(_, player_color)
  catalogue.cycle_setup(player_color)
end

function tankref_board_dice(_, player_color)
  menus.toggle_dice(player_color)
end

function tankref_board_new(_, player_color)
  menus.new_table(player_color)
end

-- The ruleset's table actions (Crew roll, Start game, End phase ...), by their board position.
function tankref_board_act_1(_, player_color)
  menus.board_action(1, player_color)
end

function tankref_board_act_2(_, player_color)
  menus.board_action(2, player_color)
end

function tankref_board_act_3(_, player_color)
  menus.board_action(3, player_color)
end

function tankref_board_retry(_, player_color)
  menus.retry(player_color)
end
