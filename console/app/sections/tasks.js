// The lead page's tasks: its follow-ups by due time, each assigned to a
// person; adding one (title, due date-time, assignee), completing and
// reopening. The due time is typed in the browser's own time zone and
// sent as an instant. completeButton and taskStatus are shared with the
// My day screen.

import { gql } from '../api.js';
import {
  date, fieldError, formField, h, onFormSubmit, pager, replace, showError,
} from '../ui.js';
import { peopleByID } from './notes.js';

export const TASK_FIELDS = 'id leadId title dueAt assigneeId status completedAt completedBy';

const TASKS_QUERY = `query LeadTasks($lead: ID!, $page: Int!, $limit: Int!) {
  tasks(where: {leadId: $lead}, page: $page, limit: $limit) { nodes { ${TASK_FIELDS} } total page limit hasMore }
}`;
const CREATE = 'mutation CreateTask($input: CreateTaskInput!) { createTask(input: $input) { id } }';
const COMPLETE = 'mutation CompleteTask($id: ID!) { completeTask(id: $id) { id } }';
const REOPEN = 'mutation ReopenTask($id: ID!) { reopenTask(id: $id) { id } }';

/** The most characters a task's title holds (PRODUCT 10.2). */
export const MAX_TITLE = 200;

/** The task's status in words: done, overdue or open. */
export function taskStatus(t) {
  if (t.status === 'done') return h('span', { class: 'status status-done' }, 'Done');
  if (new Date(t.dueAt) < new Date()) return h('span', { class: 'status status-overdue' }, 'Overdue');
  return h('span', { class: 'status status-open' }, 'Open');
}

/**
 * The button that completes an open task, or reopens a done one, then
 * calls done(); the button names the task for a screen reader.
 */
export function completeButton(t, done) {
  const open = t.status === 'open';
  const button = h('button', { type: 'button', 'aria-label': `${open ? 'Complete' : 'Reopen'} the task ${t.title}` }, open ? 'Complete' : 'Reopen');
  button.addEventListener('click', async () => {
    button.setAttribute('aria-disabled', 'true');
    try {
      await gql(open ? COMPLETE : REOPEN, { id: t.id });
      await done();
    } catch (err) {
      showError(err, `The task could not be ${open ? 'completed' : 'reopened'}.`);
    } finally {
      button.removeAttribute('aria-disabled');
    }
  });
  return button;
}

/** A datetime-local value for t in the browser's time zone: 2026-03-10T17:00. */
function localValue(t) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}T${pad(t.getHours())}:${pad(t.getMinutes())}`;
}

/**
 * Fills container with the tasks of the lead id; ctx says who reads
 * (ctx.org.me, the assignee by default) and what they may do (ctx.can).
 */
export async function renderTasks(container, id, ctx) {
  // Its heading from the start (see renderNotes).
  const section = h('section', { class: 'lead-tasks', 'aria-labelledby': 'lead-tasks' }, h('h2', { id: 'lead-tasks' }, 'Tasks'));
  container.append(section);
  const me = ctx.org?.me?.user?.id || '';
  const writes = !ctx.can || ctx.can('leads:write');
  const names = await peopleByID().catch(() => ({}));

  const list = pager({
    limit: 10,
    caption: 'Tasks, by due time',
    empty: 'No tasks yet.',
    load: async ({ page, limit }) => (await gql(TASKS_QUERY, { lead: id, page, limit })).tasks,
    columns: [
      { label: 'Task', render: (t) => t.title },
      { label: 'Due', render: (t) => h('time', { datetime: t.dueAt }, date(t.dueAt)) },
      { label: 'Assignee', render: (t) => names[t.assigneeId] || 'A former user' },
      { label: 'Status', render: (t) => [taskStatus(t), t.completedAt ? h('div', { class: 'muted' }, date(t.completedAt)) : null] },
      writes ? { label: 'Actions', render: (t) => completeButton(t, async () => { await list.refresh(); ctx.changed?.(); }) } : null,
    ].filter(Boolean),
  });

  const title = h('input', { name: 'title', maxlength: String(MAX_TITLE), autocomplete: 'off' });
  const due = h('input', { name: 'dueAt', type: 'datetime-local', value: localValue(new Date(Date.now() + 3600e3)) });
  const assignee = h('select', { name: 'assigneeId' },
    me ? null : h('option', { value: '' }, 'Choose a person'),
    Object.entries(names).sort((a, b) => a[1].localeCompare(b[1])).map(([uid, name]) =>
      h('option', { value: uid, selected: uid === me }, uid === me ? `${name} (you)` : name)));
  const add = h('form', { class: 'new-task inline-form', 'aria-label': 'Add a task', novalidate: true },
    formField('Task', title),
    formField('Due', due, { hint: 'In your browser\'s time zone.' }),
    formField('Assignee', assignee),
    h('button', { type: 'submit', class: 'primary' }, 'Add task'));
  onFormSubmit(add, async () => {
    if (!title.value.trim()) throw fieldError('Say what is to be done.', 'title');
    const at = new Date(due.value);
    if (!due.value || Number.isNaN(at.getTime())) throw fieldError('Choose when it is due.', 'dueAt');
    if (!assignee.value) throw fieldError('Choose who is to do it.', 'assigneeId');
    await gql(CREATE, { input: { leadId: id, title: title.value, dueAt: at.toISOString(), assigneeId: assignee.value } });
    title.value = '';
    await list.reload();
    ctx.changed?.(); // the lead's history gained an entry
    title.focus();
  }, { context: 'The task could not be added.' });

  replace(section, h('h2', { id: 'lead-tasks' }, 'Tasks'), writes ? add : null, list.element);
  return () => list.refresh();
}
