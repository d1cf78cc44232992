// The log panel: newest first, one page at a time. Only the entries of the page on screen
// are in the DOM (and only pages someone looked at are fetched), so a table with thousands
// of adjudications stays as quick as a new one.

import { get, tablePath } from "./api.js";
import { el, replace, num, measured } from "./dom.js";

export const PAGE_SIZE = 20;

function when(at) {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? String(at || "") : d.toLocaleTimeString();
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

function diceBlock(rolls) {
  if (!rolls || !rolls.length) return null;
  const groups = [];
  for (const roll of rolls) {
    const purpose = roll.purpose || "";
    let group = groups.find((g) => g.purpose === purpose);
    if (!group) groups.push((group = { purpose, rolls: [] }));
    group.rolls.push(roll);
  }
  return el("div", { class: "dice" },
    el("h4", { text: "Dice" }),
    groups.map((g) => el("p", { class: "dice-group" },
      el("span", { class: "purpose", text: g.purpose || "rolled" }), " ",
      g.rolls.map((r) => {
        const icons = (r.icons || []).join(" ");
        const reroll = r.reroll_of !== null && r.reroll_of !== undefined;
        return el("span", {
          class: `die die-${r.die}` + (reroll ? " reroll" : ""),
          title: `${r.die} die, face ${r.face}${icons ? ": " + icons : ""}` +
            `${reroll ? " (a reroll)" : ""}, ${r.source === "table" ? "rolled at the table" : "rolled by the referee"}`,
          "data-face": r.face,
        }, reroll ? "↻" : "", String(r.face), icons ? el("small", { text: " " + icons }) : null);
      }))));
}

function modifiersBlock(mods) {
  if (!mods || !mods.length) return null;
  return el("div", { class: "modifiers" },
    el("h4", { text: "Modifiers" }),
    el("table", {},
      el("thead", {}, el("tr", {},
        el("th", { scope: "col", text: "" }), el("th", { scope: "col", text: "what" }),
        el("th", { scope: "col", text: "on" }), el("th", { scope: "col", text: "clause" }),
        el("th", { scope: "col", text: "ruling" }))),
      el("tbody", {}, mods.map((m) => el("tr", {},
        el("td", { class: "amount", text: signed(m.amount) }),
        el("td", { text: m.label }),
        el("td", { text: m.applies_to || "" }),
        el("td", { class: "clause", text: m.clause || "" }),
        el("td", { text: m.ruling || "" }))))));
}

function rulingsBlock(rulings) {
  if (!rulings || !rulings.length) return null;
  return el("div", { class: "rulings" },
    el("h4", { text: "Rulings" }),
    el("ul", {}, rulings.map((r) => el("li", {},
      el("span", { class: "clause", text: r.clause || "" }), " ", r.text || "",
      r.option ? el("span", { class: "muted", text: ` (${r.option} = ${r.value})` }) : null))));
}

function show(key, value, onHexes) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "number") return measured(key, value, onHexes);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function outcomeBlock(outcome, onHexes) {
  const keys = Object.keys(outcome || {});
  if (!keys.length) return null;
  return el("div", { class: "outcome" },
    el("h4", { text: "Outcome" }),
    el("dl", {}, keys.map((k) => [el("dt", { text: k.replaceAll("_", " ") }), el("dd", { text: show(k, outcome[k], onHexes) })])));
}

function eventsBlock(events) {
  if (!events || !events.length) return null;
  return el("div", { class: "events" },
    el("h4", { text: "Events" }),
    el("ul", {}, events.map((e) => el("li", {},
      e.clause ? el("span", { class: "clause", text: e.clause }) : null, e.clause ? " " : "",
      e.text || e.kind))));
}

/** "by Red" or "by White, as the table's referee": who gave the order at the table, if said. */
export function orderedBy(by) {
  if (!by || typeof by !== "object" || typeof by.seat !== "string") return null;
  return by.as_referee ? `by ${by.seat}, as the table's referee` : `by ${by.seat}`;
}

/** An entry's words: its headline (the first chat line) and its summary lines. */
export function entryWords(entry) {
  const result = entry.result && typeof entry.result === "object" ? entry.result : {};
  const chat = Array.isArray(entry.chat) ? entry.chat : [];
  const lines = Array.isArray(result.summary) && result.summary.length ? result.summary : chat;
  return { headline: chat[0] || lines[0] || entry.kind, lines };
}

/** One log entry; any kind (including kinds this page has never heard of) renders.
 *  `onHexes`: distances in its outcome are in hexes (a hex map), else inches. */
