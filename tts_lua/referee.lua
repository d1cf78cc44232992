-- referee: the referee's routes. Writes go through one queue, one at a time and in order:
-- a drop posted while the previous one is in flight must not overtake it (the referee
-- measures a move from the last position it knows). Reads and the long-poll go direct.
local http = use("http")
local model = use("model")

local M = {}

M.WRITE_TIMEOUT = 20
M.READ_TIMEOUT = 20
M.POLL_WAIT = 25 -- seconds the referee may hold a long-poll
M.POLL_TIMEOUT = 40

local queue = {}
local busy = false

-- The table's token, or the seat token of `side` where a write is that side's own (a void):
-- a table from before seat tokens has none, and the table's token asks for its seat.
local function auth(side)
  local seat = side ~= nil and (model.state.seat_tokens or {})[side] or nil
  return { Authorization = "Bearer " .. (seat or model.state.token or "") }
end

local function pump()
  if busy or #queue == 0 then
    return
  end
  busy = true
  local job = table.remove(queue, 1)
  http.request(job.method, model.state.url .. job.path, job.body, job.headers, M.WRITE_TIMEOUT, function(outcome)
    busy = false
    -- A failing callback must not stall the queue: report it and go on.
    local ok, err = pcall(job.done, outcome)
    if not ok then
      printToAll("tankref: script error: " .. tostring(err), { 1, 0.3, 0.3 })
    end
    pump()
  end)
end

function M.write(method, path, body, done, side)
  table.insert(queue, { method = method, path = path, body = body, headers = auth(side), done = done })
  pump()
end

function M.read(path, done)
  http.request("GET", model.state.url .. path, nil, nil, M.READ_TIMEOUT, done)
end

function M.busy()
  return busy or #queue > 0
end

local function table_path(rest)
  return "/tables/" .. model.state.table_id .. rest
end

function M.create_table(body, done)
  table.insert(queue, { method = "POST", path = "/tables", body = body, headers = {}, done = done })
  pump()
end

function M.read_table(done)
  M.read(table_path(""), done)
end

function M.options(guid, done)
  M.read(table_path("/tanks/" .. guid .. "/options"), done)
end

function M.path_tank(guid)
  return table_path("/tanks/" .. guid)
end

function M.path_terrain(guid)
  return table_path("/terrain/" .. guid)
end

function M.path_objective()
  return table_path("/objective")
end

-- The referee's table controls: "end" (end of game), "undo".
function M.path_control(name)
  return table_path("/" .. name)
end

function M.path_actions()
  return table_path("/actions")
end

-- Long-poll: entries after `after`, held by the referee until one exists (or POLL_WAIT).
function M.events(after, done)
  local path = table_path(string.format("/events?after=%d&wait=%d", after, M.POLL_WAIT))
  http.request("GET", model.state.url .. path, nil, nil, M.POLL_TIMEOUT, done)
end

return M
