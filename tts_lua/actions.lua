-- actions: every write a player causes. Each gets a request id once; a retry (after the
-- referee was unreachable, or with more table dice) re-sends the same body under the same
-- id, so the referee never applies or rolls it twice.
local model = use("model")
local referee = use("referee")
local http = use("http")
local render = use("render")
local dice = use("dice")
local decision = use("decision")
local scene = use("scene")
local unitmenu = use("unitmenu")

local M = {}

local function send(job)
  model.state.pending = job
  local body = job.body
  if job.faces ~= nil and next(job.faces) ~= nil then
    body = {}
    for k, v in pairs(job.body) do
      body[k] = v
    end
    body.dice = { faces = job.faces }
  end
  referee.write(job.method, job.path, body, function(outcome)
    if job.revert ~= nil then
      model.moving[job.revert] = nil -- answered (or failed): the referee's view counts again
    end
    if outcome.ok then
      model.state.pending = nil
      render.reply(outcome.body)
      if outcome.body.applied and job.revert ~= nil then
        -- The drop was answered: the model stands where the referee put it (a hex centre, a
        -- yard space), even when the long-poll drew the entry while the model was moving.
        render.follow(job.revert)
      end
      if outcome.body.applied then
        scene.refresh()
        unitmenu.refresh()
      end
      return
    end
    local err = outcome.body or {}
    if outcome.kind == "refused" and err.code == "DICE_NEEDED" and err.details ~= nil and err.details.need ~= nil then
      dice.roll(err.details.need, function(faces, why)
        if faces == nil then
          model.state.pending = nil
          render.warn(why)
          return
        end
        job.faces = job.faces or {}
        local die = err.details.need.die
        job.faces[die] = job.faces[die] or {}
        for _, f in ipairs(faces) do
          table.insert(job.faces[die], f)
        end
        send(job) -- the whole action again, every face so far, the same request id
      end)
      return
    end
    if outcome.kind == "refused" and err.code == "DECISION_NEEDED" and err.details ~= nil and err.details.need ~= nil then
      local need = err.details.need
      decision.ask(need, err.message or "", function(choice, why)
        if choice == nil then
          model.state.pending = nil
          render.warn(why)
          return
        end
        if job.body.action ~= nil and need.field ~= nil then
          job.body.action[need.field] = choice
        end
        send(job) -- the same action with the answer, the same request id
      end)
      return
    end
    render.warn(http.explain(outcome, job.label, model.state.url))
    if outcome.kind == "refused" then
      -- The referee said no: nothing was applied, so there is nothing to retry.
      model.state.pending = nil
      if job.revert ~= nil and render.revert(job.revert) then
        render.say("tankref: the model is back where the referee has it.")
      end
    end
  end)
end

-- POST an action ({kind = ..., ...}); `label` names it in messages.
function M.act(action, label)
  if not model.has_table() then
    render.warn("tankref: no table yet. Choose 'New table' on the tankref board first.")
    return
  end
  send({
    method = "POST",
    path = referee.path_actions(),
    body = { request_id = model.next_request_id(), action = action },
    label = label,
  })
end

-- PUT a tank / terrain piece / objective where the model stands. `revert`: the guid of a
-- model to put back where the referee has it if the referee refuses (a job is plain data:
-- it is saved with the game while pending).
function M.put(path, body, label, revert)
  body.request_id = model.next_request_id()
  send({ method = "PUT", path = path, body = body, label = label, revert = revert })
end

function M.retry()
  local job = model.state.pending
  if job == nil then
    render.say("tankref: nothing to retry.")
    return
  end
  send(job)
end

return M
