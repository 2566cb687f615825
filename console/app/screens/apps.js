// The apps screen (#/apps): the apps this organization registered (paged),
// registering one, installing an app (this organization's or another's, by
// its id) with a subset of its scopes, the app token shown once, and the
// installations (paged) with uninstalling. Every call needs the admin scope.

import { gql } from '../api.js';
import { clearError, confirmDialog, date, formField, h, pager, reportError, secretBox } from '../ui.js';
import { SCOPES, scopeChecks } from './keys.js';

const APPS = `query ConsoleApps($page: Int, $limit: Int) {
  apps(page: $page, limit: $limit) { nodes { id name description scopes createdAt } total page limit hasMore }
}`;

const INSTALLATION_FIELDS = 'id appId appName scopes installedBy installedAt uninstalledAt';

const INSTALLATIONS = `query ConsoleAppInstallations($page: Int, $limit: Int, $includeUninstalled: Boolean) {
  appInstallations(page: $page, limit: $limit, includeUninstalled: $includeUninstalled) {
    nodes { ${INSTALLATION_FIELDS} } total page limit hasMore
  }
}`;

const REGISTER = `mutation ConsoleRegisterApp($input: RegisterAppInput!) {
  registerApp(input: $input) { id name description scopes createdAt }
}`;

const INSTALL = `mutation ConsoleInstallApp($appId: ID!, $scopes: [String!]!) {
  installApp(appId: $appId, scopes: $scopes) { installation { ${INSTALLATION_FIELDS} } token }
}`;

const UNINSTALL = `mutation ConsoleUninstallApp($id: ID!) { uninstallApp(installationId: $id) { ${INSTALLATION_FIELDS} } }`;

/** A pager's loader that sends a refused key to sign in before failing. */
function loader(query, pick, vars = () => ({})) {
  return async (args) => {
    try {
      return pick(await gql(query, { ...args, ...vars() }));
    } catch (err) {
      if (err.code === 'UNAUTHORIZED') reportError(err);
      throw err;
    }
  };
}

const words = Object.fromEntries(SCOPES);

