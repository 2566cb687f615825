// The console's one way to the server: GraphQL over HTTP for queries and
// mutations, the GraphQL multipart request for uploads, and one shared
// graphql-ws websocket (the graphql-transport-ws protocol) for
// subscriptions. Every call sends the signed-in credential: a person's
// session (the cookie, with the session's CSRF token) or an API key
// (Authorization: Bearer); every failure is an ApiError carrying the
// server's words, its code (extensions.code) and the request id
// (X-Request-Id) that finds it in the server's log.

import { createClient } from '../vendor/graphql-ws-6.4.2/client.js';
import { getKey } from './key.js';
import { inSession, sessionCSRF, sessionRefused } from './session.js';

/** The GraphQL endpoint's path, as the page names it. */
export const endpoint = document.documentElement.dataset.endpoint || '/graphql';

/** A failed call: message in words, code, request id, and the GraphQL path when the error names one. */
export class ApiError extends Error {
  constructor({ message, code = 'ERROR', requestId = '', path = null, status = 0, errors = [] }) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.requestId = requestId;
    this.path = path;
    this.status = status;
    this.errors = errors;
  }
}

/**
 * The headers that carry the credential: the session's CSRF token (the
 * cookie goes by itself), or the API key; key, when given, is used
 * whatever else is held.
 */
export function authHeaders(key) {
  if (key === undefined && inSession()) return { 'X-CSRF-Token': sessionCSRF() };
  const k = key ?? getKey();
  return k ? { Authorization: `Bearer ${k}` } : {};
}

/** Names the credential signed in, so a cache kept per credential can tell another apart. */
export function credentialIdentity() {
  return inSession() ? `session:${sessionCSRF()}` : getKey();
}

/** The fetch credentials mode: the session's cookie rides along on this origin; a key needs none. */
export function credentialsMode(key) {
  return key === undefined && inSession() ? 'same-origin' : 'omit';
}

/**
 * Runs a query or mutation and returns its data, or throws an ApiError.
 * options.key overrides the stored key (sign-in checks a key before
 * storing it); options.signal aborts the request.
 */
export async function gql(query, variables = {}, options = {}) {
  return post(JSON.stringify({ query, variables }), { 'Content-Type': 'application/json' }, options);
}

/**
 * Runs a mutation that takes files, as a GraphQL multipart request:
 * files maps a variable's path within variables ('file', or 'input.file')
 * to a File or Blob; the variable is sent as null and the file as a part.
 * Returns the data or throws an ApiError.
 */
export async function upload(query, variables = {}, files = {}, options = {}) {
  const vars = structuredClone(variables);
  const form = new FormData();
  const map = {};
  const entries = Object.entries(files);
  entries.forEach(([path], i) => {
    setPath(vars, path, null);
    map[String(i)] = [`variables.${path}`];
  });
  form.append('operations', JSON.stringify({ query, variables: vars }));
  form.append('map', JSON.stringify(map));
  entries.forEach(([, file], i) => form.append(String(i), file, file.name || `file${i}`));
  return post(form, {}, options);
}

function setPath(obj, path, value) {
  const parts = path.split('.');
  let o = obj;
  for (const p of parts.slice(0, -1)) {
    if (o[p] === undefined || o[p] === null) o[p] = {};
    o = o[p];
  }
  o[parts[parts.length - 1]] = value;
}

