// GraphQL-over-HTTP audits (graphql-http's serverAudits) against a running
// server. Usage: node audit.mjs <graphql url> [key]
//
// With a key: every MUST audit passes, and every SHOULD audit passes or is
// listed in should-allow.txt (the same ids docs/api.md lists with their
// reasons). Without a key: the audits are run and counted, and every
// request is expected to be refused the same documented way (401, a
// GraphQL error UNAUTHORIZED in the negotiated media type, WWW-Authenticate:
// Bearer), which this script checks itself.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverAudits } from 'graphql-http';

const [url, key] = process.argv.slice(2);
if (!url) {
  console.error('usage: node audit.mjs <graphql url> [key]');
  process.exit(2);
}

const here = dirname(fileURLToPath(import.meta.url));

// allowed reads should-allow.txt: one audit id a line, then its reason;
// # starts a comment.
function allowed() {
  const ids = new Map();
  for (const line of readFileSync(join(here, 'should-allow.txt'), 'utf8').split('\n')) {
    const text = line.replace(/#.*/, '').trim();
    if (text === '') continue;
    const [id, ...reason] = text.split(/\s+/);
    ids.set(id, reason.join(' '));
  }
  return ids;
}

// withKey sends the key on every audit's request, as a client would.
function withKey(key) {
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
}

async function run(fetchFn) {
  const results = [];
  for (const audit of serverAudits({ url, fetchFn })) {
    results.push(await audit.fn());
  }
  return results;
}

function table(results) {
  const counts = { ok: 0, notice: 0, warn: 0, error: 0 };
  for (const r of results) counts[r.status]++;
  for (const r of results) {
    if (r.status === 'warn' || r.status === 'error') console.log(`  ${r.status.padEnd(5)} ${r.id}  ${r.name}: ${r.reason}`);
  }
  console.log(`  ok ${counts.ok}, notice ${counts.notice}, warn ${counts.warn}, error ${counts.error}`);
  return counts;
}

async function audited() {
  console.log(`graphql-http audits with a key (${url})`);
  const results = await run(withKey(key));
  table(results);
  const allow = allowed();
  const failures = [];
  for (const r of results) {
    if (r.status === 'error') failures.push(`MUST ${r.id} failed: ${r.name}`);
    if (r.status === 'warn' && !allow.has(r.id)) failures.push(`SHOULD ${r.id} failed and is not in should-allow.txt: ${r.name}`);
  }
  const ids = new Set(results.map((r) => r.id));
  for (const id of allow.keys()) {
    if (!ids.has(id)) failures.push(`should-allow.txt lists ${id}, which no audit has`);
    else if (results.find((r) => r.id === id).status === 'ok') failures.push(`should-allow.txt lists ${id}, which now passes: remove it (and from docs/api.md)`);
  }
  return failures;
}

// refusal checks one unauthenticated request per media type: the status,
// the challenge, the content type and a GraphQL error body without data.
async function refusal(accept, wantType) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: accept },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  const body = await res.json();
  const failures = [];
  const challenge = res.headers.get('www-authenticate') ?? '';
  const type = res.headers.get('content-type') ?? '';
  if (res.status !== 401) failures.push(`Accept ${accept}: status ${res.status}, want 401`);
  if (!challenge.startsWith('Bearer')) failures.push(`Accept ${accept}: WWW-Authenticate ${JSON.stringify(challenge)}, want Bearer`);
  if (!type.startsWith(wantType)) failures.push(`Accept ${accept}: Content-Type ${type}, want ${wantType}`);
  if ('data' in body) failures.push(`Accept ${accept}: the body has data`);
  if (body.errors?.[0]?.extensions?.code !== 'UNAUTHORIZED') failures.push(`Accept ${accept}: errors ${JSON.stringify(body.errors)}, want extensions.code UNAUTHORIZED`);
  return failures;
}

async function unauthenticated() {
  console.log(`graphql-http audits without a key (${url}); every request is refused with 401`);
  table(await run(fetch));
  return [
    ...(await refusal('application/graphql-response+json', 'application/graphql-response+json')),
    ...(await refusal('application/json', 'application/json')),
  ];
}

const failures = key ? await audited() : await unauthenticated();
for (const f of failures) console.error(`FAIL ${f}`);
process.exit(failures.length > 0 ? 1 : 0);
