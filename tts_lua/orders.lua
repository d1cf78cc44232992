-- orders: a unit's menu items, made from what the referee says it may do now (the options
-- reply: each option's kind, allowed, refusal and detail). Plain data in, plain data out; the
-- generic rules below serve every ruleset, and rulesets.lua names the few exceptions.
--
-- An item is {label, how, kind, ...}:
--   how = "act":  post {kind, tank_id} plus `fields` (Wait, Evade, Move to a space ...)
--   how = "pick": choose one of `targets` (buttons with the odds over them), then post
--   how = "point": a right-click on the table gives x and z (mortar smoke, getting out)
--   how = "drag": moving is dragging the model; the item says how far
--   how = "table": a table-wide action ({kind} only: End phase, End turn)
--   how = "info": what it may and may not do, and why
local util = use("util")
local rulesets = use("rulesets")

local M = {}

M.INFO_LABEL = "What may it do?"
M.ARCS_LABEL = "Show arcs" -- toggles the unit's arcs (aids.lua)
M.TABLE_WIDE = { end_phase = true, end_turn = true }

-- "anti_tank" -> "Anti tank"; a ruleset may name it otherwise.
function M.label(ruleset, kind)
  local named = (rulesets.get(ruleset).labels or {})[kind]
  if named ~= nil then
    return named
  end
  local words = string.gsub(kind, "_", " ")
  return string.upper(string.sub(words, 1, 1)) .. string.sub(words, 2)
end

local function verb(ruleset, kind)
  return (rulesets.get(ruleset).verbs or {})[kind] or M.label(ruleset, kind)
end

-- The odds a target carries, in words ("hit 83%, kill 16%"); whatever fields it has.
function M.odds_text(t)
  local parts = {}
  local function add(name, value)
    if type(value) == "number" then
      table.insert(parts, name .. " " .. util.pct(value))
    elseif type(value) == "string" then
      table.insert(parts, name .. " " .. value)
    end
  end
  if t.column ~= nil then
    table.insert(parts, "odds " .. tostring(t.column))
  end
  add("spot", t.p_spot)
  add("hit", t.p_hit)
  add("penetrate", t.p_penetrate)
  add("kill", t.p_destroyed)
  if type(t.expected_damage) == "number" then
    table.insert(parts, "damage ~" .. util.num(t.expected_damage))
  end
  if #parts == 0 then
    return "no odds given"
  end
  return table.concat(parts, ", ")
end

-- How far, for a target button: inches (TTT), cm (AFV) or hexes (MTC).
function M.range_text(t)
  if type(t.range) == "number" then
    return util.num(t.range) .. "\""
  elseif type(t.range_cm) == "number" then
    return util.num(t.range_cm) .. " cm"
  elseif type(t.distance) == "number" then
    return util.num(t.distance) .. (t.distance == 1 and " hex" or " hexes")
  end
  return nil
end

local function drag_text(detail)
  if util.len(detail.why) > 0 then
    return table.concat(detail.why, "; ")
  elseif type(detail.hexes) == "table" then
    return string.format("MOVE %s: %s hexes in reach", util.num(detail.move or 0), util.num(util.len(detail.hexes) - 1))
  elseif type(detail.max_distance) == "number" then
    return "up to " .. util.num(detail.max_distance) .. "\""
  end
  return "the referee measures the drop"
end

local function items_for(ruleset, o, name_of)
  local detail = o.detail or {}
  local label = M.label(ruleset, o.kind)
  local special = (rulesets.get(ruleset).special or {})[o.kind]
  local out = {}
  if M.TABLE_WIDE[o.kind] then
    table.insert(out, { label = label, how = "table", kind = o.kind })
  elseif special == "abilities" then
    for _, a in ipairs(detail.abilities or {}) do
      local item = { label = label .. " (" .. a.ability .. ")", kind = o.kind, fields = { ability = a.ability } }
      if a.kind == "mortar" then
        item.how = "point"
        item.prompt = "mortar smoke here"
      else
        item.how = "act"
      end
      table.insert(out, item)
    end
  elseif special == "carriers" then
    for _, carrier in ipairs(detail.carriers or {}) do
      table.insert(out, { label = label .. " on " .. name_of(carrier), how = "act", kind = o.kind, fields = { carrier_id = carrier } })
    end
  elseif special == "point" then
    table.insert(out, { label = label .. " (point on the table)", how = "point", kind = o.kind, prompt = "get out here" })
  elseif type(detail.weapons) == "table" then
    for _, w in ipairs(detail.weapons) do
      table.insert(out, {
        label = label .. " " .. tostring(w.name or w.weapon) .. " (pick a target)", how = "pick", kind = o.kind,
        verb = verb(ruleset, o.kind), targets = w.targets or {}, fields = { weapon = w.weapon },
      })
    end
  elseif type(detail.targets) == "table" then
    table.insert(out, {
      label = label .. " (pick a target)", how = "pick", kind = o.kind, verb = verb(ruleset, o.kind),
      targets = detail.targets, fields = {}, partners = special == "partners",
    })
  elseif type(detail.spaces) == "table" then
    for _, s in ipairs(detail.spaces) do
      table.insert(out, { label = label .. " to the " .. M.label(ruleset, s.space) .. " space", how = "act", kind = o.kind, fields = { space = s.space } })
    end
  elseif o.kind == "move" then
    table.insert(out, { label = label .. " (drag the model)", how = "drag", kind = o.kind, text = drag_text(detail) })
  else
    table.insert(out, { label = label, how = "act", kind = o.kind, fields = {} })
  end
  return out
end

-- The menu for one unit: an item per allowed option (some give several), the ruleset's
-- table-wide extras, and the info item. `name_of(guid)` names other units.
function M.items(ruleset, options, name_of)
  local out = {}
  for _, o in ipairs(options or {}) do
    if o.allowed then
      for _, item in ipairs(items_for(ruleset, o, name_of)) do
        table.insert(out, item)
      end
    end
  end
  for _, extra in ipairs(rulesets.get(ruleset).unit_extra or {}) do
    table.insert(out, { label = extra.label, how = "table", kind = extra.kind })
  end
  if rulesets.get(ruleset).arcs then
    table.insert(out, { label = M.ARCS_LABEL, how = "arcs" })
  end
  table.insert(out, { label = M.INFO_LABEL, how = "info" })
  return out
end

return M
