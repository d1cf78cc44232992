-- scene: the referee's drawing of the table (GET /tables/{id}/scene): smoke rings at their
-- current strength, the objective's ring, the yard's spaces.
-- Asked again after new log entries, so rings shrink and vanish as screens decay even for
-- smoke laid before this table was loaded.
-- One request at a time; entries arriving meanwhile ask once more when it returns. A
-- referee without the route leaves the rings drawn from the entries' own smoke events.
local model = use("model")
local referee = use("referee")
local render = use("render")

local M = {}

local in_flight = false
local again = false
local restore = false

-- `put_back`: also set every terrain piece and the objective where the referee has them (a
-- reloaded or rewound game: TTS brings back the pieces' older places).
function M.refresh(put_back)
  if not model.has_table() then
    return
  end
  restore = restore or put_back == true
  if in_flight then
    again = true
    return
  end
  in_flight = true
  local restoring = restore
  restore = false
  referee.read("/tables/" .. model.state.table_id .. "/scene", function(outcome)
    in_flight = false
    if outcome.ok and type(outcome.body.rings) == "table" then
      render.set_rings(outcome.body.rings)
    end
    if outcome.ok and restoring then
      render.place_scene(outcome.body)
    end
    if again then
      again = false
      M.refresh()
    end
  end)
end

return M
