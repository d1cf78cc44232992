-- seatview: where a button goes so the player who uses it can read it. A button is read
-- upright from +z at rotation 0 and is stretched with its object's scale (FACTS.md), so a
-- reader at -z needs it turned by 180, and its scale undoes the object's.
local M = {}

-- Red plays from the south edge (-z), Blue from the north (+z): the save's hand zones.
M.SEAT_YAW = { Red = 180, Blue = 0 }

-- The world yaw a reader of this object needs: the reader's seat, else the object's side's,
-- else the nearer edge's.
function M.reader_yaw(obj, reader)
  if reader ~= nil and M.SEAT_YAW[reader] ~= nil then
    return M.SEAT_YAW[reader]
  end
  for side_name, yaw in pairs(M.SEAT_YAW) do
    if obj.hasTag("side:" .. side_name) then
      return yaw
    end
  end
  if obj.getPosition().z < 0 then
    return 180
  end
  return 0
end

-- Button parameters for a spot `up` inches up the reader's view from the object's centre
-- and `above` inches over its top: position, rotation and scale in the object's own frame.
-- `reader`: the side that uses the button when it is not the object's own (a target's pick).
function M.place(obj, up, above, reader)
  local s = obj.getScale()
  local yaw = obj.getRotation().y
  local want = M.reader_yaw(obj, reader)
  -- "Up" for a reader at -z is +z in the world, and -z for one at +z.
  local wz = up
  if want == 0 then
    wz = -up
  end
  local t = math.rad(yaw)
  local lx = -wz * math.sin(t)
  local lz = wz * math.cos(t)
  return {
    position = { lx / s.x, 0.5 + above / s.y, lz / s.z },
    rotation = { 0, (want - yaw) % 360, 0 },
    scale = { 1 / s.x, 1 / s.y, 1 / s.z },
  }
end

-- The side of a tagged object, or nil.
function M.side_of(obj)
  for side in pairs(M.SEAT_YAW) do
    if obj ~= nil and obj.hasTag("side:" .. side) then
      return side
    end
  end
  return nil
end

-- The other side of a two-seat table, or nil.
function M.other(side)
  if side == "Red" then
    return "Blue"
  elseif side == "Blue" then
    return "Red"
  end
  return nil
end

return M
