-- global: the Global script's events. Everything lives in the modules; this wires TTS's
-- event names to them. Global functions other than events start with tankref_ (buttons and
-- Global.call need names).
local model = use("model")
local render = use("render")
local actions = use("actions")
local picker = use("picker")
local tracker = use("tracker")
local menus = use("menus")

function onLoad(saved_state)
  model.load(saved_state)
  menus.install()
  if model.has_table() then
    menus.resume()
  end
end

-- Runs on every autosave and rewind checkpoint: only encodes a small table.
function onSave()
  return model.save()
end

function onObjectDrop(_, obj)
  tracker.changed(obj)
end

function onObjectRotate(obj, spin, _, _, old_spin)
  if spin ~= old_spin then
    tracker.changed(obj)
  end
end

function onChat(message)
  return menus.chat(message)
end

function tankref_pick_target(obj)
  picker.pick(obj)
end

function tankref_pick_partner(obj)
  picker.toggle_partner(obj)
end

function tankref_cancel_pick()
  picker.cancel()
end

function tankref_noop() end

function tankref_board_ruleset()
  menus.cycle_ruleset()
end

function tankref_board_scenario()
  menus.cycle_scenario()
end

function tankref_board_dice()
  menus.toggle_dice()
end

function tankref_board_new()
  menus.new_table()
end

-- The ruleset's table actions (Crew roll, Start game, End phase ...), by their board position.
function tankref_board_act_1()
  menus.board_action(1)
end

function tankref_board_act_2()
  menus.board_action(2)
end

function tankref_board_act_3()
  menus.board_action(3)
end

function tankref_board_retry()
  actions.retry()
end
