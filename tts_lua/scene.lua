-- scene: the referee's drawing of the table (GET /tables/{id}/scene): smoke rings at their
-- current strength, the objective's ring, the yard's spaces.
-- Asked again after new log entries, so rings shrink and vanish as screens decay even for
-- smoke laid before this table was loaded.
-- One request at a time; entries arriving meanwhile ask once more when it returns. A
-- referee without the route leaves the rings drawn from the entries' own smoke events.
-- After a reload or rewind it also sets terrain and the objective where the scene has them.
local util = use("util")
local model = use("model")
local referee = use("referee")
local render = use("render")

local M = {}

local in_flight = false
local again = false
local restore = false

-- Move a piece to (x, z) and yaw when it stands more than a drift away (positions in inches).
local function place(obj, x, z, yaw)
  local pos, rot = obj.getPosition(), obj.getRotation()
  if math.abs(pos.x - x) + math.abs(pos.z - z) > 0.25 then
    obj.setPosition({ x, pos.y, z })
  end
  if yaw ~= nil and util.turn_between(rot.y, yaw) > 2 then
    obj.setRotation({ rot.x, yaw, rot.z })
  end
end

-- A terrain footprint's centre and yaw: a circle's centre; a polygon's corner mean, its yaw
-- from the first edge (tracker.lua posts corners turned from the piece's local +x).
local function footprint_place(shape)
  if shape.shape == "circle" then
    return shape.x, shape.z, nil
  end
  local n = util.len(shape.points)
  if n < 2 then
    return nil
  end
  local x, z = 0, 0
  for i = 1, n do
    x, z = x + shape.points[i][1], z + shape.points[i][2]
  end
  local dx = shape.points[2][1] - shape.points[1][1]
  local dz = shape.points[2][2] - shape.points[1][2]
  return x / n, z / n, util.yaw(math.deg(math.atan2(-dz, dx)))
end

-- Terrain pieces and the objective where the referee's scene has them (after a rewind).
local function place_scene(scene)
  for _, t in ipairs(scene.terrain or {}) do
    local obj = getObjectFromGUID(t.id)
    if obj ~= nil and obj.held_by_color == nil and type(t.shape) == "table" then
      local x, z, yaw = footprint_place(t.shape)
      if x ~= nil then
        place(obj, x, z, yaw)
      end
    end
  end
  for _, ring in ipairs(scene.rings or {}) do
    if ring.kind == "objective" then
      for _, obj in ipairs(getObjectsWithTag("objective")) do
        place(obj, ring.x, ring.z, nil)
      end
    end
  end
end


-- `put_back`: also set every terrain piece and the objective where the referee has them (a
-- reloaded or rewound game: TTS brings back the pieces' older places).
function M.refresh(put_back)
  if not model.has_table() then
    return
  end
  restore = restore or put_back == true
  if in_flight then
    again = true
    return
  end
  in_flight = true
  local restoring = restore
  restore = false
  referee.read("/tables/" .. model.state.table_id .. "/scene", function(outcome)
    in_flight = false
    if outcome.ok and type(outcome.body.rings) == "table" then
      render.set_rings(outcome.body.rings)
    end
    if outcome.ok and restoring then
      place_scene(outcome.body)
    end
    if again then
      again = false
      M.refresh()
    end
  end)
end

return M
