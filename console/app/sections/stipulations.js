// An approved application's stipulation checklist (PRODUCT 11): what the
// deal still waits for, each with what can be done to it now. A
// stipulation is met by picking a document already uploaded to the
// application or its lead, waived by an admin with a reason, and reopened
// with a reason. The lending section and the Applications screen show it
// under each approved offer.

import { gql } from '../api.js';
import { actionForm, date, formField, h } from '../ui.js';

export const STIPULATION_FIELDS = 'id text status documentIds receivedAt waivedAt waiveReason';

const STATUS_WORDS = { outstanding: 'Outstanding', received: 'Received', waived: 'Waived' };

// The documents of the application and of its lead, read when a form that
// picks one first opens: most checklists are read, not worked.
function documentsOf(app) {
  return gql(`query($app: ID!, $lead: ID!) {
    node(id: $app) { ... on Application { documents(limit: 100) { nodes { id filename category } } } }
    lead(id: $lead) { documents(limit: 100) { nodes { id filename category } } } }`, { app: app.id, lead: app.leadId })
    .then((d) => [...(d.node?.documents?.nodes ?? []), ...(d.lead?.documents?.nodes ?? [])]);
}

function reasonField(name = 'reason') {
  return formField('Reason', h('input', { type: 'text', name, autocomplete: 'off', maxlength: '500', required: true }));
}

// The form marking a stipulation received with one of the documents.
function satisfyForm(app, stip, done) {
  const pick = h('select', { name: 'documentIds', required: true }, h('option', { value: '' }, 'Loading documents…'));
  const form = actionForm('Mark received', `Marking "${stip.text}" received failed.`,
    [formField('Document', pick, { hint: "Upload it to the application or the lead first if it is not listed." })],
    'Mark received', async (f) => {
      const id = f.elements.documentIds.value;
      const data = await gql(`mutation($id: ID!, $docs: [ID!]!) { satisfyStipulation(id: $id, documentIds: $docs) { ${STIPULATION_FIELDS} } }`,
        { id: stip.id, docs: id ? [id] : [] });
      done(data.satisfyStipulation);
    }, { className: 'satisfy' });
  let loaded = false;
  form.addEventListener('toggle', () => {
    if (!form.open || loaded) return;
    loaded = true;
    documentsOf(app).then((docs) => {
      pick.replaceChildren(h('option', { value: '' }, docs.length ? 'Choose a document' : 'No document uploaded yet'),
        ...docs.map((d) => h('option', { value: d.id }, d.filename)));
    }, () => {
      loaded = false;
      pick.replaceChildren(h('option', { value: '' }, 'The documents could not be loaded'));
    });
  });
  return form;
}

function waiveForm(stip, done) {
  return actionForm('Waive', `Waiving "${stip.text}" failed.`, [reasonField()], 'Waive', async (f) => {
    const data = await gql(`mutation($id: ID!, $reason: String!) { waiveStipulation(id: $id, reason: $reason) { ${STIPULATION_FIELDS} } }`,
      { id: stip.id, reason: f.elements.reason.value.trim() });
    done(data.waiveStipulation);
  }, { className: 'waive' });
}

function reopenForm(stip, done) {
  return actionForm('Reopen', `Reopening "${stip.text}" failed.`, [reasonField()], 'Reopen', async (f) => {
    const data = await gql(`mutation($id: ID!, $reason: String!) { reopenStipulation(id: $id, reason: $reason) { ${STIPULATION_FIELDS} } }`,
      { id: stip.id, reason: f.elements.reason.value.trim() });
    done(data.reopenStipulation);
  }, { className: 'reopen' });
}

function addForm(app, done) {
  return actionForm('Add stipulation', 'Adding the stipulation failed.',
    [formField('What is owed', h('input', { type: 'text', name: 'text', autocomplete: 'off', maxlength: '100', required: true }))],
    'Add', async (f) => {
      const data = await gql(`mutation($app: ID!, $text: String!) { addStipulation(applicationId: $app, text: $text) { ${STIPULATION_FIELDS} } }`,
        { app: app.id, text: f.elements.text.value.trim() });
      done(data.addStipulation);
    }, { className: 'add-stipulation' });
}

// How a met stipulation was met, in words.
function metBy(stip) {
  if (stip.status === 'received') return `on ${date(stip.receivedAt)}`;
  if (stip.status === 'waived') return `on ${date(stip.waivedAt)}: ${stip.waiveReason}`;
  return '';
}

/**
 * The checklist of app (an application read with its stipulations).
 * writes says whether the reader may change it, canWaive whether they may
 * waive (admin), changed() runs after each change, to read the application
 * again, and heading is the level of its title (under an offer's h4, h5).
 */
export function stipulationChecklist(app, { writes = false, canWaive = false, changed = () => {}, heading = 'h5' } = {}) {
  const stips = app.stipulations ?? [];
  const live = writes && app.status === 'approved';
  const items = stips.map((s) => h('li', { class: ['stipulation', `stip-${s.status}`], dataset: { stipulation: s.id } },
    h('span', { class: 'stip-text' }, s.text), ' ',
    h('span', { class: ['badge', `stip-status-${s.status}`] }, STATUS_WORDS[s.status] ?? s.status),
    s.status !== 'outstanding' ? h('span', { class: 'muted' }, ` ${metBy(s)}`) : null,
    live ? h('div', { class: 'action-list' },
      s.status === 'outstanding' ? satisfyForm(app, s, changed) : null,
      s.status === 'outstanding' && canWaive ? waiveForm(s, changed) : null,
      s.status !== 'outstanding' ? reopenForm(s, changed) : null) : null));
  const outstanding = stips.filter((s) => s.status === 'outstanding').length;
  const title = stips.length === 0 ? 'No stipulations'
    : outstanding ? `Stipulations: ${outstanding} of ${stips.length} outstanding` : `Stipulations: all ${stips.length} met`;
  return h('div', { class: 'stipulations', dataset: { application: app.id } },
    h(heading, {}, title),
    items.length ? h('ul', { class: 'checklist' }, items) : null,
    live ? addForm(app, changed) : null);
}
