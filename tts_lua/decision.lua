-- decision: a choice the rules leave to one player. The referee answers DECISION_NEEDED
-- (e.g. TTT-E3 with best_armour "ask": may the target turn its best armour to the shot?)
-- naming the seat that decides, the choices and the action field the answer goes in. This
-- asks that seat in a dialog; the caller sends the action again with the answer, under the
-- same request id, so nothing is applied or rolled twice.
local util = use("util")
local seats = use("seats")

local M = {}

-- Words for the referee's choice keys; an unknown key is shown as it is.
M.LABELS = {
  turn = "Turn its best armour to the shot",
  stay = "Stay as it stands",
}

-- `done(choice)` with one of need.choices, or `done(nil, why)`.
function M.ask(need, question, done)
  -- The referee names the side that decides; New table put each side at a TTS seat.
  local side = util.str(need.seat)
  local seat = util.str(seats.seat_of(side) or side)
  local player = Player[seat]
  if player == nil or not player.seated then
    done(nil, string.format("tankref: %s decides this (%s), but nobody sits at %s: the action was not sent.", util.str(side), util.str(need.decision), util.str(seat)))
    return
  end
  local choices = need.choices or {}
  local labels = {}
  for i, key in ipairs(choices) do
    labels[i] = M.LABELS[key] or util.str(key)
  end
  broadcastToAll(string.format("tankref: waiting for %s: %s", util.str(seat), util.str(question)), { 0.8, 0.8, 1 })
  -- TTS hands the callback the chosen text, its index (from 1) and the seat that chose.
  player.showOptionsDialog(question, labels, 1, function(_, index, _)
    local choice = choices[tonumber(index) or 0]
    if choice == nil then
      done(nil, "tankref: no choice was made; the action was not sent.")
      return
    end
    done(choice)
  end)
end

return M
