// The dashboard's one API client: every screen talks to /api/v1 through it, with the session
// cookie and, on requests that change state, the session's CSRF token.

let csrf = '';

/**
 * An error answer of the API, read tolerantly: an RFC 9457 problem (detail, code, and its
 * extension members) when the body is one, else the {error: {code, message, details}} body.
 */
export class ApiError extends Error {
  constructor(status, body) {
    const b = body && typeof body === 'object' ? body : {};
    const e = b.error && typeof b.error === 'object' ? b.error : {};
    const text = (v) => (typeof v === 'string' && v ? v : '');
    super(text(b.detail) || text(e.message) || text(b.title) || (typeof body === 'string' && body.length < 300 ? body : '') ||
      `request failed with status ${status}`);
    this.status = status;
    this.code = text(b.code) || text(e.code);
    this.details = (e.details && typeof e.details === 'object' ? e.details : null) ||
      (b.details && typeof b.details === 'object' ? b.details : null) || {};
  }
}

/** Calls the API; body is JSON-encoded unless it is a string. token sends a bearer instead of the cookie. */
export async function api(method, path, body, token) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = 'Bearer ' + token;
  else if (method !== 'GET' && csrf) headers['X-Agent-Deck-CSRF'] = csrf;
  const res = await fetch('/api/v1' + path, {
    method, headers, credentials: 'same-origin',
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  if (res.status === 204) return null;
  const text = await res.text();
  let data = text;
  try { data = text ? JSON.parse(text) : null; } catch { /* not JSON: keep the text */ }
  if (!res.ok) {
    const err = new ApiError(res.status, data);
    if (res.status === 401 && !token) window.dispatchEvent(new CustomEvent('signed-out'));
    throw err;
  }
  return data;
}

export const get = (path) => api('GET', path);
export const post = (path, body) => api('POST', path, body ?? {});
export const patch = (path, body) => api('PATCH', path, body);
export const put = (path, body) => api('PUT', path, body);
export const del = (path) => api('DELETE', path);

/** Path segment for an id or a name. */
export const seg = (s) => encodeURIComponent(s);

/** Loads the cookie's session and remembers its CSRF token; throws ApiError 401 when signed out. */
export async function loadSession() {
  const s = await api('GET', '/dashboard/session');
  csrf = s.csrf_token;
  return s;
}

/** Trades a one-time code for the session cookie. */
export async function exchangeCode(code) {
  const s = await api('POST', '/dashboard/session', { code });
  csrf = s.csrf_token;
  return s;
}

/** Signs in with a pasted admin token: the token buys a one-time code, the code the cookie. */
export async function signInWithToken(token) {
  const c = await api('POST', '/dashboard/signin-codes', {}, token.trim());
  return exchangeCode(c.code);
}

export async function signOut() {
  await api('DELETE', '/dashboard/session');
  csrf = '';
}
