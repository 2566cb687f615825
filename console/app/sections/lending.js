// The lead page's lending section: the lead's applications with their
// decisions, submitting the lead to several lenders at once, deciding,
// funding, and the lead's funded deals with their commissions. The forms
// that decide, fund and record a commission payment are exported so the
// Applications screen offers the same ones.
//
// Amounts travel as the strings the reader typed: the server validates
// them and its VALIDATION_ERROR is shown in words, so no amount is ever
// rounded through a float here.

import { gql, subscribe } from '../api.js';
import {
  date, fieldError, formField, h, money, onFormSubmit, pager, replace, showError,
} from '../ui.js';
import { getKey } from '../key.js';

export const APPLICATION_FIELDS = `id status leadId lenderId lenderName requestedAmount product submittedAt decidedAt
  approvedAmount interestRate rateType termMonths paymentFrequency conditions declineReason declineCategory
  withdrawnReason warnings externalRef
  fundedDeal { id fundedAmount fundedAt expectedCommission paybackAmount advisorId
    commission { id expectedAmount paidAmount status } }`;

const PRODUCTS = ['mca', 'term_loan', 'line_of_credit', 'equipment', 'sba', 'invoice_factoring'];
const DECLINE_CATEGORIES = ['credit', 'revenue', 'time_in_business', 'industry', 'existing_positions', 'incomplete_file', 'other'];
export const STATUSES = ['submitted', 'underwriting', 'approved', 'declined', 'withdrawn', 'funded'];
const OPEN = new Set(['submitted', 'underwriting', 'approved']);

// The events after which a lending list may have changed; the lists
// refresh on them rather than polling.
const LENDING_EVENTS = ['application.submitted', 'application.approved', 'application.declined', 'deal.funded', 'deal.commission_paid'];

/** A label for an enum value: "term_loan" reads "term loan". */
export function words(value) {
  return value ? String(value).replaceAll('_', ' ') : '—';
}

/** The application's decision in words: the offer, the decline reason, or what is still awaited. */
export function decisionSummary(app) {
  switch (app.status) {
    case 'approved':
    case 'funded':
      return h('div', { class: 'decision approved' },
        h('strong', {}, 'Approved: '),
        `${money(app.approvedAmount)} at ${app.interestRate ?? '—'} ${app.rateType ?? ''}, ${app.termMonths ?? '—'} months`,
        app.paymentFrequency ? `, ${app.paymentFrequency}` : '',
        app.conditions?.length ? h('div', { class: 'muted' }, `Conditions: ${app.conditions.join('; ')}`) : null);
    case 'declined':
      return h('div', { class: 'decision declined' },
        h('strong', {}, 'Declined: '), app.declineReason || '',
        app.declineCategory ? h('span', { class: 'muted' }, ` (${words(app.declineCategory)})`) : null);
    case 'withdrawn':
      return h('div', { class: 'decision' }, h('strong', {}, 'Withdrawn'), app.withdrawnReason ? `: ${words(app.withdrawnReason)}` : '');
    default:
      return h('span', { class: 'muted' }, 'Awaiting the lender');
  }
}

/** The application's funded deal and commission in a line, or null. */
export function dealSummary(app) {
  const d = app.fundedDeal;
  if (!d) return null;
  const c = d.commission;
  return h('div', { class: 'deal' },
    h('strong', {}, 'Funded: '), `${money(d.fundedAmount)} on ${date(d.fundedAt)}`,
    c ? h('div', { class: 'muted' }, `Commission ${words(c.status)}: paid ${money(c.paidAmount)} of ${money(c.expectedAmount)}`) : null);
}

function select(name, options, { blank = '', value = '' } = {}) {
  return h('select', { name },
    blank !== null ? h('option', { value: '' }, blank) : null,
    options.map((o) => (typeof o === 'string'
      ? h('option', { value: o, selected: o === value }, words(o))
      : h('option', { value: o.value, selected: o.value === value }, o.label))));
}

