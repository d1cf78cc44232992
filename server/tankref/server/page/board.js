// The table from above as SVG, drawn from the referee's scene (GET /tables/{id}/scene).
// Units are inches; +z is north. SVG's y grows downwards, so a point (x, z) is drawn at
// (x, -z): north is up. Facing 0 looks north and 90 east; SVG's rotate() turns clockwise
// on screen, which is exactly that.

import { svg, num } from "./dom.js";
import { fitView, placeLabels } from "./labels.js";

const PALETTE = ["#c62f2f", "#2764c5", "#2e8b57", "#c77c00", "#8e44ad", "#16a0a0"];

/** Each player's colour: the first player red-ish, the second blue-ish, then others. */
export function playerColours(scene) {
  const ids = (scene.players || []).map((p) => p.id);
  for (const id of (scene.table && scene.table.players) || []) if (!ids.includes(id)) ids.push(id);
  for (const t of scene.tanks || []) if (!ids.includes(t.player)) ids.push(t.player);
  return new Map(ids.map((id, i) => [id, PALETTE[i % PALETTE.length]]));
}

// Short badges for the engine's marker words; the full word is in the tank's tooltip and
// the legend (which lists the markers the board shows, as the ruleset words them).
const BADGES = {
  Grizzled: "Gz", Shaken: "Sh", Routed: "Rt", "Moving Fast": "MF", Wait: "W",
  Immobilized: "Im", "Must Recover": "MR", "Engine Damaged": "En", "Turret Jammed": "TJ",
  Reserve: "Rs",
};

/** The badge a marker is drawn with: "Gz" for Grizzled, "GD2" for "Gun Damaged x2", "Di090"
 *  for "Direction 090°": a word's first letters, or each word's initial, and its numbers. */
export function badge(marker) {
  if (BADGES[marker]) return BADGES[marker];
  // "HP 4/5", "Moved", "Piece", "HP 11/20": short enough as they are (a count is kept whole).
  if (marker.length <= 6 || (/\d/.test(marker) && marker.length <= 9)) return marker;
  const words = marker.split(/[\s-]+/).filter((w) => /^[A-Za-z]+$/.test(w));
  const short = words.length > 1 ? words.map((w) => w[0]).join("").slice(0, 3) : (words[0] || marker).slice(0, 2);
  return short + (marker.match(/\d+/g) || []).join("/");
}

/** A longer badge, for two markers that would share one: every word's initial (bracketed
 *  words too: "Artillery 2 (Ann)" -> "AA2") or a word's first three letters, and numbers. */
function longerBadge(marker) {
  const words = marker.split(/[\s-]+/).map((w) => w.replace(/[^A-Za-z]/g, "")).filter(Boolean);
  const short = words.length > 1 ? words.map((w) => w[0].toUpperCase()).join("") : (words[0] || "").slice(0, 3);
  return short + (marker.match(/\d+/g) || []).join("/");
}

/** The badge of each marker on the units on the table: badge(), except where two markers
 *  would share one ("Attack space", "Anti-tank space": "AS", "ATS"), which then take the
 *  longer badge (or, failing that, a number). One badge, one meaning, on any board. */
export function badgeMap(scene) {
  const markers = new Set();
  for (const t of scene.tanks || []) if (t.on_table) t.markers.forEach((m) => markers.add(m));
  markers.delete("Destroyed"); // drawn as the wreck it is, not as a badge
  const out = new Map([...markers].map((m) => [m, badge(m)]));
  const users = new Map();
  for (const [m, b] of out) users.set(b, [...(users.get(b) || []), m]);
  for (const shared of users.values()) {
    if (shared.length < 2) continue;
    shared.forEach((m, i) => {
      const longer = longerBadge(m);
      const taken = [...out].some(([other, b]) => other !== m && b === longer);
      out.set(m, taken || !longer ? `${badge(m)}·${i + 1}` : longer);
    });
  }
  return out;
}

/** Shorter forms of a unit's label for a crowded board: its name's first two words (what
 *  is in brackets dropped; the id kept where the name is shared), then its id alone. */
function shorterNames(t, shown) {
  const words = (t.name || "").replace(/\([^)]*\)/g, " ").trim().split(/\s+/).filter(Boolean);
  const short = words.slice(0, 2).join(" ");
  const forms = [];
  const withId = shown.endsWith(`(${t.tank_id})`);
  if (short && short !== t.name) forms.push(withId ? `${short} (${t.tank_id})` : short);
  if (t.tank_id !== shown) forms.push(t.tank_id);
  return forms;
}

