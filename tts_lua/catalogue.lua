-- catalogue: asks the referee which rulesets it plays (GET /rulesets), once, and fills
-- rulesets.lua with its answer; whatever needs them waits here for the answer.
local http = use("http")
local model = use("model")
local referee = use("referee")
local render = use("render")
local rulesets = use("rulesets")
local seats = use("seats")

local M = {}

local waiting = {}
local failed = {} -- what waited when the asking failed: Retry asks again for it
local learnt = function() end

-- `fn()` runs each time the rulesets are learnt (the board redraws its choices).
function M.on_learnt(fn)
  learnt = fn
end

-- `done(ok)` runs when the rulesets are known or the asking failed (said in chat when
-- `what` names what waited for them).
function M.learn(done, what)
  if rulesets.loaded then
    done(true)
    return
  end
  table.insert(waiting, { done = done, what = what })
  if #waiting > 1 then
    return -- already asked
  end
  referee.read("/rulesets", function(outcome)
    local ok = outcome.ok and type(outcome.body) == "table"
    if ok then
      rulesets.learn(outcome.body)
      ok = rulesets.loaded
      -- The board's setup choice stays when the ruleset has it; else its first.
      model.state.setup = rulesets.setup(model.state).key
      learnt()
    end
    local jobs = waiting
    waiting = {}
    for _, job in ipairs(jobs) do
      if not ok and job.what ~= nil then
        render.warn(http.explain(outcome, job.what, model.state.url))
        table.insert(failed, job)
      end
      local finish = job.done
      finish(ok)
    end
  end)
end

-- The board's choices take effect at the next New table; a table already made keeps its own.
-- Only the host or a promoted player changes them (they are the next table's).
function M.cycle_ruleset(colour)
  if not seats.referee_only(colour, "Choosing the ruleset") then
    return
  end
  local order = rulesets.ORDER
  local next_one = order[1] -- a ruleset this referee does not play goes to its first
  for i, name in ipairs(order) do
    if name == model.state.ruleset then
      next_one = order[(i % #order) + 1]
    end
  end
  model.state.ruleset = next_one or model.state.ruleset
  model.state.setup = rulesets.get(model.state.ruleset).setups[1].key
  learnt()
end

function M.cycle_setup(colour)
  if not seats.referee_only(colour, "Choosing the setup") then
    return
  end
  local setups = rulesets.get(model.state.ruleset).setups
  local current = rulesets.setup(model.state).key
  for i, s in ipairs(setups) do
    if s.key == current then
      model.state.setup = setups[(i % #setups) + 1].key
      break
    end
  end
  learnt()
end

-- Retry: ask again for what waited when the asking failed; false when nothing did.
function M.retry()
  local jobs = failed
  failed = {}
  for _, job in ipairs(jobs) do
    M.learn(job.done, job.what)
  end
  return #jobs > 0
end

return M
