// Board labels that never cover one another, and a view that shows everything drawn.
//
// Every label on the board (class "board-label": the compass, unit names, marker badges, the
// last shot, ring and terrain names) is placed in turn, the most important first; each keeps
// its spot if that is free, else moves to the nearest free spot around it (a unit's name
// below it, else above, else aside). Free means clear of the labels placed before it and of
// the other units' hulls. Boxes are measured once per label, in screen pixels, and shifted
// by arithmetic: one layout per label however many spots are tried.

const RANK = ["compass", "tank-label", "badges", "fire-label", "ring-label", "terrain-label",
  "aid-refused", "aid-reading"];
const GAP = 1; // px kept between two labels

// Spots to try, in the label's own units (inches on the board): nearest first, vertical
// moves before sideways ones (a name a line lower reads as the same unit's).
const SPOTS = (() => {
  const out = [];
  for (let i = -6; i <= 6; i++) {
    for (let j = -4; j <= 4; j++) out.push([j * 2.5, i * 1.45]);
  }
  return out.sort((p, q) => (p[0] / 2.5) ** 2 * 1.5 + (p[1] / 1.45) ** 2 - ((q[0] / 2.5) ** 2 * 1.5 + (q[1] / 1.45) ** 2));
})();

function rank(node) {
  const found = RANK.findIndex((c) => node.classList.contains(c));
  return found < 0 ? RANK.length : found;
}

function overlap(a, b) {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left) + GAP;
  const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) + GAP;
  return w > 0 && h > 0 ? w * h : 0;
}

function shifted(box, dx, dy) {
  return { left: box.left + dx, right: box.right + dx, top: box.top + dy, bottom: box.bottom + dy };
}

/** Move the board's labels apart (a transform on each label that had to move). */
export function placeLabels(board) {
  const labels = [...board.querySelectorAll(".board-label")];
  labels.sort((p, q) => rank(p) - rank(q)); // stable: drawing order within a rank
  const hulls = [...board.querySelectorAll(".tank .hull")].map((h) => ({
    unit: h.closest(".tank"), box: h.getBoundingClientRect(),
  }));
  const placed = [];
  for (const label of labels) {
    label.removeAttribute("transform");
    const box = label.getBoundingClientRect();
    const ctm = label.getScreenCTM();
    if ((!box.width && !box.height) || !ctm) continue; // not laid out (hidden): nothing to place
    const own = label.closest(".tank");
    const others = hulls.filter((h) => h.unit !== own).map((h) => h.box);
    let best = null;
    for (const [dx, dy] of SPOTS) {
      const at = shifted(box, dx * ctm.a + dy * ctm.c, dx * ctm.b + dy * ctm.d);
      // Covering another label is what must never happen; covering a hull only if no
      // spot near enough is clear of both.
      const cost = 100 * placed.reduce((s, b) => s + overlap(at, b), 0) +
        others.reduce((s, b) => s + overlap(at, b), 0);
      if (!best || cost < best.cost) best = { dx, dy, at, cost };
      if (cost === 0) break;
    }
    if (best.dx || best.dy) label.setAttribute("transform", `translate(${best.dx} ${best.dy})`);
    label.dataset.moved = best.dx || best.dy ? `${best.dx} ${best.dy}` : "";
    placed.push(best.at);
  }
}

/** The view: the playing area, widened to whatever is drawn beyond it (a unit past the
 *  edge, a label moved outwards), so nothing is cut off at the board's border. */
export function fitView(board, a) {
  let [x0, y0, x1, y1] = [a.x_min, -a.z_max, a.x_max, -a.z_min];
  let b = null;
  try {
    b = board.getBBox();
  } catch {
    b = null; // not rendered: the area alone
  }
  if (b && (b.width || b.height)) {
    const pad = 0.6;
    x0 = Math.min(x0, b.x - pad);
    y0 = Math.min(y0, b.y - pad);
    x1 = Math.max(x1, b.x + b.width + pad);
    y1 = Math.max(y1, b.y + b.height + pad);
  }
  board.setAttribute("viewBox", [x0, y0, x1 - x0, y1 - y0].map((v) => Number(v.toFixed(3))).join(" "));
  board.dataset.area = [a.x_min, -a.z_max, a.x_max - a.x_min, a.z_max - a.z_min].join(" ");
}
