// Board labels that never cover one another, and a view that shows everything drawn.
//
// Every label on the board (class "board-label": the compass, marker badges, unit names, the
// last shot, ring and terrain names, the aids' words) is placed in turn, the most important
// first; each keeps its spot if that is free, else moves to the nearest free spot around it
// (a unit's name below it, else above, else aside). Free means clear of the labels placed
// before it and, where it can be, of the other units' hulls. Boxes are measured once per
// label (and form), in screen pixels, and shifted by arithmetic.

const RANK = ["compass", "badges", "tank-label", "fire-label", "ring-label", "terrain-label",
  "aid-refused", "aid-reading"];
const GAP = 1; // px kept between two labels
const FORM_COST = 10; // a shorter form is worth about two lines' move (see SPOTS' order)
const HULL_COST = 40; // covering a unit is worse than a shorter name or a longer move

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

/** Move the board's labels apart (a transform on each label that had to move). A label with
 *  shorter forms (data-shorter: a JSON list, e.g. a unit's short name, then its id) takes
 *  the first that finds a free spot; one that finds none is hidden (its tooltip and the
 *  unit's aria-label still say it): a label on another label helps nobody. */
export function placeLabels(board) {
  const labels = [...board.querySelectorAll(".board-label")];
  labels.sort((p, q) => rank(p) - rank(q)); // stable: drawing order within a rank
  const hulls = [...board.querySelectorAll(".tank .hull")].map((h) => ({
    unit: h.closest(".tank"), box: h.getBoundingClientRect(),
  }));
  const placed = [];
  for (const label of labels) {
    label.removeAttribute("transform");
    label.removeAttribute("display");
    if (label.dataset.full !== undefined) label.textContent = label.dataset.full;
    const ctm = label.getScreenCTM();
    const first = label.getBoundingClientRect();
    if ((!first.width && !first.height) || !ctm) continue; // not laid out (hidden): nothing to place
    const own = label.closest(".tank");
    const others = hulls.filter((h) => h.unit !== own).map((h) => h.box);
    const forms = [null, ...JSON.parse(label.dataset.shorter || "[]")];
    let best = null;
    forms.forEach((text, form) => {
      if (text !== null) {
        if (label.dataset.full === undefined) label.dataset.full = label.textContent;
        label.textContent = text;
      }
      const box = text === null ? first : label.getBoundingClientRect();
      SPOTS.forEach(([dx, dy], near) => {
        // Near its anchor first; a shorter form near beats the full one far off; a spot on
        // another unit's hull only where nothing else is free. Never on a label.
        const score = near + FORM_COST * form;
        if (best && score >= best.score) return;
        const at = shifted(box, dx * ctm.a + dy * ctm.c, dx * ctm.b + dy * ctm.d);
        if (placed.some((b) => overlap(at, b))) return;
        const onHull = others.some((b) => overlap(at, b));
        const total = score + (onHull ? HULL_COST : 0);
        if (!best || total < best.score) best = { text, dx, dy, at, score: total };
      });
    });
    if (!best) {
      label.setAttribute("display", "none");
      if (label.dataset.full !== undefined) label.textContent = label.dataset.full;
      continue;
    }
    if (label.dataset.full !== undefined) label.textContent = best.text === null ? label.dataset.full : best.text;
    if (best.dx || best.dy) label.setAttribute("transform", `translate(${best.dx} ${best.dy})`);
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