/** What the board shows a tank as: its name; where two share one, with its id beside it. */
export function unitNames(tanks) {
  const count = new Map();
  for (const t of tanks) count.set(t.name, (count.get(t.name) || 0) + 1);
  return new Map(tanks.map((t) => [t.tank_id,
    !t.name ? t.tank_id : count.get(t.name) > 1 ? `${t.name} (${t.tank_id})` : t.name]));
}

// Colours for the terrain words the rulesets use (a kind not listed is drawn grey; its name
// is in the legend and the tooltip either way).
const TERRAIN = {
  forest: { fill: "#4f7d3a", opacity: 0.55 },
  woods: { fill: "#4f7d3a", opacity: 0.55 },
  blocking: { fill: "#4a4a4a", opacity: 0.75 },
  building: { fill: "#4a4a4a", opacity: 0.75 },
  town: { fill: "#8d6e63", opacity: 0.7 },
  cover: { fill: "#a0845c", opacity: 0.45 },
  cover1: { fill: "#a0845c", opacity: 0.45 },
  cover2: { fill: "#7a5c3a", opacity: 0.6 },
  hill: { fill: "#c9b27c", opacity: 0.55 },
  road: { fill: "#b0a48a", opacity: 0.8 },
  rubble: { fill: "#8a8a80", opacity: 0.6 },
  crater: { fill: "#5d5348", opacity: 0.6 },
  rough: { fill: "#9c8f5a", opacity: 0.5 },
  mud: { fill: "#6d5a3f", opacity: 0.55 },
  soft: { fill: "#b8a36a", opacity: 0.45 },
  clear: { fill: "#dfe6c9", opacity: 0 },
};

export function terrainLook(kind) {
  return TERRAIN[kind] || { fill: "#9a9a9a", opacity: 0.5 };
}

function terrainShape(piece, onHexes) {
  const look = terrainLook(piece.kind);
  const shape = piece.shape || {};
  const attrs = { class: `terrain terrain-${piece.kind}`, fill: look.fill, "fill-opacity": look.opacity,
    stroke: look.fill, "stroke-width": 0.25, "data-terrain": piece.id };
  let node;
  let cx = 0;
  let cz = 0;
  let width = 0;
  if (shape.shape === "circle") {
    node = svg("circle", { ...attrs, cx: shape.x, cy: -shape.z, r: shape.radius });
    cx = shape.x;
    cz = shape.z;
    width = 2 * shape.radius;
  } else if (shape.shape === "polygon" && Array.isArray(shape.points) && shape.points.length) {
    node = svg("polygon", { ...attrs, points: shape.points.map(([x, z]) => `${num(x, 3)},${num(-z, 3)}`).join(" ") });
    cx = shape.points.reduce((s, p) => s + p[0], 0) / shape.points.length;
    cz = shape.points.reduce((s, p) => s + p[1], 0) / shape.points.length;
    const xs = shape.points.map((p) => p[0]);
    width = Math.max(...xs) - Math.min(...xs);
  } else return null;
  const label = piece.label || piece.kind;
  // The piece's name as the ruleset gives it (a ruleset's explanation in brackets stays in
  // the tooltip), never its rule kind; shrunk to fit the piece. On a hex map a name too long
  // for its hex is left to the tooltip and the legend; elsewhere it is drawn at a readable
  // size and the label placement keeps it off the other labels.
  const shown = label.replace(/\s*\([^)]*\)$/, "") || label;
  const fit = Math.min(1.2, (0.9 * width) / (0.6 * shown.length));
  const size = fit >= 0.6 ? fit : onHexes ? 0 : 0.7;
  return svg("g", {},
    node,
    svg("title", { text: `${label} (${piece.kind})` }),
    size ? svg("text", { class: "terrain-label board-label", x: num(cx, 3), y: num(-cz, 3),
      "text-anchor": "middle", "font-size": num(size, 2), text: shown }) : null);
}

// --- a hex grid (rulesets that play on hexes): the same arithmetic as tankref.core.hexgrid ---

const SQRT3 = Math.sqrt(3);
const MAX_CELLS = 20000; // a map of tiny hexes: draw no grid rather than stall the page

function hexCentre(g, q, r) {
  const w = g.hex_width;
  return g.orientation === "pointy"
    ? [g.origin_x + w * (q + r / 2), g.origin_z + ((w * SQRT3) / 2) * r]
    : [g.origin_x + ((w * SQRT3) / 2) * q, g.origin_z + w * (r + q / 2)];
}

