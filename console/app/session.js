// A person's session. Its token lives in the svc_session cookie, which is
// HttpOnly: the console never sees it, and the browser sends it on this
// origin's requests. What the console holds is the session's CSRF token,
// in memory for this page only, which every request that can change
// anything carries (X-CSRF-Token): another site's page cannot read it.

let csrf = '';

/** The session's CSRF token, or '' when no one is signed in with a password or single sign-on. */
export function sessionCSRF() {
  return csrf;
}

/** Whether the console works in a person's session (rather than with an API key). */
export function inSession() {
  return csrf !== '';
}

/** Holds token as the session's CSRF token. */
export function setSession(token) {
  csrf = token || '';
}

/** Forgets the session. */
export function clearSession() {
  csrf = '';
}

// What runs when a call finds the session ended: set once someone is
// signed in (so a page still starting cannot reload itself in a loop),
// run at most once.
let endedHandler = null;

/** Sets what runs when a call finds the session ended; null for nothing. */
export function onSessionEnded(fn) {
  endedHandler = fn;
}

/** A call made in the session was refused with 401: the session ended. */
export function sessionRefused() {
  if (!inSession() || !endedHandler) return;
  const fn = endedHandler;
  endedHandler = null;
  fn();
}

// A session that ended while the console was open (signed out elsewhere,
// deactivated, idle too long) reloads the console; this mark, kept across
// the reload for this tab, says why above the sign-in form.
const ENDED = 'svc.console.sessionEnded';

/** Marks that the session ended, for the sign-in form to say so after a reload. */
export function markEnded() {
  try {
    window.sessionStorage.setItem(ENDED, '1');
  } catch {
    // storage unavailable: the form shows without the reason
  }
}

/** Whether the session ended before this load; reading clears the mark. */
export function takeEnded() {
  try {
    const ended = window.sessionStorage.getItem(ENDED) === '1';
    window.sessionStorage.removeItem(ENDED);
    return ended;
  } catch {
    return false;
  }
}
