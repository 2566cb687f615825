// One webhook subscription's delivery log (#/webhooks/<id>): deliveries
// newest first, filtered by state (the dead-letter queue is the dead
// filter), each with its attempts; a delivery can be sent again (same
// X-Webhook-Id), and so can the whole dead-letter queue or every event of a
// time range. Deliveries move on in the server's worker; Refresh re-reads
// the page shown.

import { gql } from '../api.js';
import { clearError, date, formField, h, pager, replace, showError } from '../ui.js';
import { stateOf } from './webhooks.js';

// Subscriptions are not Relay nodes: the list filtered by id finds one.
const SUBSCRIPTION = `query WebhookSubscription($id: ID!) {
  webhookSubscriptions(first: 1, where: {id: $id}) {
    edges { node { id url events isActive pausedReason pausedAt consecutiveFailures createdAt } }
  }
}`;

const DELIVERIES = `query WebhookDeliveries($subscriptionId: ID!, $status: String, $page: Int, $limit: Int) {
  webhookDeliveries(subscriptionId: $subscriptionId, status: $status, page: $page, limit: $limit) {
    nodes {
      webhookId eventId eventType status attempts nextAttemptAt lastStatusCode lastError deliveredAt deadAt createdAt
      attemptLog { attemptedAt statusCode latencyMs error responseExcerpt }
    }
    total page limit hasMore
  }
}`;

const REPLAY_ONE = `mutation ReplayWebhookDelivery($subscriptionId: ID!, $deliveryId: ID!) {
  replayWebhookDelivery(subscriptionId: $subscriptionId, deliveryId: $deliveryId) { webhookId status }
}`;

const REPLAY_MANY = `mutation ReplayWebhookDeliveries($subscriptionId: ID!, $since: Time, $until: Time) {
  replayWebhookDeliveries(subscriptionId: $subscriptionId, since: $since, until: $until)
}`;

const FILTERS = [
  ['', 'Every delivery'],
  ['pending', 'Pending: waiting for an attempt, failed ones included'],
  ['succeeded', 'Delivered'],
  ['dead', 'Dead letters: every attempt failed'],
];

/** A delivery's state in words, telling a failing pending delivery from a fresh one. */
function statusOf(d) {
  if (d.status === 'succeeded') return h('span', { class: 'badge status-online delivery-status' }, 'Delivered');
  if (d.status === 'dead') return h('span', { class: 'badge status-offline delivery-status' }, 'Dead letter');
  if (d.attempts > 0) return h('span', { class: 'badge status-break delivery-status' }, 'Failed, will retry');
  return h('span', { class: 'badge delivery-status' }, 'Pending');
}

function lastAnswer(d) {
  const parts = [];
  if (d.lastStatusCode !== null && d.lastStatusCode !== undefined) parts.push(`HTTP ${d.lastStatusCode}`);
  if (d.lastError) parts.push(d.lastError);
  return parts.length ? parts.join(': ') : '—';
}

function attemptsOf(d) {
  const when = d.status === 'pending' && d.nextAttemptAt ? h('span', { class: 'muted' }, ` next ${date(d.nextAttemptAt)}`) : null;
  if (d.attemptLog.length === 0) return h('span', {}, String(d.attempts), when);
  return h('div', {}, `${d.attempts}`, when, h('details', {},
    h('summary', {}, 'Attempts'),
    h('ol', { class: 'attempt-log' }, d.attemptLog.map((a) => h('li', {},
      `${date(a.attemptedAt)}: `,
      a.statusCode !== null && a.statusCode !== undefined ? `HTTP ${a.statusCode}` : 'no answer',
      ` in ${a.latencyMs} ms`,
      a.error ? `, ${a.error}` : '',
      a.responseExcerpt ? h('pre', { class: 'excerpt' }, a.responseExcerpt) : null)))));
}

/** Reads a datetime-local field as an RFC 3339 time, or null when empty. */
function timeOf(input) {
  if (!input.value) return null;
  const t = new Date(input.value);
  return Number.isNaN(t.getTime()) ? input.value : t.toISOString();
}