/** Every hex whose centre lies in the area (edges included), as [q, r]. */
export function hexesIn(g, a) {
  const eps = 1e-9;
  const w = g.hex_width;
  const step = (w * SQRT3) / 2;
  const out = [];
  const pointy = g.orientation === "pointy";
  // Pointy: rows of constant r, then q along x; flat: columns of constant q, then r along z.
  const [oMajor, lo, hi] = pointy ? [g.origin_z, a.z_min, a.z_max] : [g.origin_x, a.x_min, a.x_max];
  const [oMinor, lo2, hi2] = pointy ? [g.origin_x, a.x_min, a.x_max] : [g.origin_z, a.z_min, a.z_max];
  for (let m = Math.ceil((lo - oMajor) / step - eps); m <= Math.floor((hi - oMajor) / step + eps); m++) {
    const first = Math.ceil((lo2 - oMinor) / w - m / 2 - eps);
    const last = Math.floor((hi2 - oMinor) / w - m / 2 + eps);
    for (let n = first; n <= last; n++) {
      out.push(pointy ? [n, m] : [m, n]);
      if (out.length > MAX_CELLS) return null;
    }
  }
  return out;
}

/** The map's hexes as one light path (one element, however many hexes). */
function hexGrid(g, a) {
  const cells = hexesIn(g, a);
  if (!cells) return null;
  const start = g.orientation === "pointy" ? 30 : 0;
  const rad = g.hex_width / SQRT3;
  const parts = cells.map(([q, r]) => {
    const [cx, cz] = hexCentre(g, q, r);
    const points = [];
    for (let i = 0; i < 6; i++) {
      const angle = ((start + 60 * i) * Math.PI) / 180;
      points.push(`${num(cx + rad * Math.cos(angle), 3)} ${num(-(cz + rad * Math.sin(angle)), 3)}`);
    }
    return `M${points.join("L")}Z`;
  });
  return svg("path", { class: "hex-grid", d: parts.join(""), "data-cells": cells.length,
    "data-orientation": g.orientation, "data-hex-width": g.hex_width });
}

function ring(r, colours) {
  if (r.kind === "smoke") {
    const level = Math.max(0, Number(r.level) || 0);
    return svg("g", { class: "ring smoke", "data-ring": r.id, "data-level": level },
      svg("circle", { cx: r.x, cy: -r.z, r: r.radius, fill: "#9aa0a6",
        "fill-opacity": Math.min(0.6, 0.12 + 0.14 * level), stroke: "#6b7075",
        "stroke-width": 0.2, "stroke-dasharray": "0.8 0.6" }),
      svg("title", { text: r.label || `Smoke (level ${level})` }));
  }
  if (r.kind === "objective") {
    return svg("g", { class: "ring objective", "data-ring": r.id },
      svg("circle", { cx: r.x, cy: -r.z, r: r.radius, fill: "none", stroke: "#d4a017",
        "stroke-width": 0.35, "stroke-dasharray": "1.5 0.8" }),
      svg("circle", { cx: r.x, cy: -r.z, r: 0.6, fill: "#d4a017" }),
      svg("title", { text: r.label || "Objective" }));
  }
  // Any other ring a ruleset draws (a yard's spaces, ...): its owner's colour, its label under it.
  const stroke = (r.owner && colours.get(r.owner)) || "#777";
  // The colour says whose it is, so the label drops the owner's name; sized to the ring.
  const label = r.owner && r.label && r.label.startsWith(`${r.owner} `) ? r.label.slice(r.owner.length + 1) : r.label;
  const size = label ? Math.min(0.95, (2.6 * r.radius) / (0.55 * label.length)) : 0;
  return svg("g", { class: `ring ring-${r.kind}`, "data-ring": r.id, "data-owner": r.owner || null },
    svg("circle", { cx: r.x, cy: -r.z, r: r.radius, fill: stroke, "fill-opacity": 0.07, stroke,
      "stroke-width": 0.25, "stroke-dasharray": r.owner ? null : "0.6 0.4" }),
    svg("title", { text: r.label || r.kind }),
    label ? svg("text", { class: "ring-label board-label", x: r.x, y: -r.z + r.radius + 1.1, "text-anchor": "middle",
      "font-size": num(size, 2), text: label }) : null);
}

