// The GraphQL websocket held to graphql-ws's PROTOCOL.md (graphql-transport-ws)
// by its reference client, against servers started by .ci/serve-for-suite:
// SVC_SUITE_URLS (one or more replicas on one database), SVC_SUITE_KEY.
// The servers run with SVC_WS_INIT_TIMEOUT=1s. Raw protocol cases speak
// through `ws`; the live cases through graphql-ws's createClient. Prints one
// line per case (what was seen) and exits non-zero on any divergence.
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';

const urls = (process.env.SVC_SUITE_URLS || '').split(' ').filter(Boolean);
const key = process.env.SVC_SUITE_KEY;
if (urls.length === 0 || !key) {
  console.error('SVC_SUITE_URLS and SVC_SUITE_KEY are required');
  process.exit(2);
}
const wsURL = (base) => base.replace(/^http/, 'ws') + '/graphql';
const PROTOCOL = 'graphql-transport-ws';
const INIT = { type: 'connection_init', payload: { Authorization: `Bearer ${key}` } };
const EVENTS = 'subscription { events(types: ["lead.created"]) { id event data } }';

// open connects a raw socket that records every message and its close.
function open(base = urls[0]) {
  const socket = new WebSocket(wsURL(base), PROTOCOL);
  const s = { socket, messages: [], closed: null, waiters: [] };
  const wake = () => { for (const w of s.waiters.splice(0)) w(); };
  socket.on('message', (data) => { s.messages.push(JSON.parse(String(data))); wake(); });
  socket.on('close', (code, reason) => { s.closed = { code, reason: String(reason) }; wake(); });
  socket.on('error', () => {}); // the close event says what happened
  s.send = (m) => socket.send(typeof m === 'string' ? m : JSON.stringify(m));
  // until waits for pred(s) to hold, at most ms; false when it never did.
  s.until = async (pred, ms = 5000) => {
    const end = Date.now() + ms;
    while (!pred(s)) {
      const left = end - Date.now();
      if (left <= 0) return false;
      await new Promise((resolve) => { s.waiters.push(resolve); setTimeout(resolve, left); });
    }
    return true;
  };
  s.ready = new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('close', reject); });
  return s;
}

async function acked(base) {
  const s = open(base);
  await s.ready;
  s.send(INIT);
  if (!(await s.until((x) => x.messages.some((m) => m.type === 'connection_ack') || x.closed))) throw new Error('no connection_ack');
  if (s.closed) throw new Error(`connection_init refused: ${s.closed.code} ${s.closed.reason}`);
  return s;
}

// closeCode runs steps on a socket and reports the code it closed with.
async function closeCode(steps, ms = 5000) {
  const s = open();
  await s.ready;
  await steps(s);
  await s.until((x) => x.closed, ms);
  s.socket.terminate();
  return s.closed ? `${s.closed.code} ${s.closed.reason}` : 'open';
}

async function createLead(base, name) {
  const r = await fetch(base + '/v1/leads', {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ businessName: name }),
  });
  if (r.status !== 201) throw new Error(`POST /v1/leads: ${r.status} ${await r.text()}`);
  return (await r.json()).data.id;
}

// eventFor subscribes through the reference client on subscribeBase, creates
// a lead through createBase and reports whether the subscription received
// its lead.created.
async function eventFor(subscribeBase, createBase) {
  const client = createClient({
    url: wsURL(subscribeBase), webSocketImpl: WebSocket, retryAttempts: 0, lazy: false,
    connectionParams: { Authorization: `Bearer ${key}` },
  });
  try {
    const name = `Protocol ${Date.now()} ${Math.random()}`;
    const got = new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve('no event within 10 s'), 10000);
      let leadId;
      const dispose = client.subscribe({ query: EVENTS }, {
        next: (r) => {
          if (r.errors) { clearTimeout(timer); reject(new Error(JSON.stringify(r.errors))); return; }
          if (r.data.events.data.businessName === name || (leadId && r.data.events.data.id === leadId)) {
            clearTimeout(timer); dispose(); resolve('received');
          }
        },
        error: (e) => { clearTimeout(timer); reject(e instanceof Error ? e : new Error(JSON.stringify(e))); },
        complete: () => {},
      });
      // Subscribed once the server answers a later operation on the socket.
      client.iterate({ query: '{ agentsBoard(first: 1) { totalCount } }' }).next()
        .then(() => createLead(createBase, name)).then((id) => { leadId = id; }).catch(reject);
    });
    return await got;
  } finally {
    await client.dispose();
  }
}

