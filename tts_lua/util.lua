-- util: small helpers every module shares.
-- MoonSharp prints numbers the .NET way (1E+15, and rounds %.1f differently from C), so
-- anything a player reads or the referee parses is formatted here, explicitly.
local M = {}

-- Half away from zero, to `places` decimals: positions go to the referee rounded, so a model
-- that did not move reports the same numbers every time.
function M.round(x, places)
  local k = 10 ^ (places or 0)
  if x >= 0 then
    return math.floor(x * k + 0.5) / k
  end
  return -math.floor(-x * k + 0.5) / k
end

-- A probability as a whole percentage, for menus and tooltips.
function M.pct(p)
  return string.format("%d%%", math.floor((p or 0) * 100 + 0.5))
end

-- A number for display: "12" or "12.5".
function M.num(x)
  local r = M.round(x, 1)
  if r == math.floor(r) then
    return string.format("%d", r)
  end
  return string.format("%.1f", r)
end

-- Yaw in [0, 360): TTS reports any angle, the referee wants a facing.
function M.yaw(deg)
  local y = M.round(deg % 360, 1)
  if y >= 360 then
    y = 0
  end
  return y
end

-- The smallest turn between two facings, in degrees (0..180).
function M.turn_between(a, b)
  local d = math.abs((a - b) % 360)
  if d > 180 then
    d = 360 - d
  end
  return d
end

-- The value of a "prefix:value" tag ("card:tiger-i" -> "tiger-i"), or nil.
function M.tag_value(obj, prefix)
  for _, tag in ipairs(obj.getTags()) do
    if string.sub(tag, 1, #prefix) == prefix then
      return string.sub(tag, #prefix + 1)
    end
  end
  return nil
end

-- Drop empty tables (recursively): TTS's JSON.encode turns {} into [] and the referee
-- validates strictly, so an empty object is left out rather than sent as a list.
function M.prune(value)
  if type(value) ~= "table" then
    return value
  end
  local out = {}
  for k, v in pairs(value) do
    local p = M.prune(v)
    if not (type(p) == "table" and next(p) == nil) then
      out[k] = p
    end
  end
  return out
end

-- Any value as text for string.format's %s: MoonSharp raises on %s of nil, a boolean or a
-- table (FACTS.md), so every %s argument goes through here.
function M.str(value)
  if value == nil then
    return ""
  end
  if type(value) == "number" then
    return M.num(value)
  end
  return tostring(value)
end

-- Ordinal string order (byte by byte): MoonSharp's `<` on strings follows the host's culture
-- ("a" < "B"), so every sort of names or GUIDs uses this as its comparator.
function M.before(a, b)
  a, b = tostring(a), tostring(b)
  local n = math.min(string.len(a), string.len(b))
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x < y
    end
  end
  return string.len(a) < string.len(b)
end

-- The length of a list that came from JSON: JSON.decode drops nulls, which leaves holes, and
-- `#` of a list with holes differs in MoonSharp; this counts up to the highest index.
function M.len(list)
  if type(list) ~= "table" then
    return 0
  end
  local n = 0
  for k in pairs(list) do
    if type(k) == "number" and k > n then
      n = k
    end
  end
  return n
end

-- The referee's address as typed ("!tankref url ..." or a save's state): http or https (no
-- scheme: http, as `tankref tts-save --url` reads it), a host name, an IPv4 address or an
-- [IPv6] one, an optional port and an optional path prefix (a league's referee behind a
-- proxy at https://league.example.org/tankref). Returns the URL without a trailing slash, or
-- nil and why. The board sends it to WebRequest as it is: ../shared/tts/FACTS.md ("HTTP")
-- has WebRequest.custom take the URL as a string, any URL (issue 19: "TTS's WebRequest can
-- reach any URL"), and records nothing particular to https, so an https URL is just a URL;
-- its TLS is TTS's own (Unity's web request checks the server's certificate).
M.URL_FORM = "http(s)://HOST[:PORT][/PATH], e.g. https://referee.example.org or http://127.0.0.1:8765"

function M.referee_url(text)
  if type(text) ~= "string" then
    return nil, "no URL"
  end
  local url = string.match(text, "^%s*(.-)%s*$")
  local scheme, rest = string.match(url, "^(%a[%w+.-]*)://(.*)$")
  if scheme == nil then
    scheme, rest = "http", url
  end
  scheme = string.lower(scheme)
  if scheme ~= "http" and scheme ~= "https" then
    return nil, "the referee speaks http or https, not " .. scheme
  end
  local authority, path = string.match(rest, "^([^/]*)(.*)$")
  if string.find(authority, "@", 1, true) then
    -- A user and password in the URL would be kept in the save for anyone to read.
    return nil, "no user or password in the URL"
  end
  local host, port
  if string.sub(authority, 1, 1) == "[" then
    host, port = string.match(authority, "^(%[[%x:.]+%])(.*)$")
  else
    host, port = string.match(authority, "^([%w.-]+)(.*)$")
    -- Labels of letters, digits and hyphens, split by single dots.
    if host ~= nil and (string.find(host, "..", 1, true) or string.match(host, "^[.-]")
        or string.match(host, "[.-]$")) then
      host = nil
    end
  end
  if host == nil then
    return nil, "no host name"
  end
  if port ~= "" then
    local digits = string.match(port, "^:(%d+)$")
    local n = tonumber(digits or "")
    if n == nil or n < 1 or n > 65535 then
      return nil, "a port is a number from 1 to 65535"
    end
    port = ":" .. string.format("%d", n)
  end
  -- A path prefix only: the board adds /tables/... to it, so no query, fragment or spaces.
  if path ~= "" and not string.match(path, "^/[%w%-._~/%%!$&'()*+,;=:@]*$") then
    return nil, "a path prefix is /WORDS, without spaces, ? or #"
  end
  path = string.gsub(path, "/+$", "")
  return scheme .. "://" .. string.lower(host) .. port .. path
end

-- One part of a URL %-escaped as the referee escapes it (all but A-Z a-z 0-9 - . _ ~).
function M.escape(text)
  return (string.gsub(M.str(text), "[^A-Za-z0-9%-._~]", function(c)
    return string.format("%%%02X", string.byte(c))
  end))
end

function M.count(t)
  local n = 0
  for _ in pairs(t) do
    n = n + 1
  end
  return n
end

return M