export function entryNode(entry, open, onToggle, takenBack = null, onHexes = false) {
  const result = entry.result && typeof entry.result === "object" ? entry.result : {};
  const { headline, lines } = entryWords(entry);
  const who = orderedBy(entry.by);
  const details = el("details", { open },
    el("summary", {},
      el("span", { class: "seq", text: `#${entry.seq}` }), " ",
      el("span", { class: "kind", text: entry.kind }), " ",
      takenBack ? el("span", { class: "taken-back", text: takenBack }) : null, takenBack ? " " : "",
      el("span", { class: "headline", text: headline }), " ",
      who ? el("span", { class: "by", text: who }) : null, who ? " " : "",
      el("time", { datetime: entry.at, text: when(entry.at) })),
    el("div", { class: "detail" },
      lines.length ? el("ul", { class: "lines" }, lines.map((l) => el("li", { text: l }))) : null,
      diceBlock(result.rolls),
      modifiersBlock(result.modifiers),
      rulingsBlock(result.rulings),
      outcomeBlock(result.outcome, onHexes),
      eventsBlock(result.events)));
  details.addEventListener("toggle", () => onToggle(entry.seq, details.open));
  const kind = `entry kind-${String(entry.kind).replace(/[^a-z0-9_-]/gi, "")}`;
  return el("li", { class: takenBack ? `${kind} is-taken-back` : kind, "data-seq": entry.seq }, details);
}

export class LogView {
  constructor(tableId, nodes) {
    this.tableId = tableId;
    this.nodes = nodes; // {list, count, page, newest, newer, older, oldest}
    this.entries = new Map(); // seq -> entry (only pages looked at, and live ones)
    this.last = 0; // the newest seq on the table
    // The newest seq shown; null: the newest page, which follows the live entries. Older
    // pages stay put while new entries arrive, so a reader keeps their place.
    this.anchor = null;
    this.open = new Set();
    // seq of an entry since undone or voided -> seq of the undo/void: it stays, marked.
    this.takenBack = new Map();
    this.onHexes = false; // set from the table's scene: distances in hexes on a hex map
    // Assigned, not added: the buttons outlive a view, and only the open table's log pages.
    nodes.newest.onclick = () => this.show(null);
    nodes.newer.onclick = () => this.show(this.range()[1] + PAGE_SIZE);
    nodes.older.onclick = () => this.show(this.range()[1] - PAGE_SIZE);
    nodes.oldest.onclick = () => this.show(1);
  }

  range() {
    const hi = this.anchor === null ? this.last : this.anchor;
    return [Math.max(1, hi - PAGE_SIZE + 1), hi];
  }

  /** A live entry from the stream. */
  add(entry) {
    this.entries.set(entry.seq, entry);
    const outcome = entry.result && entry.result.outcome;
    const back = outcome && (outcome.undone ?? outcome.voided);
    if (Number.isInteger(back)) this.takenBack.set(back, entry.seq);
    this.last = Math.max(this.last, entry.seq);
    return this.render();
  }

  /** "voided by #14" for an entry taken back, else null. */
  takenBackLabel(seq) {
    const by = this.takenBack.get(seq);
    if (by === undefined) return null;
    const how = this.entries.get(by);
    const verb = how && how.kind === "undo" ? "undone" : how && how.kind === "void" ? "voided" : "taken back";
    return `${verb} by #${by}`;
  }

  setLast(seq) {
    this.last = Math.max(this.last, seq);
  }

  /** Show the page whose newest entry is `hi` (null: the newest page). */
  show(hi) {
    if (hi === null || hi >= this.last) this.anchor = null;
    else this.anchor = Math.max(Math.min(PAGE_SIZE, this.last), hi);
    return this.render();
  }

  async render() {
    const [lo, hi] = this.range();
    const missing = [];
    for (let s = lo; s <= hi; s++) if (!this.entries.has(s)) missing.push(s);
    if (missing.length) {
      const from = missing[0];
      const to = missing[missing.length - 1];
      try {
        const page = await get(`${tablePath(this.tableId)}/log?after=${from - 1}&limit=${to - from + 1}`);
        for (const e of page.entries) this.entries.set(e.seq, e);
        for (const [seq, by] of Object.entries(page.taken_back || {})) this.takenBack.set(Number(seq), by);
        this.setLast(page.last_seq);
      } catch (err) {
        replace(this.nodes.list, el("li", { class: "problem", text: `The log could not be read: ${err.message}` }));
        return;
      }
      const [lo2, hi2] = this.range();
      if (lo2 !== lo || hi2 !== hi) return this.render(); // moved on while we fetched
    }
    const rows = [];
    for (let s = hi; s >= lo; s--) {
      const entry = this.entries.get(s);
      if (entry) rows.push(entryNode(entry, this.open.has(s), (seq, isOpen) => {
        if (isOpen) this.open.add(seq);
        else this.open.delete(seq);
      }, this.takenBackLabel(s), this.onHexes));
    }
    if (!rows.length) rows.push(el("li", { class: "muted", text: "Nothing logged yet." }));
    replace(this.nodes.list, rows);
    const n = this.nodes;
    const pages = Math.max(1, Math.ceil(this.last / PAGE_SIZE));
    const page = Math.min(pages, Math.ceil((this.last - hi) / PAGE_SIZE) + 1);
    n.count.textContent = `(${this.last} entries)`;
    n.page.textContent = this.last ? `#${hi}–#${lo}, page ${page} of ${pages}` : "";
    n.list.dataset.newest = String(hi);
    n.list.dataset.oldest = String(lo);
    n.list.dataset.last = String(this.last);
    n.newest.disabled = n.newer.disabled = this.anchor === null;
    n.older.disabled = n.oldest.disabled = lo <= 1;
  }
}
