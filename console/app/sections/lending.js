// The lead page's lending section: the lead's applications with their
// decisions, submitting the lead to several lenders at once, deciding,
// funding, and the lead's funded deals with their commissions. The forms
// that decide, fund and record a commission payment are exported so the
// Applications screen offers the same ones.
//
// Amounts travel as the strings the reader typed: the server validates
// them and its VALIDATION_ERROR is shown in words, so no amount is ever
// rounded through a float here.

import { credentialIdentity, gql, subscribe } from '../api.js';
import {
  actionForm, date, drawWhenNoFormOpen, fieldError, formField, h, money, onFormSubmit, pager, replace, showError,
} from '../ui.js';
import { STIPULATION_FIELDS, stipulationChecklist } from './stipulations.js';

export const APPLICATION_FIELDS = `id status leadId lenderId lenderName requestedAmount product submittedAt decidedAt
  approvedAmount interestRate rateType termMonths paymentFrequency conditions declineReason declineCategory
  withdrawnReason warnings externalRef readyToFund stipulationsOutstanding
  fundedDeal { id fundedAmount fundedAt expectedCommission paybackAmount advisorId
    commission { id expectedAmount paidAmount status } }`;

// The lead's applications carry their checklists; a screen listing many
// applications reads them without (each checklist is a list of its own).
const WITH_CHECKLIST = `${APPLICATION_FIELDS} stipulations { ${STIPULATION_FIELDS} }`;

const PRODUCTS = ['mca', 'term_loan', 'line_of_credit', 'equipment', 'sba', 'invoice_factoring'];
const DECLINE_CATEGORIES = ['credit', 'revenue', 'time_in_business', 'industry', 'existing_positions', 'incomplete_file', 'other'];
export const STATUSES = ['submitted', 'underwriting', 'approved', 'declined', 'withdrawn', 'funded'];
const OPEN = new Set(['submitted', 'underwriting', 'approved']);

