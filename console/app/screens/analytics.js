// The analytics screen (#/analytics): the reports over a period the reader
// picks, each as a chart drawn with the vendored Chart.js and, for screen
// readers and for exact figures, a table of the same numbers. Needs the
// analytics:read scope.
//
// Money and ratios arrive as decimal strings. The charts convert them to
// numbers for plotting only (a bar's height needs no cent-exact value); the
// tables and the charts' descriptions show the strings as the server sent
// them, so no figure a reader reads went through a float.

import { gql } from '../api.js';
import { loadChart } from '../libs.js';
import { clearError, compactMoney, count, formField, h, money, reportError } from '../ui.js';

const REPORTS = `query ConsoleAnalytics($from: String, $to: String, $interval: AnalyticsInterval) {
  analytics(from: $from, to: $to, interval: $interval) {
    from to timezone interval
    pipeline { funnel { leads applied approved funded conversion { applied approved funded overall } } }
    funding {
      totals { deals fundedAmount averageAmount expectedCommission renewalDeals renewalAmount }
      series { periodStart deals fundedAmount renewalDeals renewalAmount }
    }
    lenders { lenders { lenderId name submitted approved declined funded approvalRate } }
    commissions {
      totals { expected paid outstanding clawedBack }
      renewal { expected paid }
      byLender { id name expected paid clawedBack outstanding }
    }
    dialer {
      agents { userId name calls answered talkSeconds averageTalkSeconds }
      series { periodStart calls }
    }
  }
}`;

const INTERVALS = [['day', 'Day'], ['week', 'Week (from Monday)'], ['month', 'Month']];

// Chart colours come from the style sheet's variables, so they follow dark mode.
const cssColor = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();
const COLORS = {
  get blue() { return cssColor('--accent'); },
  get green() { return cssColor('--success'); },
  get amber() { return cssColor('--chart-amber'); },
  get red() { return cssColor('--danger'); },
  get grey() { return cssColor('--muted'); },
};

