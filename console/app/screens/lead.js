// The lead screen: the lead's attributes (edit, assign), its calls, its
// lending records, its documents (upload, download) and a timeline made
// from the records this screen reads.

import { gql, upload, ApiError } from '../api.js';
import { getKey } from '../key.js';
import { renderLending } from '../sections/lending.js';
import { clearError, date, formField, h, money, pager, replace, showError } from '../ui.js';
import { advisorSelect, contactName, enumValues } from './board.js';

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

  const [priorities, categories] = await Promise.all([enumValues('LeadPriority'), enumValues('DocumentCategory')]);
  if (!ctx.isCurrent()) return undefined;

  const titleEl = head.querySelector('h1');
  const attrs = h('section', { class: 'lead-attrs', 'aria-labelledby': 'lead-details' });
  const lendingBox = h('section', { class: 'lead-lending', 'aria-label': 'Applications, deals and commissions' });
  const timelineBox = h('section', { class: 'lead-timeline', 'aria-labelledby': 'lead-timeline' });
  let firstCalls = [];
  let firstDocs = [];

  async function reloadLead() {
    lead = (await gql(LEAD_QUERY, { id })).lead;
    showAttrs();
    showTimeline();
  }

  function showAttrs() {
    titleEl.textContent = lead.businessName || 'Lead';
    ctx.setTitle(lead.businessName || 'Lead');
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
      h('dl', { class: 'attrs' }, rows.map(([k, v]) => [h('dt', {}, k), h('dd', { dataset: { attr: k } }, String(v))])),
      edit, form,
      assignForm(),
    );
  }

  function editForm() {
    const inputs = EDITABLE.map(([name, label, a]) => [name, label, h('input', { name, autocomplete: 'off', value: lead[name] ?? '', ...a })]);
    const prio = h('select', { name: 'priority' }, priorities.map((p) => h('option', { value: p.name, selected: p.name === lead.priority }, p.name)));
    const save = h('button', { type: 'submit', class: 'primary' }, 'Save');
    const form = h('form', { class: 'lead-edit', 'aria-label': 'Edit the lead' },
      inputs.map(([, label, input]) => formField(label, input)),
      formField('Priority', prio),
      save);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
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
      save.disabled = true;
      try {
        clearError();
        await gql(UPDATE, { id, input });
        await reloadLead();
      } catch (err) {
        showError(err, 'The lead could not be saved.');
      } finally {
        save.disabled = false;
      }
    });
    return form;
  }

  function assignForm() {
    const picker = advisorSelect('Choose an advisor', { name: 'advisor' });
    const button = h('button', { type: 'submit' }, 'Assign');
    const form = h('form', { class: 'inline-form lead-assign', 'aria-label': 'Assign the lead' },
      formField('Primary advisor', picker), button);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      if (!picker.value || picker.value === '__more') {
        showError(new ApiError({ message: 'Choose an advisor to assign.', code: 'VALIDATION_ERROR' }));
        return;
      }
      button.disabled = true;
      try {
        clearError();
        await gql(ASSIGN, { id, advisorId: picker.value });
        await reloadLead();
      } catch (err) {
        showError(err, 'The lead could not be assigned.');
      } finally {
        button.disabled = false;
      }
    });
    return form;
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
  uploadForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const file = fileInput.files?.[0];
    if (!file) return;
    uploadButton.disabled = true;
    try {
      clearError();
      await upload(UPLOAD, { recordId: id, file: null, category: category.value }, { file });
      fileInput.value = '';
      await docs.reload();
    } catch (err) {
      showError(err, `${file.name} could not be uploaded.`);
    } finally {
      uploadButton.disabled = false;
    }
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
    h('h2', {}, 'Lending'),
    lendingBox,
    h('section', { class: 'lead-documents', 'aria-labelledby': 'lead-documents' }, h('h2', { id: 'lead-documents' }, 'Documents'), uploadForm, docs.element),
    timelineBox,
  );
  try {
    // Its stop function closes the section's subscription when the reader
    // leaves the lead.
    return await renderLending(lendingBox, lead, ctx);
  } catch (err) {
    showError(err, 'The lending records could not be shown.');
  }
  return undefined;
}