function text(name, attrs = {}) {
  return h('input', { type: 'text', name, autocomplete: 'off', ...attrs });
}

// A value typed in a form field, trimmed; undefined when empty so the
// server applies its default.
function val(form, name) {
  const v = form.elements[name]?.value?.trim();
  return v ? v : undefined;
}

// datetime-local has no zone: the reader means their own, which Date reads.
function timeVal(form, name) {
  const v = val(form, name);
  return v ? new Date(v).toISOString() : undefined;
}

/**
 * A disclosure holding a form: summary is the button that opens it,
 * submit(form) runs on submit and resolves when done; errors show in words
 * with context and leave the form open to correct.
 */
function actionForm(summary, context, fields, submitLabel, submit, { className = '' } = {}) {
  const button = h('button', { type: 'submit', class: 'primary' }, submitLabel);
  const form = h('form', { class: 'action-form', novalidate: true }, fields, h('div', { class: 'actions' }, button));
  const details = h('details', { class: ['action', className] }, h('summary', {}, summary), form);
  onFormSubmit(form, async () => {
    await submit(form);
    details.open = false;
  }, { context });
  return details;
}

/** The form recording a lender's decision on a submitted or underwriting application. */
export function decideForm(app, done) {
  const decision = select('decision', [{ value: 'APPROVED', label: 'Approved' }, { value: 'DECLINED', label: 'Declined' }], { blank: null });
  const approval = h('fieldset', { class: 'approval' }, h('legend', {}, 'The offer'),
    formField('Approved amount', text('approvedAmount', { inputmode: 'decimal', placeholder: app.requestedAmount }), { hint: 'The amount requested when empty.' }),
    formField('Rate', text('interestRate', { inputmode: 'decimal' }), { hint: 'A factor (1.35) or an APR as a fraction (0.189).' }),
    formField('Rate type', select('rateType', ['factor', 'apr'], { blank: null })),
    formField('Term in months', h('input', { type: 'number', name: 'termMonths', min: '1', max: '600' })),
    formField('Payment frequency', select('paymentFrequency', ['daily', 'weekly', 'monthly'], { blank: 'Not stated' })),
    formField('Conditions', h('textarea', { name: 'conditions', rows: '2' }), { hint: 'One per line.' }));
  const decline = h('fieldset', { class: 'decline', hidden: true }, h('legend', {}, 'The decline'),
    formField('Reason', text('reason')),
    formField('Category', select('declineCategory', DECLINE_CATEGORIES, { blank: 'Not stated' })));
  decision.addEventListener('change', () => {
    approval.hidden = decision.value !== 'APPROVED';
    decline.hidden = decision.value !== 'DECLINED';
  });
  return actionForm('Record decision', `Recording ${app.lenderName}'s decision failed.`,
    [formField('Decision', decision), approval, decline], 'Save decision', async (form) => {
      let input;
      if (decision.value === 'APPROVED') {
        const term = val(form, 'termMonths');
        input = {
          decision: 'APPROVED',
          approvedAmount: val(form, 'approvedAmount'),
          interestRate: val(form, 'interestRate'),
          rateType: val(form, 'rateType'),
          termMonths: term === undefined ? undefined : Number(term),
          paymentFrequency: val(form, 'paymentFrequency'),
          conditions: (form.elements.conditions.value || '').split('\n').map((s) => s.trim()).filter(Boolean),
        };
      } else {
        input = { decision: 'DECLINED', reason: val(form, 'reason'), declineCategory: val(form, 'declineCategory') };
      }
      const data = await gql(`mutation($id: ID!, $input: DecideApplicationInput!) {
        decideApplication(id: $id, input: $input) { ${APPLICATION_FIELDS} } }`, { id: app.id, input });
      done(data.decideApplication);
    }, { className: 'decide' });
}

