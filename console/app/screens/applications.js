// The Applications screen (#/applications): every application of the
// organization in pages, filtered by lender and status, each with its
// decision, and the forms that decide, fund and record commission
// payments (the same ones the lead page's lending section offers).

import { gql } from '../api.js';
import { date, formField, h, money, pager } from '../ui.js';
import {
  APPLICATION_FIELDS, STATUSES, applicationActions, dealSummary, decisionSummary, refreshOnLendingEvents, words,
} from '../sections/lending.js';

/** Fills main with the filters and the paged table; returns the cleanup. */
export async function render(main, ctx) {
  const lender = h('select', { name: 'lender' }, h('option', { value: '' }, 'Every lender'));
  const status = h('select', { name: 'status' }, h('option', { value: '' }, 'Every status'),
    STATUSES.map((s) => h('option', { value: s }, words(s))));

  const list = pager({
    caption: 'Applications, newest first',
    empty: 'No application matches.',
    load: ({ page, limit }) => gql(`query($lender: ID, $status: ApplicationStatus, $page: Int, $limit: Int) {
      applicationsPage(lenderId: $lender, status: $status, page: $page, limit: $limit) {
        nodes { ${APPLICATION_FIELDS} lead { id businessName contactFirstName contactLastName } } total page limit hasMore } }`,
    { lender: lender.value || null, status: status.value || null, page, limit }).then((d) => d.applicationsPage),
    columns: [
      { label: 'Lead', render: (a) => h('a', { href: `#/leads/${encodeURIComponent(a.leadId)}` }, leadName(a.lead)) },
      { label: 'Lender', render: (a) => a.lenderName },
      { label: 'Status', render: (a) => h('span', { class: ['status', `status-${a.status}`] }, words(a.status)) },
      { label: 'Requested', render: (a) => h('span', { class: 'num' }, money(a.requestedAmount)) },
      { label: 'Submitted', render: (a) => date(a.submittedAt) },
      { label: 'Decision', render: (a) => [decisionSummary(a), dealSummary(a)] },
      { label: 'Actions', render: (a) => applicationActions(a, () => list.refresh()) },
    ],
  });
  lender.addEventListener('change', () => list.reload());
  status.addEventListener('change', () => list.reload());

  main.append(
    h('h1', {}, ctx.title),
    h('div', { class: 'toolbar' }, formField('Lender', lender), formField('Status', status)),
    list.element);

  // The filter offers the panel's first hundred lenders, newest first: a
  // broker's panel is far shorter than that.
  const data = await gql('query { lendersPage(limit: 100) { nodes { id name isActive } } }');
  for (const l of data.lendersPage.nodes) lender.append(h('option', { value: l.id }, l.isActive ? l.name : `${l.name} (inactive)`));

  return refreshOnLendingEvents(main, () => list.refresh());
}

function leadName(lead) {
  if (!lead) return 'Lead';
  const person = [lead.contactFirstName, lead.contactLastName].filter(Boolean).join(' ');
  return lead.businessName || person || 'Unnamed lead';
}
