// Aids on the board: hovering (or focusing) a unit draws where it may still move, its arcs
// and the line of fire to each enemy coloured by how the referee reads it, all from
// GET /tables/{id}/tanks/{unit}/aids (shapes in table inches, each naming its clause). The
// selected unit's lines stay drawn while another is hovered. Read once per unit and log
// position (the board's data-seq), drawn on one layer under the tanks.

import { get, tablePath } from "./api.js";
import { svg, num } from "./dom.js";
import { placeLabels } from "./labels.js";

export const READING_COLOURS = {
  clear: "#2e9d2e", light: "#9acd32", cover: "#2764c5", heavy: "#e07b00", smoke: "#8a8a8a",
  blocked: "#c62828",
};
const RING_COLOURS = { normal: "#1e88e5", fast: "#d4a017", rate: "#1e88e5", slow: "#e07b00" };
const ARC_COLOURS = { front: "#2e9d2e", rear: "#c62828" };
const SQRT3 = Math.sqrt(3);

function wedge(arc) {
  const span = ((arc.end - arc.start) % 360 + 360) % 360 || 360;
  const at = (deg) => {
    const a = (deg * Math.PI) / 180; // bearing: 0 north, 90 east; drawn at (x, -z)
    return `${num(arc.x + arc.radius * Math.sin(a), 3)} ${num(-(arc.z + arc.radius * Math.cos(a)), 3)}`;
  };
  const d = `M${num(arc.x, 3)} ${num(-arc.z, 3)} L${at(arc.start)} A${arc.radius} ${arc.radius} 0 ${span > 180 ? 1 : 0} 1 ${at(arc.start + span)} Z`;
  return svg("path", { class: "aid-arc", "data-arc": arc.id, d, fill: ARC_COLOURS[arc.id] || "#d4a017",
    "fill-opacity": 0.12, stroke: ARC_COLOURS[arc.id] || "#d4a017", "stroke-width": 0.15 },
  svg("title", { text: `${arc.label} (${arc.clause})` }));
}

function hexagon(h, size, flat) {
  const start = flat ? 0 : 30;
  const points = [];
  for (let i = 0; i < 6; i++) {
    const a = ((start + 60 * i) * Math.PI) / 180;
    points.push(`${num(h.x + 0.9 * size * Math.cos(a), 3)},${num(-(h.z + 0.9 * size * Math.sin(a)), 3)}`);
  }
  return svg("polygon", { class: "aid-hex", "data-hex": `${h.q},${h.r}`, points: points.join(" "),
    fill: h.road ? "#e07b00" : "#1e88e5", "fill-opacity": 0.15, stroke: h.road ? "#e07b00" : "#1e88e5",
    "stroke-width": 0.1 }, svg("title", { text: `hex ${h.q},${h.r}: ${h.cost} MP${h.road ? " (road)" : ""}` }));
}

function moveShapes(shape) {
  if (shape.shape === "ring") {
    return [svg("circle", { class: "aid-ring", "data-ring": shape.id, cx: shape.x, cy: -shape.z,
      r: shape.radius, fill: "none", stroke: RING_COLOURS[shape.id] || "#1e88e5", "stroke-width": 0.25,
      "stroke-dasharray": "1 0.5", "data-radius": shape.radius },
    svg("title", { text: `${shape.label} (${shape.clause})` }))];
  }
  if (shape.shape === "hexes") {
    return shape.hexes.map((h) => hexagon(h, shape.size || 2 / SQRT3, shape.orientation === "flat"));
  }
  if (shape.shape === "spaces") {
    return shape.spaces.map((s) => svg("circle", { class: "aid-space", "data-space": s.space, cx: s.x,
      cy: -s.z, r: 1.5, fill: "#1e88e5", "fill-opacity": 0.2, stroke: "#1e88e5", "stroke-width": 0.2 },
    svg("title", { text: `${s.space} (${shape.clause})` })));
  }
  return [];
}