function tank(t, name, badges, colour, selected, onSelect, scale, offTable) {
  const destroyed = t.markers.includes("Destroyed");
  const body = destroyed ? "#8c8c8c" : colour;
  const markers = t.markers.filter((m) => m !== "Destroyed");
  const label = `${t.tank_id} ${t.name} (${t.player})` +
    (t.markers.length ? ": " + t.markers.join(", ") : "") + (offTable ? " [off the table]" : "");
  const hull = svg("g", { transform: `rotate(${num(t.facing, 2)})`, class: "hull" },
    svg("rect", { x: -1.1, y: -1.7, width: 2.2, height: 3.4, rx: 0.3, fill: body,
      "fill-opacity": destroyed ? 0.55 : 0.9, stroke: "#1b1b1b", "stroke-width": 0.15 }),
    svg("circle", { cx: 0, cy: -0.1, r: 0.75, fill: body, stroke: "#1b1b1b", "stroke-width": 0.12 }),
    svg("line", { x1: 0, y1: -0.8, x2: 0, y2: -3.1, stroke: "#1b1b1b", "stroke-width": 0.3,
      "stroke-linecap": "round" }));
  const g = svg("g", {
    class: "tank" + (destroyed ? " destroyed" : "") + (selected ? " selected" : "") + (offTable ? " off-table" : ""),
    transform: `translate(${num(t.x, 3)} ${num(-t.z, 3)})` + (scale < 1 ? ` scale(${num(scale, 3)})` : ""),
    tabindex: 0, role: "button", "aria-pressed": selected ? "true" : "false", "aria-label": label,
    "data-tank": t.tank_id, "data-player": t.player, "data-x": t.x, "data-z": t.z,
    "data-facing": t.facing,
  },
  svg("title", { text: t.tooltip ? `${label}\n${t.tooltip}` : label }),
  // A target a little larger than the model: small tanks are easy to hit on a big table.
  svg("circle", { class: "hit-area", r: 2.4, fill: "transparent" }),
  selected ? svg("circle", { class: "selection", r: 2.6, fill: "none", stroke: "#111", "stroke-width": 0.25 }) : null,
  // Beyond the table's edge (driven or routed off): drawn where it stands, ringed and marked,
  // and the view widens to show it whole.
  offTable ? svg("circle", { class: "off-table-mark", r: 2.9, fill: "none", stroke: "#555",
    "stroke-width": 0.2, "stroke-dasharray": "0.7 0.5" }) : null,
  hull,
  destroyed ? svg("path", { d: "M-1.3 -1.3 L1.3 1.3 M1.3 -1.3 L-1.3 1.3", stroke: "#222", "stroke-width": 0.3 }) : null,
  svg("text", { class: "tank-label board-label", y: 3.1, "text-anchor": "middle",
    "data-unit": t.tank_id, "data-shorter": JSON.stringify(shorterNames(t, name)),
    text: offTable ? `${name} (off the table)` : name }));
  let x = 1.6; // badges side by side, each as wide as its text
  const chips = svg("g", { class: "badges board-label" });
  markers.forEach((m) => {
    const text = badges.get(m) || badge(m);
    const w = 0.75 + 0.6 * text.length;
    const at = x;
    x += w + 0.2;
    chips.append(svg("g", { class: "badge", "data-marker": m, "data-badge": text },
      svg("rect", { x: at, y: -2.9, width: w, height: 1.5, rx: 0.4, fill: "#fff8dc", stroke: "#333", "stroke-width": 0.1 }),
      svg("text", { x: at + w / 2, y: -1.8, "text-anchor": "middle", text })));
  });
  if (markers.length) g.append(chips);
  const choose = () => onSelect(t.tank_id);
  g.addEventListener("click", choose);
  g.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      choose();
    }
  });
  return g;
}

/** A ruleset without a fixed playing area: the box around what is on the table. */
function areaAround(scene) {
  const xs = [-12, 12];
  const zs = [-12, 12];
  for (const t of scene.tanks || []) if (t.on_table) xs.push(t.x), zs.push(t.z);
  for (const r of scene.rings || []) xs.push(r.x - r.radius, r.x + r.radius), zs.push(r.z - r.radius, r.z + r.radius);
  const pad = 4;
  return { x_min: Math.min(...xs) - pad, x_max: Math.max(...xs) + pad, z_min: Math.min(...zs) - pad, z_max: Math.max(...zs) + pad };
}