// The events after which a lending list may have changed; the lists
// refresh on them rather than polling.
const LENDING_EVENTS = ['application.submitted', 'application.approved', 'application.declined', 'application.ready_to_fund',
  'deal.funded', 'deal.commission_paid'];

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
        decideApplication(id: $id, input: $input) { ${WITH_CHECKLIST} } }`, { id: app.id, input });
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
  if (advisorsKey !== credentialIdentity()) {
    advisorsKey = credentialIdentity();
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
    app.stipulationsOutstanding > 0 ? h('label', { class: 'check' },
      h('input', { type: 'checkbox', name: 'waiveOutstanding' }),
      ` Waive the ${app.stipulationsOutstanding} outstanding stipulation${app.stipulationsOutstanding === 1 ? '' : 's'}: the lender funded`) : null,
  ], 'Fund deal', async (form) => {
    const input = {
      applicationId: app.id,
      fundedAmount: val(form, 'fundedAmount'),
      fundedAt: timeVal(form, 'fundedAt'),
      advisorId: val(form, 'advisorId'),
      commission: val(form, 'commission'),
      waiveOutstanding: form.elements.waiveOutstanding?.checked || undefined,
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

export const OFFER_FIELDS = `applicationId lenderId lenderName approvedAmount rateType interestRate termMonths
  paymentFrequency paybackAmount payments paymentAmount costOfCapital readyToFund`;

/** The "Ready to fund" badge: approved, with no stipulation outstanding. */
export function readyBadge() {
  return h('span', { class: 'badge ready-to-fund' }, 'Ready to fund');
}

/**
 * A rate as the offer states it: a factor as written ("1.35 factor"), an
 * APR as a percentage ("18.9 % APR"), moved two places in the string so
 * no rate passes through a float.
 */
export function rateWords(rate, rateType) {
  if (rate === null || rate === undefined) return '—';
  if (rateType !== 'apr') return `${rate} factor`;
  const [whole, frac = ''] = String(rate).split('.');
  const digits = frac.padEnd(2, '0');
  const int = `${whole}${digits.slice(0, 2)}`.replace(/^0+(?=\d)/, '');
  const rest = digits.slice(2).replace(/0+$/, '');
  return `${int}${rest ? `.${rest}` : ''} % APR`;
}

/**
 * One approved offer's block: its lender, its terms and what it costs,
 * and the "Ready to fund" badge. The block is keyed by its application
 * (data-application-id), so what belongs under an offer (its
 * stipulations, say) can be found and added to it.
 */
export function offerBlock(offer, { cheapest = false } = {}) {
  const row = (label, value, cls = 'num') => [h('dt', {}, label), h('dd', { class: cls }, value)];
  return h('article', { class: ['offer', cheapest ? 'cheapest' : ''], dataset: { applicationId: offer.applicationId },
    'aria-labelledby': `offer-${offer.applicationId}` },
  h('h4', { id: `offer-${offer.applicationId}` }, offer.lenderName),
  h('div', { class: 'offer-badges' }, cheapest ? h('span', { class: 'badge cheapest' }, 'Cheapest') : null,
    offer.readyToFund ? readyBadge() : null),
  h('dl', { class: 'offer-terms' },
    row('Approved', money(offer.approvedAmount)),
    row('Rate', rateWords(offer.interestRate, offer.rateType), ''),
    row('Term', `${offer.termMonths} months`, ''),
    row('Frequency', offer.paymentFrequency ? words(offer.paymentFrequency) : 'Not stated', ''),
    row('Payback', money(offer.paybackAmount)),
    row('Payments', offer.payments ?? '—'),
    row('Payment', money(offer.paymentAmount)),
    row('Cost of capital', money(offer.costOfCapital))));
}

/**
 * The lead's approved offers side by side, cheapest first (Lead.offers
 * orders them), each in its offerBlock with its stipulation checklist
 * under it (checklist(app) draws one, given the application with its
 * stipulations). Returns {element, refresh}.
 */
function offersSideBySide(lead, checklist) {
  const list = h('ul', { class: 'offers', 'aria-busy': 'true' });
  const note = h('p', { class: 'muted' });
  let lastDrawn = null;
  async function refresh() {
    list.setAttribute('aria-busy', 'true');
    try {
      // The approved applications' checklists come in the same request
      // (a lead has a handful of approvals; 20 keeps the query's cost low).
      const data = await gql(`query($id: ID!) { lead(id: $id) { id offers { ${OFFER_FIELDS} } }
        applicationsPage(leadId: $id, status: approved, limit: 20) { nodes { id status leadId stipulationsOutstanding
          stipulations { ${STIPULATION_FIELDS} } } } }`, { id: lead.id });
      const offers = data.lead?.offers || [];
      const apps = new Map((data.applicationsPage?.nodes || []).map((a) => [a.id, a]));
      // Offers that did not change keep their nodes (see pager).
      const drawn = JSON.stringify(data);
      if (drawn === lastDrawn) return;
      lastDrawn = drawn;
      drawWhenNoFormOpen(list, () => list.replaceChildren(...offers.map((o, i) => {
        const block = offerBlock(o, { cheapest: i === 0 && offers.length > 1 });
        const app = apps.get(o.applicationId);
        if (app) block.append(checklist(app));
        return h('li', {}, block);
      })));
      note.textContent = offers.length ? 'Cheapest first: by cost of capital. An APR\'s payback is a simple-interest estimate.' : 'No approved offer yet.';
    } catch (err) {
      showError(err, "The lead's offers could not be loaded.");
    } finally {
      list.setAttribute('aria-busy', 'false');
    }
  }
  const element = h('section', { class: 'offers-section', 'aria-labelledby': 'offers-title' },
    h('h3', { id: 'offers-title' }, 'Offers side by side'), note, list);
  refresh();
  return { element, refresh };
}

// What each box criterion of a lender match is called in words.
const MATCH_FIELDS = {
  amount: 'amount', monthlyRevenue: 'monthly revenue', industry: 'industry', product: 'product',
  monthsInBusiness: 'months in business', openApplication: 'open application',
};

/** Which applications a match's record is of, in words. */
function basisWords(m) {
  const n = m.components?.sampleSize;
  const deals = n === 1 ? 'deal' : 'deals';
  switch (m.basis) {
    case 'similar': return `From ${n} similar ${deals} (same amount band and industry) of the last 180 days.`;
    case 'all': return `From ${n === 1 ? 'the one deal' : `all ${n} deals`} of the last 180 days: fewer than 5 were similar.`;
    default: return 'No deal with this lender in the last 180 days: no score.';
  }
}

/** A lender match's score broken into its parts, each as the server wrote it. */
function scoreParts(m) {
  if (!m.components) return h('p', { class: 'muted' }, basisWords(m));
  const c = m.components;
  const row = (label, value, weight) => [h('dt', {}, label), h('dd', {}, h('span', { class: 'num' }, value), h('span', { class: 'muted' }, ` × ${weight}`))];
  return h('div', {},
    h('dl', { class: 'score-parts' },
      row('Approval rate', c.approvalRate, '0.5'),
      row('Funded share', c.fundedShare, '0.3'),
      row('Speed', c.medianDaysToDecision == null ? 'nothing decided' : `median ${c.medianDaysToDecision} days to decide`, '0.2 (1 − days / 30, at least 0)')),
    h('p', { class: 'muted' }, basisWords(m)));
}

/**
 * "Where to send": the organization's active lenders ranked for the lead
 * (lenderMatches), each with its score broken into its parts and each
 * miss of its box in words; with lending:write, a checkbox per lender and
 * "Submit to selected", one submitApplication per lender ticked.
 * Returns {element, refresh}.
 */
function whereToSend(lead, writes, submitted) {
  const list = h('ol', { class: 'matches', 'aria-busy': 'true' });
  const results = h('ul', { class: 'submit-results', 'aria-live': 'polite' });
  const chosen = new Map(); // lender id -> name
  const button = h('button', { type: 'submit', class: 'primary' }, 'Submit to selected');
  async function refresh() {
    list.setAttribute('aria-busy', 'true');
    try {
      const data = await gql(`query($id: ID!) { lenderMatches(leadId: $id) { lenderId lenderName eligible
        misses { field message } unknown score basis components { approvalRate fundedShare medianDaysToDecision sampleSize } } }`, { id: lead.id });
      const matches = data.lenderMatches || [];
      for (const id of [...chosen.keys()]) if (!matches.some((m) => m.lenderId === id)) chosen.delete(id);
      list.replaceChildren(...matches.map((m) => {
        const open = m.misses.some((x) => x.field === 'openApplication');
        const heading = h('span', { class: 'match-name' }, m.lenderName);
        let label = heading;
        if (writes) {
          const box = h('input', { type: 'checkbox', name: 'match', value: m.lenderId, checked: chosen.has(m.lenderId), disabled: open });
          box.addEventListener('change', () => {
            if (box.checked) chosen.set(m.lenderId, m.lenderName);
            else chosen.delete(m.lenderId);
          });
          label = h('label', { class: 'check' }, box, ' ', heading);
        }
        return h('li', { class: ['match', m.eligible ? 'eligible' : 'ineligible'], dataset: { lenderId: m.lenderId } },
          h('div', { class: 'match-head' }, label,
            h('span', { class: ['badge', m.eligible ? 'fits' : 'misses'] }, m.eligible ? 'Fits the box' : 'Misses the box'),
            h('strong', { class: 'score num' }, m.score == null ? 'No score' : `Score ${m.score}`)),
          scoreParts(m),
          m.misses.length ? h('ul', { class: 'misses' }, m.misses.map((x) => h('li', {}, `${MATCH_FIELDS[x.field] || x.field}: ${x.message}`))) : null,
          m.unknown.length ? h('p', { class: 'muted unknown' }, `Not known for this lead: ${m.unknown.map((f) => MATCH_FIELDS[f] || f).join(', ')}.`) : null);
      }));
      if (!matches.length) list.replaceChildren(h('li', { class: 'muted' }, 'No active lender: add one on the Lenders screen.'));
    } catch (err) {
      showError(err, 'The lender matches could not be loaded.');
    } finally {
      list.setAttribute('aria-busy', 'false');
    }
  }
  const note = h('p', { class: 'muted' }, 'Eligible lenders first, then by score: 0.5 × approval rate + 0.3 × funded share + 0.2 × speed, from this organization\'s own deals with each lender.');
  let body = list;
  if (writes) {
    body = h('form', { class: 'where-to-send-form', novalidate: true }, list, h('div', { class: 'actions' }, button), results);
    onFormSubmit(body, async () => {
      if (chosen.size === 0) throw Object.assign(fieldError('Choose at least one lender.'), { context: 'Nothing was submitted.' });
      results.replaceChildren();
      let refused = null;
      for (const [lenderId, name] of chosen) {
        try {
          const data = await gql(`mutation($input: SubmitApplicationInput!) { submitApplication(input: $input) { id warnings } }`,
            { input: { leadId: lead.id, lenderId } });
          const w = data.submitApplication.warnings;
          results.append(h('li', { class: 'ok' }, `Submitted to ${name}.`, w.length ? ` Warnings: ${w.join('; ')}` : ''));
          chosen.delete(lenderId);
        } catch (err) {
          results.append(h('li', { class: 'failed' }, `Not submitted to ${name}: ${err.message}`));
          refused ??= Object.assign(err, { context: `Submitting to ${name} failed.` });
        }
      }
      submitted();
      await refresh();
      if (refused) throw refused;
    });
  }
  const element = h('section', { class: 'where-to-send', 'aria-labelledby': 'where-to-send-title' },
    h('h3', { id: 'where-to-send-title' }, 'Where to send'), note, body);
  refresh();
  return { element, refresh };
}

/**
 * Fills container with the lending section of lead (at least {id}).
 * changed() runs after each of the section's own actions and each lending
 * event it hears, once the lists are read again. Returns the function that
 * stops its live updates (they also stop by themselves once the container
 * leaves the page).
 */
export function renderLending(container, lead, ctx, { changed = () => {} } = {}) {
  const section = h('section', { class: 'lending', 'aria-labelledby': 'lending-title' });
  container.append(section);
  if (ctx.can && !ctx.can('lending:read')) {
    replace(section, h('h2', { id: 'lending-title' }, 'Lending'),
      h('p', { class: 'muted' }, 'Your role does not show lending records.'));
    return null;
  }
  // Without lending:write, the records show without the actions.
  const writes = !ctx.can || ctx.can('lending:write');

  const applications = pager({
    limit: 10,
    caption: 'Applications',
    empty: 'Not submitted to any lender yet.',
    load: ({ page, limit }) => gql(`query($lead: ID!, $page: Int, $limit: Int) {
      applicationsPage(leadId: $lead, page: $page, limit: $limit) { nodes { ${WITH_CHECKLIST} } total page limit hasMore } }`,
    { lead: lead.id, page, limit }).then((d) => d.applicationsPage),
    columns: [
      { label: 'Lender', render: (a) => a.lenderName },
      { label: 'Status', render: (a) => h('span', { class: ['status', `status-${a.status}`] }, words(a.status)) },
      { label: 'Requested', render: (a) => h('span', { class: 'num' }, money(a.requestedAmount)) },
      { label: 'Submitted', render: (a) => date(a.submittedAt) },
      // An approved application's checklist is under its offer; a funded
      // or withdrawn one's stays here, as a record.
      { label: 'Decision', render: (a) => [decisionSummary(a), dealSummary(a), a.warnings?.length ? h('div', { class: 'muted' }, `Warnings: ${a.warnings.join('; ')}`) : null,
        a.status !== 'approved' && a.stipulations?.length ? checklist(a, 'h3') : null] },
      writes ? { label: 'Actions', render: (a) => applicationActions(a, refreshAll) } : null,
    ].filter(Boolean),
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
      writes ? { label: 'Actions', render: (d) => h('div', { class: 'action-list', dataset: { deal: d.id } }, paymentForm(d.id, refreshAll)) } : null,
    ].filter(Boolean),
  });

  function checklist(app, heading = 'h5') {
    return stipulationChecklist(app, { writes, canWaive: !ctx.can || ctx.can('admin'), changed: refreshAll, heading });
  }
  const offers = offersSideBySide(lead, checklist);
  const matches = whereToSend(lead, writes, () => applications.reload().finally(changed));

  function refreshAll() {
    Promise.all([offers.refresh(), matches.refresh(), applications.refresh(), deals.refresh()]).finally(changed);
  }

  replace(section,
    h('h2', { id: 'lending-title' }, 'Lending'),
    matches.element,
    writes ? submitToLenders(lead, () => applications.reload().finally(changed)) : null,
    offers.element,
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
