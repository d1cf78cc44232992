// Requests to this referee. Reads are plain GETs with no token; the only writes are a
// seat's own (seat.js), sent with the seat token a player's seat link gave this browser.

export class ApiError extends Error {
  constructor(status, body) {
    const text = body && body.message ? body.message : `HTTP ${status}`;
    super(text);
    this.status = status;
    this.code = body && body.code;
    this.clause = body && body.clause;
  }
}

export async function get(path) {
  return request(path);
}

/** A request with `token` as its bearer (a seat's), and `body` as JSON when it is a write. */
export async function request(path, { token = null, body = null } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const init = { headers };
  if (body !== null) {
    init.method = "POST";
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let reply = null;
  try {
    reply = await response.json();
  } catch {
    reply = null;
  }
  if (!response.ok) throw new ApiError(response.status, reply);
  return reply;
}

export const tablePath = (id) => `/tables/${encodeURIComponent(id)}`;
