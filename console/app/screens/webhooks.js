// Webhook subscriptions: the paged list, subscribing a URL (its signing
// secret is shown once, as the API answers it only on create), pausing and
// resuming, and deleting after an inline confirmation. Each subscription
// links to its delivery log (#/webhooks/<id>).

import { gql } from '../api.js';
import { clearError, date, formField, h, pager, replace, showError } from '../ui.js';

const LIST = `query WebhookSubscriptions($first: Int, $after: Cursor) {
  webhookSubscriptions(first: $first, after: $after, orderBy: {field: CREATED_AT, direction: DESC}) {
    edges { node { id url events isActive pausedReason pausedAt consecutiveFailures createdAt } }
    pageInfo { hasNextPage endCursor }
    totalCount
  }
}`;

const CREATE = `mutation CreateWebhookSubscription($input: NewWebhookSubscription!) {
  createWebhookSubscription(input: $input) { secret subscription { id url } }
}`;

const UPDATE = `mutation UpdateWebhookSubscription($id: ID!, $input: WebhookSubscriptionPatch!) {
  updateWebhookSubscription(id: $id, input: $input) { id isActive pausedReason }
}`;

const DELETE = `mutation DeleteWebhookSubscription($id: ID!) { deleteWebhookSubscription(id: $id) }`;

/** Splits "lead.created, lead.updated" into the event types the API takes. */
export function eventList(text) {
  return text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
}

/** The subscription's state in words: active, or paused with why and since when. */
export function stateOf(sub) {
  if (sub.isActive) {
    return h('span', { class: 'badge status-online' }, 'Active',
      sub.consecutiveFailures > 0 ? ` (${sub.consecutiveFailures} failed ${sub.consecutiveFailures === 1 ? 'attempt' : 'attempts in a row'})` : '');
  }
  return h('span', {},
    h('span', { class: 'badge status-break' }, 'Paused'), ' ',
    sub.pausedReason || 'no reason given',
    sub.pausedAt ? h('span', { class: 'muted' }, ` since ${date(sub.pausedAt)}`) : null);
}

/** Fills main. */
export async function render(main, ctx) {
  const created = h('div', { class: 'secret-slot' });
  let list;

  async function setActive(sub, isActive) {
    clearError();
    try {
      await gql(UPDATE, { id: sub.id, input: { isActive } });
      await list.refresh();
    } catch (err) {
      showError(err, isActive ? 'The subscription could not be resumed.' : 'The subscription could not be paused.');
    }
  }

  function actions(sub) {
    const box = h('div', { class: 'row-actions' });
    const normal = () => replace(box,
      sub.isActive
        ? h('button', { type: 'button', 'aria-label': `Pause deliveries to ${sub.url}`, onclick: () => setActive(sub, false) }, 'Pause')
        : h('button', { type: 'button', class: 'primary', 'aria-label': `Resume deliveries to ${sub.url}`, onclick: () => setActive(sub, true) }, 'Resume'),
      h('button', { type: 'button', 'aria-label': `Delete the subscription of ${sub.url}`, onclick: confirm }, 'Delete'));
    const confirm = () => {
      const yes = h('button', {
        type: 'button',
        class: 'danger',
        onclick: async () => {
          clearError();
          try {
            await gql(DELETE, { id: sub.id });
            await list.refresh();
          } catch (err) {
            showError(err, 'The subscription could not be deleted.');
          }
        },
      }, 'Yes, delete');
      replace(box,
        h('span', { role: 'alert' }, 'Delete this subscription and its delivery log? '),
        yes,
        h('button', { type: 'button', onclick: normal }, 'Cancel'));
      yes.focus();
    };
    normal();
    return box;
  }

  list = pager({
    style: 'connection',
    limit: 20,
    caption: 'Subscriptions, newest first',
    empty: 'No subscriptions yet: subscribe a URL above.',
    columns: [
      { label: 'URL', render: (s) => h('a', { href: `#/webhooks/${encodeURIComponent(s.id)}`, 'aria-label': `Deliveries to ${s.url}` }, s.url) },
      { label: 'Events', render: (s) => s.events.join(', ') },
      { label: 'State', render: stateOf },
      { label: 'Created', render: (s) => date(s.createdAt) },
      { label: 'Actions', render: actions },
    ],
    load: async (args) => (await gql(LIST, args)).webhookSubscriptions,
  });

  const url = h('input', { type: 'url', name: 'url', required: true, placeholder: 'https://example.com/hooks', autocomplete: 'off' });
  const events = h('input', { type: 'text', name: 'events', required: true, value: '*', autocomplete: 'off' });
  const form = h('form', {
    class: 'inline-form',
    'aria-label': 'Subscribe a URL',
    onsubmit: async (ev) => {
      ev.preventDefault();
      clearError();
      created.replaceChildren();
      try {
        const data = await gql(CREATE, { input: { url: url.value.trim(), events: eventList(events.value) } });
        const { secret, subscription } = data.createWebhookSubscription;
        replace(created, secretPanel(`Subscribed ${subscription.url}.`, secret,
          'Deliveries are signed with this secret: X-Webhook-Signature is the hex HMAC-SHA256 of "<X-Webhook-Timestamp>.<body>". Copy it now; it is not shown again.',
          () => created.replaceChildren()));
        url.value = '';
        await list.reload();
      } catch (err) {
        showError(err, 'The subscription was not created.');
      }
    },
  },
  h('h2', {}, 'Subscribe a URL'),
  formField('URL', url, { hint: 'An https address that answers 2xx to each signed POST.' }),
  formField('Events', events, { hint: 'Event types separated by commas, such as lead.created, lead.updated; * for every type.' }),
  h('button', { type: 'submit', class: 'primary' }, 'Subscribe'));

  main.append(h('h1', {}, ctx.title), form, created, h('h2', {}, 'Subscriptions'), list.element);
}

/**
 * The once-only display of a new signing secret, in a read-only field the
 * reader can select, with a Done button that removes it.
 */
export function secretPanel(title, secret, hint, done) {
  const field = h('input', { type: 'text', readonly: true, value: secret, class: 'secret', name: 'secret', onfocus: (ev) => ev.target.select() });
  const panel = h('section', { class: 'secret-panel', role: 'status' },
    h('p', {}, h('strong', {}, title)),
    formField('Signing secret', field, { hint }),
    h('button', { type: 'button', onclick: done }, 'Done: I have stored it'));
  queueMicrotask(() => field.focus());
  return panel;
}
