// The lead screen: the lead's attributes (edit, assign), its calls, its
// lending records, its documents (upload, download) and a timeline made
// from the records this screen reads.

import { gql, subscribe, upload, ApiError } from '../api.js';
import { getKey } from '../key.js';
import { renderLending } from '../sections/lending.js';
import {
  date, fieldError, formField, h, money, onFormSubmit, pager, replace, showError,
} from '../ui.js';
import { advisorSelect, allStages, contactName, enumValues } from './board.js';

const LEAD_QUERY = `query Lead($id: ID!) {
  lead(id: $id) {
    id createdAt updatedAt businessName contactFirstName contactLastName email phone industry
    monthlyRevenue requestedAmount source priority isDoNotCall tags leadScore stageId stageChangedAt
    lastContactedAt primaryAdvisorId primaryAdvisorName createdBy
    stage { id stageLabel }
    applications { id createdAt lenderName status submittedAt decidedAt }
    fundedDeals { id fundedAt lenderName fundedAmount }
  }
}`;

const CALLS_QUERY = `query LeadCalls($id: ID!, $first: Int!, $after: Cursor) {
  lead(id: $id) {
    callEvents(first: $first, after: $after, orderBy: {field: OCCURRED_AT, direction: DESC}) {
      totalCount
      edges { node { id occurredAt eventType direction durationSeconds disposition notes user { firstName lastName } } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

const DOCS_QUERY = `query LeadDocuments($id: ID!, $page: Int!, $limit: Int!) {
  lead(id: $id) { documents(page: $page, limit: $limit) { nodes { id filename contentType size category createdAt contentPath } total page limit hasMore } }
}`;

const UPDATE = `mutation UpdateLead($id: ID!, $input: UpdateLeadInput!) { updateLead(id: $id, input: $input) { id } }`;
const MOVE = `mutation MoveLead($id: ID!, $stageId: ID!) { moveLeadToStage(id: $id, stageId: $stageId) { id } }`;
const ASSIGN = `mutation AssignLead($id: ID!, $advisorId: ID!) { assignLead(id: $id, advisorId: $advisorId) { id } }`;
const UPLOAD = `mutation UploadDocument($recordId: ID!, $file: Upload!, $category: DocumentCategory) {
  uploadDocument(recordId: $recordId, file: $file, category: $category) { id filename }
}`;

// The attributes the edit form changes: [field, label, input attributes].
const EDITABLE = [
  ['businessName', 'Business name', { maxlength: 255 }],
  ['contactFirstName', 'Contact first name', { maxlength: 100 }],
  ['contactLastName', 'Contact last name', { maxlength: 100 }],
  ['email', 'Email', { type: 'email', maxlength: 254 }],
  ['phone', 'Phone', { type: 'tel', maxlength: 20 }],
  ['industry', 'Industry', { maxlength: 100 }],
  ['monthlyRevenue', 'Monthly revenue', { inputmode: 'decimal' }],
  ['requestedAmount', 'Requested amount', { inputmode: 'decimal' }],
];

/** Fills main with the lead params.id names. */
export async function render(main, ctx, params) {
  const id = params.id;
  const head = h('div', { class: 'screen-head' }, h('h1', {}, ctx.title));
  const idLine = h('p', { class: 'muted' }, `Id: ${id}`);
  main.append(head, idLine);

  let lead;
  try {
    lead = (await gql(LEAD_QUERY, { id })).lead;
  } catch (err) {
    main.append(h('p', { class: 'muted' }, 'This lead could not be shown.'), h('p', {}, h('a', { href: '#/board' }, 'Back to the board')));
    showError(err);
    return undefined;
  }
  if (!ctx.isCurrent()) return undefined;

  const [priorities, categories, stages] = await Promise.all([enumValues('LeadPriority'), enumValues('DocumentCategory'), allStages()]);
  if (!ctx.isCurrent()) return undefined;

  const titleEl = head.querySelector('h1');
  const attrs = h('section', { class: 'lead-attrs', 'aria-labelledby': 'lead-details' });
  // The lending section brings its own heading and landmark.
  const lendingBox = h('div', { class: 'lead-lending' });
  const timelineBox = h('section', { class: 'lead-timeline', 'aria-labelledby': 'lead-timeline' });
  let firstCalls = [];
  let firstDocs = [];

  // live: a change made elsewhere, which leaves alone the forms the
  // reader is using and redraws only what they read.
  async function reloadLead({ live = false } = {}) {
    lead = (await gql(LEAD_QUERY, { id })).lead;
    if (live && attrsInUse()) showDetails();
    else keepFocus(showAttrs);
    showTimeline();
  }

  // Redraws with draw, and gives focus back to the redrawn form the reader
  // just used (its button), or to Edit details after an edit, not the body.
  function keepFocus(draw) {
    const form = attrs.contains(document.activeElement) ? document.activeElement.closest('form') : null;
    draw();
    if (!form) return;
    const again = form.classList.contains('lead-edit') ? attrs.querySelector(':scope > button')
      : attrs.querySelector(`form.${form.classList[form.classList.length - 1]} [type="submit"]`);
    again?.focus();
  }

  function attrsInUse() {
    return attrs.contains(document.activeElement) || attrs.querySelector('form.lead-edit:not([hidden]), .form-error') !== null;
  }

  function detailRows() {
    const rows = [
      ['Stage', lead.stage?.stageLabel || '—'],
      ['Advisor', lead.primaryAdvisorName || 'Unassigned'],
      ['Contact', contactName(lead) || '—'],
      ['Email', lead.email || '—'],
      ['Phone', lead.phone || '—'],
      ['Industry', lead.industry || '—'],
      ['Monthly revenue', money(lead.monthlyRevenue)],
      ['Requested amount', money(lead.requestedAmount)],
      ['Source', lead.source.replaceAll('_', ' ')],
      ['Priority', lead.priority],
      ['Score', lead.leadScore ?? '—'],
      ['Do not call', lead.isDoNotCall ? 'Yes' : 'No'],
      ['Tags', lead.tags.length ? lead.tags.join(', ') : '—'],
      ['Created', date(lead.createdAt)],
      ['Last contacted', date(lead.lastContactedAt)],
    ];
    return h('dl', { class: 'attrs' }, rows.map(([k, v]) => [h('dt', {}, k), h('dd', { dataset: { attr: k } }, String(v))]));
  }

  function showTitle() {
    titleEl.textContent = lead.businessName || 'Lead';
    ctx.setTitle(lead.businessName || 'Lead');
  }

  function showDetails() {
    showTitle();
    attrs.querySelector('dl.attrs')?.replaceWith(detailRows());
  }

  function showAttrs() {
    showTitle();
    const edit = h('button', { type: 'button', 'aria-expanded': 'false' }, 'Edit details');
    const form = editForm();
    form.hidden = true;
    edit.addEventListener('click', () => {
      form.hidden = !form.hidden;
      edit.setAttribute('aria-expanded', String(!form.hidden));
      if (!form.hidden) form.querySelector('input')?.focus();
    });
    replace(attrs,
      h('h2', { id: 'lead-details' }, 'Details'),
      detailRows(),
      edit, form,
      stageForm(),
      assignForm(),
    );
  }

  function editForm() {
    const inputs = EDITABLE.map(([name, label, a]) => [name, label, h('input', { name, autocomplete: 'off', value: lead[name] ?? '', ...a })]);
    const prio = h('select', { name: 'priority' }, priorities.map((p) => h('option', { value: p.name, selected: p.name === lead.priority }, p.name)));
    const save = h('button', { type: 'submit', class: 'primary' }, 'Save');
    const form = h('form', { class: 'lead-edit', 'aria-label': 'Edit the lead', novalidate: true },
      inputs.map(([, label, input]) => formField(label, input)),
      formField('Priority', prio),
      save);
    return onFormSubmit(form, async () => {
      // Only what changed is sent; a field emptied is cleared. Amounts go
      // as typed, for the server to validate.
      const input = {};
      for (const [name, , el] of inputs) {
        const v = el.value.trim();
        const was = lead[name] ?? '';
        if (v === was) continue;
        if (v === '') input[`clear${name[0].toUpperCase()}${name.slice(1)}`] = true;
        else input[name] = v;
      }
      if (prio.value !== lead.priority) input.priority = prio.value;
      if (Object.keys(input).length === 0) return;
      await gql(UPDATE, { id, input });
      await reloadLead();
    }, { context: 'The lead could not be saved.' });
  }

  function stageForm() {
    const picker = h('select', { name: 'stageId' }, stages.map((st) => h('option', { value: st.id, selected: st.id === lead.stageId }, st.stageLabel)));
    const form = h('form', { class: 'inline-form lead-stage', 'aria-label': 'Move the lead to a stage' },
      formField('Stage', picker), h('button', { type: 'submit' }, 'Move'));
    return onFormSubmit(form, async () => {
      if (picker.value === lead.stageId) return;
      await gql(MOVE, { id, stageId: picker.value });
      await reloadLead();
    }, { context: 'The lead could not be moved.' });
  }

  function assignForm() {
    const picker = advisorSelect('Choose an advisor', { name: 'advisor' });
    // The picker shows the lead's advisor, even one outside its first page.
    picker.ready.then(() => {
      const current = lead.primaryAdvisorId;
      if (!current) return;
      if (![...picker.options].some((o) => o.value === current)) {
        picker.insertBefore(h('option', { value: current }, lead.primaryAdvisorName || current), picker.options[1] || null);
      }
      picker.value = current;
    });
    const form = h('form', { class: 'inline-form lead-assign', 'aria-label': 'Assign the lead' },
      formField('Primary advisor', picker), h('button', { type: 'submit' }, 'Assign'));
    return onFormSubmit(form, async () => {
      if (!picker.value || picker.value === '__more') throw fieldError('Choose an advisor to assign.', 'advisor');
      await gql(ASSIGN, { id, advisorId: picker.value });
      await reloadLead();
    }, { context: 'The lead could not be assigned.' });
  }

  const calls = pager({
    style: 'connection',
    limit: 10,
    caption: 'Calls, newest first',
    empty: 'No calls yet.',
    load: async ({ first, after }) => {
      const conn = (await gql(CALLS_QUERY, { id, first, after })).lead.callEvents;
      if (!after) {
        firstCalls = (conn.edges || []).map((e) => e.node);
        showTimeline();
      }
      return conn;
    },
    columns: [
      { label: 'When', render: (c) => date(c.occurredAt) },
      { label: 'Event', render: (c) => `${c.eventType}${c.direction ? ` (${c.direction})` : ''}` },
      { label: 'By', render: (c) => `${c.user.firstName} ${c.user.lastName}` },
      { label: 'Duration', render: (c) => (c.durationSeconds === null ? '—' : `${c.durationSeconds} s`) },
      { label: 'Disposition', render: (c) => c.disposition || '—' },
      { label: 'Notes', render: (c) => c.notes || '' },
    ],
  });

  const docs = pager({
    style: 'page',
    limit: 10,
    caption: 'Documents, newest first',
    empty: 'No documents yet.',
    load: async ({ page, limit }) => {
      const p = (await gql(DOCS_QUERY, { id, page, limit })).lead.documents;
      if (page === 1) {
        firstDocs = p.nodes;
        showTimeline();
      }
      return p;
    },
    columns: [
      { label: 'File', render: (d) => h('button', { type: 'button', class: 'link', onclick: () => download(d), 'aria-label': `Download ${d.filename}` }, d.filename) },
      { label: 'Category', render: (d) => d.category.replaceAll('_', ' ') },
      { label: 'Type', render: (d) => d.contentType },
      { label: 'Size', render: (d) => `${d.size.toLocaleString()} bytes` },
      { label: 'Uploaded', render: (d) => date(d.createdAt) },
    ],
  });

  const fileInput = h('input', { type: 'file', name: 'file', required: true });
  const category = h('select', { name: 'category' }, categories.map((c) => h('option', { value: c.name, title: c.description || null }, c.name.replaceAll('_', ' '))));
  category.value = 'other';
  const uploadButton = h('button', { type: 'submit' }, 'Upload');
  const uploadForm = h('form', { class: 'inline-form doc-upload', 'aria-label': 'Upload a document' },
    formField('File', fileInput, { hint: 'PDF, PNG, JPEG, CSV, XLSX or plain text.' }),
    formField('Category', category),
    uploadButton);
  onFormSubmit(uploadForm, async () => {
    const file = fileInput.files?.[0];
    if (!file) throw fieldError('Choose a file to upload.', 'file');
    try {
      await upload(UPLOAD, { recordId: id, file: null, category: category.value }, { file });
    } catch (err) {
      throw Object.assign(err, { context: `${file.name} could not be uploaded.` });
    }
    fileInput.value = '';
    await docs.reload();
  });

  /** Downloads a document through the public REST endpoint, as a blob. */
  async function download(d) {
    try {
      const res = await fetch(`/v1/documents/${encodeURIComponent(d.id)}/content`, {
        headers: { Authorization: `Bearer ${getKey()}` }, credentials: 'omit', cache: 'no-store',
      });
      if (!res.ok) {
        let message = `The download answered ${res.status} ${res.statusText}.`;
        let code = `HTTP_${res.status}`;
        try {
          const body = await res.json();
          const e = body?.errors?.[0] || body?.error || {};
          message = e.detail && typeof e.detail === 'string' ? e.detail : (e.title || e.message || message);
          code = e.code || code;
        } catch { /* the status says it */ }
        throw new ApiError({ message, code, requestId: res.headers.get('X-Request-Id') || '', status: res.status });
      }
      const url = URL.createObjectURL(await res.blob());
      const a = h('a', { href: url, download: d.filename, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    } catch (err) {
      showError(err, `${d.filename} could not be downloaded.`);
    }
  }

  function showTimeline() {
    const events = [
      { at: lead.createdAt, text: 'Lead created' },
      { at: lead.stageChangedAt, text: `Entered the ${lead.stage?.stageLabel || 'current'} stage` },
    ];
    for (const c of firstCalls) {
      events.push({ at: c.occurredAt, text: `Call ${c.eventType}${c.disposition ? `: ${c.disposition}` : ''} by ${c.user.firstName} ${c.user.lastName}` });
    }
    for (const d of firstDocs) events.push({ at: d.createdAt, text: `Document uploaded: ${d.filename}` });
    for (const a of lead.applications || []) {
      events.push({ at: a.submittedAt || a.createdAt, text: `Application to ${a.lenderName} submitted` });
      if (a.decidedAt) events.push({ at: a.decidedAt, text: `Application to ${a.lenderName}: ${a.status}` });
    }
    for (const f of lead.fundedDeals || []) events.push({ at: f.fundedAt, text: `Funded by ${f.lenderName}: ${money(f.fundedAmount)}` });
    events.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
    replace(timelineBox,
      h('h2', { id: 'lead-timeline' }, 'Timeline'),
      h('p', { class: 'hint' }, 'Composed from this lead\'s own records on this page: its creation, its current stage, the latest calls and documents, its applications and deals. Not a full history.'),
      h('ol', { class: 'timeline' }, events.filter((e) => e.at).map((e) => h('li', {}, h('time', { datetime: e.at }, date(e.at)), e.text))));
  }

  showAttrs();
  showTimeline();
  main.append(
    attrs,
    h('section', { 'aria-labelledby': 'lead-calls' }, h('h2', { id: 'lead-calls' }, 'Calls'), calls.element),
    lendingBox,
    h('section', { class: 'lead-documents', 'aria-labelledby': 'lead-documents' }, h('h2', { id: 'lead-documents' }, 'Documents'), uploadForm, docs.element),
    timelineBox,
  );
  const stopFollowing = followLead(id, () => lead, {
    lead: () => reloadLead({ live: true }).catch((err) => showError(err, 'This lead could not be refreshed.')),
    documents: () => docs.refresh(),
  });
  try {
    // Its stop function closes the section's subscription when the reader
    // leaves the lead.
    const stopLending = await renderLending(lendingBox, lead, ctx);
    return () => { stopFollowing(); stopLending?.(); };
  } catch (err) {
    showError(err, 'The lending records could not be shown.');
  }
  return stopFollowing;
}

// The events that change what the lead page shows. Lending events name an
// application or a deal, not the lead: they are matched against the
// lead's own, and a new application is a reason to look.
const LEAD_EVENTS = ['lead.status_changed', 'lead.updated', 'lead.assigned', 'application.submitted', 'application.approved',
  'application.declined', 'deal.funded', 'deal.commission_paid', 'document.uploaded'];

function concerns(ev, id, lead) {
  const d = ev.data || {};
  if (ev.event.startsWith('lead.')) return d.leadId === id;
  if (ev.event === 'document.uploaded') return d.recordId === id;
  const apps = new Set((lead.applications || []).map((a) => a.id));
  const deals = new Set((lead.fundedDeals || []).map((f) => f.id));
  return ev.event === 'application.submitted' || apps.has(d.applicationId) || deals.has(d.dealId);
}

/**
 * Follows the lead's changes made anywhere (this tab, another, the REST
 * API, an automation) over the events subscription, and calls refresh.lead
 * (and refresh.documents for a new document) at most every 300 ms.
 * Returns the function that stops following.
 */
function followLead(id, current, refresh) {
  let timer = null;
  let docs = false;
  const stop = subscribe('subscription LeadEvents($types: [String!]) { events(types: $types) { event data } }', { types: LEAD_EVENTS }, {
    next: ({ events: ev }) => {
      if (!concerns(ev, id, current())) return;
      docs ||= ev.event === 'document.uploaded';
      // A refresh already due covers this event too (a steady stream of
      // events must not postpone it for ever).
      timer ??= setTimeout(() => {
        timer = null;
        refresh.lead();
        if (docs) refresh.documents();
        docs = false;
      }, 300);
    },
    error: (err) => showError(err, 'Live updates of this lead stopped.'),
  });
  return () => {
    clearTimeout(timer);
    stop();
  };
}