const cases = [
  ['invalid message (not JSON)', '4400', () => closeCode(async (s) => { s.send(INIT); s.send('not json'); })],
  ['invalid message (unknown type)', '4400', () => closeCode(async (s) => { s.send(INIT); s.send({ type: 'start', id: '1', payload: { query: '{ __typename }' } }); })],
  ['subscribe without id', '4400', () => closeCode(async (s) => {
    s.send(INIT); await s.until((x) => x.messages.length > 0);
    s.send({ type: 'subscribe', payload: { query: EVENTS } });
  })],
  ['subscribe before connection_ack', '4401', () => closeCode(async (s) => { s.send({ type: 'subscribe', id: '1', payload: { query: EVENTS } }); })],
  ['connection_init with a wrong key', '4403', () => closeCode(async (s) => { s.send({ type: 'connection_init', payload: { Authorization: 'Bearer svc_live_wrongwrongwrong' } }); })],
  ['no connection_init (1 s timeout)', '4408', () => closeCode(async () => {}, 5000)],
  ['duplicate subscribe id', '4409', () => closeCode(async (s) => {
    s.send(INIT); await s.until((x) => x.messages.length > 0);
    s.send({ type: 'subscribe', id: 'dup', payload: { query: EVENTS } });
    s.send({ type: 'subscribe', id: 'dup', payload: { query: EVENTS } });
  })],
  ['second connection_init', '4429', () => closeCode(async (s) => {
    s.send(INIT); await s.until((x) => x.messages.length > 0); s.send(INIT);
  })],
  ['ping before connection_init', 'pong', async () => {
    const s = open(); await s.ready;
    s.send({ type: 'ping' });
    await s.until((x) => x.messages.length > 0 || x.closed, 3000);
    s.socket.terminate();
    return s.messages[0]?.type ?? (s.closed ? `${s.closed.code} ${s.closed.reason}` : 'nothing');
  }],
  ['query: next then complete', 'next,complete', async () => {
    const s = await acked();
    s.send({ type: 'subscribe', id: 'q', payload: { query: '{ agentsBoard(first: 1) { totalCount } }' } });
    await s.until((x) => x.messages.some((m) => m.id === 'q' && m.type !== 'next') || x.closed);
    await new Promise((r) => setTimeout(r, 200)); // nothing may follow complete
    s.socket.terminate();
    return s.messages.filter((m) => m.id === 'q').map((m) => m.type).join(',');
  }],
  ['complete from the client stops the subscription', 'stopped, open', async () => {
    const s = await acked();
    s.send({ type: 'subscribe', id: 'ev', payload: { query: EVENTS } });
    s.send({ type: 'subscribe', id: 'sync', payload: { query: '{ agentsBoard(first: 1) { totalCount } }' } });
    await s.until((x) => x.messages.some((m) => m.id === 'sync' && m.type === 'complete'));
    s.send({ type: 'complete', id: 'ev' });
    s.send({ type: 'ping' });
    await s.until((x) => x.messages.some((m) => m.type === 'pong'));
    await createLead(urls[0], `Protocol stopped ${Date.now()}`);
    await new Promise((r) => setTimeout(r, 1500));
    const after = s.messages.filter((m) => m.id === 'ev').map((m) => m.type);
    s.send({ type: 'ping' });
    const open = await s.until((x) => x.messages.filter((m) => m.type === 'pong').length >= 2 && !x.closed, 3000);
    s.socket.terminate();
    return `${after.length ? `sent ${after.join(',')}` : 'stopped'}, ${open ? 'open' : 'closed'}`;
  }],
  ['subscription receives an event (createClient)', 'received', () => eventFor(urls[0], urls[0])],
];
if (urls.length > 1) {
  cases.push(['event across replicas (createClient)', 'received', () => eventFor(urls[0], urls[1])]);
}

let failed = 0;
for (const [name, want, run] of cases) {
  let got;
  try {
    got = await run();
  } catch (e) {
    got = `failed: ${e.message}`;
  }
  const ok = String(got).split(' ')[0] === want || got === want;
  if (!ok) failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${got}${ok ? '' : ` (want ${want})`}`);
}
if (failed) {
  console.error(`${failed} of ${cases.length} protocol cases diverge`);
  process.exit(1);
}
