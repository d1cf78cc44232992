-- items: the per-tank menu, shared by the tank script (which shows it) and Global (which
-- runs it), so the two can never disagree about an item's key.
local M = {}

M.TANK = {
  { key = "engage", label = "Engage (pick a target)" },
  { key = "wait", label = "Wait" },
  { key = "recover", label = "Recover" },
  { key = "smoke", label = "Smoke" },
  { key = "options", label = "What may it do?" },
  { key = "end_phase", label = "End phase" },
}

function M.known(key)
  for _, item in ipairs(M.TANK) do
    if item.key == key then
      return true
    end
  end
  return false
end

return M
