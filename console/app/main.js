// The console's shell: signs the reader in, then routes the hash
// (#/board, #/leads/<id>, ...) to a screen module. Every screen is listed
// once, in SCREENS; a screen module exports
//   async function render(main, ctx, params)
// which fills main and may return a cleanup function, called when the
// reader navigates away (to close a subscription, say).

import { currentOrganization, renderSignIn, signOut } from './auth.js';
import { getKey } from './key.js';
import { installShortcuts } from './shortcuts.js';
import { clearError, h, replace, setCurrency, showError } from './ui.js';

/**
 * Every screen: its route (":name" segments become params), its title,
 * whether the nav links to it, and its module.
 */
export const SCREENS = [
  { route: '/board', title: 'Pipeline board', nav: true, load: () => import('./screens/board.js') },
  { route: '/leads/:id', title: 'Lead', nav: false, load: () => import('./screens/lead.js') },
  { route: '/lenders', title: 'Lenders', nav: true, load: () => import('./screens/lenders.js') },
  { route: '/applications', title: 'Applications', nav: true, load: () => import('./screens/applications.js') },
  { route: '/agents', title: 'Agents', nav: true, load: () => import('./screens/agents.js') },
  { route: '/webhooks', title: 'Webhooks', nav: true, load: () => import('./screens/webhooks.js') },
  { route: '/webhooks/:id', title: 'Webhook', nav: false, load: () => import('./screens/webhook.js') },
  { route: '/inbound', title: 'Inbound', nav: true, load: () => import('./screens/inbound.js') },
  { route: '/automations', title: 'Automations', nav: true, load: () => import('./screens/automations.js') },
  { route: '/keys', title: 'API keys', nav: true, load: () => import('./screens/keys.js') },
  { route: '/apps', title: 'Apps', nav: true, load: () => import('./screens/apps.js') },
  { route: '/analytics', title: 'Analytics', nav: true, load: () => import('./screens/analytics.js') },
];

const LANDING = '/board';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const orgName = document.getElementById('org-name');
const signOutButton = document.getElementById('sign-out');
const appTitle = document.title;

let org = null;
let cleanup = null;
let generation = 0;
// The latest route() call, which settles once its screen is shown.
let routing = Promise.resolve();

/** Finds the screen for a path ("/leads/abc"), with its params. */
export function match(path) {
  const parts = path.split('/').filter(Boolean);
  for (const screen of SCREENS) {
    const pattern = screen.route.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params = {};
    const ok = pattern.every((p, i) => {
      if (p.startsWith(':')) {
        params[p.slice(1)] = decodeURIComponent(parts[i]);
        return true;
      }
      return p === parts[i];
    });
    if (ok) return { screen, params };
  }
  return null;
}

/** Goes to path ("/leads/<id>"). */
export function navigate(path) {
  window.location.hash = `#${path}`;
}

/**
 * Goes to path and settles once its screen is shown (or at once when it is
 * the screen already).
 */
function go(path) {
  if (currentPath() === path) return routing;
  return new Promise((resolve) => {
    // An earlier change may still be queued: wait for this one's event.
    const arrived = (ev) => {
      if (!ev.newURL.endsWith(`#${path}`)) return;
      window.removeEventListener('hashchange', arrived);
      resolve(routing);
    };
    window.addEventListener('hashchange', arrived);
    navigate(path);
  });
}

function currentPath() {
  return window.location.hash.replace(/^#/, '') || LANDING;
}

function runCleanup() {
  const c = cleanup;
  cleanup = null;
  if (typeof c === 'function') {
    try {
      c();
    } catch (err) {
      showError(err, 'Leaving the screen failed.');
    }
  }
}

async function route() {
  const mine = ++generation;
  runCleanup();
  if (!org) return;
  let found = match(currentPath());
  if (!found) {
    // Unknown routes land on the board, with the address saying so.
    window.history.replaceState(null, '', `#${LANDING}`);
    found = match(LANDING);
  }
  const { screen, params } = found;
  markNav(screen);
  document.title = `${screen.title} · ${appTitle}`;
  clearError();
  replace(main, h('p', { class: 'loading' }, 'Loading…'));
  const ctx = {
    org,
    title: screen.title,
    navigate,
    setTitle: (text) => { document.title = `${text} · ${appTitle}`; },
    isCurrent: () => mine === generation,
  };
  try {
    const mod = await screen.load();
    if (mine !== generation) return;
    main.replaceChildren();
    const result = await mod.render(main, ctx, params);
    if (mine !== generation) {
      // The reader moved on while this screen was loading.
      if (typeof result === 'function') result();
      return;
    }
    cleanup = typeof result === 'function' ? result : null;
    main.focus({ preventScroll: true });
  } catch (err) {
    if (mine !== generation) return;
    replace(main, h('h1', {}, screen.title), h('p', { class: 'muted' }, 'This screen could not be shown.'));
    showError(err);
  }
}

function markNav(screen) {
  for (const a of nav.querySelectorAll('a')) {
    if (a.dataset.route === screen.route.split('/')[1]) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

function buildNav() {
  replace(nav, h('ul', {}, SCREENS.filter((s) => s.nav).map((s) =>
    h('li', {}, h('a', { href: `#${s.route}`, dataset: { route: s.route.split('/')[1] } }, s.title)))));
}

function showSignedIn(o) {
  org = o;
  document.body.classList.remove('signed-out');
  orgName.textContent = o.name;
  setCurrency(o.currency);
  nav.hidden = false;
  signOutButton.hidden = false;
  routing = route();
}

function showSignedOut() {
  runCleanup();
  generation++;
  org = null;
  document.body.classList.add('signed-out');
  document.title = `Sign in · ${appTitle}`;
  orgName.textContent = '';
  nav.hidden = true;
  signOutButton.hidden = true;
  renderSignIn(main, showSignedIn);
}

async function start() {
  // The page starts in the signed-in layout, so a stored key opens the
  // screen without moving it; with no key the sign-in form is next.
  if (!getKey()) document.body.classList.add('signed-out');
  buildNav();
  window.addEventListener('hashchange', () => { routing = route(); });
  installShortcuts({ path: currentPath, go, enabled: () => org !== null });
  signOutButton.addEventListener('click', () => {
    signOut();
    clearError();
    showSignedOut();
  });
  // An error no screen caught still reaches the reader, in words.
  window.addEventListener('unhandledrejection', (ev) => {
    ev.preventDefault();
    showError(ev.reason);
  });
  try {
    const o = await currentOrganization();
    if (o) {
      showSignedIn(o);
      return;
    }
  } catch (err) {
    // A stored key the server no longer accepts (revoked, expired) is
    // forgotten; the reason is shown above the sign-in form.
    if (err.code === 'UNAUTHORIZED') signOut();
    showSignedOut();
    showError(err, 'Your stored API key was not accepted.');
    return;
  }
  showSignedOut();
}

start();
