// Signing in and out. A person signs in with email and password (or the
// organization's single sign-on), which sets the session cookie the
// console never sees; it keeps the session's CSRF token in memory (see
// session.js). A developer may instead paste an API key, which the console
// checks with `organization { id name currency }` (every key may read
// that) before storing it in this tab's sessionStorage (see key.js).
// An invitation link, #/accept/<token>, sets a person's password.

import { ApiError, closeSocket, gql } from './api.js';
import { clearError, formField, h, onFormSubmit, replace, showError } from './ui.js';
import { clearKey, getKey, setKey, STORAGE_KEY } from './key.js';
import { clearSession, inSession, markEnded, sessionCSRF, setSession, takeEnded } from './session.js';

export { getKey, STORAGE_KEY };

const ORG_QUERY = 'query ConsoleOrganization { organization { id name currency } me { credential scopes user { id firstName lastName email role } } }';

/** Whether the server offers single sign-on (the page says so). */
const sso = document.documentElement.dataset.sso === 'true';

/** Who is signed in: {organization, me}, from the credential held. */
async function whoAmI(key) {
  const data = await gql(ORG_QUERY, {}, key === undefined ? {} : { key });
  return { ...data.organization, me: data.me };
}

/** Calls an /auth route; answers its JSON body (null for none) or throws an ApiError. */
async function authCall(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (inSession()) headers['X-CSRF-Token'] = sessionCSRF();
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin', cache: 'no-store' });
  } catch (err) {
    throw new ApiError({ message: `The server could not be reached (${err.message}).`, code: 'NETWORK' });
  }
  const requestId = res.headers.get('X-Request-Id') || '';
  const payload = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) {
    const first = payload?.errors?.[0] || {};
    throw new ApiError({
      message: first.message || `The server answered ${res.status} ${res.statusText}.`,
      code: first.code || `HTTP_${res.status}`, requestId, status: res.status,
      errors: [{ extensions: { code: first.code, field: first.detail?.field } }],
    });
  }
  return payload;
}

/** Checks key against the server and stores it: resolves to the organization, or throws an ApiError (stored key untouched). */
export async function signIn(key) {
  const trimmed = (key || '').trim();
  if (!trimmed) {
    throw new ApiError({ message: 'Enter an API key (it starts with svc_live_).', code: 'BAD_REQUEST' });
  }
  const org = await whoAmI(trimmed);
  clearSession();
  setKey(trimmed);
  return org;
}

/** Signs a person in with email and password: resolves to the organization, or throws an ApiError. */
export async function passwordSignIn(email, password) {
  const session = await authCall('POST', '/auth/sign-in', { email, password });
  clearKey();
  setSession(session.csrfToken);
  return whoAmI();
}

/**
 * The organization of whoever is signed in, or null when no one is: a key
 * stored in this tab, else a person's live session. Throws an ApiError
 * when the server refuses the stored key.
 */
export async function currentOrganization() {
  // A key pasted in this tab is what the reader chose here; else the
  // browser's session, if any.
  if (getKey()) return whoAmI();
  try {
    const session = await authCall('GET', '/auth/session');
    setSession(session.csrfToken);
    return whoAmI();
  } catch (err) {
    if (err.status === 401) return null;
    throw err;
  }
}

/** Signs out: ends the person's session on the server, or forgets the key; closes the live connection. */
export async function signOut() {
  if (inSession()) {
    try {
      await authCall('POST', '/auth/sign-out');
    } finally {
      clearSession();
    }
  }
  clearKey();
  closeSocket();
}

/** A session that ended while open: reloading shows the sign-in form, saying why. */
export function sessionEnded() {
  markEnded();
  window.location.reload();
}

/** Words for a refused key, by the server's code. */
function keyRefusal(err) {
  switch (err.code) {
    case 'UNAUTHORIZED':
      return 'The server refused this API key: it is unknown, revoked or expired. Check it and try again.';
    case 'RATE_LIMITED':
      return 'Too many attempts: wait a moment and try again.';
    case 'NETWORK':
      return 'The server could not be reached. Check your connection and try again.';
    default:
      return 'Signing in failed.';
  }
}

