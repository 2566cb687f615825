// Lighthouse (desktop settings) on the signed-in console: the board, a
// lead's page and analytics. Signs in through the console's form in one tab
// of Debian's Chromium (with an API key, behind the form's developer link), then audits each page in that tab (the key lives in
// the tab's sessionStorage). Prints performance, accessibility, best
// practices and cumulative layout shift per page, and exits 1 when a page
// falls below the floors.
//
//   node audit.mjs BASE_URL API_KEY
import lighthouse from 'lighthouse';
import desktop from 'lighthouse/core/config/desktop-config.js';
import puppeteer from 'puppeteer-core';

const FLOORS = { performance: 95, accessibility: 100, 'best-practices': 100 };
const MAX_CLS = 0.05;

const [base, key] = process.argv.slice(2);
if (!base || !key) {
  console.error('usage: node audit.mjs BASE_URL API_KEY');
  process.exit(2);
}

async function firstLeadID() {
  const res = await fetch(`${base}/v1/leads?limit=1`, { headers: { Authorization: `Bearer ${key}` } });
  const body = await res.json();
  if (!res.ok || !body.data?.length) throw new Error(`no lead to audit: ${res.status} ${JSON.stringify(body)}`);
  return body.data[0].id;
}

async function signIn(page) {
  await page.goto(`${base}/console`);
  // The form opens on email and password; the key form is behind a link.
  await page.waitForSelector('form.sign-in button.use-key', { visible: true });
  await page.click('form.sign-in button.use-key');
  await page.waitForSelector('form.sign-in input[name="api-key"]', { visible: true });
  await page.type('form.sign-in input[name="api-key"]', key);
  await page.click('form.sign-in button[type="submit"]');
  await page.waitForSelector('#nav a', { visible: true });
}

// audit runs Lighthouse on url in page; storage is kept (it holds the key).
async function audit(page, name, url) {
  const flags = { logLevel: 'error', output: 'json', disableStorageReset: true };
  const { lhr } = await lighthouse(url, flags, desktop, page);
  if (lhr.runtimeError) throw new Error(`${name}: ${lhr.runtimeError.message}`);
  const score = (id) => Math.round(lhr.categories[id].score * 100);
  const figures = {
    performance: score('performance'),
    accessibility: score('accessibility'),
    'best-practices': score('best-practices'),
    cls: lhr.audits['cumulative-layout-shift'].numericValue,
  };
  const failed = Object.entries(FLOORS).filter(([id, floor]) => figures[id] < floor).map(([id]) => id);
  if (figures.cls > MAX_CLS) failed.push('cls');
  console.log(`${name.padEnd(10)} performance ${figures.performance}  accessibility ${figures.accessibility}  ` +
    `best practices ${figures['best-practices']}  CLS ${figures.cls.toFixed(3)}${failed.length ? '  FAILS ' + failed.join(', ') : ''}`);
  for (const id of failed.filter((f) => f !== 'cls')) {
    for (const ref of lhr.categories[id].auditRefs) {
      const a = lhr.audits[ref.id];
      if (ref.weight > 0 && a.score !== null && a.score < 1) console.log(`    ${id}: ${a.id} (${a.score}) ${a.displayValue ?? ''}`);
    }
  }
  if (failed.includes('cls')) printShifts(lhr);
  const unused = lhr.audits['unused-javascript'];
  if (unused.details?.items?.length) console.log(`    unused JavaScript: ${unused.displayValue ?? ''} ${unused.details.items.map((i) => i.url.replace(base, '')).join(' ')}`);
  return failed.length === 0;
}

// printShifts names the elements that moved, with each one's share.
function printShifts(lhr) {
  for (const item of lhr.audits['layout-shifts']?.details?.items ?? []) {
    console.log(`    shifted: ${item.node?.selector ?? item.node?.snippet ?? '?'} (${item.score?.toFixed(3)})`);
  }
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-dev-shm-usage'],
});
let ok = true;
try {
  const page = await browser.newPage();
  await signIn(page);
  const pages = [
    ['board', `${base}/console#/board`],
    ['lead', `${base}/console#/leads/${await firstLeadID()}`],
    ['analytics', `${base}/console#/analytics`],
  ];
  for (const [name, url] of pages) ok = (await audit(page, name, url)) && ok;
} finally {
  await browser.close();
}
process.exit(ok ? 0 : 1);
