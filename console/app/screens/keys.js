// The API keys screen (#/keys): the organization's keys, paged and never
// with a secret; creating a key, whose secret is shown once; revoking one;
// rotating one, whose new secret is shown once while the old keeps working
// for a grace period. Every call needs the admin scope.

import { gql } from '../api.js';
import { getKey } from '../key.js';
import { clearError, confirmDialog, date, formField, h, pager, reportError, secretBox } from '../ui.js';

/** Every scope a key or an app may hold, with what it allows in words. */
export const SCOPES = [
  ['leads:read', 'Read leads'],
  ['leads:write', 'Create and change leads'],
  ['dialer:write', 'Send dialer events'],
  ['webhooks:manage', 'Manage webhooks and inbound sources'],
  ['lending:read', 'Read lenders, applications and deals'],
  ['lending:write', 'Write lenders, applications and deals'],
  ['analytics:read', 'Read the reports'],
  ['admin', 'Administer keys, apps and the organization'],
];

const KEY_FIELDS = 'id name prefix scopes createdAt lastUsedAt expiresAt revokedAt replacedBy';

const LIST = `query ConsoleApiKeys($page: Int, $limit: Int, $includeRevoked: Boolean) {
  apiKeys(page: $page, limit: $limit, includeRevoked: $includeRevoked) {
    nodes { ${KEY_FIELDS} } total page limit hasMore
  }
}`;

const CREATE = `mutation ConsoleCreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) { apiKey { ${KEY_FIELDS} } secret }
}`;

const REVOKE = `mutation ConsoleRevokeApiKey($id: ID!) { revokeApiKey(id: $id) { ${KEY_FIELDS} } }`;

const ROTATE = `mutation ConsoleRotateApiKey($id: ID!, $graceSeconds: Int) {
  rotateApiKey(id: $id, graceSeconds: $graceSeconds) { apiKey { ${KEY_FIELDS} } secret }
}`;

/**
 * A fieldset of labelled checkboxes, one per scope of choices ([scope,
 * words] pairs), those in checked ticked. selected() lists the ticked.
 */
export function scopeChecks(legend, choices, checked = []) {
  const boxes = choices.map(([scope]) => {
    const box = h('input', { type: 'checkbox', name: 'scope', value: scope, checked: checked.includes(scope) });
    box.defaultChecked = checked.includes(scope); // what a form reset goes back to
    return box;
  });
  const element = h('fieldset', { class: 'scopes' }, h('legend', {}, legend),
    choices.map(([scope, words], i) => h('label', { class: 'check' }, boxes[i], words, ' ', h('code', {}, scope))));
  return { element, selected: () => boxes.filter((b) => b.checked).map((b) => b.value) };
}

/** Whether the console is signed in with the key whose prefix is prefix. */
function isOwnKey(k) {
  return !!k.prefix && getKey().startsWith(k.prefix);
}

function status(k) {
  if (k.revokedAt) return h('span', { class: 'badge off' }, `Revoked ${date(k.revokedAt)}`);
  if (k.replacedBy) return h('span', { class: 'badge' }, `Rotated: works until ${date(k.expiresAt)}`);
  if (k.expiresAt && new Date(k.expiresAt) <= new Date()) return h('span', { class: 'badge off' }, 'Expired');
  return h('span', { class: 'badge' }, 'Active');
}

