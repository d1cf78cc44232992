-- poller: receives what happens without a click (the other side's Wait shots, actions from
-- the browser page) by long-polling the referee's event stream. One request in flight at a
-- time; after a failure it waits and says so once, not on every attempt.
local model = use("model")
local referee = use("referee")
local render = use("render")
local http = use("http")
local scene = use("scene")
local unitmenu = use("unitmenu")

local M = {}

M.RETRY_SECONDS = 5
local in_flight = false
local warned = false

local function poll()
  if in_flight or not model.has_table() then
    return
  end
  in_flight = true
  local table_id = model.state.table_id
  referee.events(model.state.seq, function(outcome)
    in_flight = false
    if model.state.table_id ~= table_id then
      M.start() -- a new table was created meanwhile
      return
    end
    if outcome.ok then
      warned = false
      local entries = outcome.body.entries or {}
      for _, entry in ipairs(entries) do
        render.entry(entry)
      end
      if #entries > 0 then
        scene.refresh()
        unitmenu.refresh()
      end
      Wait.frames(poll, 1)
      return
    end
    if not warned then
      warned = true
      render.warn(http.explain(outcome, "receiving results", model.state.url))
    end
    Wait.time(poll, M.RETRY_SECONDS)
  end)
end

function M.start()
  poll()
end

function M.in_flight()
  return in_flight
end

return M
