-- http: the one place that calls WebRequest. TTS has no timeout parameter and reports a
-- 4xx/5xx as success (only network failures set is_error), so every reply is classified
-- here into ok / refused / unreachable / timeout, and turned into words for the chat.
local wire = use("wire")
local util = use("util")

local M = {}

-- Send one request; `done(outcome)` runs exactly once, on a later tick:
--   {ok = true, status, body}
--   {ok = false, kind = "refused", status, body = {code, message, clause, details}}
--   {ok = false, kind = "unreachable" | "timeout" | "bad_reply", message}
function M.request(method, url, body, headers, timeout, done)
  local finished = false
  local timer = nil
  local function finish(outcome)
    if finished then
      return
    end
    finished = true
    if timer ~= nil then
      Wait.stop(timer)
      timer = nil
    end
    done(outcome)
  end
  local all_headers = { ["Content-Type"] = "application/json", Accept = "application/json" }
  for k, v in pairs(headers or {}) do
    all_headers[k] = v
  end
  local data = ""
  if body ~= nil then
    data = wire.encode(body)
  end
  local request = WebRequest.custom(url, method, true, data, all_headers, function(reply)
    if reply.is_error then
      finish({ ok = false, kind = "unreachable", message = reply.error })
      return
    end
    local code = reply.response_code
    local parsed = wire.decode(reply.text)
    if code >= 200 and code < 300 and parsed ~= nil then
      finish({ ok = true, status = code, body = parsed })
    elseif code >= 400 and code < 500 then
      finish({ ok = false, kind = "refused", status = code, body = parsed or {} })
    else
      finish({ ok = false, kind = "bad_reply", status = code, message = string.sub(reply.text or "", 1, 120) })
    end
  end)
  -- The referee holds long-polls up to 25 s; everything else answers in milliseconds.
  timer = Wait.time(function()
    timer = nil
    if not finished then
      request.dispose()
      finish({ ok = false, kind = "timeout" })
    end
  end, timeout)
end

-- What went wrong and what to do about it, for the chat.
function M.explain(outcome, what, url)
  if outcome.kind == "unreachable" or outcome.kind == "timeout" then
    local why = "no referee answers"
    if outcome.kind == "timeout" then
      why = "the referee did not answer in time"
    end
    return string.format(
      "tankref: %s: %s at %s. Start it on the host computer with `tankref serve` "
        .. "(or set the URL: type !tankref url https://... or http://...), then choose Retry on the tankref board.",
      util.str(what), util.str(why), util.str(url))
  end
  if outcome.kind == "bad_reply" then
    return string.format(
      "tankref: %s: the answer from %s is not the referee's (HTTP %s). Check the URL "
        .. "(!tankref url https://... or http://...).", util.str(what), util.str(url), util.num(outcome.status or 0))
  end
  local body = outcome.body or {}
  local code = body.code or "REFUSED"
  if outcome.status == 401 or outcome.status == 403 then
    return string.format(
      "tankref: %s: the referee refused this table's token (%s). Create a new table on the "
        .. "tankref board.", util.str(what), util.str(code))
  end
  if code == "UNKNOWN_TABLE" then
    return string.format(
      "tankref: %s: the referee at %s does not know this table (a new database?). Create a "
        .. "new table on the tankref board.", util.str(what), util.str(url))
  end
  local text = string.format("tankref: %s refused: %s", util.str(what), util.str(body.message or ("HTTP " .. util.num(outcome.status or 0))))
  if body.clause ~= nil then
    text = text .. " (" .. util.str(body.clause) .. ")"
  end
  return text
end

return M