// The organization's users to credit a deal to: the first page only, as
// the list of advisors of one broker is short; the default is the lead's.
// It is kept per key: another key, signed in later in the same tab, may
// be another organization's.
let advisorsPromise = null;
let advisorsKey = null;
function advisors() {
  if (advisorsKey !== getKey()) {
    advisorsKey = getKey();
    advisorsPromise = null;
  }
  advisorsPromise ??= gql('query { users(first: 100) { edges { node { id firstName lastName } } } }')
    .then((d) => d.users.edges.map((e) => e.node))
    .catch((err) => { advisorsPromise = null; throw err; });
  return advisorsPromise;
}

/** The form funding an approved application. */
export function fundForm(app, done) {
  const advisor = select('advisorId', [], { blank: "The lead's primary advisor" });
  advisors().then((users) => {
    for (const u of users) advisor.append(h('option', { value: u.id }, `${u.firstName} ${u.lastName}`));
  }, (err) => showError(err, 'The advisors could not be loaded.'));
  return actionForm('Fund', `Funding ${app.lenderName}'s offer failed.`, [
    formField('Funded amount', text('fundedAmount', { inputmode: 'decimal', placeholder: app.approvedAmount || '' }), { hint: 'The approved amount when empty.' }),
    formField('Funded at', h('input', { type: 'datetime-local', name: 'fundedAt' }), { hint: 'Now when empty.' }),
    formField('Advisor', advisor),
    formField('Commission', text('commission', { inputmode: 'decimal' }), { hint: "The lender's commission rate × the funded amount when empty." }),
  ], 'Fund deal', async (form) => {
    const input = {
      applicationId: app.id,
      fundedAmount: val(form, 'fundedAmount'),
      fundedAt: timeVal(form, 'fundedAt'),
      advisorId: val(form, 'advisorId'),
      commission: val(form, 'commission'),
    };
    const data = await gql('mutation($input: FundDealInput!) { fundDeal(input: $input) { id } }', { input });
    done(data.fundDeal);
  }, { className: 'fund' });
}

/** The form recording a commission payment (or clawback) of a funded deal. */
export function paymentForm(dealId, done) {
  const kind = select('kind', [{ value: 'payment', label: 'Payment' }, { value: 'clawback', label: 'Clawback' }], { blank: null });
  return actionForm('Record payment', 'Recording the commission payment failed.', [
    formField('Kind', kind),
    formField('Amount', text('amount', { inputmode: 'decimal' })),
    formField('Paid at', h('input', { type: 'datetime-local', name: 'paidAt' }), { hint: 'Now when empty.' }),
    formField('Reference', text('reference'), { hint: "The lender's remittance or transfer id." }),
  ], 'Save payment', async (form) => {
    const input = { dealId, amount: val(form, 'amount') ?? '', paidAt: timeVal(form, 'paidAt'), reference: val(form, 'reference') };
    const field = kind.value === 'clawback' ? 'recordCommissionClawback' : 'recordCommissionPayment';
    const data = await gql(`mutation($input: CommissionPaymentInput!) { ${field}(input: $input) { id status paidAmount } }`, { input });
    done(data[field]);
  }, { className: 'payment' });
}

/** What can be done to an application now, as forms. */
export function applicationActions(app, refresh) {
  const out = [];
  if (app.status === 'submitted' || app.status === 'underwriting') out.push(decideForm(app, refresh));
  if (app.status === 'approved') out.push(fundForm(app, refresh));
  if (app.fundedDeal) out.push(paymentForm(app.fundedDeal.id, refresh));
  return out.length ? h('div', { class: 'action-list', dataset: { application: app.id } }, out) : h('span', { class: 'muted' }, '—');
}

/**
 * Calls refresh (at most every half second) after each lending event
 * while el is on the page; stops by itself once el leaves it. Returns the
 * function that stops it.
 */