async function post(body, headers, { key, signal } = {}) {
  let res;
  try {
    res = await fetch(endpoint, {
      method: 'POST',
      headers: { Accept: 'application/json', ...authHeaders(key), ...headers },
      body,
      signal,
      credentials: credentialsMode(key),
      cache: 'no-store',
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError({ message: `The server could not be reached (${err.message}).`, code: 'NETWORK' });
  }
  const requestId = res.headers.get('X-Request-Id') || '';
  // A 401 in a person's session is its end, whichever screen or list
  // made the call (some show their own errors): back to sign-in. A key
  // given for this call (the key form's check) is not the session.
  if (res.status === 401 && key === undefined) sessionRefused();
  let payload = null;
  try {
    payload = await res.json();
  } catch {
    throw new ApiError({
      message: `The server answered ${res.status} ${res.statusText} without a readable body.`,
      code: `HTTP_${res.status}`, requestId, status: res.status,
    });
  }
  const errors = Array.isArray(payload?.errors) ? payload.errors : [];
  if (errors.length > 0 || !res.ok) {
    // GraphQL errors carry extensions.code (a missing or wrong key's 401
    // included); the edge's other refusals (the rate limit) come in the
    // REST envelope.
    const first = errors[0] || payload?.error || {};
    throw new ApiError({
      message: first.message || first.detail || first.title || `The server answered ${res.status} ${res.statusText}.`,
      code: first.extensions?.code || first.code || `HTTP_${res.status}`,
      requestId, path: first.path || null, status: res.status, errors,
    });
  }
  return payload.data;
}

/**
 * Downloads an export (GET /v1/exports/...csv, path with its query) as a
 * file. In a person's session the browser fetches it itself through a
 * link, carrying the cookie: the file streams to disk, however large. An
 * API key cannot ride on a link, so the export is fetched with the key
 * and saved from memory (a Blob behind an object URL), named as the
 * server's Content-Disposition names it. A refusal throws an ApiError.
 */
export async function download(path) {
  if (inSession()) {
    save(path, '');
    return;
  }
  let res;
  try {
    res = await fetch(path, { headers: authHeaders(), credentials: 'omit', cache: 'no-store' });
  } catch (err) {
    throw new ApiError({ message: `The server could not be reached (${err.message}).`, code: 'NETWORK' });
  }
  const requestId = res.headers.get('X-Request-Id') || '';
  if (!res.ok) {
    if (res.status === 401) sessionRefused();
    const payload = await res.json().catch(() => null);
    const e = payload?.errors?.[0] || {};
    throw new ApiError({
      message: e.message || `The server answered ${res.status} ${res.statusText}.`,
      code: e.code || `HTTP_${res.status}`, requestId, status: res.status,
    });
  }
  let blob;
  try {
    blob = await res.blob();
  } catch (err) {
    // The server cut the transfer off (a page failed after the header).
    throw new ApiError({ message: `The export broke off before its end (${err.message}); nothing was saved.`, code: 'NETWORK', requestId });
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') || '')?.[1] || 'export.csv';
  const url = URL.createObjectURL(blob);
  save(url, name);
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

/** Saves href as a download through a link clicked once; name '' leaves it to the server's. */
function save(href, name) {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
}

// One websocket for every subscription, opened on first use and replaced
// when the credential changes (sign-out, another key, a session).
let client = null;
let clientKey = '';

function socketURL() {
  const url = new URL(endpoint, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

function sharedClient() {
  const key = inSession() ? 'session' : getKey();
  if (client && clientKey === key) return client;
  closeSocket();
  clientKey = key;
  client = createClient({
    url: socketURL(),
    // The server reads a browser socket's key here, not from a header; a
    // session's socket sends none: the upgrade carried the cookie.
    connectionParams: () => (inSession() ? {} : authHeaders(getKey())),
    lazy: true,
    retryAttempts: 5,
    shouldRetry: (e) => !(e && typeof e.code === 'number' && e.code >= 4400 && e.code < 4500),
  });
  return client;
}

/** Closes the shared websocket (sign-out does, so no socket outlives the key). */
export function closeSocket() {
  if (client) {
    const c = client;
    client = null;
    c.dispose();
  }
}

function socketError(err) {
  if (Array.isArray(err) && err.length > 0) {
    const first = err[0];
    return new ApiError({ message: first.message, code: first.extensions?.code || 'GRAPHQL_ERROR', path: first.path || null, errors: err });
  }
  if (err && typeof err.code === 'number') {
    return new ApiError({ message: `The live connection closed (${err.code}${err.reason ? `: ${err.reason}` : ''}).`, code: `WS_${err.code}` });
  }
  return new ApiError({ message: `The live connection failed (${err?.message || 'no reason given'}).`, code: 'NETWORK' });
}

/**
 * Subscribes over the shared websocket. handlers.next(data) gets each
 * event's data, handlers.error(ApiError) a failure, handlers.complete() the
 * end. Returns the function that unsubscribes.
 */
export function subscribe(query, variables = {}, { next = () => {}, error = () => {}, complete = () => {} } = {}) {
  return sharedClient().subscribe({ query, variables }, {
    next: (result) => {
      if (result.errors?.length) {
        error(socketError(result.errors));
        return;
      }
      next(result.data);
    },
    error: (err) => error(socketError(err)),
    complete,
  });
}
