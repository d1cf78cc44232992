// The live table page: the list of tables, and one table drawn from above with its log, the
// odds of a selected tank and each player's luck, kept current over the table's WebSocket.
// Read-only for spectators: only GETs and the stream; no token is ever asked for. A player's
// seat link gives the page that seat's token, for that seat's own writes alone (seat.js).

import { BoardAids } from "./aids.js";
import { get, tablePath, ApiError } from "./api.js";
import { badgeMap, drawBoard, terrainLook, unitNames } from "./board.js";
import { luckNodes } from "./charts.js";
import { el, replace } from "./dom.js";
import { LogView, entryWords } from "./log.js";
import { oddsNodes } from "./odds.js";
import { Replay } from "./replay.js";
import { SeatPanel } from "./seat.js";

// Phases a ruleset counts rather than names (TTT: the first and second phase of a turn).
const COUNTED = new Set(["first", "second"]);

/** "Red's phase", "Red's combat phase" where the ruleset names the step, or "Red's phase
 *  (the second of the turn)" where it counts the turn's phases. */
function phaseName(s) {
  if (!s.phase) return `${s.active_player}'s phase`;
  if (COUNTED.has(s.phase)) return `${s.active_player}'s phase (the ${s.phase} of the turn)`;
  return `${s.active_player}'s ${s.phase} phase`;
}

const $ = (id) => document.getElementById(id);
const ODDS_SHOWN = 5;

// ?view=stream: the board and the last result only, on a background OBS can key out (a
// browser source over the stream); everything else is hidden by the style sheet.
const STREAM = new URLSearchParams(location.search).get("view") === "stream";
if (STREAM) document.documentElement.classList.add("stream");

// A marker that survives only as long as this document: a test (or a curious player) can
// tell that the page updated itself without being reloaded.
window.tankrefPage = { loadId: Math.random().toString(36).slice(2), updates: 0 };
document.documentElement.dataset.loadId = window.tankrefPage.loadId;

function setLive(state, text) {
  const node = $("live");
  node.dataset.state = state;
  node.textContent = text;
}

/** Run `task` soon; calls while it is pending or running fold into one more run. */
function debounced(task, delay = 120) {
  let timer = null;
  let running = false;
  let again = false;
  const run = async () => {
    timer = null;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await task();
    } finally {
      running = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  };
  const schedule = () => {
    if (timer === null) timer = setTimeout(run, delay);
  };
  schedule.now = run;
  return schedule;
}

// --- the list of tables ---------------------------------------------------------------------

let listTimer = null;

async function refreshList() {
  let tables;
  try {
    tables = await get("/tables");
  } catch (err) {
    setLive("down", "referee unreachable");
    return;
  }
  setLive("idle", "read-only");
  const rows = tables.map((t) => {
    const s = t.table;
    const phase = s.status === "over"
      ? (s.winner ? `${s.winner} won` : "over")
      : (s.active_player ? phaseName(s) : "–");
    return el("tr", { "data-table": t.table_id },
      el("th", { scope: "row" }, el("a", { href: `#/tables/${encodeURIComponent(t.table_id)}`, text: t.table_id })),
      el("td", { text: t.ruleset_title || t.ruleset, title: t.ruleset, "data-ruleset": t.ruleset }),
      el("td", { text: s.status }),
      el("td", { text: String(s.turn) }),
      el("td", { text: phase }),
      el("td", { text: `${t.seq} entries` }),
      el("td", { text: new Date(t.created_at).toLocaleString() }));
  });
  replace($("tables").tBodies[0], rows);
  $("tables-empty").hidden = rows.length > 0;
  await refreshQuarantine();
}

// Tables the referee could not load at start-up: named with the reason, never hidden.
async function refreshQuarantine() {
  let health;
  try {
    health = await get("/health");
  } catch (err) {
    return;
  }
  const aside = health.quarantined || [];
  replace($("quarantine-list"), aside.map((q) =>
    el("li", { "data-table": q.table_id }, el("strong", { text: q.table_id }), `: ${q.reason}`)));
  $("quarantine").hidden = aside.length === 0;
}

