// The console's keyboard shortcuts: one table, SHORTCUTS, that both the
// key handler and the help dialog ("?") read, so the two cannot disagree.
// A shortcut is one key, or "g" then a letter for a screen. Keys typed
// into a field, or pressed with Ctrl, Alt or Meta, are left to the page.

import { h } from './ui.js';

/**
 * Every shortcut: keys (one key, or "g" and a letter), what the help
 * dialog calls it, and what it does: act(app) or go (a route).
 */
export const SHORTCUTS = [
  { keys: ['/'], label: 'Focus the search field of the screen', act: focusSearch },
  { keys: ['n'], label: 'New lead (on the pipeline board)', act: newLead },
  { keys: ['?'], label: 'Show these shortcuts', act: (app) => app.help() },
  { keys: ['g', 'd'], label: 'Go to My day', go: '/my-day' },
  { keys: ['g', 'b'], label: 'Go to the Pipeline board', go: '/board' },
  { keys: ['g', 'l'], label: 'Go to Lenders', go: '/lenders' },
  { keys: ['g', 'p'], label: 'Go to Applications', go: '/applications' },
  { keys: ['g', 'r'], label: 'Go to Renewals', go: '/renewals' },
  { keys: ['g', 'a'], label: 'Go to Agents', go: '/agents' },
  { keys: ['g', 'w'], label: 'Go to Webhooks', go: '/webhooks' },
  { keys: ['g', 'i'], label: 'Go to Inbound', go: '/inbound' },
  { keys: ['g', 'u'], label: 'Go to Automations', go: '/automations' },
  { keys: ['g', 'e'], label: 'Go to Users (admins)', go: '/users' },
  { keys: ['g', 'k'], label: 'Go to API keys', go: '/keys' },
  { keys: ['g', 's'], label: 'Go to Apps', go: '/apps' },
  { keys: ['g', 'n'], label: 'Go to Analytics', go: '/analytics' },
];

/** How long "g" waits for its letter, in milliseconds. */
const PREFIX_WAIT = 1500;

function focusSearch() {
  const search = document.querySelector('main input[type="search"]');
  if (!search) return;
  search.focus();
  search.select();
}

/** Opens the board's "New lead" form, going to the board first if need be. */
async function newLead(app) {
  if (app.path() !== '/board') await app.go('/board');
  const button = [...document.querySelectorAll('main button[aria-expanded]')].find((b) => b.textContent === 'New lead');
  if (!button) return;
  if (button.getAttribute('aria-expanded') === 'true') document.querySelector('main form.new-lead input')?.focus();
  else button.click();
}

/** Whether the key belongs to the page rather than to the shortcuts. */
function ignored(ev) {
  if (ev.ctrlKey || ev.altKey || ev.metaKey || ev.defaultPrevented) return true;
  const el = ev.target;
  if (!(el instanceof Element)) return false;
  return el.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"], dialog[open]') !== null;
}

/** The help dialog, built from SHORTCUTS. */
function helpDialog() {
  const close = h('button', { type: 'button' }, 'Close');
  const dialog = h('dialog', { class: 'shortcuts', 'aria-labelledby': 'shortcuts-title' },
    h('h2', { id: 'shortcuts-title' }, 'Keyboard shortcuts'),
    h('p', { class: 'hint' }, 'Not while typing in a field. Escape closes this list.'),
    h('dl', {}, SHORTCUTS.flatMap((s) => [
      h('dt', {}, s.keys.flatMap((k, i) => [i > 0 ? ' then ' : null, h('kbd', {}, k)])),
      h('dd', {}, s.label),
    ])),
    h('form', { method: 'dialog' }, close),
  );
  return dialog;
}

/**
 * Listens for the shortcuts. app gives path() (the current route),
 * go(path) (navigates, resolving once the screen is shown) and
 * enabled() (false while signed out).
 */
export function installShortcuts(app) {
  let dialog = null;
  let prefixUntil = 0;
  const ctx = {
    ...app,
    help: () => {
      if (!dialog) {
        dialog = helpDialog();
        document.body.append(dialog);
      }
      if (!dialog.open) dialog.showModal();
    },
  };
  document.addEventListener('keydown', (ev) => {
    if (!app.enabled() || ignored(ev)) return;
    const key = ev.key;
    const prefixed = Date.now() < prefixUntil;
    prefixUntil = 0;
    const found = SHORTCUTS.find((s) => (prefixed
      ? s.keys.length === 2 && s.keys[1] === key
      : s.keys.length === 1 && s.keys[0] === key));
    if (!found && !prefixed && key === 'g') {
      prefixUntil = Date.now() + PREFIX_WAIT;
      ev.preventDefault();
      return;
    }
    if (!found) return;
    ev.preventDefault();
    if (found.go) app.go(found.go);
    else found.act(ctx);
  });
}
