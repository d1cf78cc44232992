// A player's seat on one table, from their seat link (#/tables/ID/seat/PLAYER/TOKEN). The
// page checks the token with the referee (GET /tables/{id}/seat), keeps the seat for that
// table in this browser, and offers only what a seat token may do: give that player's dice
// seed while the table takes seeds, and ask to void the latest action that rolled dice.
// Spectators have no seat; the stream view never makes this panel.

import { request, tablePath, ApiError } from "./api.js";
import { el, replace } from "./dom.js";

const $ = (id) => document.getElementById(id);
const storeKey = (tableId) => `tankref.seat.${tableId}`;

/** The seat kept for this table in this browser, {player, token}, or null. */
export function keptSeat(tableId) {
  try {
    const seat = JSON.parse(localStorage.getItem(storeKey(tableId)) || "null");
    return seat && typeof seat.player === "string" && typeof seat.token === "string" ? seat : null;
  } catch {
    return null;
  }
}

function hex(bytes) {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A request id this table has never seen (crypto.randomUUID needs https; this works on a
 *  referee reached by plain http too). */
function freshId(what) {
  return `page-${what}-${hex(crypto.getRandomValues(new Uint8Array(12)))}`;
}

export class SeatPanel {
  /** `link`: {player, token} from a seat link just opened (checked before it is kept), or
   *  null: the seat this browser keeps for the table, if any. */
  constructor(tableId, link) {
    this.tableId = tableId;
    this.link = link;
    this.seat = null;
    this.check = null;
    this.closed = false;
    this.busy = false;
    this.outcome = null; // the last write's result or refusal, shown until the next
    this.unanswered = null; // a write that got no reply: sent again under the same id
    this.seedText = hex(crypto.getRandomValues(new Uint8Array(8)));
  }

  get path() {
    return `${tablePath(this.tableId)}/seat`;
  }

  async open() {
    const link = this.link;
    const seat = link || keptSeat(this.tableId);
    this.hide();
    if (!seat) return;
    let check;
    try {
      check = await request(this.path, { token: seat.token });
    } catch (err) {
      if (this.closed) return;
      if (!(err instanceof ApiError) || err.status >= 500) {
        if (link) {
          this.problem(`The seat link could not be checked now (${err.message}): nothing was kept. Open it again later.`);
        } else {
          this.seat = seat; // kept: the referee is away for now, not the seat gone
          this.render();
        }
        return;
      }
      this.refused(err, link !== null);
      return;
    }
    if (this.closed) return;
    if (check.credential !== "seat" || check.player !== seat.player) {
      // The table's token, or another player's seat token under this name: not this seat.
      if (!link) localStorage.removeItem(storeKey(this.tableId));
      this.problem(link
        ? `This seat link is not valid: its token is not ${seat.player}'s seat token at table ${this.tableId}. Nothing was kept.`
        : `The seat kept for table ${this.tableId} is not valid: it was forgotten.`);
      return;
    }
    if (link) localStorage.setItem(storeKey(this.tableId), JSON.stringify(seat));
    this.seat = seat;
    this.check = check;
    this.render();
  }

  /** The referee refused the seat's token (401/403/404): a new link is not kept, a kept
   *  seat is forgotten. */
  refused(err, fromLink) {
    const why = `${err.message} (${err.code || err.status})`;
    if (fromLink) {
      this.problem(`This seat link is not valid for table ${this.tableId}: ${why}. Nothing was kept.`);
      return;
    }
    localStorage.removeItem(storeKey(this.tableId));
    this.seat = null;
    this.problem(`The seat kept for table ${this.tableId} is no longer valid: ${why}. It was forgotten.`);
  }

  /** Read again what the seat may ask (after every entry on the table). */
  async refresh() {
    if (!this.seat || this.closed) return;
    try {
      this.check = await request(this.path, { token: this.seat.token });
    } catch (err) {
      if (err instanceof ApiError && err.status < 500 && !this.closed) this.refused(err, false);
      return; // unreachable for now: what is shown stays
    }
    if (!this.closed) this.render();
  }

  close() {
    this.closed = true;
  }

  hide() {
    $("seat").hidden = true;
    replace($("seat-body"));
  }

  problem(text) {
    $("seat").hidden = false;
    replace($("seat-body"), el("p", { id: "seat-problem", class: "seat-problem", role: "alert", text }));
  }

  forget() {
    localStorage.removeItem(storeKey(this.tableId));
    const player = this.seat ? this.seat.player : "";
    this.seat = null;
    this.check = null;
    $("seat").hidden = false;
    replace($("seat-body"), el("p", { id: "seat-forgotten", class: "note",
      text: `Seat forgotten: this browser no longer holds ${player}'s seat at table ${this.tableId}.` }));
  }

  render() {
    const player = this.seat.player;
    const parts = [el("p", { id: "seat-who", class: "seat-who", "data-player": player },
      "Your seat: ", el("strong", { text: player }), " ",
      el("button", { type: "button", id: "seat-forget", text: "Forget this seat", onclick: () => this.forget() }))];
    const check = this.check;
    if (!check) {
      parts.push(el("p", { class: "note", text: "The referee could not be asked what this seat may do now." }));
    } else {
      parts.push(this.seedPart(check, player), this.voidPart(check, player));
    }
    if (this.outcome) {
      const { code, text } = this.outcome;
      parts.push(el("p", { id: "seat-outcome", class: code ? "seat-problem" : "note", role: "status",
        "data-code": code || null, text: code ? `${code}: ${text}` : text }));
    }
    $("seat").hidden = false;
    replace($("seat-body"), parts);
  }

  seedPart(check, player) {
    if (check.seeds_given.includes(player)) {
      return el("p", { id: "seat-seed-given", class: "note", text: `${player}'s dice seed is given.` });
    }
    if (!check.seeds_open) return null;
    const input = el("input", { id: "seat-seed-text", type: "text", maxlength: "128", value: this.seedText,
      "aria-label": "Your dice seed", oninput: () => { this.seedText = input.value; } });
    return el("div", { class: "seat-seed" },
      el("p", {}, input, " ",
        el("button", { type: "button", id: "seat-seed", text: "Give my dice seed",
          onclick: () => this.write("seed", "/seeds", { player, seed: input.value }) })),
      el("p", { class: "note small", text: "Mixed into every roll the referee makes from now on; public at once. Only before the first roll." }));
  }

  voidPart(check, player) {
    const asked = check.void;
    if (!asked) return null;
    const what = `#${asked.seq} (${asked.action})`;
    if (asked.asked.includes(player)) {
      return el("p", { id: "seat-void-asked", class: "note",
        text: `You asked to void ${what}; it needs ${asked.needs.join(" and ")} too.` });
    }
    const label = asked.asked.length ? `Join ${asked.asked.join(" and ")}'s void of ${what}` : `Ask to void ${what}`;
    return el("div", { class: "seat-void" },
      el("p", {}, el("button", { type: "button", id: "seat-void", "data-seq": String(asked.seq), text: label,
        onclick: () => this.write(`void-${asked.seq}`, "/void", { seq: asked.seq, player }) })),
      el("p", { class: "note small", text: "Voided once every player has asked; its dice stay spent." }));
  }

  /** One write with the seat token and a fresh request id; one that got no reply is sent
   *  again under its first id (the referee answers it once, never twice). */
  async write(what, path, fields) {
    if (this.busy || !this.seat) return;
    this.busy = true;
    const again = this.unanswered && this.unanswered.what === what ? this.unanswered.body : null;
    const body = again || { request_id: freshId(what), ...fields };
    this.unanswered = null;
    try {
      const reply = await request(`${tablePath(this.tableId)}${path}`, { token: this.seat.token, body });
      const line = reply.entry && reply.entry.chat && reply.entry.chat[0];
      this.outcome = { code: null, text: line || "Done." };
    } catch (err) {
      if (err instanceof ApiError) {
        this.outcome = { code: err.code || String(err.status), text: err.message };
      } else {
        this.unanswered = { what, body };
        this.outcome = { code: "UNREACHABLE", text: `the referee did not answer (${err.message}); press again to send it again` };
      }
    } finally {
      this.busy = false;
    }
    await this.refresh();
    if (!this.closed && this.seat) this.render();
  }
}
