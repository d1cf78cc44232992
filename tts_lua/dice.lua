-- dice: table dice. When the referee answers DICE_NEEDED it says which colour, how many and
-- what for; this rolls that many physical dice (tagged die_white / die_red / die_green),
-- waits until every one rests, and reads the faces. Fewer dice on the table than needed:
-- roll them again until the count is reached.
local util = use("util")

local M = {}

M.SETTLE_SECONDS = 15

-- `done(faces)` with the list of face numbers, or `done(nil, why)`.
function M.roll(need, done)
  local pool = getObjectsWithTag("die_" .. tostring(need.die))
  if #pool == 0 then
    done(nil, string.format("tankref: no %s dice on the table (tag them die_%s).", need.die, need.die))
    return
  end
  broadcastToAll(string.format("Rolling %s %s %s %s", util.num(need.count), need.die,
    need.count == 1 and "die" or "dice", need.purpose or ""), { 0.8, 0.8, 1 })
  local faces = {}
  local function batch()
    local left = need.count - #faces
    if left <= 0 then
      done(faces)
      return
    end
    local rolling = {}
    for i = 1, math.min(left, #pool) do
      pool[i].roll()
      table.insert(rolling, pool[i])
    end
    -- A few frames first: a die just rolled may still read as resting before physics moves it.
    Wait.frames(function()
      Wait.condition(function()
        for _, die in ipairs(rolling) do
          table.insert(faces, die.getValue())
        end
        batch()
      end, function()
        for _, die in ipairs(rolling) do
          if not die.resting then
            return false
          end
        end
        return true
      end, M.SETTLE_SECONDS, function()
        done(nil, "tankref: the dice did not come to rest; the action was not sent. Try again.")
      end)
    end, 5)
  end
  batch()
end

-- Damage cards from a physical deck (a table made with damage_cards "table"): the referee
-- names who draws and the cards left; the player types "!tankref card NAME".
function M.ask_card(need)
  local left = table.concat(need.cards or {}, ", ")
  broadcastToAll(string.format("tankref: draw a damage card %s.", need.purpose or ""), { 1, 0.85, 0.4 })
  if need.deck_reshuffled then
    printToAll("tankref: the deck starts again: shuffle every damage card into it first.", { 1, 0.85, 0.4 })
  end
  printToAll("Type  !tankref card NAME  with the card drawn (left in the deck: " .. left .. ").", { 1, 0.85, 0.4 })
end

-- The card in `cards` that `typed` names: the exact name, ignoring case and spaces at the
-- ends, or the one card it is the start of; nil when none or several match.
function M.match_card(cards, typed)
  local want = string.lower((string.gsub(typed, "^%s*(.-)%s*$", "%1")))
  local found = nil
  for _, name in ipairs(cards or {}) do
    local lower = string.lower(name)
    if lower == want then
      return name
    end
    if want ~= "" and string.sub(lower, 1, #want) == want then
      if found ~= nil then
        return nil
      end
      found = name
    end
  end
  return found
end

return M