export function refreshOnLendingEvents(el, refresh) {
  let timer = null;
  let stop = () => {};
  // A refresh redraws the rows, so it waits while the reader has a form
  // open rather than throw away what they typed.
  const later = () => {
    timer = null;
    if (!el.isConnected) end();
    else if (el.querySelector('details.action[open]')) timer = setTimeout(later, 2000);
    else refresh();
  };
  const end = () => {
    clearTimeout(timer);
    stop();
  };
  stop = subscribe('subscription($types: [String!]) { events(types: $types) { event } }', { types: LENDING_EVENTS }, {
    next: () => {
      if (!el.isConnected) {
        end();
        return;
      }
      // A refresh already due covers this event too; a steady stream of
      // events must not postpone it for ever.
      timer ??= setTimeout(later, 500);
    },
    error: (err) => showError(err, 'Live updates of the lending lists stopped.'),
  });
  return end;
}

/**
 * Fills container with the lending section of lead (at least {id}).
 * Returns the function that stops its live updates (they also stop by
 * themselves once the container leaves the page).
 */
export function renderLending(container, lead, ctx) {
  const section = h('section', { class: 'lending', 'aria-labelledby': 'lending-title' });
  container.append(section);

  const applications = pager({
    limit: 10,
    caption: 'Applications',
    empty: 'Not submitted to any lender yet.',
    load: ({ page, limit }) => gql(`query($lead: ID!, $page: Int, $limit: Int) {
      applicationsPage(leadId: $lead, page: $page, limit: $limit) { nodes { ${APPLICATION_FIELDS} } total page limit hasMore } }`,
    { lead: lead.id, page, limit }).then((d) => d.applicationsPage),
    columns: [
      { label: 'Lender', render: (a) => a.lenderName },
      { label: 'Status', render: (a) => h('span', { class: ['status', `status-${a.status}`] }, words(a.status)) },
      { label: 'Requested', render: (a) => h('span', { class: 'num' }, money(a.requestedAmount)) },
      { label: 'Submitted', render: (a) => date(a.submittedAt) },
      { label: 'Decision', render: (a) => [decisionSummary(a), dealSummary(a), a.warnings?.length ? h('div', { class: 'muted' }, `Warnings: ${a.warnings.join('; ')}`) : null] },
      { label: 'Actions', render: (a) => applicationActions(a, refreshAll) },
    ],
  });

  const deals = pager({
    limit: 10,
    caption: 'Funded deals',
    empty: 'No funded deal yet.',
    load: ({ page, limit }) => gql(`query($lead: ID!, $page: Int, $limit: Int) {
      fundedDealsPage(leadId: $lead, page: $page, limit: $limit) {
        nodes { id lenderName fundedAmount fundedAt paybackAmount expectedCommission
          commission { id expectedAmount paidAmount status payments { amount kind paidAt reference } } }
        total page limit hasMore } }`, { lead: lead.id, page, limit }).then((d) => d.fundedDealsPage),
    columns: [
      { label: 'Lender', render: (d) => d.lenderName },
      { label: 'Funded', render: (d) => [h('span', { class: 'num' }, money(d.fundedAmount)), h('div', { class: 'muted' }, date(d.fundedAt))] },
      { label: 'Commission owed', render: (d) => h('span', { class: 'num' }, money(d.commission.expectedAmount)) },
      { label: 'Paid', render: (d) => h('span', { class: 'num' }, money(d.commission.paidAmount)) },
      { label: 'Status', render: (d) => words(d.commission.status) },
      { label: 'Payments', render: (d) => (d.commission.payments?.length
        ? h('ul', { class: 'payments' }, d.commission.payments.map((p) => h('li', {},
          `${p.kind === 'clawback' ? 'Clawback' : 'Payment'} ${money(p.amount)} on ${date(p.paidAt)}`, p.reference ? ` (${p.reference})` : '')))
        : h('span', { class: 'muted' }, 'None yet')) },
      { label: 'Actions', render: (d) => h('div', { class: 'action-list', dataset: { deal: d.id } }, paymentForm(d.id, refreshAll)) },
    ],
  });

  function refreshAll() {
    applications.refresh();
    deals.refresh();
  }

  replace(section,
    h('h2', { id: 'lending-title' }, 'Lending'),
    submitToLenders(lead, () => applications.reload()),
    applications.element,
    h('h3', {}, 'Funded deals and commissions'),
    deals.element);
  return refreshOnLendingEvents(section, refreshAll);
}

