// The Renewals screen (#/renewals): the renewal queue (renewalQueue), the
// funded deals whose merchant may renew, earliest eligible first, in
// pages; filtered by advisor and by how far ahead to look, the filters
// living in the address (#/renewals?advisor=..&due=..) and in saved views
// of the RENEWALS screen. Each deal offers "Start renewal": a submission
// of its lead to a lender carrying the deal as renewalOfDealId. Once
// submitted the lead has an application in play, so the deal leaves the
// queue.

import { gql } from '../api.js';
import { savedViewsMenu } from '../savedviews.js';
import { actionForm, date, fieldError, formField, h, money, pager, showError } from '../ui.js';
import { refreshOnLendingEvents, words } from '../sections/lending.js';

const PRODUCTS = ['mca', 'term_loan', 'line_of_credit', 'equipment', 'sba', 'invoice_factoring'];

// How far ahead the queue may look: due now, or within the next days.
const HORIZONS = [
  { value: '', label: 'Due now', days: 0 },
  { value: '30', label: 'Due within 30 days', days: 30 },
  { value: '90', label: 'Due within 90 days', days: 90 },
];

/** A saved view's filters (renewalQueue's where) from the address's query. */
export function renewalFilters(query) {
  const out = {};
  if (query.get('advisor')) out.advisorId = query.get('advisor');
  const days = Number(query.get('due') || 0);
  if (days > 0) out.dueBefore = new Date(Date.now() + days * 86400000).toISOString();
  return out;
}

/**
 * The address's query for a saved view's filters: a view saved with a
 * horizon keeps its instant, which reads back as the days left to it.
 */
export function renewalQuery(filters) {
  let due;
  if (filters.dueBefore) {
    const days = Math.round((Date.parse(filters.dueBefore) - Date.now()) / 86400000);
    if (days > 0) due = String(days);
  }
  return { advisor: filters.advisorId, due };
}

/** Fills main with the filters and the paged queue; returns the cleanup. */
export async function render(main, ctx) {
  const advisor = h('select', { name: 'advisor' }, h('option', { value: '' }, 'Every advisor'));
  const chosen = ctx.query.get('advisor') || '';
  const standIn = chosen ? h('option', { value: chosen }, 'The advisor chosen') : null;
  if (standIn) advisor.append(standIn);
  advisor.value = chosen;
  const due = h('select', { name: 'due' }, HORIZONS.map((o) => h('option', { value: o.value }, o.label)));
  const days = ctx.query.get('due') || '';
  if (days && !HORIZONS.some((o) => o.value === days)) due.append(h('option', { value: days }, `Due within ${days} days`));
  due.value = days;

  const names = new Map(); // advisor id -> name, once the users load
  // The filters on show, as the address carries them; the pager reads them
  // for its first page as it is made.
  const params = () => ({ advisor: advisor.value, due: due.value });
  const list = pager({
    caption: 'Renewals, earliest eligible first',
    empty: 'No renewal is due.',
    load: ({ page, limit }) => {
      const where = renewalFilters(new URLSearchParams(params()));
      return gql(`query($where: RenewalWhere, $page: Int, $limit: Int) {
        renewalQueue(where: $where, page: $page, limit: $limit) {
          nodes { dealId leadId businessName lenderId lenderName advisorId fundedAmount fundedAt renewalEligibleAt }
          total page limit hasMore } }`, { where, page, limit }).then((d) => d.renewalQueue);
    },
    columns: [
      { label: 'Lead', render: (r) => h('a', { href: `#/leads/${encodeURIComponent(r.leadId)}` }, r.businessName || 'Unnamed lead') },
      { label: 'Lender', render: (r) => r.lenderName },
      { label: 'Advisor', render: (r) => (r.advisorId ? names.get(r.advisorId) || 'An advisor' : 'None') },
      { label: 'Funded', render: (r) => [h('span', { class: 'num' }, money(r.fundedAmount)), ' on ', date(r.fundedAt)] },
      { label: 'Eligible', render: (r) => date(r.renewalEligibleAt) },
      { label: 'Actions', render: (r) => startRenewalForm(r, () => list.refresh()) },
    ],
  });
  const filtered = () => {
    ctx.setQuery(params());
    list.reload();
  };
  advisor.addEventListener('change', filtered);
  due.addEventListener('change', filtered);

  const views = savedViewsMenu({
    ctx, screen: 'RENEWALS', route: '/renewals', toQuery: renewalQuery,
    filters: () => renewalFilters(new URLSearchParams(params())),
  });
  main.append(
    h('div', { class: 'screen-head' }, h('h1', {}, ctx.title), views),
    h('div', { class: 'toolbar' }, formField('Advisor', advisor), formField('Due', due)),
    list.element);

  // The filter offers the organization's first hundred users: a broker's
  // team is far smaller than that.
  try {
    const data = await gql('query { users(first: 100) { edges { node { id firstName lastName } } } }');
    for (const { node: u } of data.users.edges) {
      const name = `${u.firstName} ${u.lastName}`;
      names.set(u.id, name);
      advisor.append(h('option', { value: u.id }, name));
    }
    if (standIn && names.has(chosen)) {
      standIn.remove();
      advisor.value = chosen;
    }
    list.refresh();
  } catch (err) {
    showError(err, 'The advisors could not be loaded.');
  }
  return refreshOnLendingEvents(main, () => list.refresh());
}

// The lenders a renewal may go to, loaded once per screen.
let lendersPromise = null;
function activeLenders() {
  lendersPromise ??= gql('query { lendersPage(isActive: true, limit: 100) { nodes { id name } } }')
    .then((d) => d.lendersPage.nodes)
    .catch((err) => { lendersPromise = null; throw err; });
  return lendersPromise;
}

/** "Start renewal": submits the deal's lead to a lender as its renewal. */
function startRenewalForm(r, done) {
  const lender = h('select', { name: 'lenderId', required: true }, h('option', { value: '' }, 'Choose a lender'));
  activeLenders().then((ls) => {
    for (const l of ls) lender.append(h('option', { value: l.id }, l.name));
  }, (err) => showError(err, 'The lenders could not be loaded.'));
  const product = h('select', { name: 'product' }, h('option', { value: '' }, 'Not stated'),
    PRODUCTS.map((p) => h('option', { value: p }, words(p))));
  const amount = h('input', { type: 'text', name: 'requestedAmount', inputmode: 'decimal', autocomplete: 'off' });
  const form = actionForm('Start renewal', `Starting ${r.businessName || 'the lead'}'s renewal failed.`, [
    formField('Lender', lender),
    formField('Requested amount', amount, { hint: "The lead's requested amount when empty." }),
    formField('Product', product),
  ], 'Submit renewal', async (f) => {
    const input = {
      leadId: r.leadId,
      lenderId: f.elements.lenderId.value || undefined,
      renewalOfDealId: r.dealId,
      requestedAmount: f.elements.requestedAmount.value.trim() || undefined,
      product: f.elements.product.value || undefined,
    };
    if (!input.lenderId) throw fieldError('Choose a lender.', 'lenderId');
    await gql('mutation($input: SubmitApplicationInput!) { submitApplication(input: $input) { id } }', { input });
    done();
  }, { className: 'start-renewal' });
  return form;
}
