// The lead page's notes: what people wrote about the lead, newest first;
// adding one, and editing or deleting one's own (an admin may edit or
// delete any). The server decides who may: the buttons only leave out what
// it would refuse.

import { gql } from '../api.js';
import {
  confirmDialog, date, fieldError, formField, h, onFormSubmit, pager, replace, showError,
} from '../ui.js';

const NOTES_QUERY = `query LeadNotes($id: ID!, $page: Int!, $limit: Int!) {
  lead(id: $id) { notes(page: $page, limit: $limit) { nodes { id body authorId createdAt updatedAt } total page limit hasMore } }
}`;
const ADD = 'mutation AddNote($input: AddNoteInput!) { addNote(input: $input) { id } }';
const UPDATE = 'mutation UpdateNote($id: ID!, $body: String!) { updateNote(id: $id, body: $body) { id } }';
const DELETE = 'mutation DeleteNote($id: ID!) { deleteNote(id: $id) }';

/** The most characters a note holds (PRODUCT 10.1). */
export const MAX_NOTE = 10000;

/**
 * The organization's people by id ({id: "Ada Byron"}), the first 100:
 * notes name their authors and tasks their assignees by id.
 */
export async function peopleByID() {
  const d = await gql('query People { usersPage(limit: 100) { nodes { id firstName lastName } } }');
  return Object.fromEntries(d.usersPage.nodes.map((u) => [u.id, `${u.firstName} ${u.lastName}`]));
}

/**
 * Fills container with the notes of the lead id; ctx says who reads
 * (ctx.org.me) and what they may do (ctx.can). Returns a refresh function.
 */
export async function renderNotes(container, id, ctx) {
  // Its heading from the start: a section named by a heading not yet
  // there is no landmark, and may not carry aria-labelledby.
  const section = h('section', { class: 'lead-notes', 'aria-labelledby': 'lead-notes' }, h('h2', { id: 'lead-notes' }, 'Notes'));
  container.append(section);
  const me = ctx.org?.me?.user?.id || null;
  const writes = !ctx.can || ctx.can('leads:write');
  const admin = !!ctx.can && ctx.can('admin');
  const names = await peopleByID().catch(() => ({}));

  const list = pager({
    limit: 10,
    caption: 'Notes, newest first',
    empty: 'No notes yet.',
    load: async ({ page, limit }) => (await gql(NOTES_QUERY, { id, page, limit })).lead.notes,
    item: (n) => noteItem(n),
  });

  function noteItem(n) {
    const author = n.authorId ? names[n.authorId] || 'A former user' : 'An API key';
    const edited = n.updatedAt !== n.createdAt ? ` (edited ${date(n.updatedAt)})` : '';
    const body = h('p', { class: 'note-body' }, n.body);
    const item = h('article', { class: 'note', dataset: { note: n.id } },
      h('p', { class: 'note-meta muted' }, `${author}, `, h('time', { datetime: n.createdAt }, date(n.createdAt)), edited),
      body);
    if (writes && (admin || (me && n.authorId === me))) item.append(noteActions(n));
    return item;
  }

  function noteActions(n) {
    const edit = h('button', { type: 'button', 'aria-expanded': 'false' }, 'Edit');
    const remove = h('button', { type: 'button', class: 'danger' }, 'Delete');
    const text = h('textarea', { name: 'body', rows: '3', maxlength: String(MAX_NOTE), value: n.body });
    const cancel = h('button', { type: 'button' }, 'Cancel');
    const form = h('form', { class: 'note-edit', 'aria-label': 'Edit the note', novalidate: true, hidden: true },
      formField('Note', text), h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Save'), cancel));
    const toggle = (open) => {
      form.hidden = !open;
      edit.setAttribute('aria-expanded', String(open));
      if (open) text.focus();
      else edit.focus();
    };
    edit.addEventListener('click', () => toggle(form.hidden));
    cancel.addEventListener('click', () => toggle(false));
    onFormSubmit(form, async () => {
      if (!text.value.trim()) throw fieldError('Write something, or delete the note.', 'body');
      await gql(UPDATE, { id: n.id, body: text.value });
      await list.refresh();
      section.querySelector(`[data-note="${n.id}"] button`)?.focus();
    }, { context: 'The note could not be saved.' });
    remove.addEventListener('click', async () => {
      const sure = await confirmDialog({ title: 'Delete this note?', body: h('p', {}, 'It cannot be brought back.'), confirm: 'Delete', danger: true });
      if (!sure) return;
      try {
        await gql(DELETE, { id: n.id });
        await list.refresh();
        section.querySelector('textarea[name="newNote"]')?.focus();
      } catch (err) {
        showError(err, 'The note could not be deleted.');
      }
    });
    return h('div', { class: 'actions' }, edit, remove, form);
  }

  const text = h('textarea', { name: 'newNote', rows: '3', maxlength: String(MAX_NOTE) });
  const add = h('form', { class: 'new-note', 'aria-label': 'Add a note', novalidate: true },
    formField('New note', text, { hint: 'Up to 10,000 characters. Everyone who can read the lead sees it.' }),
    h('button', { type: 'submit', class: 'primary' }, 'Add note'));
  onFormSubmit(add, async () => {
    if (!text.value.trim()) throw fieldError('Write the note first.', 'newNote');
    await gql(ADD, { input: { leadId: id, body: text.value } });
    text.value = '';
    await list.reload();
    ctx.changed?.(); // the lead's history gained an entry
  }, { context: 'The note could not be added.' });

  replace(section, h('h2', { id: 'lead-notes' }, 'Notes'), writes ? add : null, list.element);
  return () => list.refresh();
}
