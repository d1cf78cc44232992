-- dice: table dice. When the referee answers DICE_NEEDED it says which colour, how many and
-- what for; this rolls that many physical dice (tagged die_white / die_red / die_green),
-- waits until every one rests, and reads the faces. Fewer dice on the table than needed:
-- roll them again until the count is reached. While a batch rolls its dice cannot be picked
-- up (interactable off, as scripted mods do); a die deleted or grabbed meanwhile spoils only
-- its batch, which is rolled again without it.
local util = use("util")

local M = {}

M.SETTLE_SECONDS = 15
M.MAX_SPOILED = 5 -- batches spoiled in a row before giving up

-- The dice of a colour that can be rolled now: on the table and in nobody's hand.
local function free_dice(die)
  local pool = {}
  for _, obj in ipairs(getObjectsWithTag("die_" .. util.str(die))) do
    if not obj.isDestroyed() and obj.held_by_color == nil then
      table.insert(pool, obj)
    end
  end
  return pool
end

local function release(rolling)
  for _, die in ipairs(rolling) do
    if not die.isDestroyed() then
      die.interactable = true
    end
  end
end

-- `done(faces)` with the list of face numbers, or `done(nil, why)`.
function M.roll(need, done)
  local die = util.str(need.die)
  if #free_dice(die) == 0 then
    done(nil, string.format("tankref: no %s dice on the table (tag them die_%s).", util.str(die), util.str(die)))
    return
  end
  printToAll(string.format("Rolling %s %s %s %s", util.num(need.count), util.str(die),
    util.str(need.count == 1 and "die" or "dice"), util.str(need.purpose)), { 0.8, 0.8, 1 })
  local faces = {}
  local spoiled = 0
  local function batch()
    local left = need.count - #faces
    if left <= 0 then
      done(faces)
      return
    end
    local pool = free_dice(die)
    if #pool == 0 or spoiled > M.MAX_SPOILED then
      done(nil, "tankref: the " .. die .. " dice were taken away while rolling; the action was not sent. Try again.")
      return
    end
    local rolling = {}
    for i = 1, math.min(left, #pool) do
      pool[i].interactable = false
      pool[i].roll()
      table.insert(rolling, pool[i])
    end
    local function spoilt()
      for _, d in ipairs(rolling) do
        if d.isDestroyed() or d.held_by_color ~= nil then
          return true
        end
      end
      return false
    end
    -- A few frames first: a die just rolled may still read as resting before physics moves it.
    Wait.frames(function()
      Wait.condition(function()
        if spoilt() then
          spoiled = spoiled + 1
          release(rolling)
          printToAll("tankref: a " .. die .. " die was taken or deleted while rolling: rolling that batch again.", { 1, 0.6, 0.3 })
          batch()
          return
        end
        for _, d in ipairs(rolling) do
          table.insert(faces, d.getValue())
        end
        release(rolling)
        batch()
      end, function()
        if spoilt() then
          return true
        end
        for _, d in ipairs(rolling) do
          if not d.resting then
            return false
          end
        end
        return true
      end, M.SETTLE_SECONDS, function()
        release(rolling)
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
  broadcastToAll(string.format("tankref: draw a damage card %s.", util.str(need.purpose or "")), { 1, 0.85, 0.4 })
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