/** A local calendar date as YYYY-MM-DD. */
function isoDay(d) {
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** For plotting only: a decimal string as a number (see the file's comment). */
function plot(str) {
  const n = Number(str);
  return Number.isFinite(n) ? n : 0;
}

/** A ratio string ("0.3125") as a percentage string ("31.25 %"), from its digits. */
function percent(ratio) {
  const m = /^(\d+)\.(\d{2})(\d*)$/.exec(ratio || '');
  if (!m) return ratio || '—';
  const whole = String(Number(m[1]) * 100 + Number(m[2]));
  return m[3] ? `${whole}.${m[3]} %` : `${whole} %`;
}

/** Seconds as "1 h 02 min 05 s". */
function duration(total) {
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const hrs = Math.floor(total / 3600);
  const pad = (n) => String(n).padStart(2, '0');
  if (hrs > 0) return `${hrs} h ${pad(m)} min ${pad(s)} s`;
  if (m > 0) return `${m} min ${pad(s)} s`;
  return `${s} s`;
}

/**
 * A table of rows under caption: head lists the column labels; each row
 * is an array of cells (strings or nodes); numeric columns (indexes in
 * num) are right-aligned; foot is an optional totals row, or a list of
 * such rows.
 */
function table(caption, head, rows, { num = [], foot = null, empty = 'No figures in this period.' } = {}) {
  const cell = (tag, v, i, attrs = {}) => h(tag, { ...attrs, class: num.includes(i) ? 'num' : null }, v);
  const feet = foot && Array.isArray(foot[0]) ? foot : foot ? [foot] : [];
  return h('div', { class: 'table-wrap', dataset: { label: caption } }, h('table', { class: 'figures' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, head.map((label, i) => cell('th', label, i, { scope: 'col' })))),
    h('tbody', {}, rows.length === 0
      ? h('tr', {}, h('td', { colspan: String(head.length) }, empty))
      : rows.map((r) => h('tr', {}, r.map((v, i) => (i === 0 ? cell('th', v, i, { scope: 'row' }) : cell('td', v, i)))))),
    feet.length ? h('tfoot', {}, feet.map((f) => h('tr', { class: 'total' }, f.map((v, i) => (i === 0 ? cell('th', v, i, { scope: 'row' }) : cell('td', v, i)))))) : null,
  ));
}

/**
 * Makes each table box that scrolls sideways (a phone's width) a labelled
 * region the keyboard can reach and scroll, and a box that fits no stop
 * in the tab order. Returns the function that stops watching.
 */
function scrollRegions(root) {
  const mark = (wrap) => {
    if (wrap.scrollWidth > wrap.clientWidth) {
      wrap.setAttribute('tabindex', '0');
      wrap.setAttribute('role', 'region');
      wrap.setAttribute('aria-label', `${wrap.dataset.label} (scrolls sideways)`);
    } else {
      for (const a of ['tabindex', 'role', 'aria-label']) wrap.removeAttribute(a);
    }
  };
  const observer = new ResizeObserver((entries) => { for (const e of entries) mark(e.target); });
  for (const wrap of root.querySelectorAll('.table-wrap')) {
    mark(wrap);
    observer.observe(wrap);
  }
  return () => observer.disconnect();
}

/** Chart.js axis ticks: amounts short ("$400M"), counts with separators. */
const MONEY_TICKS = { callback: (v) => compactMoney(v) };
const COUNT_TICKS = { precision: 0, callback: (v) => count(v) };

/**
 * One chart with its table: a figure titled title whose canvas is an image
 * described by summary (the figures in a sentence) and is followed by the
 * table. config is Chart.js's; the chart is registered in charts.
 */
function figure(Chart, charts, name, title, summary, config, tableEl, { wide = false } = {}) {
  const canvas = h('canvas', { role: 'img', 'aria-label': `${title}: ${summary}` });
  const el = h('figure', { class: ['chart', wide ? 'wide' : null], dataset: { chart: name } },
    h('figcaption', {}, h('h2', {}, title)),
    h('div', { class: 'chart-box' }, canvas),
    tableEl,
  );
  // Drawn once the canvas is in the page, so that it is sized to its box.
  charts.pending.push(() => {
    charts.list.push(new Chart(canvas, {
      ...config,
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        plugins: { legend: { position: 'bottom' } },
        ...config.options,
      },
    }));
  });
  return el;
}

function funnelChart(Chart, charts, p) {
  const f = p.funnel;
  const steps = [['Leads', f.leads, '—'], ['Applied', f.applied, f.conversion.applied], ['Approved', f.approved, f.conversion.approved], ['Funded', f.funded, f.conversion.funded]];
  return figure(Chart, charts, 'funnel', 'Pipeline funnel',
    `of ${count(f.leads)} leads created in the period, ${count(f.applied)} applied, ${count(f.approved)} were approved and ${count(f.funded)} funded (${percent(f.conversion.overall)} overall).`,
    {
      type: 'bar',
      data: { labels: steps.map((s) => s[0]), datasets: [{ label: 'Leads', data: steps.map((s) => s[1]), backgroundColor: COLORS.blue }] },
      options: { indexAxis: 'y', plugins: { legend: { display: false } }, scales: { x: { beginAtZero: true, ticks: COUNT_TICKS } } },
    },
    table('The funnel: leads created in the period and the steps they reached', ['Step', 'Leads', 'Conversion from the step before'],
      steps.map(([label, n, ratio]) => [label, count(n), ratio === '—' ? '—' : percent(ratio)]),
      { num: [1, 2], foot: ['Overall (funded / leads)', count(f.funded), percent(f.conversion.overall)] }),
  );
}

/** A funding figure's renewals in one cell, to keep the table narrow: "1 · $10,000.00". */
function renewals(f) {
  return `${count(f.renewalDeals)} · ${money(f.renewalAmount)}`;
}

