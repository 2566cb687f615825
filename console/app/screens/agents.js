// The live agents board: the first page comes from agentsBoard, then the
// agentPresenceChanged subscription replaces rows in place as dialers
// report, so a supervisor sees who is free without reloading. Rows are
// keyed by the agent's id; an event for an agent on another page is kept
// and used when that page is shown.

import { gql, subscribe } from '../api.js';
import { count, date, h, pager, replace, showError } from '../ui.js';

const FIELDS = `id userId firstName lastName email status currentCallId currentLeadId currentLeadName
  callStartedAt statusChangedAt callsToday dispositionCount campaignName statusTimeSec`;

const BOARD = `query AgentsBoard($first: Int, $after: Cursor) {
  agentsBoard(first: $first, after: $after) {
    edges { node { ${FIELDS} } }
    pageInfo { hasNextPage endCursor }
    totalCount
  }
}`;

// Every agent's status, for the summary line: ids and statuses only, in
// pages of the largest size, however many agents there are.
const STATUSES = `query AgentsStatuses($after: Cursor) {
  agentsBoard(first: 100, after: $after) {
    edges { node { id status } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const CHANGED = `subscription AgentPresenceChanged { agentPresenceChanged { ${FIELDS} } }`;

const STATUS_WORDS = { online: 'Online', on_call: 'On a call', break: 'On a break', offline: 'Offline' };

/** What each column shows for an agent's row. */
const CELLS = {
  agent: (a) => h('span', {}, h('strong', {}, `${a.firstName} ${a.lastName}`), h('br'), h('span', { class: 'muted' }, a.email)),
  status: (a) => h('span', { class: ['badge', `status-${a.status}`] }, STATUS_WORDS[a.status] || a.status),
  since: (a) => (a.statusChangedAt ? h('time', { datetime: a.statusChangedAt }, date(a.statusChangedAt)) : 'Never reported'),
  call: (a) => {
    if (a.status !== 'on_call') return '—';
    const lead = a.currentLeadId
      ? h('a', { href: `#/leads/${encodeURIComponent(a.currentLeadId)}` }, a.currentLeadName || 'Lead')
      : null;
    return h('span', {},
      lead, lead ? h('br') : null,
      a.currentCallId ? h('span', { class: 'muted' }, `Call ${a.currentCallId}`) : null,
      a.callStartedAt ? h('span', { class: 'muted' }, ` since ${date(a.callStartedAt)}`) : null);
  },
  today: (a) => `${a.callsToday} calls, ${a.dispositionCount} dispositions`,
  campaign: (a) => a.campaignName || '—',
};

/** Every agent's status by id, read page by page. */
async function allStatuses() {
  const statuses = new Map();
  let after = null;
  do {
    const { agentsBoard: page } = await gql(STATUSES, { after });
    for (const { node } of page.edges) statuses.set(node.id, node.status);
    after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
  } while (after);
  return statuses;
}

/** "N online · N on a call · N available · N offline": online is anyone not offline. */
function summaryText(statuses) {
  const n = { online: 0, on_call: 0, available: 0, offline: 0 };
  for (const status of statuses.values()) {
    if (status === 'offline') n.offline++;
    else n.online++;
    if (status === 'on_call') n.on_call++;
    if (status === 'online') n.available++;
  }
  return `${count(n.online)} online · ${count(n.on_call)} on a call · ${count(n.available)} available · ${count(n.offline)} offline`;
}

/** Fills main; returns the cleanup that closes the subscription. */
export async function render(main, ctx) {
  const live = h('p', { class: 'live-status', role: 'status' }, 'Connecting to live updates…');
  // The freshest row seen for each agent since the shown page was asked
  // for: a page read before an event must not undo it.
  const latest = new Map();

  const cell = (node, key) => {
    const row = latest.get(node.id) || node;
    return h('span', { class: 'cell', dataset: { agent: row.id, cell: key } }, CELLS[key](row));
  };
  const column = (label, key) => ({ label, render: (n) => cell(n, key) });

  const list = pager({
    style: 'connection',
    limit: 25,
    caption: 'Agents, by last name',
    empty: 'No users have the agent role yet.',
    columns: [
      column('Agent', 'agent'),
      column('Status', 'status'),
      column('Since', 'since'),
      column('Current call', 'call'),
      column('Today', 'today'),
      column('Campaign', 'campaign'),
    ],
    load: async (args) => {
      latest.clear();
      return (await gql(BOARD, args)).agentsBoard;
    },
  });

  // Events that arrive before the statuses are read are applied after.
  let statuses = null;
  const early = [];
  const summary = h('p', { class: 'agents-summary' });
  const showSummary = () => { if (statuses) summary.textContent = summaryText(statuses); };

  main.append(
    h('h1', {}, ctx.title),
    h('p', { class: 'muted' }, 'Each agent\'s dialer status as the dialer reports it; rows change as it does.'),
    live,
    summary,
    h('div', { class: 'agents-board' }, list.element),
  );

  const unsubscribe = subscribe(CHANGED, {}, {
    next: (data) => {
      const row = data?.agentPresenceChanged;
      if (!row) return;
      latest.set(row.id, row);
      if (statuses) statuses.set(row.id, row.status);
      else early.push(row);
      showSummary();
      for (const span of main.querySelectorAll('.cell[data-agent]')) {
        if (span.dataset.agent === row.id) replace(span, CELLS[span.dataset.cell](row));
      }
    },
    error: (err) => {
      live.textContent = 'Live updates stopped; reload the screen to resume them.';
      showError(err, 'Live agent updates failed.');
    },
    complete: () => { live.textContent = 'Live updates ended.'; },
  });
  live.textContent = 'Live: rows change as agents report.';
  allStatuses().then((read) => {
    statuses = read;
    for (const row of early) statuses.set(row.id, row.status);
    showSummary();
  }, (err) => showError(err, 'The agents\' summary could not be loaded.'));
  return unsubscribe;
}
