// Where the console keeps the API key: this tab's sessionStorage, under
// STORAGE_KEY. Never a URL (it would land in history, logs and Referer
// headers) and never a cookie (it would ride along on every request and
// invite cross-site request forgery). The GraphQL playground on the same
// origin reads the same name (graph/playground/boot.js), so signing in here
// signs it in too; closing the tab forgets the key.

export const STORAGE_KEY = 'svc.console.apiKey';

/** The stored key, or '' when signed out (or storage is unavailable). */
export function getKey() {
  try {
    return window.sessionStorage.getItem(STORAGE_KEY) || '';
  } catch {
    return '';
  }
}

/** Stores key for this tab. */
export function setKey(key) {
  window.sessionStorage.setItem(STORAGE_KEY, key);
}

/** Forgets the key. */
export function clearKey() {
  try {
    window.sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // storage unavailable: nothing was stored
  }
}
