// Inbound endpoints: the paged list, creating one (its signing secret is
// shown once, as the API answers it only on create), and an endpoint's
// request log, where an integrator sees what the mapping made of each
// payload and why a request failed (error and errorCode).

import { gql } from '../api.js';
import { clearError, date, formField, h, pager, replace, showError } from '../ui.js';
import { secretPanel } from './webhooks.js';

const LIST = `query InboundEndpoints($first: Int, $after: Cursor) {
  inboundEndpoints(first: $first, after: $after, orderBy: {field: CREATED_AT, direction: DESC}) {
    edges { node { id name endpointKey isActive createdAt mapping } }
    pageInfo { hasNextPage endCursor }
    totalCount
  }
}`;

const CREATE = `mutation CreateInboundEndpoint($input: NewInboundEndpoint!) {
  createInboundEndpoint(input: $input) { secret endpoint { id name endpointKey } }
}`;

const REQUESTS = `query InboundRequests($endpointId: ID!, $page: Int, $limit: Int) {
  inboundRequests(endpointId: $endpointId, page: $page, limit: $limit) {
    nodes { id receivedAt webhookId signatureValid timestampSigned payload mapped status error errorCode }
    total page limit hasMore
  }
}`;

const STATUS_WORDS = { received: 'Received', processed: 'Processed', failed: 'Failed' };
const STATUS_CLASS = { received: 'status-break', processed: 'status-online', failed: 'status-offline' };

/** The address senders post to. */
function postURL(endpointKey) {
  return new URL(`/v1/webhooks/inbound/${encodeURIComponent(endpointKey)}`, window.location.href).href;
}

/** A JSON value shown folded, as text. */
export function json(label, value) {
  if (value === null || value === undefined) return '—';
  return h('details', {}, h('summary', {}, label), h('pre', { class: 'excerpt' }, JSON.stringify(value, null, 2)));
}

/** Fills main. */
export async function render(main, ctx) {
  const created = h('div', { class: 'secret-slot' });
  const detail = h('section', { class: 'detail', 'aria-live': 'polite' });

  function showRequests(ep) {
    clearError();
    const heading = h('h2', { tabindex: '-1' }, `Requests to ${ep.name}`);
    const requests = pager({
      style: 'page',
      limit: 20,
      caption: 'Requests, newest first',
      empty: 'No signed request has arrived yet.',
      columns: [
        { label: 'Received', render: (r) => h('span', {}, date(r.receivedAt), r.webhookId ? h('span', { class: 'muted' }, h('br'), `X-Webhook-Id ${r.webhookId}`) : null) },
        { label: 'Status', render: (r) => h('span', { class: ['badge', 'request-status', STATUS_CLASS[r.status]] }, STATUS_WORDS[r.status] || r.status) },
        { label: 'Error', render: (r) => r.error || '—' },
        { label: 'Code', render: (r) => (r.errorCode ? h('code', { class: 'error-code' }, r.errorCode) : '—') },
        { label: 'Signature', render: (r) => (r.timestampSigned ? 'Body and timestamp' : 'Body only') },
        { label: 'Data', render: (r) => h('span', {}, json('Payload', r.payload), json('Mapped', r.mapped)) },
      ],
      load: async ({ page, limit }) => (await gql(REQUESTS, { endpointId: ep.id, page, limit })).inboundRequests,
    });
    replace(detail,
      heading,
      h('p', {}, 'Senders post signed JSON to ', h('code', { class: 'break-anywhere' }, postURL(ep.endpointKey)), '.'),
      h('button', { type: 'button', onclick: () => requests.refresh() }, 'Refresh'),
      requests.element);
    heading.focus();
  }

  const list = pager({
    style: 'connection',
    limit: 20,
    caption: 'Endpoints, newest first',
    empty: 'No inbound endpoints yet: create one above.',
    columns: [
      { label: 'Name', render: (ep) => ep.name },
      { label: 'Key', render: (ep) => h('code', { class: 'break-anywhere' }, ep.endpointKey) },
      { label: 'State', render: (ep) => (ep.isActive ? 'Accepting requests' : 'Disabled (answers 404)') },
      { label: 'Mapping', render: (ep) => (Object.keys(ep.mapping || {}).length ? json(`${Object.keys(ep.mapping).length} fields`, ep.mapping) : 'None: the payload as it came') },
      { label: 'Created', render: (ep) => date(ep.createdAt) },
      { label: 'Requests', render: (ep) => h('button', { type: 'button', 'aria-label': `Requests to ${ep.name}`, onclick: () => showRequests(ep) }, 'Requests') },
    ],
    load: async (args) => (await gql(LIST, args)).inboundEndpoints,
  });

  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: '100', autocomplete: 'off' });
  const mapping = h('textarea', { name: 'mapping', rows: '4', placeholder: '{"businessName": "$.company.name", "email": "$.contact.email"}' });
  const form = h('form', {
    'aria-label': 'Create an inbound endpoint',
    onsubmit: async (ev) => {
      ev.preventDefault();
      clearError();
      created.replaceChildren();
      let map = null;
      if (mapping.value.trim()) {
        try {
          map = JSON.parse(mapping.value);
        } catch (err) {
          showError({ message: `The mapping is not JSON (${err.message}).`, code: 'VALIDATION_ERROR' });
          mapping.focus();
          return;
        }
      }
      try {
        const input = { name: name.value.trim() };
        if (map !== null) input.mapping = map;
        const { secret, endpoint } = (await gql(CREATE, { input })).createInboundEndpoint;
        replace(created, h('p', {}, 'Senders post to ', h('code', { class: 'break-anywhere' }, postURL(endpoint.endpointKey)), '.'),
          secretPanel(`Created ${endpoint.name}.`, secret,
            'Senders sign each body with it (X-svc-Signature: hex HMAC-SHA256). Copy it now; it is not shown again.',
            () => created.replaceChildren()));
        name.value = '';
        mapping.value = '';
        await list.reload();
      } catch (err) {
        showError(err, 'The endpoint was not created.');
      }
    },
  },
  h('h2', {}, 'New endpoint'),
  formField('Name', name),
  formField('Mapping (optional)', mapping, { hint: 'A JSON object: target field → JSONPath into the payload.' }),
  h('button', { type: 'submit', class: 'primary' }, 'Create endpoint'));

  main.append(h('h1', {}, ctx.title), form, created, h('h2', {}, 'Endpoints'), list.element, detail);
}
