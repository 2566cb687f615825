// The console's shell: signs the reader in, then routes the hash
// (#/board, #/leads/<id>, ...) to a screen module. Every screen is listed
// once, in SCREENS; a screen module exports
//   async function render(main, ctx, params)
// which fills main and may return a cleanup function, called when the
// reader navigates away (to close a subscription, say).
//
// A screen's filters live in the hash's query (#/board?advisor=..&q=..):
// a screen reads them from ctx.query when it renders and writes them with
// ctx.setQuery, which adds a history entry, so Back restores the previous
// filters and a copied link opens the screen as it was.

import { currentOrganization, renderAccept, renderSignIn, sessionEnded, signOut } from './auth.js';
import { startBell } from './bell.js';
import { onSessionEnded } from './session.js';
import { installShortcuts } from './shortcuts.js';
import { clearError, h, holds, queryString, replace, setCurrency, showError } from './ui.js';

/**
 * Every screen: its route (":name" segments become params), its title,
 * whether the nav links to it (admin: only for a caller with the admin
 * scope; person: only for a person, signed in or through a key bound to
 * them), and its module.
 */
export const SCREENS = [
  { route: '/my-day', title: 'My day', nav: true, person: true, load: () => import('./screens/myday.js') },
  { route: '/board', title: 'Pipeline board', nav: true, load: () => import('./screens/board.js') },
  { route: '/leads/:id', title: 'Lead', nav: false, load: () => import('./screens/lead.js') },
  { route: '/lenders', title: 'Lenders', nav: true, load: () => import('./screens/lenders.js') },
  { route: '/applications', title: 'Applications', nav: true, load: () => import('./screens/applications.js') },
  { route: '/renewals', title: 'Renewals', nav: true, load: () => import('./screens/renewals.js') },
  { route: '/agents', title: 'Agents', nav: true, load: () => import('./screens/agents.js') },
  { route: '/webhooks', title: 'Webhooks', nav: true, load: () => import('./screens/webhooks.js') },
  { route: '/webhooks/:id', title: 'Webhook', nav: false, load: () => import('./screens/webhook.js') },
  { route: '/inbound', title: 'Inbound', nav: true, load: () => import('./screens/inbound.js') },
  { route: '/automations', title: 'Automations', nav: true, load: () => import('./screens/automations.js') },
  { route: '/users', title: 'Users', nav: true, admin: true, load: () => import('./screens/users.js') },
  { route: '/keys', title: 'API keys', nav: true, load: () => import('./screens/keys.js') },
  { route: '/apps', title: 'Apps', nav: true, load: () => import('./screens/apps.js') },
  { route: '/analytics', title: 'Analytics', nav: true, load: () => import('./screens/analytics.js') },
];

// Where the console opens: a person's day, or the board for a key bound
// to no one.
const LANDING = '/board';
const PERSON_LANDING = '/my-day';

function landing() {
  return org?.me?.user ? PERSON_LANDING : LANDING;
}

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const orgName = document.getElementById('org-name');
const who = document.getElementById('who');
const signOutButton = document.getElementById('sign-out');
const appTitle = document.title;

let org = null;
let cleanup = null;
let stopBell = () => {};
// The hash the screen on show was rendered for, or last wrote (setQuery):
// Back and Forward to another one render again.
let shown = null;
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

/** Goes to path ("/leads/<id>", "/board?q=acme"). */
export function navigate(path) {
  window.location.hash = `#${path}`;
}

/**
 * Goes to path and settles once its screen is shown (or at once when it is
 * the screen already).
 */
