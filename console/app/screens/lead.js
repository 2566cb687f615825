// The lead screen: the lead's attributes (edit, assign), its calls, its
// lending records, its documents (upload, download) and its stored history
// (Lead.activity), newest first.

import { authHeaders, credentialsMode, gql, subscribe, upload, ApiError } from '../api.js';
import { renderLending } from '../sections/lending.js';
import { renderNotes } from '../sections/notes.js';
import { renderTasks } from '../sections/tasks.js';
import {
  date, fieldError, formField, h, money, onFormSubmit, pager, replace, reportError, showError,
} from '../ui.js';
import { advisorSelect, allStages, contactName, enumValues } from './board.js';

// The lead, with the ids of its lending records when the caller may read
// them (an agent's role may not): the live updates match lending events
// against them.
const leadQuery = (lending) => `query Lead($id: ID!) {
  lead(id: $id) {
    id createdAt updatedAt businessName contactFirstName contactLastName email phone industry
    monthlyRevenue requestedAmount source priority isDoNotCall tags leadScore stageId stageChangedAt
    lastContactedAt primaryAdvisorId primaryAdvisorName createdBy
    stage { id stageLabel }
    ${lending ? 'applications { id } fundedDeals { id }' : ''}
  }
}`;

const ACTIVITY_QUERY = `query LeadActivity($id: ID!, $first: Int!, $after: String) {
  lead(id: $id) {
    activity(first: $first, after: $after) {
      totalCount
      edges { node { id at kind summary actor { type id name } changes { field from to } } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

// A history page's size, and the most one refresh reads again.
const ACTIVITY_PAGE = 20;
const ACTIVITY_MOST = 100;

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
    lead = (await gql(leadQuery(!ctx.can || ctx.can('lending:read')), { id })).lead;
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
  // The lending, notes and tasks sections bring their own headings and landmarks.
  const lendingBox = h('div', { class: 'lead-lending' });
  const workBox = h('div', { class: 'lead-work' });
  const timeline = activityTimeline(id, stages);

  // live: a change made elsewhere, which leaves alone the forms the
  // reader is using and redraws only what they read.
  async function reloadLead({ live = false } = {}) {
    lead = (await gql(leadQuery(!ctx.can || ctx.can('lending:read')), { id })).lead;
    if (live && attrsInUse()) showDetails();
    else keepFocus(showAttrs);
    timeline.refresh();
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
    load: async ({ first, after }) => (await gql(CALLS_QUERY, { id, first, after })).lead.callEvents,
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
    load: async ({ page, limit }) => (await gql(DOCS_QUERY, { id, page, limit })).lead.documents,
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
    timeline.refresh();
  });

  /** Downloads a document through the public REST endpoint, as a blob. */
  async function download(d) {
    try {
      const res = await fetch(`/v1/documents/${encodeURIComponent(d.id)}/content`, {
        headers: authHeaders(), credentials: credentialsMode(), cache: 'no-store',
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
      // A 401 is an ended session or a revoked key: back to sign-in.
      reportError(err, `${d.filename} could not be downloaded.`);
    }
  }

  showAttrs();
  main.append(
    attrs,
    workBox,
    h('section', { 'aria-labelledby': 'lead-calls' }, h('h2', { id: 'lead-calls' }, 'Calls'), calls.element),
    lendingBox,
    h('section', { class: 'lead-documents', 'aria-labelledby': 'lead-documents' }, h('h2', { id: 'lead-documents' }, 'Documents'), uploadForm, docs.element),
    timeline.element,
  );
  // Notes and tasks: their own modules (sections/notes.js, tasks.js).
  // Their writes are entries of the lead's history: it is read again.
  const work = { ...ctx, changed: () => timeline.refresh() };
  Promise.all([renderTasks(workBox, id, work), renderNotes(workBox, id, work)])
    .catch((err) => showError(err, 'The notes and tasks could not be shown.'));
  const stopFollowing = followLead(id, () => lead, {
    lead: () => reloadLead({ live: true }).catch((err) => showError(err, 'This lead could not be refreshed.')),
    documents: () => { docs.refresh(); timeline.refresh(); },
  });
  try {
    // Its stop function closes the section's subscription when the reader
    // leaves the lead.
    // The page's own lending actions change the lead's history too.
    const stopLending = await renderLending(lendingBox, lead, ctx, { changed: () => timeline.refresh() });
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

/**
 * The lead's stored history, newest first: a page at a time ("Show more"
 * reads the next by cursor), each entry with its time, who made it, its
 * summary and the attributes it changed. refresh() reads again as many
 * entries as are shown (at least a page), so an entry written by this
 * page's own actions, or elsewhere, appears at the top.
 */
function activityTimeline(id, stages) {
  const list = h('ol', { class: 'timeline', 'aria-busy': 'false' });
  const status = h('p', { class: 'muted timeline-status', 'aria-live': 'polite' });
  const more = h('button', { type: 'button', class: 'timeline-more', hidden: true }, 'Show more');
  const element = h('section', { class: 'lead-timeline', 'aria-labelledby': 'lead-timeline' },
    h('h2', { id: 'lead-timeline' }, 'Activity'), list, status, more);
  const stageLabels = new Map(stages.map((st) => [st.id, st.stageLabel]));
  let shown = 0;
  let endCursor = null;
  let seq = 0;

  async function read(first, after) {
    return (await gql(ACTIVITY_QUERY, { id, first, after })).lead.activity;
  }

  function show(conn, { append }) {
    const items = (conn.edges || []).map((e) => entry(e.node));
    if (append) list.append(...items);
    else list.replaceChildren(...items);
    shown = list.children.length;
    endCursor = conn.pageInfo.endCursor;
    more.hidden = !conn.pageInfo.hasNextPage;
    status.textContent = conn.totalCount === 0 ? 'No activity yet.' : `${shown} of ${conn.totalCount} entries`;
  }

  async function refresh() {
    const mine = ++seq;
    list.setAttribute('aria-busy', 'true');
    try {
      const conn = await read(Math.min(ACTIVITY_MOST, Math.max(ACTIVITY_PAGE, shown)), null);
      if (mine === seq) show(conn, { append: false });
    } catch (err) {
      if (mine === seq) showError(err, "This lead's activity could not be loaded.");
    } finally {
      if (mine === seq) list.setAttribute('aria-busy', 'false');
    }
  }

  more.addEventListener('click', async () => {
    const mine = ++seq;
    more.disabled = true;
    try {
      const conn = await read(ACTIVITY_PAGE, endCursor);
      if (mine !== seq) return;
      const first = list.children.length;
      show(conn, { append: true });
      // The reader goes on from the first entry shown, not back to the top.
      list.children[first]?.focus();
    } catch (err) {
      showError(err, "More of this lead's activity could not be loaded.");
    } finally {
      more.disabled = false;
    }
  });

  function entry(a) {
    return h('li', { tabindex: '-1', dataset: { kind: a.kind } },
      h('time', { datetime: a.at }, date(a.at)), ' ',
      h('span', { class: 'actor' }, actorName(a.actor)),
      ' ',
      h('span', { class: 'summary' }, a.summary),
      a.changes.length ? h('ul', { class: 'changes' }, a.changes.map((c) => h('li', {},
        h('span', { class: 'field' }, fieldWords(c.field)), ': ',
        h('span', { class: 'from' }, value(c.field, c.from)), ' → ',
        h('span', { class: 'to' }, value(c.field, c.to))))) : null);
  }

  function value(field, v) {
    if (v === null || v === undefined || v === '') return '—';
    if (field === 'stageId' && stageLabels.has(v)) return stageLabels.get(v);
    if (Array.isArray(v)) return v.length ? v.join(', ') : '—';
    if (typeof v === 'object') return JSON.stringify(v);
    return String(v);
  }

  refresh();
  return { element, refresh };
}

/** Who made a change, in words: their name, else what they are. */
function actorName(actor) {
  if (actor.name) return actor.name;
  switch (actor.type) {
    case 'connector': return 'The dialer connector';
    case 'api_key': return 'An API key';
    case 'app': return 'An app';
    case 'user': return 'A former user';
    default: return actor.id?.startsWith('automation:') ? 'An automation' : 'The system';
  }
}

/** An attribute's API name in words: requestedAmount -> requested amount; stageId -> stage. */
function fieldWords(field) {
  return field.replace(/Id$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}
