-- tank: the script on every tank model. It only adds the right-click menu and forwards the
-- player's choice to Global: one referee connection, one request queue and one place that
-- draws results, whatever model was clicked.
local items = use("items")

function onLoad()
  for _, item in ipairs(items.TANK) do
    local key = item.key
    self.addContextMenuItem(item.label, function(player_color)
      Global.call("tankref_tank_menu", { guid = self.getGUID(), item = key, color = player_color })
    end)
  end
end
