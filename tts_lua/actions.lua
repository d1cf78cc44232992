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
local seats = use("seats")

local M = {}

-- What a created table starts (menus.lua sets it): the job's reply goes there.
local on_created = nil

function M.on_table_created(fn)
  on_created = fn
end

-- New table is a job like any write, so Retry resends it after an unreachable referee.
local function send_create(job)
  referee.create_table(job.body, function(outcome)
    if outcome.ok then
      model.state.pending = nil
      if on_created ~= nil then
        on_created(job, outcome)
      end
      return
    end
    render.warn(http.explain(outcome, job.label, model.state.url))
    if outcome.kind == "refused" then
      model.state.pending = nil
    end
  end)
end

local function send(job)
  model.state.pending = job
  if job.create then
    send_create(job)
    return
  end
  local body = job.body
  local has_faces = job.faces ~= nil and next(job.faces) ~= nil
  if has_faces or job.card ~= nil then
    body = {}
    for k, v in pairs(job.body) do
      body[k] = v
    end
    body.dice = { faces = has_faces and job.faces or nil, damage_card = job.card }
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
      if err.details.need.die == "damage_card" then
        -- The shot penetrated: it waits (saved with the game) for the card a player draws.
        job.card_wanted = err.details.need
        dice.ask_card(job.card_wanted)
        return
      end
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
  end, job.seat)
end

-- POST an action ({kind = ..., ...}); `label` names it in messages; `by` ({seat,
-- as_referee}, seats.lua) says who ordered it, for the referee's log.
function M.act(action, label, by)
  if not model.has_table() then
    render.warn("tankref: no table yet. Choose 'New table' on the tankref board first.")
    return
  end
  send({
    method = "POST",
    path = referee.path_actions(),
    body = { request_id = model.next_request_id(), action = action, by = by },
    label = label,
  })
end

-- POST a table control (`name`: "end", "undo", "void"; `fields` beside the request id): the
-- host's, or with `seat` (a side) sent with that side's own seat token.
function M.control(name, fields, label, seat)
  if not model.has_table() then
    render.warn("tankref: no table yet. Choose 'New table' on the tankref board first.")
    return
  end
  local body = { request_id = model.next_request_id() }
  for k, v in pairs(fields or {}) do
    body[k] = v
  end
  send({ method = "POST", path = referee.path_control(name), body = body, label = label, seat = seat })
end

-- POST /tables (`what` names it, `setup` is the setup's key); on_table_created gets the reply.
function M.create(body, what, setup)
  send({ create = true, body = body, label = "New table", what = what, table_setup = setup })
end

-- PUT a tank / terrain piece / objective where the model stands. `revert`: the guid of a
-- model to put back where the referee has it if the referee refuses (a job is plain data:
-- it is saved with the game while pending).
function M.put(path, body, label, revert)
  body.request_id = model.next_request_id()
  send({ method = "PUT", path = path, body = body, label = label, revert = revert })
end

-- "!tankref card NAME": the damage card drawn from the table's deck for the waiting action,
-- sent with it under the same request id.
function M.card(typed, colour)
  local job = model.state.pending
  if job == nil or job.card_wanted == nil then
    render.warn("tankref: no damage card is asked for now.")
    return
  end
  if seats.order_for(colour, job.card_wanted.player, "drawing the damage card") == nil then
    return
  end
  local name = dice.match_card(job.card_wanted.cards, typed)
  if name == nil then
    render.warn("tankref: '" .. typed .. "' is not one card left in the deck: " .. table.concat(job.card_wanted.cards or {}, ", ") .. ".")
    return
  end
  job.card = name
  job.card_wanted = nil
  send(job)
end

function M.pending()
  return model.state.pending
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