function lineShape(line) {
  const why = line.refused ? `; may not fire: ${line.refused.message} (${line.refused.clause || line.refused.code})` : "";
  return svg("g", { class: "aid-line", "data-target": line.target_id, "data-reading": line.reading,
    "data-may-fire": String(line.may_fire) },
  svg("line", { x1: line.x1, y1: -line.z1, x2: line.x2, y2: -line.z2,
    stroke: READING_COLOURS[line.reading] || "#555", "stroke-width": 0.3,
    "stroke-dasharray": line.may_fire ? null : "0.6 0.6" }),
  svg("title", { text: `${line.reading}: ${line.label} (${line.clause})${why}` }),
  svg("text", { class: "aid-reading board-label", x: (line.x1 + line.x2) / 2, y: -(line.z1 + line.z2) / 2 + 1.2,
    "text-anchor": "middle", "font-size": 0.9, fill: READING_COLOURS[line.reading] || "#555", text: line.reading }));
}

export class BoardAids {
  constructor(board, tableId) {
    this.board = board;
    this.tableId = tableId;
    this.cache = new Map(); // unit -> {seq, aids}
    this.hovered = null;
    this.selected = null;
    this.stop = new AbortController();
    const opts = { signal: this.stop.signal };
    const unitOf = (event) => event.target.closest && event.target.closest("[data-tank]");
    board.addEventListener("pointerover", (e) => this.hover(unitOf(e)), opts);
    board.addEventListener("focusin", (e) => this.hover(unitOf(e)), opts);
    board.addEventListener("pointerleave", () => this.hover(null), opts);
  }

  close() {
    this.stop.abort();
  }

  hover(node) {
    const id = node ? node.dataset.tank : null;
    if (id === this.hovered) return;
    this.hovered = id;
    this.redraw();
  }

  select(id) {
    this.selected = id;
    this.redraw();
  }

  async read(id) {
    const seq = this.board.dataset.seq;
    const found = this.cache.get(id);
    if (found && found.seq === seq) return found.aids;
    const aids = await get(`${tablePath(this.tableId)}/tanks/${encodeURIComponent(id)}/aids`);
    this.cache.set(id, { seq, aids });
    return aids;
  }

  /** Draw again (after the board was redrawn, or the hovered or selected unit changed). */
  async redraw() {
    const hovered = this.hovered;
    const selected = this.selected;
    const shown = [];
    try {
      if (hovered) shown.push([hovered, await this.read(hovered)]);
      if (selected && selected !== hovered) shown.push([selected, await this.read(selected)]);
    } catch {
      return; // no aids for it (a unit the referee does not know): nothing drawn
    }
    if (hovered !== this.hovered || selected !== this.selected) return; // moved on meanwhile
    const parts = [];
    for (const [id, aids] of shown) {
      if (id === hovered) {
        for (const shape of aids.move) parts.push(...moveShapes(shape));
        for (const arc of aids.arcs) parts.push(wedge(arc));
        if (aids.move_refused) {
          const unit = this.board.querySelector(`[data-tank="${CSS.escape(id)}"]`);
          if (unit) parts.push(svg("text", { class: "aid-refused board-label", x: unit.dataset.x, y: -unit.dataset.z - 3.6,
            "text-anchor": "middle", "font-size": 0.9, text: `no move: ${aids.move_refused.clause || aids.move_refused.code}` },
          svg("title", { text: aids.move_refused.message })));
        }
      }
      for (const line of aids.lines) parts.push(lineShape(line));
    }
    const old = this.board.querySelector(".aids-layer");
    if (old) old.remove();
    if (!parts.length && !hovered) return;
    // Not data-tank: the board's units are found by it.
    const layer = svg("g", { class: "aids-layer", "data-unit": hovered || selected, "pointer-events": "none" }, ...parts);
    const tanks = this.board.querySelector(".tank-layer");
    this.board.insertBefore(layer, tanks);
    placeLabels(this.board); // the aids' words too, clear of the board's labels
  }
}
