// Each player's luck (observed against expected, with the range a fair table lands in), from
// whatever the table's ruleset answers: no ruleset is named here. (The odds are in odds.js.)

import { el, svg, num, pct } from "./dom.js";

const isMeasure = (v) => Boolean(v) && typeof v === "object" && typeof v.observed === "number";

/** The luck chart: per player and measure (whatever the ruleset counts: hits, penetrations,
 * morale failures ...), observed (bar) against expected (tick) and the counts that are about
 * as expected (whisker): the referee's own band (`fair_range`), never worked out here, so the
 * whisker, the words and the figures always agree. A measure nobody has had a chance at yet
 * is left out. */
export function luckNodes(reply, colours) {
  const players = reply.players || [];
  if (!players.length) return [el("p", { class: "note", text: "No players yet." })];
  const measures = [];
  for (const p of players) {
    for (const [m, s] of Object.entries(p)) {
      if (isMeasure(s) && s.trials > 0 && !measures.includes(m)) measures.push(m);
    }
  }
  let top = 1;
  for (const p of players) {
    for (const m of measures) {
      const s = p[m];
      if (isMeasure(s)) top = Math.max(top, s.trials, s.observed, s.fair_range[1]);
    }
  }
  const rowH = 16;
  const left = 150;
  const width = 460;
  const scale = (v) => left + ((width - left - 76) * v) / top; // room for the figures
  const rows = [];
  let y = 4;
  for (const p of players) {
    const colour = colours.get(p.player) || "#666";
    for (const m of measures) {
      const s = p[m];
      if (!isMeasure(s)) continue;
      const [lo, hi] = s.fair_range;
      const mid = y + rowH / 2;
      rows.push(svg("g", { class: `luck-row verdict-${s.verdict}`, "data-player": p.player, "data-measure": m,
        "data-observed": s.observed, "data-expected": s.expected, "data-band": `${lo}-${hi}` },
      svg("title", { text: s.text }),
      svg("text", { x: 0, y: mid + 4, class: "luck-label", text: `${p.player} ${m.replaceAll("_", " ")}` }),
      svg("rect", { x: left, y: y + 2, width: Math.max(0, scale(s.observed) - left), height: rowH - 4,
        fill: colour, "fill-opacity": 0.75 }),
      svg("line", { class: "fair", x1: scale(lo), x2: scale(hi), y1: mid, y2: mid, stroke: "#222", "stroke-width": 1.5 }),
      svg("line", { x1: scale(lo), x2: scale(lo), y1: mid - 4, y2: mid + 4, stroke: "#222" }),
      svg("line", { x1: scale(hi), x2: scale(hi), y1: mid - 4, y2: mid + 4, stroke: "#222" }),
      svg("line", { class: "expected", x1: scale(s.expected), x2: scale(s.expected), y1: y, y2: y + rowH,
        stroke: "#000", "stroke-width": 3 }),
      svg("text", { x: width - 2, y: mid + 4, "text-anchor": "end", class: "luck-value",
        text: `${s.observed} / ${num(s.expected)}` })));
      y += rowH + 4;
    }
    y += 6;
  }
  const named = measures.map((m) => m.replaceAll("_", " ")).join(", ");
  const chart = rows.length
    ? svg("svg", { class: "luck-chart", viewBox: `0 0 ${width} ${y}`, role: "img",
      "aria-label": `Luck per player: observed against expected (${named})` }, rows)
    : null;
  const texts = players.flatMap((p) => Object.values(p)
    .filter((s) => isMeasure(s) && s.trials > 0)
    .map((s) => el("li", { class: s.significant ? `verdict-${s.verdict}` : "", text: s.text })));
  return [
    chart,
    chart ? el("p", { class: "legend-line muted", text: "Bar: observed. Thick tick: expected. Whisker: the counts that are about as expected (luck percentile 5 to 95)." }) : null,
    texts.length ? el("ul", { class: "luck-text" }, texts) : el("p", { class: "note", text: "No chances counted yet." }),
    reply.significance ? el("p", { class: "muted small", text: reply.significance }) : null,
  ];
}