/**
 * Shows the sign-in form in main: email and password, single sign-on when
 * the server offers it, and an API key behind a link, for developers.
 * onSignedIn(org) runs once someone is signed in. error, when given, is
 * why the reader is here (a refused single sign-on).
 */
export function renderSignIn(main, onSignedIn, { error = '' } = {}) {
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true, spellcheck: 'false' });
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true });
  const useKey = h('button', { type: 'button', class: 'link use-key' }, 'Use an API key');
  const form = h('form', { class: 'sign-in password', novalidate: true },
    h('h1', {}, 'Sign in'),
    formField('Email', email),
    formField('Password', password),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Sign in')),
    sso ? h('p', {}, h('a', { class: 'button sso', href: '/auth/oidc/start' }, 'Sign in with SSO')) : null,
    h('p', { class: 'muted' }, 'Developers: ', useKey, '.'),
  );
  onFormSubmit(form, async () => {
    const org = await passwordSignIn(email.value.trim(), password.value);
    password.value = '';
    onSignedIn(org);
  });
  useKey.addEventListener('click', () => renderKeySignIn(main, onSignedIn));
  replace(main, form);
  if (takeEnded()) showError(new ApiError({ message: 'Your session ended; sign in again.', code: 'UNAUTHORIZED' }));
  else if (error) showError(new ApiError({ message: error, code: 'SSO' }));
  email.focus();
}

/** The API-key form, for developers; "Sign in with email" goes back. */
function renderKeySignIn(main, onSignedIn) {
  const input = h('input', {
    type: 'password', name: 'api-key', autocomplete: 'off', spellcheck: 'false',
    placeholder: 'svc_live_…', required: true,
  });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const back = h('button', { type: 'button', class: 'link' }, 'Sign in with email instead');
  const form = h('form', { class: 'sign-in key', novalidate: true },
    h('h1', {}, 'Sign in with an API key'),
    h('p', {}, 'Paste an API key of your organization. The console keeps it in this browser tab only, and forgets it when you sign out or close the tab.'),
    formField('API key', input, { hint: 'Keys start with svc_live_. An administrator creates them under API keys, or with the svc keys command.' }),
    button,
    h('p', { class: 'muted' }, back),
  );
  // form-action 'none' forbids submitting anywhere: the submit event is
  // handled here and never reaches the network as a form post.
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    button.disabled = true;
    try {
      const org = await signIn(input.value);
      clearError();
      onSignedIn(org);
    } catch (err) {
      showError(err, keyRefusal(err));
      input.focus();
    } finally {
      button.disabled = false;
    }
  });
  back.addEventListener('click', () => renderSignIn(main, onSignedIn));
  replace(main, form);
  input.focus();
}

const ACCEPT = `mutation AcceptInvitation($token: String!, $password: String!) {
  acceptInvitation(token: $token, password: $password) { email }
}`;

/**
 * Shows the form that sets a password with an invitation token, then
 * signs the person in with it; onSignedIn(org) runs once signed in.
 */
export function renderAccept(main, token, onSignedIn) {
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'new-password', required: true, minlength: '12', maxlength: '128' });
  const confirm = h('input', { type: 'password', name: 'confirm', autocomplete: 'new-password', required: true });
  const form = h('form', { class: 'sign-in accept', novalidate: true },
    h('h1', {}, 'Set your password'),
    h('p', {}, 'Choose the password you will sign in with.'),
    formField('Password', password, { hint: '12 to 128 characters; not a common password, and not your email address.' }),
    formField('Confirm password', confirm),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Set password and sign in')),
  );
  onFormSubmit(form, async () => {
    if (password.value !== confirm.value) {
      throw Object.assign(new Error('must be the same as the password'), { code: 'VALIDATION_ERROR', field: 'confirm' });
    }
    // No credential: the invitation is one.
    const data = await gql(ACCEPT, { token, password: password.value }, { key: '' });
    const org = await passwordSignIn(data.acceptInvitation.email, password.value);
    password.value = '';
    confirm.value = '';
    onSignedIn(org);
  });
  replace(main, form);
  password.focus();
}
