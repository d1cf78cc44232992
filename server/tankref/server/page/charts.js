// The odds of a selected unit against each target (bars), and each player's luck (observed
// against expected, with the range a fair table lands in). Both read whatever the table's
// ruleset answers: no ruleset is named here.

import { el, svg, num, pct } from "./dom.js";

function bar(label, p, kind) {
  const fill = el("span", { class: `bar-fill bar-${kind}` });
  fill.style.width = `${Math.max(0, Math.min(1, p)) * 100}%`; // CSSOM: allowed under the CSP
  return el("div", { class: "bar-row", role: "img", "aria-label": `${label} ${pct(p)}`, "data-kind": kind, "data-p": p },
    el("span", { class: "bar-label", text: label }),
    el("span", { class: "bar-track" }, fill),
    el("span", { class: "bar-value", text: pct(p) }));
}

// What every ruleset's odds share: a shooter (or several firing together), a target, chances
// named p_* (floats 0..1) and their exact fractions. Every other plain value is a fact of the
// shot (range, armour, column ...); a {outcome: chance} object is a breakdown.
const WHO = new Set(["shooter", "shooters", "target", "target_id", "exact"]);

/** "p_critical_success" -> "Critical success". */
function words(key) {
  const text = String(key).replace(/^p_/, "").replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const isChance = (v) => typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= 1;

function facts(o) {
  const out = [];
  for (const [key, value] of Object.entries(o)) {
    if (WHO.has(key) || key.startsWith("p_") || value === null || value === false) continue;
    const name = words(key).toLowerCase();
    if (value === true) out.push(name);
    else if (typeof value === "number") out.push(`${name} ${num(value, 2)}`);
    else if (typeof value === "string") out.push(`${name} ${value}`);
  }
  return out.join(" · ");
}

function breakdowns(o) {
  const out = [];
  for (const [key, value] of Object.entries(o)) {
    if (WHO.has(key) || !value || typeof value !== "object" || Array.isArray(value)) continue;
    const entries = Object.entries(value);
    if (!entries.length || !entries.every(([, p]) => isChance(p))) continue;
    out.push(el("details", { class: "breakdown", "data-breakdown": key },
      el("summary", { text: words(key) }),
      entries.map(([what, p]) => bar(words(what), p, `${key}-${what}`))));
  }
  return out;
}

function exactLine(exact) {
  if (typeof exact === "string") return `exact: ${exact}`;
  if (!exact || typeof exact !== "object") return null;
  const parts = Object.entries(exact).map(([k, v]) => `${words(k).toLowerCase()} ${v}`);
  return parts.length ? `exact: ${parts.join(", ")}` : null;
}

/** One block per target this unit may attack, most likely kill first (the API's order). */
export function oddsNodes(reply, tanksById) {
  const odds = reply.odds || [];
  if (!odds.length) return [el("p", { class: "note", text: "No target it may attack now." })];
  return odds.map((o) => {
    const shooters = Array.isArray(o.shooters) ? o.shooters : [o.shooter ?? reply.shooter];
    const targetId = o.target ?? o.target_id;
    const target = tanksById.get(targetId);
    const chances = Object.entries(o).filter(([k, v]) => k.startsWith("p_") && isChance(v));
    const exact = exactLine(o.exact);
    const about = facts(o);
    return el("div", { class: "odds", "data-target": targetId },
      el("h3", {},
        `${shooters.join(" + ")} → ${targetId}`,
        target && target.name !== targetId ? el("span", { class: "muted", text: ` ${target.name}` }) : null),
      about ? el("p", { class: "facts muted", text: about }) : null,
      chances.map(([k, p]) => bar(words(k), p, k.slice(2))),
      breakdowns(o),
      exact ? el("p", { class: "exact muted", text: exact }) : null);
  });
}

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
