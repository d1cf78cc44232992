// The replay slider: steps the board through the table's history entry by entry, each
// position the table as it stood after that log entry (GET /tables/{id}/states/{seq},
// rebuilt from the log by the referee). At the last entry the board is live again and
// follows the game. Keyboard: the slider takes the arrow keys, Home (the table as created)
// and End (live); the buttons beside it step one entry.

import { get, tablePath } from "./api.js";
import { el } from "./dom.js";

const KEPT = 64; // positions kept in the page (a position never changes: the log only grows)
const HOVER_EVENTS = ["pointerover", "focusin"];

export class Replay {
  /**
   * `board`: the <svg>, the controls go right under it. `show(scene)` draws a position;
   * `live()` draws the live table again.
   */
  constructor(tableId, { board, show, live }) {
    this.tableId = tableId;
    this.show = show;
    this.live = live;
    this.board = board;
    this.last = 0;
    this.seq = 0; // the entry shown (== last when live)
    this.active = false; // showing a past entry rather than the live table
    this.wanted = null;
    this.loading = false;
    this.kept = new Map();
    this.stop = new AbortController();
    // A past position shows no aids: they are the referee's reading of the table now.
    for (const type of HOVER_EVENTS) {
      board.addEventListener(type, (e) => {
        if (this.active) e.stopImmediatePropagation();
      }, { capture: true, signal: this.stop.signal });
    }
    const step = (by) => () => this.go(this.seq + by);
    this.slider = el("input", {
      type: "range", id: "replay-slider", min: 0, max: 0, step: 1, value: 0,
      "aria-label": "Log entry shown on the board",
      oninput: () => this.go(Number(this.slider.value)),
    });
    this.first = el("button", { type: "button", id: "replay-first", text: "Start", title: "The table as created",
      "aria-label": "The table as created", onclick: () => this.go(0) });
    this.back = el("button", { type: "button", id: "replay-back", text: "◀", title: "One entry back",
      "aria-label": "One entry back", onclick: step(-1) });
    this.forward = el("button", { type: "button", id: "replay-forward", text: "▶", title: "One entry on",
      "aria-label": "One entry on", onclick: step(1) });
    this.liveButton = el("button", { type: "button", id: "replay-live", text: "Live", title: "Back to the live table",
      onclick: () => this.go(this.last) });
    this.status = el("output", { id: "replay-status", class: "replay-status", "aria-live": "polite",
      for: "replay-slider" });
    this.node = el("section", { id: "replay", class: "replay", "aria-label": "Replay the table's history",
      "data-mode": "live", "data-seq": "0" },
    el("span", { class: "replay-title", text: "Replay" }), this.first, this.back, this.slider,
    this.forward, this.liveButton, this.status);
    // Below the board's box (the <svg> fills it, drawn over anything inside).
    (board.closest(".board-wrap") || board).after(this.node);
    this.render(null);
  }

  close() {
    this.stop.abort();
    this.node.remove();
  }

  /** The log now ends at `seq`: live, the slider follows; replaying, it stays put. */
  setLast(seq) {
    this.last = Math.max(this.last, seq);
    if (!this.active) this.seq = this.last;
    this.render(this.active ? this.entry : null);
  }

  go(seq) {
    const target = Math.max(0, Math.min(this.last, Math.round(seq)));
    if (target === this.last) {
      this.wanted = null;
      const was = this.active;
      this.active = false;
      this.seq = this.last;
      this.render(null);
      if (was) this.live();
      return;
    }
    this.active = true;
    this.seq = target;
    this.wanted = target;
    this.render(this.kept.get(target) || null);
    this.load();
  }

  // One request at a time; a slider dragged meanwhile asks for where it ended up.
  async load() {
    if (this.loading) return;
    this.loading = true;
    try {
      while (this.active && this.wanted !== null) {
        const seq = this.wanted;
        let position = this.kept.get(seq);
        if (!position) {
          try {
            position = await get(`${tablePath(this.tableId)}/states/${seq}`);
          } catch (err) {
            this.status.textContent = `Entry ${seq} could not be read: ${err.message}`;
            return;
          }
          this.keep(seq, position);
        }
        if (this.wanted === seq) this.wanted = null;
        if (this.active && this.seq === seq) {
          this.show(position.scene);
          this.render(position);
        }
      }
    } finally {
      this.loading = false;
    }
  }

  keep(seq, position) {
    this.kept.set(seq, position);
    if (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value);
  }

  render(position) {
    this.entry = position;
    this.slider.max = String(this.last);
    this.slider.value = String(this.seq);
    this.first.disabled = this.seq === 0;
    this.back.disabled = this.seq === 0;
    this.forward.disabled = this.seq >= this.last;
    this.liveButton.disabled = !this.active;
    this.liveButton.setAttribute("aria-pressed", this.active ? "false" : "true");
    let text;
    if (!this.active) text = `Live: entry ${this.last}`;
    else if (!position) text = `Entry ${this.seq} of ${this.last}…`;
    else if (this.seq === 0) text = `Entry 0 of ${this.last}: the table as created`;
    else text = `Entry ${this.seq} of ${this.last}: ${position.headline || position.what || position.kind}`;
    this.status.textContent = text;
    this.slider.setAttribute("aria-valuetext", text);
    this.node.dataset.mode = this.active ? "replay" : "live";
    this.node.dataset.seq = String(this.seq);
    this.node.dataset.shown = position ? String(position.seq) : "";
  }
}
