-- wire: JSON in and out. TTS has JSON built in; these wrappers add what it lacks:
-- decoding that cannot raise (a proxy's HTML error page is not JSON) and encoding that never
-- sends [] where the referee expects an object.
local util = use("util")

local M = {}

function M.encode(value)
  return JSON.encode(util.prune(value))
end

-- The decoded table, or nil when the text is empty or not a JSON object/list.
function M.decode(text)
  if text == nil or text == "" then
    return nil
  end
  local ok, value = pcall(JSON.decode, text)
  if ok and type(value) == "table" then
    return value
  end
  return nil
end

return M
