// My day: the signed-in person's open tasks that are overdue and those due
// later today (today in the organization's time zone), each with a link to
// its lead and a button to complete it; the renewals due of their leads
// (the Renewals screen starts them); and their applications waiting on
// stipulations.

import { gql } from '../api.js';
import { date, h, money, replace, showError } from '../ui.js';
import { TASK_FIELDS, completeButton } from '../sections/tasks.js';

const DAY_QUERY = `query MyDay {
  myDay {
    userId timezone date
    overdueTasks { total nodes { ${TASK_FIELDS} } }
    tasksDueToday { total nodes { ${TASK_FIELDS} } }
    renewalsDue { total nodes { id leadId lenderName fundedAmount fundedAt } }
    waitingOnStipulations { total nodes { id leadId lenderName approvedAmount decidedAt } }
  }
}`;

const LEAD_NAMES = `query LeadNames($ids: [ID!]!) { nodes(ids: $ids) { ... on Lead { id businessName } } }`;

/** Fills main with the reader's day. */
export async function render(main, ctx) {
  const heading = h('h1', {}, ctx.title);
  main.append(h('div', { class: 'screen-head' }, heading));
  if (!ctx.org?.me?.user) {
    main.append(h('p', { class: 'muted' }, 'My day is a person\'s: sign in as yourself, or with an API key bound to a user.'),
      h('p', {}, h('a', { href: '#/board' }, 'Go to the pipeline board')));
    return undefined;
  }
  const when = h('p', { class: 'muted my-day-date' });
  const body = h('div', { class: 'my-day', 'aria-live': 'polite', 'aria-busy': 'true' });
  main.append(when, body);

  async function show() {
    body.setAttribute('aria-busy', 'true');
    try {
      const day = (await gql(DAY_QUERY)).myDay;
      const leadIDs = [...new Set([day.overdueTasks, day.tasksDueToday, day.renewalsDue, day.waitingOnStipulations]
        .flatMap((s) => s.nodes.map((n) => n.leadId)))];
      const leads = leadIDs.length ? Object.fromEntries((await gql(LEAD_NAMES, { ids: leadIDs })).nodes
        .filter(Boolean).map((l) => [l.id, l.businessName || 'Unnamed lead'])) : {};
      if (!ctx.isCurrent()) return;
      when.textContent = `${date(day.date)}, in the organization's time zone (${day.timezone}).`;
      const leadLink = (id) => h('a', { href: `#/leads/${encodeURIComponent(id)}` }, leads[id] || 'A lead');
      const taskRows = (tasks) => tasks.nodes.map((t) => h('tr', {},
        h('td', {}, t.title),
        h('td', {}, leadLink(t.leadId)),
        h('td', {}, h('time', { datetime: t.dueAt }, date(t.dueAt))),
        h('td', {}, completeButton(t, show))));
      replace(body,
        part('overdue', 'Overdue', day.overdueTasks, 'Nothing overdue.', ['Task', 'Lead', 'Due', 'Actions'], taskRows),
        part('due-today', 'Due today', day.tasksDueToday, 'Nothing else due today.', ['Task', 'Lead', 'Due', 'Actions'], taskRows),
        part('renewals', 'Renewals due', day.renewalsDue, 'No renewals due.',
          ['Lead', 'Lender', 'Funded', 'Amount'], (s) => s.nodes.map((d) => h('tr', {},
            h('td', {}, leadLink(d.leadId)), h('td', {}, d.lenderName), h('td', {}, date(d.fundedAt)),
            h('td', { class: 'num' }, money(d.fundedAmount))))),
        part('stipulations', 'Waiting on stipulations', day.waitingOnStipulations,
          'Nothing waiting on stipulations. Approved applications show here once the service tracks stipulations.',
          ['Lead', 'Lender', 'Approved', 'Amount'], (s) => s.nodes.map((a) => h('tr', {},
            h('td', {}, leadLink(a.leadId)), h('td', {}, a.lenderName), h('td', {}, date(a.decidedAt)),
            h('td', { class: 'num' }, money(a.approvedAmount))))));
    } catch (err) {
      if (!ctx.isCurrent()) return;
      replace(body, h('p', { class: 'muted' }, 'Your day could not be shown.'));
      showError(err);
    } finally {
      body.setAttribute('aria-busy', 'false');
    }
  }

  await show();
  return undefined;
}

/**
 * One part of the day: a heading with how many there are, and a table of
 * the first 100 (rows(list) makes its rows), or words saying there are none.
 */
function part(key, title, list, empty, columns, rows) {
  const id = `my-day-${key}`;
  const shown = list.total > list.nodes.length ? ` (the first ${list.nodes.length} of ${list.total})` : ` (${list.total})`;
  return h('section', { class: ['my-day-part', id], 'aria-labelledby': id },
    h('h2', { id }, title, h('span', { class: 'muted' }, shown)),
    list.nodes.length === 0 ? h('p', { class: 'muted' }, empty)
      : h('div', { class: 'table-wrap' }, h('table', { 'aria-labelledby': id },
        h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, rows(list)))));
}
