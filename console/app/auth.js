// Signing in and out. The reader pastes an API key; the console checks it
// with `organization { id name currency }` (every key may read that) before storing
// it in this tab's sessionStorage (see key.js), and forgets it on sign-out.

import { ApiError, closeSocket, gql } from './api.js';
import { clearError, formField, h, replace, showError } from './ui.js';
import { clearKey, getKey, setKey, STORAGE_KEY } from './key.js';

export { getKey, STORAGE_KEY };

const ORG_QUERY = 'query ConsoleOrganization { organization { id name currency } }';

/**
 * Checks key against the server and stores it: resolves to the
 * organization {id, name}, or throws an ApiError (stored key untouched).
 */
export async function signIn(key) {
  const trimmed = (key || '').trim();
  if (!trimmed) {
    throw new ApiError({ message: 'Enter an API key (it starts with svc_live_).', code: 'BAD_REQUEST' });
  }
  const data = await gql(ORG_QUERY, {}, { key: trimmed });
  setKey(trimmed);
  return data.organization;
}

/** The stored key's organization, or null when signed out; throws an ApiError when the server refuses the key. */
export async function currentOrganization() {
  if (!getKey()) return null;
  const data = await gql(ORG_QUERY);
  return data.organization;
}

/** Forgets the key and closes the live connection that used it. */
export function signOut() {
  clearKey();
  closeSocket();
}

/** Words for a refused sign-in, by the server's code. */
function refusal(err) {
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
 * Shows the sign-in form in main; onSignedIn(org) runs once a key is
 * accepted and stored.
 */
export function renderSignIn(main, onSignedIn) {
  const input = h('input', {
    type: 'password', name: 'api-key', autocomplete: 'off', spellcheck: 'false',
    placeholder: 'svc_live_…', required: true,
  });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h('form', { class: 'sign-in', novalidate: true },
    h('h1', {}, 'Sign in'),
    h('p', {}, 'Paste an API key of your organization. The console keeps it in this browser tab only, and forgets it when you sign out or close the tab.'),
    formField('API key', input, { hint: 'Keys start with svc_live_. An administrator creates them under API keys, or with the svc keys command.' }),
    button,
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
      showError(err, refusal(err));
      input.focus();
    } finally {
      button.disabled = false;
    }
  });
  replace(main, form);
  input.focus();
}