/** Fills main. */
export async function render(main, ctx, params) {
  const subscriptionId = params.id;
  let sub = null;
  try {
    sub = (await gql(SUBSCRIPTION, { id: subscriptionId })).webhookSubscriptions.edges[0]?.node ?? null;
  } catch (err) {
    // An id that is not a UUID is refused as invalid input: the same "no
    // such subscription" to the reader.
    if (err.code !== 'VALIDATION_ERROR' && err.code !== 'NOT_FOUND') throw err;
  }
  if (!sub) {
    main.append(h('h1', {}, ctx.title), h('p', {}, 'No webhook subscription has this id. ', h('a', { href: '#/webhooks' }, 'Back to the subscriptions')));
    return undefined;
  }
  ctx.setTitle(`Deliveries to ${sub.url}`);

  const notice = h('p', { class: 'notice', role: 'status' });
  const filter = h('select', { name: 'status' }, FILTERS.map(([value, label]) => h('option', { value }, label)));
  let list;

  async function replayOne(d) {
    clearError();
    try {
      const r = await gql(REPLAY_ONE, { subscriptionId, deliveryId: d.webhookId.replace(/^msg_/, '') });
      notice.textContent = `Delivery ${r.replayWebhookDelivery.webhookId} queued again from its first attempt; Refresh to see its result.`;
      await list.refresh();
    } catch (err) {
      showError(err, 'The delivery was not replayed.');
    }
  }

  list = pager({
    style: 'page',
    limit: 20,
    caption: 'Deliveries, newest first',
    empty: 'No deliveries in this state.',
    columns: [
      { label: 'Delivery', render: (d) => h('span', {}, h('code', {}, d.webhookId), h('br'), h('span', { class: 'muted' }, `${d.eventType}, queued ${date(d.createdAt)}`)) },
      { label: 'Status', render: (d) => h('span', {}, statusOf(d),
        d.deliveredAt ? h('span', { class: 'muted' }, ` ${date(d.deliveredAt)}`) : null,
        d.deadAt ? h('span', { class: 'muted' }, ` ${date(d.deadAt)}`) : null) },
      { label: 'Attempts', render: attemptsOf },
      { label: 'Last answer', render: lastAnswer },
      {
        label: 'Actions',
        render: (d) => h('button', { type: 'button', class: 'replay', 'aria-label': `Replay delivery ${d.webhookId}`, onclick: () => replayOne(d) }, 'Replay'),
      },
    ],
    load: async ({ page, limit }) => (await gql(DELIVERIES, { subscriptionId, status: filter.value || null, page, limit })).webhookDeliveries,
  });
  filter.addEventListener('change', () => list.reload());

  const since = h('input', { type: 'datetime-local', name: 'since', required: true });
  const until = h('input', { type: 'datetime-local', name: 'until' });
  async function replayMany(args, what) {
    clearError();
    try {
      const n = (await gql(REPLAY_MANY, { subscriptionId, ...args })).replayWebhookDeliveries;
      notice.textContent = `${n} ${n === 1 ? 'delivery' : 'deliveries'} queued (${what}); Refresh to see them move on.`;
      await list.refresh();
    } catch (err) {
      showError(err, 'Nothing was replayed.');
    }
  }

  const summary = h('div', { class: 'subscription-summary' });
  replace(summary,
    h('p', {}, stateOf(sub)),
    h('p', {}, 'Events: ', sub.events.join(', ')));

  main.append(
    h('p', {}, h('a', { href: '#/webhooks' }, '← Subscriptions')),
    h('h1', {}, 'Deliveries to ', h('span', { class: 'break-anywhere' }, sub.url)),
    summary,
    notice,
    h('div', { class: 'toolbar' },
      formField('Show', filter),
      h('button', { type: 'button', onclick: () => list.refresh() }, 'Refresh')),
    list.element,
    h('section', { class: 'replay-range', 'aria-labelledby': 'replay-heading' },
      h('h2', { id: 'replay-heading' }, 'Send again'),
      h('p', {}, h('button', { type: 'button', onclick: () => replayMany({}, 'the dead-letter queue') }, 'Replay every dead letter')),
      h('form', {
        'aria-label': 'Replay a time range',
        onsubmit: (ev) => {
          ev.preventDefault();
          replayMany({ since: timeOf(since), until: timeOf(until) }, 'the events of the time range');
        },
      },
      formField('Events since', since, { hint: 'Every event of this subscription\'s types that occurred at or after this local time is sent again.' }),
      formField('Until (optional)', until, { hint: 'Events before this time; now when empty.' }),
      h('button', { type: 'submit' }, 'Replay the time range'))),
  );
  return undefined;
}
