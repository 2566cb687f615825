// The Applications screen (#/applications): every application of the
// organization in pages, filtered by lender and status, each with its
// decision (an approved one with nothing outstanding badged "Ready to
// fund"), and the forms that decide, fund and record commission
// payments (the same ones the lead page's lending section offers). The
// filters live in the address (#/applications?lender=..&status=..), and
// the "Views" menu saves and applies them by name. Its exports download
// the applications, the funded deals and the commissions as CSV, under
// the lender filter (and the status, for the applications).

import { gql } from '../api.js';
import { savedViewsMenu } from '../savedviews.js';
import { date, exportButton, formField, h, money, pager } from '../ui.js';
import {
  APPLICATION_FIELDS, STATUSES, applicationActions, dealSummary, decisionSummary, readyBadge, refreshOnLendingEvents, words,
} from '../sections/lending.js';

/** A saved view's filters (applicationsPage's arguments) from the address's query. */
export function applicationFilters(query) {
  const out = {};
  if (query.get('lender')) out.lenderId = query.get('lender');
  if (query.get('status')) out.status = query.get('status');
  return out;
}

/** The address's query for a saved view's filters. */
export function applicationQuery(filters) {
  return { lender: filters.lenderId, status: filters.status };
}

/** Fills main with the filters and the paged table; returns the cleanup. */
export async function render(main, ctx) {
  const lender = h('select', { name: 'lender' }, h('option', { value: '' }, 'Every lender'));
  const status = h('select', { name: 'status' }, h('option', { value: '' }, 'Every status'),
    STATUSES.map((s) => h('option', { value: s }, words(s))));
  // The filters come from the address, before the first page loads; the
  // lender's name replaces the stand-in once the lenders are there.
  const chosen = ctx.query.get('lender') || '';
  const standIn = chosen ? h('option', { value: chosen }, 'The lender chosen') : null;
  if (standIn) lender.append(standIn);
  lender.value = chosen;
  status.value = ctx.query.get('status') || '';

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
      { label: 'Status', render: (a) => [h('span', { class: ['status', `status-${a.status}`] }, words(a.status)), a.readyToFund ? [' ', readyBadge()] : null] },
      { label: 'Requested', render: (a) => h('span', { class: 'num' }, money(a.requestedAmount)) },
      { label: 'Submitted', render: (a) => date(a.submittedAt) },
      { label: 'Decision', render: (a) => [decisionSummary(a), dealSummary(a)] },
      { label: 'Actions', render: (a) => applicationActions(a, () => list.refresh()) },
    ],
  });
  const params = () => ({ lender: lender.value, status: status.value });
  // A filter changed: a new entry in the history, so Back returns to the
  // filters before.
  const filtered = () => {
    ctx.setQuery(params());
    list.reload();
  };
  lender.addEventListener('change', filtered);
  status.addEventListener('change', filtered);

  // The exports take the filters: the lender for all three, the status
  // for the applications (deals and commissions have statuses of their own).
  const query = (withStatus) => {
    const q = new URLSearchParams();
    if (lender.value) q.set('lenderId', lender.value);
    if (withStatus && status.value) q.set('status', status.value);
    return q.size ? `?${q}` : '';
  };
  const views = savedViewsMenu({
    ctx, screen: 'APPLICATIONS', route: '/applications', toQuery: applicationQuery,
    filters: () => applicationFilters(new URLSearchParams(params())),
  });
  main.append(
    h('div', { class: 'screen-head' }, h('h1', {}, ctx.title),
      exportButton(() => `/v1/exports/applications.csv${query(true)}`, { label: 'Export CSV' }),
      exportButton(() => `/v1/exports/funded-deals.csv${query(false)}`, { label: 'Export funded deals' }),
      exportButton(() => `/v1/exports/commissions.csv${query(false)}`, { label: 'Export commissions' }),
      views),
    h('div', { class: 'toolbar' }, formField('Lender', lender), formField('Status', status)),
    list.element);

  // The filter offers the panel's first hundred lenders, newest first: a
  // broker's panel is far shorter than that.
  const data = await gql('query { lendersPage(limit: 100) { nodes { id name isActive } } }');
  for (const l of data.lendersPage.nodes) lender.append(h('option', { value: l.id }, l.isActive ? l.name : `${l.name} (inactive)`));
  if (standIn && data.lendersPage.nodes.some((l) => l.id === chosen)) {
    standIn.remove();
    lender.value = chosen;
  }

  return refreshOnLendingEvents(main, () => list.refresh());
}

function leadName(lead) {
  if (!lead) return 'Lead';
  const person = [lead.contactFirstName, lead.contactLastName].filter(Boolean).join(' ');
  return lead.businessName || person || 'Unnamed lead';
}