/** Draw the scene into the <svg>; `selected` is a tank id or null. */
export function drawBoard(node, scene, { selected, onSelect }) {
  const a = scene.area || areaAround(scene);
  const colours = playerColours(scene);
  node.setAttribute("viewBox", `${a.x_min} ${-a.z_max} ${a.x_max - a.x_min} ${a.z_max - a.z_min}`);
  node.setAttribute("preserveAspectRatio", "xMidYMid meet");
  const hexes = scene.grid ? hexGrid(scene.grid, a) : null;
  const grid = svg("g", { class: "grid" });
  // Six-inch squares to judge distances by, unless the table is a hex map.
  for (let x = Math.ceil(a.x_min / 6) * 6; !hexes && x <= a.x_max; x += 6) {
    grid.append(svg("line", { x1: x, y1: -a.z_max, x2: x, y2: -a.z_min }));
  }
  for (let z = Math.ceil(a.z_min / 6) * 6; !hexes && z <= a.z_max; z += 6) {
    grid.append(svg("line", { x1: a.x_min, y1: -z, x2: a.x_max, y2: -z }));
  }
  const layers = [
    svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
      markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" },
    svg("path", { d: "M0 0 L10 5 L0 10 z", fill: "#b00020" }))),
    svg("rect", { class: "cloth", x: a.x_min, y: -a.z_max, width: a.x_max - a.x_min,
      height: a.z_max - a.z_min }),
    grid,
    svg("text", { class: "compass board-label", x: a.x_max - 1.5, y: -a.z_max + 2.5, "text-anchor": "middle", text: "N ↑" }),
    svg("g", { class: "terrain-layer" }, (scene.terrain || []).map((p) => terrainShape(p, Boolean(scene.grid)))),
    hexes,
    svg("g", { class: "ring-layer" }, (scene.rings || []).map((r) => ring(r, colours))),
  ];
  const names = unitNames(scene.tanks || []);
  const badges = badgeMap(scene);
  const fire = scene.line_of_fire;
  if (fire) {
    // On the board, what came of the shot ("missed", "destroyed"): the units say who by
    // their own labels; the whole label (names and result) is the tooltip and in the log.
    const colon = (fire.label || "").lastIndexOf(": ");
    const what = colon >= 0 ? fire.label.slice(colon + 2) : `${names.get(fire.shooter_id) || fire.shooter_id} → ${names.get(fire.target_id) || fire.target_id}`;
    layers.push(svg("g", { class: "line-of-fire", "data-seq": fire.seq },
      svg("line", { x1: fire.x1, y1: -fire.z1, x2: fire.x2, y2: -fire.z2, stroke: "#b00020",
        "stroke-width": 0.3, "stroke-dasharray": "1 0.5", "marker-end": "url(#arrow)" }),
      svg("title", { text: fire.label || "Last line of fire" }),
      svg("text", { class: "fire-label board-label", x: (fire.x1 + fire.x2) / 2, y: -(fire.z1 + fire.z2) / 2 - 0.6,
        "text-anchor": "middle", text: `last shot: ${what}` })));
  }
  const onTable = (scene.tanks || []).filter((t) => t.on_table);
  // Destroyed tanks underneath, so a live tank standing on a wreck stays clickable.
  onTable.sort((p, q) => Number(q.markers.includes("Destroyed")) - Number(p.markers.includes("Destroyed")));
  // On a hex map a model stands in one hex: drawn to fit it (the glyph is 3.4" long).
  const scale = scene.grid ? Math.min(1, scene.grid.hex_width / 3.6) : 1;
  const outside = (t) => t.x < a.x_min || t.x > a.x_max || t.z < a.z_min || t.z > a.z_max;
  layers.push(svg("g", { class: "tank-layer" },
    onTable.map((t) => tank(t, names.get(t.tank_id), badges, colours.get(t.player) || "#666", t.tank_id === selected,
      onSelect, scale, outside(t)))));
  // A live update redraws the board: the unit a keyboard user is on keeps the focus, so the
  // Enter they are about to press still picks it.
  const active = document.activeElement;
  const focused = active && node.contains(active) && active.closest("[data-tank]");
  node.replaceChildren(...layers.filter(Boolean));
  // Labels first (they may move outwards), then the view around all that is drawn.
  placeLabels(node);
  fitView(node, a);
  node.dataset.seq = String(scene.seq);
  if (focused) {
    const again = node.querySelector(`[data-tank="${CSS.escape(focused.dataset.tank)}"]`);
    if (again) again.focus();
  }
  return colours;
}