function fundingChart(Chart, charts, funding, interval) {
  const by = { day: 'day', week: 'week', month: 'month' }[interval] || interval;
  const t = funding.totals;
  return figure(Chart, charts, 'funding', `Funded volume by ${by}`,
    `${count(t.deals)} deals funded, ${money(t.fundedAmount)} in all, ${money(t.averageAmount)} on average; of them ${count(t.renewalDeals)} renewals, ${money(t.renewalAmount)}.`,
    {
      type: 'bar',
      data: {
        labels: funding.series.map((b) => b.periodStart),
        datasets: [
          { label: 'Funded amount', data: funding.series.map((b) => plot(b.fundedAmount)), backgroundColor: COLORS.green },
          { label: 'Of it, renewals', data: funding.series.map((b) => plot(b.renewalAmount)), backgroundColor: COLORS.blue },
        ],
      },
      options: { scales: { y: { beginAtZero: true, ticks: MONEY_TICKS } } },
    },
    table(`Deals funded by ${by}, and the renewals among them`,
      [`${by[0].toUpperCase()}${by.slice(1)} starting`, 'Deals', 'Funded amount', 'Of them, renewals'],
      funding.series.map((b) => [b.periodStart, count(b.deals), money(b.fundedAmount), renewals(b)]),
      { num: [1, 2, 3], foot: ['Total', count(t.deals), money(t.fundedAmount), renewals(t)] }),
  );
}

function lendersChart(Chart, charts, lenders) {
  const rows = lenders.lenders;
  return figure(Chart, charts, 'lenders', 'Lenders\' approval rates',
    rows.length === 0 ? 'no application was submitted in the period.'
      : rows.map((l) => `${l.name} ${percent(l.approvalRate)}`).join(', ') + '.',
    {
      type: 'bar',
      data: {
        labels: rows.map((l) => l.name),
        // Ratios plotted as percentages (for plotting only).
        datasets: [{ label: 'Approval rate (%)', data: rows.map((l) => plot(l.approvalRate) * 100), backgroundColor: COLORS.amber }],
      },
      options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true, max: 100, ticks: { callback: (v) => `${v} %` } } } },
    },
    table('Applications submitted in the period, by lender', ['Lender', 'Submitted', 'Approved', 'Declined', 'Funded', 'Approval rate'],
      rows.map((l) => [l.name, count(l.submitted), count(l.approved), count(l.declined), count(l.funded), percent(l.approvalRate)]),
      { num: [1, 2, 3, 4, 5] }),
    { wide: true },
  );
}

function commissionsChart(Chart, charts, c) {
  const t = c.totals;
  const r = c.renewal;
  const rows = c.byLender;
  return figure(Chart, charts, 'commissions', 'Commissions owed and paid',
    `of the deals funded in the period, ${money(t.expected)} expected, ${money(t.paid)} paid, ${money(t.outstanding)} still owed, ${money(t.clawedBack)} clawed back; of the renewals, ${money(r.expected)} expected, ${money(r.paid)} paid.`,
    {
      type: 'bar',
      data: {
        labels: rows.map((g) => g.name),
        datasets: [
          { label: 'Paid', data: rows.map((g) => plot(g.paid)), backgroundColor: COLORS.green },
          { label: 'Owed', data: rows.map((g) => plot(g.outstanding)), backgroundColor: COLORS.amber },
          { label: 'Clawed back', data: rows.map((g) => plot(g.clawedBack)), backgroundColor: COLORS.red },
        ],
      },
      options: { scales: { y: { beginAtZero: true, ticks: MONEY_TICKS } } },
    },
    table('Commissions of the deals funded in the period, by lender', ['Lender', 'Expected', 'Paid', 'Clawed back', 'Owed'],
      rows.map((g) => [g.name, money(g.expected), money(g.paid), money(g.clawedBack), money(g.outstanding)]),
      {
        num: [1, 2, 3, 4],
        foot: [['Total', money(t.expected), money(t.paid), money(t.clawedBack), money(t.outstanding)],
          ['Of it, renewals', money(r.expected), money(r.paid), '—', '—']],
      }),
    { wide: true },
  );
}