function showList() {
  $("list-view").hidden = false;
  $("table-view").hidden = true;
  $("crumb").textContent = "Tables";
  document.title = "tankref: tables";
  refreshList();
  listTimer = setInterval(() => {
    if (document.visibilityState === "visible") refreshList();
  }, 4000);
}

// --- one table ------------------------------------------------------------------------------

class TableView {
  /** `link`: {player, token} when opened from a seat link. */
  constructor(id, link = null) {
    this.id = id;
    // The stream view is a public screen: it never holds or shows a seat.
    this.seat = STREAM ? null : new SeatPanel(id, link);
    this.refreshSeat = debounced(() => (this.seat ? this.seat.refresh() : null), 150);
    this.closed = false;
    this.lastSeq = 0;
    this.scene = null;
    this.selected = null;
    this.colours = new Map();
    this.rulesTitle = null;
    this.socket = null;
    this.backoff = 500;
    this.retry = null;
    this.log = new LogView(id, {
      list: $("log"), count: $("log-count"), page: $("log-page"),
      newest: $("log-newest"), newer: $("log-newer"), older: $("log-older"), oldest: $("log-oldest"),
    });
    this.aids = new BoardAids($("board"), id);
    // The slider under the board: a past entry's scene drawn as the live one is.
    // Its aids are the referee's reading of the table now: none on a past entry.
    this.replay = new Replay(id, { board: $("board"), show: (scene) => this.showScene(scene),
      live: () => this.loadScene().then(() => this.aids.select(this.selected)) });
    this.refreshScene = debounced(() => this.loadScene());
    this.refreshSide = debounced(() => Promise.all([this.loadLuck(), this.loadOdds()]), 250);
    // The labels are placed by their size on screen: drawn again when the board's box
    // changes (a window resized, an OBS source shown after loading hidden).
    this.resized = debounced(async () => this.redraw(), 150);
    this.boardSize = null;
    this.sizes = new ResizeObserver(([seen]) => {
      const size = `${Math.round(seen.contentRect.width)}x${Math.round(seen.contentRect.height)}`;
      if (this.boardSize !== null && size !== this.boardSize) this.resized();
      this.boardSize = size; // the first report is the size it was drawn at: nothing to do
    });
    this.sizes.observe($("board"));
  }

  async open() {
    $("list-view").hidden = true;
    $("table-view").hidden = false;
    $("crumb").replaceChildren(el("a", { href: "#/", text: "Tables" }), ` / ${this.id}`);
    document.title = `tankref: table ${this.id}`;
    replace($("odds"));
    $("odds-note").hidden = false;
    if (this.seat) this.seat.open();
    let table;
    try {
      table = await get(tablePath(this.id));
    } catch (err) {
      this.problem(err instanceof ApiError && err.status === 404
        ? `There is no table ${this.id} on this referee.` : `The table could not be read: ${err.message}`);
      return;
    }
    if (this.closed) return;
    this.problem(table.damaged ? `This table is read-only: ${table.damaged}` : null);
    this.lastSeq = table.seq;
    this.log.setLast(table.seq);
    this.replay.setLast(table.seq);
    this.head = table.head_sha256 || null;
    this.banner(table.table);
    // The scene first: the log's distances are in its measure (inches, or hexes on a hex map).
    await this.loadScene();
    await Promise.all([this.log.render().then(() => this.lastResult()), this.loadLuck()]);
    this.connect();
  }

  close() {
    this.closed = true;
    if (this.seat) this.seat.close();
    this.sizes.disconnect();
    this.aids.close();
    this.replay.close();
    clearTimeout(this.retry);
    if (this.socket) this.socket.close(1000);
  }

  problem(text) {
    $("table-problem").hidden = !text;
    $("table-problem").textContent = text || "";
  }