function go(path) {
  if (currentPath() === path || routePath() === path) return routing;
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

/** The hash without its "#": the route and its query ("/board?q=acme"). */
function currentPath() {
  return window.location.hash.replace(/^#/, '') || landing();
}

/** The route alone, without the query ("/board"). */
function routePath() {
  return currentPath().split('?')[0];
}

/** The query of the hash, as URLSearchParams. */
function currentQuery() {
  const at = currentPath().indexOf('?');
  return new URLSearchParams(at < 0 ? '' : currentPath().slice(at + 1));
}

/**
 * Writes the current screen's filters into the address: a new history
 * entry (so Back returns to the previous filters), or, with replace, in
 * place of the current one (a search being typed). The screen is not
 * rendered again: it shows these filters already.
 */
function setQuery(params, { replace = false } = {}) {
  const query = queryString(params);
  const hash = `#${routePath()}${query ? `?${query}` : ''}`;
  if (hash === window.location.hash) return;
  if (replace) window.history.replaceState(null, '', hash);
  else window.history.pushState(null, '', hash);
  shown = window.location.hash;
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

// An invitation link: the page that sets a password, signed in or not.
const ACCEPT_PREFIX = '/accept/';

async function route() {
  const mine = ++generation;
  shown = window.location.hash;
  runCleanup();
  if (currentPath().startsWith(ACCEPT_PREFIX)) {
    showAccept();
    return;
  }
  if (!org) return;
  let found = match(routePath());
  if (!found) {
    // Unknown routes land on the home screen, with the address saying so.
    window.history.replaceState(null, '', `#${landing()}`);
    shown = window.location.hash;
    found = match(landing());
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
    // The screen's filters, from the address; setQuery writes them back.
    query: currentQuery(),
    setQuery: (params, opts) => { if (mine === generation) setQuery(params, opts); },
    // Whether the caller may do what scope allows: a screen leaves out
    // the actions the server would refuse.
    can: (scope) => holds(org.me?.scopes || [], scope),
  };
  if (screen.admin && !ctx.can('admin')) {
    // Reached by its address or its shortcut: the nav does not offer it.
    const role = org.me?.user?.role;
    replace(main, h('h1', {}, screen.title),
      h('p', { class: 'muted' }, `This screen is for admins${role ? `; you are signed in as ${article(role)} ${role}` : ''}.`));
    main.focus({ preventScroll: true });
    return;
  }
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

function buildNav(me = null) {
  const admin = (me?.scopes || []).includes('admin');
  const person = !!me?.user;
  replace(nav, h('ul', {}, SCREENS.filter((s) => s.nav && (!s.admin || admin) && (!s.person || person)).map((s) =>
    h('li', {}, h('a', { href: `#${s.route}`, dataset: { route: s.route.split('/')[1] } }, s.title)))));
}

function article(word) {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/**
 * Who the header names: the person signed in, or the kind of credential;
 * a key bound to a person names both, since it acts as them with the
 * key's own scopes.
 */
function callerName(me) {
  const kind = me?.credential === 'APP_TOKEN' ? 'App token' : 'API key';
  if (!me?.user) return kind;
  const name = `${me.user.firstName} ${me.user.lastName}`;
  return me.credential === 'SESSION' ? name : `${name} (${kind})`;
}

function showSignedIn(o) {
  org = o;
  document.body.classList.remove('signed-out');
  orgName.textContent = o.name;
  who.textContent = callerName(o.me);
  stopBell();
  stopBell = startBell(o.me);
  setCurrency(o.currency);
  buildNav(o.me);
  nav.hidden = false;
  signOutButton.hidden = false;
  onSessionEnded(sessionEnded);
  if (currentPath().startsWith(ACCEPT_PREFIX) || currentPath().startsWith('/sign-in')) {
    window.history.replaceState(null, '', `#${landing()}`);
  }
  routing = route();
}

/** Clears the header and the screen of whoever was signed in. */
function clearSignedIn() {
  onSessionEnded(null);
  runCleanup();
  stopBell();
  stopBell = () => {};
  generation++;
  org = null;
  document.body.classList.add('signed-out');
  orgName.textContent = '';
  who.textContent = '';
  nav.hidden = true;
  signOutButton.hidden = true;
}

function showSignedOut() {
  clearSignedIn();
  document.title = `Sign in · ${appTitle}`;
  // A refused single sign-on comes back as #/sign-in?error=<words>.
  const [path, query = ''] = currentPath().split('?');
  const error = path === '/sign-in' ? new URLSearchParams(query).get('error') || '' : '';
  renderSignIn(main, showSignedIn, { error });
}

function showAccept() {
  clearSignedIn();
  document.title = `Set your password · ${appTitle}`;
  renderAccept(main, decodeURIComponent(currentPath().slice(ACCEPT_PREFIX.length)), showSignedIn);
}

async function start() {
  // The page starts in the signed-in layout, so a session or a stored key
  // opens the screen without moving it.
  buildNav();
  // Back and Forward between entries setQuery made fire popstate (and,
  // as the hash differs, hashchange): the screen renders once for each
  // address it was not rendered for.
  const onMove = () => { if (window.location.hash !== shown) routing = route(); };
  window.addEventListener('hashchange', onMove);
  window.addEventListener('popstate', onMove);
  installShortcuts({ path: routePath, go, enabled: () => org !== null });
  signOutButton.addEventListener('click', async () => {
    try {
      await signOut();
      clearError();
    } catch (err) {
      showError(err, 'Signing out failed.');
    }
    showSignedOut();
  });
  // An error no screen caught still reaches the reader, in words.
  window.addEventListener('unhandledrejection', (ev) => {
    ev.preventDefault();
    showError(ev.reason);
  });
  if (currentPath().startsWith(ACCEPT_PREFIX)) {
    showAccept();
    return;
  }
  try {
    const o = await currentOrganization();
    if (o) {
      showSignedIn(o);
      return;
    }
  } catch (err) {
    // A stored key the server no longer accepts (revoked, expired) is
    // forgotten; the reason is shown above the sign-in form.
    if (err.code === 'UNAUTHORIZED') await signOut().catch(() => {});
    showSignedOut();
    showError(err, 'Your stored API key was not accepted.');
    return;
  }
  showSignedOut();
}

start();