function dialerChart(Chart, charts, d, interval) {
  const calls = d.agents.reduce((n, a) => n + a.calls, 0);
  const answered = d.agents.reduce((n, a) => n + a.answered, 0);
  return figure(Chart, charts, 'dialer', 'Dialer activity',
    `${count(calls)} calls by ${count(d.agents.length)} agents, ${count(answered)} answered.`,
    {
      type: 'line',
      data: {
        labels: d.series.map((b) => b.periodStart),
        datasets: [{ label: `Calls by ${interval}`, data: d.series.map((b) => b.calls), borderColor: COLORS.blue, backgroundColor: COLORS.blue }],
      },
      options: { scales: { y: { beginAtZero: true, ticks: COUNT_TICKS } } },
    },
    table('Calls in the period, by agent', ['Agent', 'Calls', 'Answered', 'Talk time', 'Average talk'],
      d.agents.map((a) => [a.name, count(a.calls), count(a.answered), duration(a.talkSeconds), duration(a.averageTalkSeconds)]),
      { num: [1, 2, 3, 4], foot: ['Total', count(calls), count(answered), duration(d.agents.reduce((n, a) => n + a.talkSeconds, 0)), '—'] }),
  );
}

/** Fills main; returns the cleanup that destroys the charts. */
export async function render(main, ctx) {
  const today = new Date();
  // Twelve calendar months by default, this one included: within the
  // reports' 366 days.
  const first = new Date(today.getFullYear(), today.getMonth() - 11, 1);
  // The period comes from the address (#/analytics?from=..&to=..&interval=..)
  // when it names one.
  const q = ctx.query;
  const from = h('input', { type: 'date', name: 'from', value: q.get('from') || isoDay(first), required: true });
  const to = h('input', { type: 'date', name: 'to', value: q.get('to') || isoDay(today), required: true });
  const chosen = INTERVALS.some(([v]) => v === q.get('interval')) ? q.get('interval') : 'month';
  const interval = h('select', { name: 'interval' }, INTERVALS.map(([v, label]) => h('option', { value: v, selected: v === chosen }, label)));
  const apply = h('button', { type: 'submit', class: 'primary' }, 'Show');
  const form = h('form', { class: 'period', novalidate: true, 'aria-label': 'Period' },
    formField('From', from),
    formField('To', to),
    formField('Interval', interval),
    apply,
    h('p', { class: 'hint period-hint', id: 'period-hint' }, 'Both days are included; a period spans at most 366 days.'),
  );
  from.setAttribute('aria-describedby', 'period-hint');
  to.setAttribute('aria-describedby', 'period-hint');
  const about = h('p', { class: 'muted', 'aria-live': 'polite' });
  const board = h('div', { class: 'charts', 'aria-busy': 'false' });
  main.append(h('h1', {}, ctx.title), form, about, board);

  const Chart = await loadChart();
  const charts = { list: [], pending: [] };
  let seq = 0;

  function destroy() {
    for (const c of charts.list) c.destroy();
    charts.unwatch?.();
    charts.unwatch = null;
    charts.list = [];
    charts.pending = [];
  }

  async function show() {
    const mine = ++seq;
    board.setAttribute('aria-busy', 'true');
    apply.disabled = true;
    try {
      const { analytics: a } = await gql(REPORTS, { from: from.value || null, to: to.value || null, interval: interval.value });
      if (mine !== seq || !ctx.isCurrent()) return;
      clearError();
      destroy();
      about.textContent = `From ${from.value} to ${to.value}, by ${a.interval}, in the ${a.timezone} time zone.`;
      board.replaceChildren(
        funnelChart(Chart, charts, a.pipeline),
        fundingChart(Chart, charts, a.funding, a.interval),
        lendersChart(Chart, charts, a.lenders),
        commissionsChart(Chart, charts, a.commissions),
        dialerChart(Chart, charts, a.dialer, a.interval),
      );
      for (const draw of charts.pending) draw();
      charts.pending = [];
      charts.unwatch = scrollRegions(board);
    } catch (err) {
      if (mine !== seq) return;
      reportError(err, 'The reports could not be loaded.');
    } finally {
      if (mine === seq) {
        board.setAttribute('aria-busy', 'false');
        apply.disabled = false;
      }
    }
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    // A new entry in the history: Back shows the period before.
    ctx.setQuery({ from: from.value, to: to.value, interval: interval.value });
    show();
  });
  await show();
  return () => {
    seq++;
    destroy();
  };
}