  banner(s) {
    const parts = [el("strong", { text: `Table ${this.id}` })];
    if (this.rulesTitle) parts.push(el("span", { class: "rules", text: this.rulesTitle }));
    if (s.status === "over") {
      parts.push(el("span", { class: "status over", text: s.winner ? `Game over: ${s.winner} wins` : "Game over: a draw" }));
      if (s.reason) parts.push(el("span", { class: "muted", text: s.reason }));
    } else if (s.status === "setup") {
      parts.push(el("span", { class: "status", text: "Setting up" }));
    } else {
      parts.push(el("span", { class: "turn", text: `Turn ${s.turn}` }));
      if (s.active_player) {
        const chip = el("span", { class: "phase", text: phaseName(s) });
        chip.style.borderColor = this.colours.get(s.active_player) || "#666";
        parts.push(chip);
      }
    }
    // The players in their board colours (by setup order: ids need not be Red and Blue).
    const players = (s.players || []).map((id, i) => {
      const swatch = el("span", { class: "swatch", "aria-hidden": "true" });
      swatch.style.background = this.colours.get(id) || "#666";
      return [i ? " v " : "", el("span", { class: "player", "data-player": id }, swatch, id)];
    });
    parts.push(el("span", { class: "players muted" }, players));
    // The log's head (first 8 hex digits, as in the TTS chat): noted at the end of a game,
    // it lets a player check the export later (tankref verify --head).
    if (this.head) {
      parts.push(el("span", {
        class: "head muted", id: "head", "data-head": this.head,
        title: `The log's hash chain after entry ${this.lastSeq}: ${this.head}`,
        text: `log ${this.head.slice(0, 8)}`,
      }));
    }
    replace($("banner"), parts);
    $("banner").dataset.status = s.status;
    $("banner").dataset.turn = String(s.turn);
  }