/** Fills main; returns nothing to clean up (no live parts). */
export async function render(main, ctx) {
  const secretSlot = h('div', { class: 'secret-slot' });
  let includeUninstalled = false;

  const apps = pager({
    style: 'page',
    limit: 20,
    caption: 'Apps registered by this organization, newest first',
    empty: 'No app registered yet.',
    load: loader(APPS, (d) => d.apps),
    columns: [
      { label: 'Name', render: (a) => a.name },
      { label: 'Id', render: (a) => h('code', {}, a.id) },
      { label: 'Description', render: (a) => a.description || '—' },
      { label: 'Asks for', render: (a) => a.scopes.join(', ') },
      { label: 'Registered', render: (a) => date(a.createdAt) },
      { label: 'Actions', render: (a) => h('button', { type: 'button', class: 'install', 'aria-label': `Install ${a.name}`, onclick: () => install(a.id, a.name, a.scopes) }, 'Install') },
    ],
  });

  const installations = pager({
    style: 'page',
    limit: 20,
    caption: 'Apps installed in this organization, newest first',
    empty: 'No app installed.',
    load: loader(INSTALLATIONS, (d) => d.appInstallations, () => ({ includeUninstalled })),
    columns: [
      { label: 'App', render: (i) => i.appName },
      { label: 'Granted', render: (i) => i.scopes.join(', ') },
      { label: 'Installed by', render: (i) => h('code', {}, i.installedBy) },
      { label: 'Installed', render: (i) => date(i.installedAt) },
      { label: 'Status', render: (i) => (i.uninstalledAt ? h('span', { class: 'badge off' }, `Uninstalled ${date(i.uninstalledAt)}`) : h('span', { class: 'badge' }, 'Installed')) },
      { label: 'Actions', render: (i) => (i.uninstalledAt ? '' : h('button', { type: 'button', class: 'uninstall', 'aria-label': `Uninstall ${i.appName}`, onclick: () => uninstall(i) }, 'Uninstall')) },
    ],
  });

  /** Asks which of scopes to grant appId, installs it and shows its token once. */
  async function install(appId, appName, scopes, ticked = scopes) {
    const choices = scopes.map((s) => [s, words[s] || s]);
    const grant = scopeChecks('Scopes to grant', choices, ticked);
    const yes = await confirmDialog({
      title: `Install ${appName}?`,
      body: [
        h('p', {}, 'The app gets a token that acts for this organization with the scopes granted here, until it is uninstalled. The token is shown once.'),
        grant.element,
      ],
      confirm: 'Install',
    });
    if (!yes) return;
    try {
      const { installApp } = await gql(INSTALL, { appId, scopes: grant.selected() });
      clearError();
      const box = secretBox({
        label: `App token of ${installApp.installation.appName}`,
        secret: installApp.token,
        warning: 'Give this token to the app now: it is shown this once and cannot be shown again. It acts for the organization with the granted scopes until the app is uninstalled.',
      });
      secretSlot.replaceChildren(box.element);
      box.focus();
      await installations.reload();
    } catch (err) {
      reportError(err, `Installing ${appName} failed.`);
    }
  }

  async function uninstall(i) {
    const yes = await confirmDialog({
      title: `Uninstall ${i.appName}?`,
      body: h('p', {}, 'Its token stops working at once and its webhook subscriptions are deleted once their pending deliveries are sent. This cannot be undone; installing it again gives a new token.'),
      confirm: 'Uninstall',
      danger: true,
    });
    if (!yes) return;
    try {
      await gql(UNINSTALL, { id: i.id });
      clearError();
      await installations.refresh();
    } catch (err) {
      reportError(err, `Uninstalling ${i.appName} failed.`);
    }
  }

  // Registering an app.
  const name = h('input', { type: 'text', name: 'name', maxlength: '100', required: true, autocomplete: 'off' });
  const description = h('textarea', { name: 'description', maxlength: '500', rows: '3' });
  const scopes = scopeChecks('Scopes the app asks for', SCOPES, ['leads:read']);
  const registerButton = h('button', { type: 'submit', class: 'primary' }, 'Register app');
  const register = h('form', { class: 'admin-form register-app', novalidate: true, 'aria-labelledby': 'register-app-title' },
    h('h2', { id: 'register-app-title' }, 'Register an app'),
    formField('Name', name, { hint: '1 to 100 characters.' }),
    formField('Description', description, { hint: 'What the app does: at most 500 characters.' }),
    scopes.element,
    registerButton,
  );
  register.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    registerButton.disabled = true;
    try {
      const input = { name: name.value, scopes: scopes.selected() };
      if (description.value.trim() !== '') input.description = description.value;
      await gql(REGISTER, { input });
      clearError();
      register.reset();
      await apps.reload();
    } catch (err) {
      reportError(err, 'Registering the app failed.');
    } finally {
      registerButton.disabled = false;
    }
  });

  // Installing another organization's app by its id: its requested scopes
  // cannot be read from here, so every scope is offered and the server
  // refuses one the app does not ask for.
  const appId = h('input', { type: 'text', name: 'app-id', autocomplete: 'off', spellcheck: 'false' });
  const byIdButton = h('button', { type: 'submit' }, 'Install…');
  const byId = h('form', { class: 'admin-form install-by-id', novalidate: true, 'aria-labelledby': 'install-by-id-title' },
    h('h2', { id: 'install-by-id-title' }, 'Install an app by its id'),
    formField('App id', appId, { hint: 'The id its maker gives you; you choose the scopes to grant next.' }),
    byIdButton,
  );
  byId.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const id = appId.value.trim();
    if (id) install(id, 'this app', SCOPES.map(([s]) => s), []);
  });

  const showUninstalled = h('input', {
    type: 'checkbox', id: 'apps-include-uninstalled',
    onchange: (ev) => { includeUninstalled = ev.target.checked; installations.reload(); },
  });

  main.append(
    h('h1', {}, ctx.title),
    h('p', { class: 'muted' }, 'Apps are integrations: any organization\'s administrator installs one by its id, granting it some of the scopes it asks for.'),
    secretSlot,
    h('h2', {}, 'Installed apps'),
    h('div', { class: 'inline-check' }, showUninstalled, h('label', { for: showUninstalled.id }, 'Show uninstalled apps')),
    installations.element,
    h('h2', {}, 'Registered apps'),
    apps.element,
    register,
    byId,
  );
}