/** Fills main; returns nothing to clean up (no live parts). */
export async function render(main, ctx) {
  const secretSlot = h('div', { class: 'secret-slot' });
  let includeRevoked = false;

  const list = pager({
    style: 'page',
    limit: 20,
    caption: 'API keys, newest first',
    empty: 'No keys to show.',
    load: async ({ page, limit }) => {
      try {
        return (await gql(LIST, { page, limit, includeRevoked })).apiKeys;
      } catch (err) {
        // A refused key reloads into the sign-in form; the list then shows nothing.
        if (err.code === 'UNAUTHORIZED') reportError(err);
        throw err;
      }
    },
    columns: [
      { label: 'Name', render: (k) => [k.name, isOwnKey(k) ? h('span', { class: 'muted' }, ' (this console)') : null] },
      { label: 'Prefix', render: (k) => h('code', {}, `${k.prefix}…`) },
      { label: 'Scopes', render: (k) => k.scopes.join(', ') },
      { label: 'Created', render: (k) => date(k.createdAt) },
      { label: 'Last used', render: (k) => date(k.lastUsedAt) },
      { label: 'Expires', render: (k) => (k.expiresAt ? date(k.expiresAt) : 'Never') },
      { label: 'Status', render: status },
      { label: 'Actions', render: (k) => (k.revokedAt ? '' : h('div', { class: 'actions' },
        k.replacedBy ? null : h('button', { type: 'button', class: 'rotate', 'aria-label': `Rotate key ${k.name}`, onclick: () => rotate(k) }, 'Rotate'),
        h('button', { type: 'button', class: 'revoke', 'aria-label': `Revoke key ${k.name}`, onclick: () => revoke(k) }, 'Revoke'),
      )) },
    ],
  });

  function showSecret(title, secret) {
    const box = secretBox({
      label: title,
      secret,
      warning: 'Copy this secret now and keep it somewhere safe: it is shown this once and cannot be shown again. Anyone holding it acts for the organization with the key\'s scopes.',
    });
    secretSlot.replaceChildren(box.element);
    box.focus();
  }

  async function revoke(k) {
    const own = isOwnKey(k);
    const yes = await confirmDialog({
      title: `Revoke the key ${k.name}?`,
      body: [
        h('p', {}, `Every request with the key ${k.prefix}… is refused from now on, and its live connections close. This cannot be undone.`),
        own ? h('p', { class: 'warning' }, 'This console is signed in with this key: you will be asked to sign in with another.') : null,
      ],
      confirm: 'Revoke',
      danger: true,
    });
    if (!yes) return;
    try {
      await gql(REVOKE, { id: k.id });
      clearError();
      // With its own key revoked, the refresh is refused and the console signs out.
      await list.refresh();
    } catch (err) {
      reportError(err, `Revoking ${k.name} failed.`);
    }
  }

  async function rotate(k) {
    const hours = h('input', { type: 'number', min: '0', max: '168', step: 'any', value: '24', inputmode: 'decimal' });
    const yes = await confirmDialog({
      title: `Rotate the key ${k.name}?`,
      body: [
        h('p', {}, 'A new key with the same name, scopes and expiry replaces this one; its secret is shown once. The old key keeps working for the grace period, so that its users can switch.'),
        formField('Grace period (hours)', hours, { hint: 'From 0 to 168 hours (7 days); 24 by default.' }),
      ],
      confirm: 'Rotate',
    });
    if (!yes) return;
    const graceSeconds = hours.value.trim() === '' ? null : Math.round(Number(hours.value) * 3600);
    try {
      const { rotateApiKey } = await gql(ROTATE, { id: k.id, graceSeconds });
      clearError();
      showSecret(`New secret of ${rotateApiKey.apiKey.name}`, rotateApiKey.secret);
      await list.refresh();
    } catch (err) {
      reportError(err, `Rotating ${k.name} failed.`);
    }
  }

  // The create form.
  const name = h('input', { type: 'text', name: 'name', maxlength: '100', required: true, autocomplete: 'off' });
  const scopes = scopeChecks('Scopes', SCOPES, ['leads:read']);
  const expires = h('input', { type: 'date', name: 'expires' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create key');
  const form = h('form', { class: 'admin-form create-key', novalidate: true, 'aria-labelledby': 'create-key-title' },
    h('h2', { id: 'create-key-title' }, 'Create a key'),
    formField('Name', name, { hint: 'A label to tell keys apart: 1 to 100 characters.' }),
    scopes.element,
    formField('Expires on', expires, { hint: 'The key stops working at the end of this day. Leave empty for a key that does not expire.' }),
    submit,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    submit.disabled = true;
    const input = { name: name.value, scopes: scopes.selected() };
    if (expires.value) {
      // The end of the chosen day in the reader's time zone, as an instant.
      const [y, m, d] = expires.value.split('-').map(Number);
      input.expiresAt = new Date(y, m - 1, d, 23, 59, 59).toISOString();
    }
    try {
      const { createApiKey } = await gql(CREATE, { input });
      clearError();
      form.reset();
      showSecret(`Secret of ${createApiKey.apiKey.name}`, createApiKey.secret);
      await list.reload();
    } catch (err) {
      reportError(err, 'Creating the key failed.');
    } finally {
      submit.disabled = false;
    }
  });

  const showRevoked = h('input', {
    type: 'checkbox', id: 'keys-include-revoked',
    onchange: (ev) => { includeRevoked = ev.target.checked; list.reload(); },
  });

  main.append(
    h('h1', {}, ctx.title),
    h('p', { class: 'muted' }, 'Keys let programs and people call the API for this organization. A key\'s secret is shown once, when it is created or rotated.'),
    secretSlot,
    h('h2', {}, 'Keys'),
    h('div', { class: 'inline-check' }, showRevoked, h('label', { for: showRevoked.id }, 'Show revoked keys')),
    list.element,
    form,
  );
}
