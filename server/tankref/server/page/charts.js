// The odds of a selected tank against each enemy (bars), and each player's luck (observed
// against expected, with the range a fair table lands in).

import { el, svg, num, pct } from "./dom.js";

function bar(label, p, kind) {
  const fill = el("span", { class: `bar-fill bar-${kind}` });
  fill.style.width = `${Math.max(0, Math.min(1, p)) * 100}%`; // CSSOM: allowed under the CSP
  return el("div", { class: "bar-row", role: "img", "aria-label": `${label} ${pct(p)}`, "data-kind": kind, "data-p": p },
    el("span", { class: "bar-label", text: label }),
    el("span", { class: "bar-track" }, fill),
    el("span", { class: "bar-value", text: pct(p) }));
}

/** One block per enemy this tank may engage, most likely kill first (the API's order). */
export function oddsNodes(reply, tanksById) {
  if (!reply.odds.length) return [el("p", { class: "note", text: "No enemy it may engage now." })];
  return reply.odds.map((o) => {
    const target = tanksById.get(o.target);
    const cover = o.cover ? ` + cover ${o.cover}` : "";
    return el("div", { class: "odds", "data-target": o.target },
      el("h3", {},
        `${o.shooter} → ${o.target}`,
        el("span", { class: "muted", text: ` ${target ? target.name : o.target_card}, ${num(o.range)}″, ${o.hit_side} armour ${o.armour}${cover}` })),
      bar("Hit", o.p_hit, "hit"),
      bar("Penetrate", o.p_penetrate, "penetrate"),
      bar("Destroyed", o.p_destroyed, "destroyed"),
      o.p_morale_failure !== undefined ? bar("Morale fails", o.p_morale_failure, "morale") : null,
      el("p", { class: "exact muted", text: `exact: hit ${o.exact.p_hit}, destroyed ${o.exact.p_destroyed}` }));
  });
}

const MEASURES = [
  ["hit", "Hits"],
  ["penetration", "Penetrations"],
];

/** The luck chart: per player, hits and penetrations observed (bar) against expected
 * (tick) and the 5th–95th percentile a fair table lands in (whisker). */
export function luckNodes(reply, colours) {
  const players = reply.players || [];
  if (!players.length) return [el("p", { class: "note", text: "No players yet." })];
  let top = 1;
  for (const p of players) {
    for (const [m] of MEASURES) {
      const s = p[m];
      if (s) top = Math.max(top, s.trials, s.observed, s.fair_range ? s.fair_range[1] : 0);
    }
  }
  const rowH = 16;
  const left = 128;
  const width = 460;
  const scale = (v) => left + ((width - left - 76) * v) / top; // room for the figures
  const rows = [];
  let y = 4;
  for (const p of players) {
    const colour = colours.get(p.player) || "#666";
    for (const [m, label] of MEASURES) {
      const s = p[m];
      if (!s) continue;
      const [lo, hi] = s.fair_range || [s.expected, s.expected];
      const mid = y + rowH / 2;
      rows.push(svg("g", { class: `luck-row verdict-${s.verdict}`, "data-player": p.player, "data-measure": m,
        "data-observed": s.observed, "data-expected": s.expected },
      svg("title", { text: s.text }),
      svg("text", { x: 0, y: mid + 4, class: "luck-label", text: `${p.player} ${label.toLowerCase()}` }),
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
  const chart = svg("svg", { class: "luck-chart", viewBox: `0 0 ${width} ${y}`, role: "img",
    "aria-label": "Luck per player: observed hits and penetrations against expected" }, rows);
  const texts = players.flatMap((p) => ["hit", "penetration", "morale_failure"]
    .map((m) => p[m])
    .filter((s) => s && s.trials > 0)
    .map((s) => el("li", { class: s.significant ? `verdict-${s.verdict}` : "", text: s.text })));
  return [
    chart,
    el("p", { class: "legend-line muted", text: "Bar: observed. Thick tick: expected. Whisker: where 90% of fair tables land." }),
    texts.length ? el("ul", { class: "luck-text" }, texts) : el("p", { class: "note", text: "No shots yet." }),
    reply.significance ? el("p", { class: "muted small", text: reply.significance }) : null,
  ];
}