  // The stream: every entry after the last one seen, then each new one as it is logged.
  connect() {
    if (this.closed) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}${tablePath(this.id)}/stream?after=${this.lastSeq}`);
    this.socket = socket;
    setLive("connecting", "connecting…");
    socket.addEventListener("open", () => {
      if (this.backoff > 500) {
        // Back after a drop: whatever failed to load meanwhile is read again.
        this.refreshScene();
        this.refreshSide();
        this.refreshSeat();
      }
      this.backoff = 500;
      setLive("live", "live");
    });
    socket.addEventListener("message", (event) => this.entry(JSON.parse(event.data)));
    socket.addEventListener("close", (event) => {
      if (this.closed || socket !== this.socket) return;
      if (event.code === 4404) {
        setLive("down", "no such table");
        return;
      }
      const wait = this.backoff;
      this.backoff = Math.min(this.backoff * 2, 10000);
      setLive("reconnecting", `reconnecting in ${Math.round(wait / 1000) || 1} s…`);
      this.retry = setTimeout(() => this.connect(), wait);
    });
  }

  entry(entry) {
    if (this.closed || entry.seq <= this.lastSeq) return; // already shown (a resumed stream)
    this.lastSeq = entry.seq;
    window.tankrefPage.updates += 1;
    if (entry.chain_sha256) this.head = entry.chain_sha256;
    if (entry.table && !this.replay.active) this.banner(entry.table);
    this.log.add(entry).then(() => this.lastResult());
    this.replay.setLast(entry.seq);
    this.refreshScene();
    this.refreshSide();
    this.refreshSeat();
  }

  async loadScene() {
    let scene;
    try {
      scene = await get(`${tablePath(this.id)}/scene`);
    } catch (err) {
      // Unreachable: the indicator says so and the stream's reconnection reloads it.
      if (err instanceof ApiError) this.problem(`The table view could not be read: ${err.message}`);
      return;
    }
    if (this.closed || this.replay.active) return; // a past entry is shown: it stays
    this.showScene(scene);
    this.aids.redraw();
  }

  showScene(scene) {
    this.scene = scene;
    this.names = unitNames(scene.tanks || []);
    this.log.onHexes = Boolean(scene.grid);
    this.rulesTitle = scene.ruleset_title || scene.ruleset || null;
    this.colours = drawBoard($("board"), scene, { selected: this.selected, onSelect: (id) => this.select(id) });
    if (scene.table) this.banner(scene.table);
    this.legend(scene);
  }

  legend(scene) {
    const items = [];
    for (const [player, colour] of this.colours) {
      const tanks = scene.tanks.filter((t) => t.player === player);
      const lost = tanks.filter((t) => t.markers.includes("Destroyed")).length;
      const away = tanks.filter((t) => !t.on_table).map((t) => this.names.get(t.tank_id) || t.tank_id);
      const swatch = el("span", { class: "swatch", "aria-hidden": "true" });
      swatch.style.background = colour;
      items.push(el("li", { "data-player": player }, swatch,
        el("strong", { text: player }),
        ` ${tanks.length} unit${tanks.length === 1 ? "" : "s"}`,
        lost ? `, ${lost} destroyed` : "",
        away.length ? `, off the table: ${away.join(", ")}` : ""));
    }
    // Each kind of terrain on the table, in its board colour.
    const kinds = [...new Set((scene.terrain || []).map((t) => t.kind))];
    for (const kind of kinds) {
      const swatch = el("span", { class: "swatch terrain", "aria-hidden": "true" });
      const look = terrainLook(kind);
      swatch.style.background = look.fill;
      swatch.style.opacity = String(Math.max(0.35, look.opacity));
      items.push(el("li", { class: "terrain-kind", "data-kind": kind }, swatch, kind));
    }
    replace($("legend"), items, this.markerKey(scene));
  }

  /** What each badge on the board stands for: the markers the ruleset put on the units now
   *  on the table, in its own words (a badge that is its marker, "HP 4/5", needs no key). */
  markerKey(scene) {
    const onTable = (scene.tanks || []).filter((t) => t.on_table);
    const seen = [...badgeMap(scene)].filter(([m, b]) => b !== m);
    const items = seen.sort((p, q) => p[1].localeCompare(q[1]))
      .map(([marker, short]) => el("li", { class: "badge-key", "data-badge": short, "data-marker": marker },
        el("span", { class: "badge-chip", text: short }), ` ${marker}`));
    if (onTable.some((t) => t.markers.includes("Destroyed"))) {
      items.push(el("li", { class: "badge-key", "data-marker": "Destroyed" },
        el("span", { class: "badge-chip wreck", text: "✕" }), " Destroyed"));
    }
    if (this.board().querySelector(".tank.off-table")) {
      items.push(el("li", { class: "badge-key", "data-marker": "off the table" },
        el("span", { class: "badge-chip off", text: "◌" }), " past the table's edge"));
    }
    return items.length ? el("li", { class: "marker-key" }, el("ul", { class: "badge-keys", "aria-label": "Marker badges" }, items)) : null;
  }

  board() {
    return $("board");
  }

  /** The newest entry, large: the stream view's caption (and a line under the board). */
  lastResult() {
    const newest = this.log.entries.get(this.log.last);
    const node = $("last-result");
    if (!newest || this.closed) {
      node.hidden = true;
      return;
    }
    const { headline, lines } = entryWords(newest);
    const taken = this.log.takenBackLabel(newest.seq);
    node.hidden = false;
    node.dataset.seq = String(newest.seq);
    replace(node, el("p", { class: "last-headline" }, el("span", { class: "seq", text: `#${newest.seq}` }), " ",
      taken ? el("span", { class: "taken-back", text: taken }) : null, taken ? " " : "", headline),
    el("ul", { class: "last-lines" }, lines.filter((l) => l !== headline).slice(0, 3).map((l) => el("li", { text: l }))));
  }

  nameOf(tankId) {
    return (this.names && this.names.get(tankId)) || tankId;
  }

  /** The board again from the scene in hand (nothing fetched). */
  redraw() {
    if (!this.scene || this.closed) return;
    drawBoard($("board"), this.scene, { selected: this.selected, onSelect: (id) => this.select(id) });
    this.aids.redraw();
  }

  select(tankId) {
    if (tankId !== this.selected) this.allOdds = false;
    this.selected = tankId;
    if (this.scene) drawBoard($("board"), this.scene, { selected: tankId, onSelect: (id) => this.select(id) });
    this.aids.select(this.replay.active ? null : tankId);
    const again = document.querySelector(`#board [data-tank="${CSS.escape(tankId)}"]`);
    if (again) again.focus();
    this.loadOdds();
  }

  async loadOdds() {
    const tankId = this.selected;
    if (!tankId) return;
    $("odds-note").hidden = true;
    let nodes;
    try {
      const reply = await get(`${tablePath(this.id)}/tanks/${encodeURIComponent(tankId)}/odds`);
      nodes = oddsNodes(reply, this.names || new Map(), Boolean(this.scene && this.scene.grid));
    } catch (err) {
      if (!(err instanceof ApiError)) return; // unreachable for now: keep what is shown
      // The ruleset says why there are no odds (out of phase, a space that makes no attack,
      // a piece that does not fire ...): shown as it comes, with the clause.
      const why = err.clause ? ` (${err.clause})` : "";
      nodes = [el("p", { class: "note no-odds", "data-code": err.code || String(err.status),
        text: `No odds for ${this.nameOf(tankId)} now: ${err.message}${why}` })];
    }
    if (this.closed || tankId !== this.selected) return;
    // The likeliest kills first; the rest one click away (20 enemies make a long list).
    const shown = this.allOdds ? nodes : nodes.slice(0, ODDS_SHOWN);
    const more = nodes.length > shown.length
      ? el("button", { type: "button", id: "odds-all", text: `Show all ${nodes.length} targets`,
        onclick: () => { this.allOdds = true; this.loadOdds(); } })
      : null;
    replace($("odds"), el("p", { class: "odds-for", text: `Odds for ${this.nameOf(tankId)}` }), shown, more);
    $("odds").dataset.tank = tankId;
  }

  async loadLuck() {
    let nodes;
    try {
      nodes = luckNodes(await get(`${tablePath(this.id)}/luck`), this.colours);
    } catch (err) {
      if (!(err instanceof ApiError)) return; // unreachable for now: keep what is shown
      nodes = [el("p", { class: "note", text: `Luck is not available: ${err.message}` })];
    }
    if (!this.closed) replace($("luck"), nodes);
  }
}

// --- which view: #/, #/tables/{id} or a seat link, #/tables/{id}/seat/{player}/{token} ----------

let current = null;
const SEAT_LINK = /^#\/tables\/([^/]+)\/seat\/([^/]+)\/([^/]+)$/;

function decoded(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return null; // a malformed %-escape
  }
}

function route() {
  clearInterval(listTimer);
  if (current) current.close();
  current = null;
  const link = location.hash.match(SEAT_LINK);
  if (link) {
    const [id, player, token] = link.slice(1).map(decoded);
    // The token leaves the address bar and the history at once, before anything is asked.
    const plain = id === null ? "#/" : `#/tables/${encodeURIComponent(id)}`;
    history.replaceState(history.state, "", `${location.pathname}${location.search}${plain}`);
    if (id === null) {
      showList();
      return;
    }
    const seat = player === null || token === null ? { player: "", token: "" } : { player, token };
    current = new TableView(id, seat);
    current.open();
    return;
  }
  const match = location.hash.match(/^#\/tables\/([^/]+)$/);
  if (match) {
    current = new TableView(decodeURIComponent(match[1]));
    current.open();
  } else showList();
}

window.addEventListener("hashchange", route);
window.addEventListener("focus", () => {
  if (!current) refreshList();
});
route();
