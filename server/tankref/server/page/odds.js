// The odds of a selected unit against each target, for a viewer: each chance as a bar with
// "7 in 10 to hit"; the shot's facts (with their units), the percentages and the exact
// fractions behind a "Details" disclosure. Reads whatever the table's ruleset answers: no
// ruleset is named here.

import { el, inWords, measured, pct } from "./dom.js";

// How a chance reads after "7 in 10": the words the rulesets' p_* names stand for. A name
// not here reads as ": its words" ("1 in 4: heavy damage").
const PHRASES = {
  hit: "to hit",
  penetrate: "to penetrate",
  penetrate_given_hit: "to penetrate once hit",
  destroyed: "to destroy",
  destroyed_by_card: "to destroy by the damage card",
  spot: "to spot",
  graze: "to graze",
  bail_out: "that the crew bails out",
  morale_failure: "of a failed morale check",
  critical_success: "of a critical success",
  critical_failure: "of a critical failure",
};

/** "p_critical_success" -> "Critical success". */
function words(key) {
  const text = String(key).replace(/^p_/, "").replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "7 in 10 to hit" for p_hit = 0.7. */
export function chanceText(key, p) {
  const name = String(key).replace(/^p_/, "");
  const phrase = PHRASES[name] || `: ${words(name).toLowerCase()}`;
  return `${inWords(p)}${phrase.startsWith(":") ? "" : " "}${phrase}`;
}

function bar(label, p, kind, key) {
  const fill = el("span", { class: `bar-fill bar-${kind}` });
  fill.style.width = `${Math.max(0, Math.min(1, p)) * 100}%`; // CSSOM: allowed under the CSP
  const said = chanceText(key, p);
  return el("div", { class: "bar-row", role: "img", "aria-label": said, title: `${said} (${pct(p)})`,
    "data-kind": kind, "data-p": p },
  el("span", { class: "bar-label", text: label }),
  el("span", { class: "bar-track" }, fill),
  el("span", { class: "bar-value", text: inWords(p) }));
}

// What every ruleset's odds share: a shooter (or several firing together), a target, chances
// named p_* (floats 0..1) and their exact fractions. Every other plain value is a fact of the
// shot (range, armour, column ...); a {outcome: chance} object is a breakdown.
const WHO = new Set(["shooter", "shooters", "target", "target_id", "exact"]);

const isChance = (v) => typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= 1;

function facts(o, onHexes) {
  const out = [];
  for (const [key, value] of Object.entries(o)) {
    if (WHO.has(key) || key.startsWith("p_") || value === null || value === false) continue;
    const name = words(key).toLowerCase();
    if (value === true) out.push(name);
    else if (typeof value === "number") out.push(`${name} ${measured(key, value, onHexes)}`);
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
      entries.map(([what, p]) => bar(words(what), p, `${key}-${what}`, what))));
  }
  return out;
}

function exactLine(exact) {
  if (typeof exact === "string") return `exact: ${exact}`;
  if (!exact || typeof exact !== "object") return null;
  const parts = Object.entries(exact).map(([k, v]) => `${words(k).toLowerCase()} ${v}`);
  return parts.length ? `exact: ${parts.join(", ")}` : null;
}

/** One block per target this unit may attack, most likely kill first (the API's order).
 *  `names`: tank id -> the name the board shows; `onHexes`: distances are in hexes. */
export function oddsNodes(reply, names, onHexes = false) {
  const odds = reply.odds || [];
  if (!odds.length) return [el("p", { class: "note", text: "No target it may attack now." })];
  const named = (id) => names.get(id) || id;
  return odds.map((o) => {
    const shooters = Array.isArray(o.shooters) ? o.shooters : [o.shooter ?? reply.shooter];
    const targetId = o.target ?? o.target_id;
    const chances = Object.entries(o).filter(([k, v]) => k.startsWith("p_") && isChance(v));
    const exact = exactLine(o.exact);
    const about = facts(o, onHexes);
    const percents = chances.map(([k, p]) => `${words(k).toLowerCase()} ${pct(p)}`).join(" · ");
    const range = ["range", "distance", "range_cm"].find((k) => typeof o[k] === "number");
    return el("div", { class: "odds", "data-target": targetId },
      el("h3", {}, `${shooters.map(named).join(" + ")} → ${named(targetId)}`,
        range ? el("span", { class: "muted range", text: ` at ${measured(range, o[range], onHexes)}` }) : null),
      chances.map(([k, p]) => bar(words(k), p, k.slice(2), k)),
      breakdowns(o),
      el("details", { class: "odds-details" },
        el("summary", { text: "Details" }),
        about ? el("p", { class: "facts muted", text: about }) : null,
        percents ? el("p", { class: "percents muted", text: percents }) : null,
        exact ? el("p", { class: "exact muted", text: exact }) : null));
  });
}

