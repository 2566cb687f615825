// Automations: the paged list, and an automation's run log with each run's
// status, error and errorCode; a failed run can be queued again with its
// stored input.

import { gql } from '../api.js';
import { clearError, date, formField, h, pager, replace, showError } from '../ui.js';
import { json } from './inbound.js';

const LIST = `query Automations($first: Int, $after: Cursor) {
  automations(first: $first, after: $after, orderBy: {field: CREATED_AT, direction: DESC}) {
    edges { node { id name isActive endpointId triggerEvent requiredFields createdAt actions { type } conditions { path op } } }
    pageInfo { hasNextPage endCursor }
    totalCount
  }
}`;

const ENDPOINT_NAMES = `query EndpointNames($ids: [ID!]) {
  inboundEndpoints(first: 100, where: {idIn: $ids}) { edges { node { id name } } }
}`;

const RUNS = `query AutomationRuns($automationId: ID!, $status: String, $page: Int, $limit: Int) {
  automationRuns(automationId: $automationId, status: $status, page: $page, limit: $limit) {
    nodes { id status attempts nextAttemptAt inboundRequestId eventId input leadId error errorCode createdAt finishedAt }
    total page limit hasMore
  }
}`;

const RETRY = `mutation RetryAutomationRun($automationId: ID!, $runId: ID!) {
  retryAutomationRun(automationId: $automationId, runId: $runId) { id status }
}`;

const FILTERS = [['', 'Every run'], ['queued', 'Queued'], ['succeeded', 'Succeeded'], ['skipped', 'Skipped'], ['failed', 'Failed']];
const STATUS_CLASS = { queued: 'status-break', succeeded: 'status-online', skipped: '', failed: 'status-offline' };

// Endpoint names of the page shown, read with the page.
const endpointNames = new Map();

function trigger(a) {
  if (a.triggerEvent) return h('span', {}, 'Event ', h('code', {}, a.triggerEvent));
  const name = endpointNames.get(a.endpointId);
  if (name) return h('span', {}, 'Inbound endpoint ', h('a', { href: '#/inbound' }, name));
  return h('span', {}, 'Inbound endpoint ', h('code', { class: 'break-anywhere' }, a.endpointId || '—'));
}

/** Fills main. */
export async function render(main, ctx) {
  const detail = h('section', { class: 'detail', 'aria-live': 'polite' });

  function showRuns(a) {
    clearError();
    const heading = h('h2', { tabindex: '-1' }, `Runs of ${a.name}`);
    const notice = h('p', { class: 'notice', role: 'status' });
    const filter = h('select', { name: 'run-status' }, FILTERS.map(([value, label]) => h('option', { value }, label)));
    let runs;
    const retry = async (run) => {
      clearError();
      try {
        const r = (await gql(RETRY, { automationId: a.id, runId: run.id })).retryAutomationRun;
        notice.textContent = `Run ${r.id} queued again; Refresh to see its result.`;
        await runs.refresh();
      } catch (err) {
        showError(err, 'The run was not retried.');
      }
    };
    runs = pager({
      style: 'page',
      limit: 20,
      caption: 'Runs, newest first',
      empty: 'No runs in this state.',
      columns: [
        { label: 'Queued', render: (r) => date(r.createdAt) },
        { label: 'Status', render: (r) => h('span', { class: ['badge', 'run-status', STATUS_CLASS[r.status]] }, r.status) },
        { label: 'Attempts', render: (r) => h('span', {}, String(r.attempts), r.nextAttemptAt ? h('span', { class: 'muted' }, ` next ${date(r.nextAttemptAt)}`) : null) },
        { label: 'Error', render: (r) => r.error || '—' },
        { label: 'Code', render: (r) => (r.errorCode ? h('code', { class: 'error-code' }, r.errorCode) : '—') },
        { label: 'Lead', render: (r) => (r.leadId ? h('a', { href: `#/leads/${encodeURIComponent(r.leadId)}` }, 'Open lead') : '—') },
        { label: 'Input', render: (r) => json('Input', r.input) },
        {
          label: 'Actions',
          render: (r) => (r.status === 'failed'
            ? h('button', { type: 'button', class: 'retry', 'aria-label': `Retry the run queued ${date(r.createdAt)}`, onclick: () => retry(r) }, 'Retry')
            : ''),
        },
      ],
      load: async ({ page, limit }) => (await gql(RUNS, { automationId: a.id, status: filter.value || null, page, limit })).automationRuns,
    });
    filter.addEventListener('change', () => runs.reload());
    replace(detail,
      heading,
      notice,
      h('div', { class: 'toolbar' },
        formField('Show', filter),
        h('button', { type: 'button', onclick: () => runs.refresh() }, 'Refresh')),
      runs.element);
    heading.focus();
  }

  const list = pager({
    style: 'connection',
    limit: 20,
    caption: 'Automations, newest first',
    empty: 'No automations yet: create them with the createAutomation mutation (see the playground).',
    columns: [
      { label: 'Name', render: (a) => a.name },
      { label: 'Trigger', render: trigger },
      { label: 'Steps', render: (a) => a.actions.map((x) => x.type).join(', ') },
      { label: 'Conditions', render: (a) => (a.conditions.length ? a.conditions.map((c) => `${c.path} ${c.op}`).join('; ') : '—') },
      { label: 'State', render: (a) => (a.isActive ? 'Active' : 'Off') },
      { label: 'Runs', render: (a) => h('button', { type: 'button', 'aria-label': `Runs of ${a.name}`, onclick: () => showRuns(a) }, 'Runs') },
    ],
    load: async (args) => {
      const page = (await gql(LIST, args)).automations;
      const ids = [...new Set(page.edges.map((e) => e.node.endpointId).filter(Boolean))];
      if (ids.length) {
        const named = (await gql(ENDPOINT_NAMES, { ids })).inboundEndpoints.edges;
        for (const e of named) endpointNames.set(e.node.id, e.node.name);
      }
      return page;
    },
  });

  main.append(h('h1', {}, ctx.title), list.element, detail);
}
