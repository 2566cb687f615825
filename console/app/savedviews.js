// The "Views" menu of a screen with filters (the board, Applications): the
// reader's saved views and the shared ones, each a link to the screen with
// its filters in the address; "Save view…", which saves the filters on
// show under a name, shared or not; and deleting the reader's own views
// (an admin's: any). Saved views belong to a person, so a key acting for
// no one sees no menu.
//
// A view stores the screen's own GraphQL arguments (saveView checks them
// so); the screen gives the two translations between those and its
// address's query.

import { gql } from './api.js';
import { clearError, confirmDialog, formField, h, onFormSubmit, queryString, showError } from './ui.js';

const LIST = `query SavedViews($screen: SavedViewScreen!) { views(screen: $screen) { id name filters shared ownerId } }`;
const SAVE = `mutation SaveView($input: SaveViewInput!) { saveView(input: $input) { id } }`;
const DELETE = `mutation DeleteView($id: ID!) { deleteView(id: $id) }`;

let menus = 0;

/**
 * The menu for screen (BOARD, APPLICATIONS) at route ("/board"): toQuery
 * turns a view's filters into the address's query (an object), filters()
 * are the filters on show. Null when no person is signed in.
 */
export function savedViewsMenu({ ctx, screen, route, toQuery, filters }) {
  const me = ctx.org?.me?.user;
  if (!me) return null;
  const id = `saved-views-${++menus}`;
  const button = h('button', { type: 'button', class: 'views-button', 'aria-expanded': 'false', 'aria-controls': id }, 'Views');
  const list = h('ul', { class: 'views-list', 'aria-label': 'Saved views' });
  const empty = h('p', { class: 'muted' }, 'No saved view yet.');
  const saveButton = h('button', { type: 'button', class: 'save-view-button', 'aria-expanded': 'false' }, 'Save view…');
  const name = h('input', { name: 'name', autocomplete: 'off', required: true, maxlength: 100 });
  const shared = h('input', { type: 'checkbox', name: 'shared' });
  const form = h('form', { class: 'save-view', id: `${id}-save`, 'aria-label': 'Save view', novalidate: true, hidden: true },
    formField('Name', name),
    h('label', { class: 'check' }, shared, ' Shared with everyone in the organization'),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Save')));
  saveButton.setAttribute('aria-controls', form.id);
  const panel = h('div', { class: 'views-panel', id, role: 'group', 'aria-label': 'Saved views', hidden: true },
    list, empty, saveButton, form);
  const element = h('div', { class: 'saved-views' }, button, panel);

  function open(on) {
    panel.hidden = !on;
    button.setAttribute('aria-expanded', String(on));
    if (on) load();
  }
  function showForm(on) {
    form.hidden = !on;
    saveButton.setAttribute('aria-expanded', String(on));
    if (on) name.focus();
  }
  button.addEventListener('click', () => open(panel.hidden));
  saveButton.addEventListener('click', () => showForm(form.hidden));
  element.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Escape' || panel.hidden) return;
    ev.preventDefault();
    open(false);
    button.focus();
  });

  async function load() {
    list.setAttribute('aria-busy', 'true');
    try {
      const data = await gql(LIST, { screen });
      list.replaceChildren(...data.views.map(item));
      empty.hidden = data.views.length > 0;
    } catch (err) {
      showError(err, 'The saved views could not be loaded.');
    } finally {
      list.setAttribute('aria-busy', 'false');
    }
  }

  function item(view) {
    const query = queryString(toQuery(view.filters || {}));
    const link = h('a', { href: `#${route}${query ? `?${query}` : ''}`, class: 'view-link' }, view.name);
    link.addEventListener('click', () => open(false));
    const mine = view.ownerId === me.id;
    const del = mine || ctx.can('admin')
      ? h('button', { type: 'button', class: 'delete-view', 'aria-label': `Delete the view ${view.name}` }, 'Delete')
      : null;
    del?.addEventListener('click', async () => {
      const sure = await confirmDialog({ title: `Delete the view "${view.name}"?`,
        body: [h('p', {}, view.shared ? 'It is shared: nobody will see it any more.' : 'Only you see it.')], confirm: 'Delete', danger: true });
      if (!sure) return;
      try {
        clearError();
        await gql(DELETE, { id: view.id });
        await load();
        button.focus();
      } catch (err) {
        showError(err, `The view ${view.name} could not be deleted.`);
      }
    });
    return h('li', { dataset: { view: view.id } }, link,
      view.shared ? h('span', { class: 'muted' }, mine ? ' (shared)' : ' (shared by a colleague)') : null,
      del ? [' ', del] : null);
  }

  onFormSubmit(form, async () => {
    await gql(SAVE, { input: { name: name.value, screen, filters: filters(), shared: shared.checked } });
    name.value = '';
    shared.checked = false;
    showForm(false);
    await load();
    saveButton.focus();
  }, { context: 'The view could not be saved.' });

  return element;
}