/** The form submitting the lead to every lender ticked, one application each. */
function submitToLenders(lead, done) {
  const chosen = new Map(); // lender id -> name, kept across the list's pages
  const count = h('span', { class: 'muted', 'aria-live': 'polite' });
  const results = h('ul', { class: 'submit-results', 'aria-live': 'polite' });
  const updateCount = () => { count.textContent = chosen.size ? `${chosen.size} chosen` : 'None chosen'; };
  updateCount();
  const lenders = pager({
    limit: 10,
    empty: 'No active lender: add one on the Lenders screen.',
    load: ({ page, limit }) => gql(`query($page: Int, $limit: Int) {
      lendersPage(isActive: true, page: $page, limit: $limit) { nodes { id name products minAmount maxAmount } total page limit hasMore } }`,
    { page, limit }).then((d) => d.lendersPage),
    item: (l) => {
      const box = h('input', { type: 'checkbox', name: 'lender', value: l.id, checked: chosen.has(l.id) });
      box.addEventListener('change', () => {
        if (box.checked) chosen.set(l.id, l.name);
        else chosen.delete(l.id);
        updateCount();
      });
      return h('label', { class: 'check' }, box, ' ', l.name,
        h('span', { class: 'muted' }, ` ${l.products.map(words).join(', ') || 'any product'}${l.minAmount || l.maxAmount ? `; ${money(l.minAmount)} to ${money(l.maxAmount)}` : ''}`));
    },
  });
  const amount = text('requestedAmount', { inputmode: 'decimal' });
  const product = select('product', PRODUCTS, { blank: 'Not stated' });
  const notes = h('textarea', { name: 'notes', rows: '2' });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Submit');
  const form = h('form', { class: 'submit-lenders', novalidate: true },
    h('fieldset', {}, h('legend', {}, 'Lenders'), lenders.element, count),
    formField('Requested amount', amount, { hint: "The lead's requested amount when empty." }),
    formField('Product', product),
    formField('Notes', notes),
    h('div', { class: 'actions' }, button),
    results);
  onFormSubmit(form, async () => {
    if (chosen.size === 0) throw Object.assign(fieldError('Choose at least one lender.'), { context: 'Nothing was submitted.' });
    results.replaceChildren();
    const base = {
      leadId: lead.id,
      requestedAmount: amount.value.trim() || undefined,
      product: product.value || undefined,
      notes: notes.value.trim() || undefined,
    };
    // One submission per lender (the schema submits to one lender at a
    // time); each lender's outcome is listed, so one refusal does not hide
    // the others' success, and the first refusal is the form's error.
    let refused = null;
    for (const [lenderId, name] of chosen) {
      try {
        const data = await gql(`mutation($input: SubmitApplicationInput!) { submitApplication(input: $input) { id warnings } }`,
          { input: { ...base, lenderId } });
        const w = data.submitApplication.warnings;
        results.append(h('li', { class: 'ok' }, `Submitted to ${name}.`, w.length ? ` Warnings: ${w.join('; ')}` : ''));
      } catch (err) {
        results.append(h('li', { class: 'failed' }, `Not submitted to ${name}: ${err.message}`));
        refused ??= Object.assign(err, { context: `Submitting to ${name} failed.` });
      }
    }
    done();
    if (refused) throw refused;
    chosen.clear();
    updateCount();
    lenders.refresh();
  });
  return h('details', { class: 'action submit-to-lenders' }, h('summary', {}, 'Submit to lenders'), form);
}
