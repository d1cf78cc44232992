// Reads from this referee. Only GETs: the page holds no token and cannot write.

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
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

export const tablePath = (id) => `/tables/${encodeURIComponent(id)}`;
