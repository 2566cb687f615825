// The console's one way to the server: GraphQL over HTTP for queries and
// mutations, the GraphQL multipart request for uploads, and one shared
// graphql-ws websocket (the graphql-transport-ws protocol) for
// subscriptions. Every call sends the signed-in key; every failure is an
// ApiError carrying the server's words, its code (extensions.code) and the
// request id (X-Request-Id) that finds it in the server's log.

import { createClient } from '../vendor/graphql-ws-6.4.2/client.js';
import { getKey } from './key.js';

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

function authHeaders(key) {
  const k = key ?? getKey();
  return k ? { Authorization: `Bearer ${k}` } : {};
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
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError({ message: `The server could not be reached (${err.message}).`, code: 'NETWORK' });
  }
  const requestId = res.headers.get('X-Request-Id') || '';
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

// One websocket for every subscription, opened on first use and replaced
// when the key changes (sign-out, another key).
let client = null;
let clientKey = '';

function socketURL() {
  const url = new URL(endpoint, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

function sharedClient() {
  const key = getKey();
  if (client && clientKey === key) return client;
  closeSocket();
  clientKey = key;
  client = createClient({
    url: socketURL(),
    // The server reads a browser socket's key here, not from a header.
    connectionParams: () => authHeaders(getKey()),
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
