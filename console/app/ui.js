// Small DOM helpers for every screen. Data only ever reaches the page as
// text nodes or attribute values (h never sets innerHTML), so a lead named
// "<img onerror=...>" shows as those characters.

import { download } from './api.js';
import { inSession, markEnded } from './session.js';

let ids = 0;

/**
 * Builds an element: h('a', {href: '#/board', class: 'x'}, 'Board').
 * attrs: class, for (htmlFor), on<Event> functions (onclick, oninput),
 * dataset ({...}), style (an object, set through CSSOM), boolean attributes
 * (true sets, false/null/undefined leaves out), any other attribute as a
 * string; value/checked/selected are set as properties. children: strings
 * and numbers (as text), nodes, arrays of them; null/false/undefined skip.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2).toLowerCase(), v);
    } else if (k === 'class' || k === 'className') {
      el.className = Array.isArray(v) ? v.filter(Boolean).join(' ') : String(v);
    } else if (k === 'for') {
      el.htmlFor = String(v);
    } else if (k === 'dataset') {
      Object.assign(el.dataset, v);
    } else if (k === 'style' && typeof v === 'object') {
      Object.assign(el.style, v);
    } else if (k === 'value' || k === 'checked' || k === 'selected') {
      el[k] = v;
    } else if (k === 'innerHTML' || k === 'outerHTML' || k === 'style') {
      throw new Error(`h: ${k} is not allowed (text only; style as an object)`);
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

/** Replaces el's children with children (as h takes them). */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** The live region errors are announced in. */
export function errorRegion() {
  return document.getElementById('errors');
}

/**
 * Writes err into the live region in words: its message, its code and the
 * request id to quote when reporting it. Returns the element written.
 */
export function showError(err, context = '') {
  const region = errorRegion();
  const message = err?.message || String(err);
  const line = h('p', { class: 'error' },
    context ? `${context} ` : '',
    message,
    err?.code ? h('span', { class: 'code' }, ` (${err.code})`) : null,
    err?.requestId ? h('span', { class: 'request-id' }, ` Request id: ${err.requestId}`) : null,
    ' ',
    h('button', { type: 'button', class: 'link', onclick: () => line.remove(), 'aria-label': 'Dismiss this message' }, 'Dismiss'),
  );
  if (region) {
    region.replaceChildren(line);
  }
  return line;
}

/**
 * An "Export CSV" button: downloads the export path() names, the screen's
 * filters in its query (api.js download). While disabledWhy() gives a
 * reason the button is disabled and says it.
 */
export function exportButton(path, { label = 'Export CSV', disabledWhy = () => '' } = {}) {
  const button = h('button', { type: 'button', class: 'export' }, label);
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      clearError();
      await download(path());
    } catch (err) {
      showError(err, 'The export failed.');
    } finally {
      button.refresh();
    }
  });
  button.refresh = () => {
    const why = disabledWhy();
    button.disabled = why !== '';
    button.title = why;
  };
  return button;
}

/** Empties the live region. */
export function clearError() {
  errorRegion()?.replaceChildren();
}

/**
 * The hash's query as a string ("advisor=..&q=.."), from params (an
 * object or URLSearchParams): empty values are left out, and the keys are
 * sorted, so the same filters always make the same address.
 */
export function queryString(params) {
  const entries = [...(params instanceof URLSearchParams ? params.entries() : Object.entries(params))]
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => [k, String(v)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return new URLSearchParams(entries).toString();
}

/**
 * A labelled control: a <label for> naming input (given an id if it has
 * none), and an optional hint tied to it with aria-describedby.
 */
export function formField(label, input, { hint = '' } = {}) {
  if (!input.id) input.id = `f${++ids}`;
  const field = h('div', { class: 'field' }, h('label', { for: input.id }, label), input);
  if (hint) {
    const hintEl = h('p', { class: 'hint', id: `${input.id}-hint` }, hint);
    input.setAttribute('aria-describedby', hintEl.id);
    field.appendChild(hintEl);
  }
  return field;
}

// The organization's currency (ISO 4217), set at sign-in from its
// settings: every amount the console writes carries its sign.
let orgCurrency = 'USD';

/** Sets the currency amounts are written in (the organization's). */
export function setCurrency(code) {
  orgCurrency = code || 'USD';
}

/** The currency amounts are written in. */
export function currency() {
  return orgCurrency;
}

// The sign of a currency as English readers know it ("$", "CA$", "€"),
// from the browser's own tables; the code when it has none.
const signs = new Map();
function currencySign(code) {
  if (!signs.has(code)) {
    let sign = code;
    try {
      const parts = new Intl.NumberFormat('en-US', { style: 'currency', currency: code }).formatToParts(0);
      sign = parts.find((p) => p.type === 'currency')?.value ?? code;
    } catch {
      // An unknown code is written as it is.
    }
    signs.set(code, sign);
  }
  return signs.get(code);
}

/**
 * Formats a decimal string ("1234567.5", "-20.125") as an amount in the
 * organization's currency, with thousands separators and at least two
 * decimals ("$1,234,567.50", "-$20.125"); currency names another. It works
 * on the digits, never on a float, so no amount is rounded; a string that
 * is not a decimal is returned as it is. null or '' gives '—'.
 */
export function money(str, currency = orgCurrency) {
  if (str === null || str === undefined || str === '') return '—';
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(str).trim());
  if (!m) return String(str);
  const [, sign, whole, frac = ''] = m;
  const grouped = whole.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cents = frac.length >= 2 ? frac : frac.padEnd(2, '0');
  return `${sign}${currency ? currencySign(currency) : ''}${grouped}.${cents}`;
}

const countFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Formats a count (18673, "18673") with thousands separators: "18,673". */
export function count(n) {
  if (n === null || n === undefined || n === '') return '—';
  const v = Number(n);
  return Number.isFinite(v) ? countFormat.format(v) : String(n);
}

/**
 * Formats a chart axis tick (a number the chart computed, not an amount
 * of record) short, in the organization's currency: "$400M", "$25K".
 */
export function compactMoney(n) {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: orgCurrency, notation: 'compact', maximumFractionDigits: 1 }).format(n);
  } catch {
    return `${orgCurrency} ${n}`;
  }
}

const dateFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/**
 * Formats an RFC 3339 time ("2026-11-27T18:22:13Z") as a local date and
 * time, or a calendar date ("2026-11-27") as that date (no time-zone shift).
 * null or '' gives '—'; anything unreadable is returned as it is.
 */
export function date(str) {
  if (str === null || str === undefined || str === '') return '—';
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(str);
  if (day) return dateFormat.format(new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])));
  const t = new Date(str);
  return Number.isNaN(t.getTime()) ? String(str) : dateTimeFormat.format(t);
}

/**
 * Runs draw now or, while the reader has an action form open inside el,
 * once they have closed it: a redraw from a live update or a reload must
 * not throw away a form being filled in. A later call replaces a draw
 * still waiting, so the newest data wins.
 */
const waitingDraws = new WeakMap();
export function drawWhenNoFormOpen(el, draw) {
  const formOpen = () => el.querySelector('details.action[open]') !== null;
  if (!formOpen()) {
    waitingDraws.delete(el);
    draw();
    return;
  }
  const listening = waitingDraws.has(el);
  waitingDraws.set(el, draw);
  if (listening) return;
  // toggle does not bubble, so el hears it in the capture phase.
  const onToggle = () => {
    if (formOpen()) return;
    el.removeEventListener('toggle', onToggle, true);
    const waiting = waitingDraws.get(el);
    waitingDraws.delete(el);
    waiting?.();
  };
  el.addEventListener('toggle', onToggle, true);
}

/**
 * A paged list or table bound to a loader, in either of the API's list
 * styles:
 *
 *  - style 'connection' (Relay: leads, and other ent lists): load({first,
 *    after}) resolves to {edges: [{node}], pageInfo: {hasNextPage,
 *    endCursor}, totalCount?}; Previous walks back the cursors seen.
 *  - style 'page' (offset pages: keys, apps, automations...): load({page,
 *    limit}) resolves to {nodes, total, page, limit, hasMore}.
 *
 * columns: [{label, render(node) -> string|Node}] shows a table (caption as
 * its caption); without columns, item(node) -> Node shows a list.
 * Returns {element, reload(), refresh()}: reload goes back to the first
 * page, refresh reloads the current one. Load errors go to showError.
 */
export function pager({ load, style = 'page', limit = 20, columns = null, item = null, caption = '', empty = 'Nothing here yet.' }) {
  if (style !== 'page' && style !== 'connection') throw new Error(`pager: unknown style ${style}`);
  const body = h('div', { class: 'pager-body', 'aria-live': 'polite', 'aria-busy': 'false' });
  const status = h('span', { class: 'pager-status' });
  const prev = h('button', { type: 'button', onclick: () => go(-1) }, 'Previous');
  const next = h('button', { type: 'button', onclick: () => go(1) }, 'Next');
  const element = h('section', { class: 'pager' }, body, h('div', { class: 'pager-nav' }, prev, status, next));

  // A table wider than its box (on a phone) scrolls sideways: while it
  // does, its box is a labelled region the keyboard can reach and scroll.
  let watched = null;
  const markScrolling = (wrap) => {
    if (wrap.scrollWidth > wrap.clientWidth) {
      wrap.setAttribute('tabindex', '0');
      wrap.setAttribute('role', 'region');
      wrap.setAttribute('aria-label', `${caption || 'Table'} (scrolls sideways)`);
    } else {
      for (const a of ['tabindex', 'role', 'aria-label']) wrap.removeAttribute(a);
    }
  };
  const observer = typeof ResizeObserver === 'function'
    ? new ResizeObserver((entries) => { for (const e of entries) markScrolling(e.target); })
    : null;
  function watchScrolling(wrap) {
    if (watched) observer?.unobserve(watched);
    watched = wrap;
    markScrolling(wrap);
    observer?.observe(wrap);
  }

  let page = 1;              // page style: the page number
  const cursors = [null];    // connection style: cursors[i] is page i+1's "after"
  let index = 0;             // connection style: the page shown, from 0
  let seq = 0;
  let lastDrawn = null;      // the rows drawn, as JSON

  async function show() {
    const mine = ++seq;
    body.setAttribute('aria-busy', 'true');
    prev.disabled = true;
    next.disabled = true;
    try {
      const args = style === 'page' ? { page, limit } : { first: limit, after: cursors[index] };
      const result = await load(args);
      if (mine !== seq) return;
      const nodes = style === 'page' ? (result?.nodes || []) : (result?.edges || []).map((e) => e.node);
      // Rows that did not change keep their nodes: a live update that
      // brings nothing new moves no focus and swaps nothing under a click.
      const drawn = JSON.stringify(nodes);
      if (drawn !== lastDrawn) {
        lastDrawn = drawn;
        drawWhenNoFormOpen(body, () => render(nodes));
      }
      if (style === 'page') {
        const total = result?.total ?? nodes.length;
        const pages = Math.max(1, Math.ceil(total / limit));
        status.textContent = total === 0 ? '' : `Page ${page} of ${pages} (${total} in all)`;
        prev.disabled = page <= 1;
        next.disabled = !result?.hasMore;
      } else {
        const info = result?.pageInfo || {};
        cursors[index + 1] = info.endCursor ?? null;
        const total = result?.totalCount;
        status.textContent = nodes.length === 0 ? '' : `Page ${index + 1}${total !== undefined && total !== null ? ` (${total} in all)` : ''}`;
        prev.disabled = index === 0;
        next.disabled = !info.hasNextPage;
      }
    } catch (err) {
      if (mine !== seq) return;
      lastDrawn = null;
      body.replaceChildren(h('p', { class: 'muted' }, 'This list could not be loaded.'));
      showError(err);
    } finally {
      if (mine === seq) body.setAttribute('aria-busy', 'false');
    }
  }

  function render(nodes) {
    if (nodes.length === 0) {
      body.replaceChildren(h('p', { class: 'muted' }, empty));
      return;
    }
    if (columns) {
      const wrap = h('div', { class: 'table-wrap' }, h('table', {},
        caption ? h('caption', {}, caption) : null,
        h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c.label)))),
        h('tbody', {}, nodes.map((n) => h('tr', {}, columns.map((c) => h('td', {}, c.render(n)))))),
      ));
      body.replaceChildren(wrap);
      watchScrolling(wrap);
    } else {
      body.replaceChildren(h('ul', { class: 'list' }, nodes.map((n) => h('li', {}, item ? item(n) : String(n)))));
    }
  }

  function go(step) {
    if (style === 'page') page = Math.max(1, page + step);
    else index = Math.max(0, index + step);
    show();
  }

  show();
  return {
    element,
    reload() { page = 1; index = 0; cursors.length = 1; return show(); },
    refresh() { return show(); },
  };
}

// ---------------------------------------------------------------------------
// Added for the API keys, apps and analytics screens: a modal confirmation,
// a field showing a secret once, and what to do when the server stops
// accepting the signed-in key.

/**
 * Opens a modal dialog titled title, with body (as h takes children) and
 * the buttons confirm and Cancel. Resolves to true when confirmed, false
 * when cancelled (Escape included). Focus returns to the control that had
 * it. The dialog is removed once closed.
 */
export function confirmDialog({ title, body = [], confirm = 'OK', danger = false }) {
  const opener = document.activeElement;
  const heading = h('h2', { id: `f${++ids}` }, title);
  const ok = h('button', { type: 'submit', class: danger ? 'danger' : 'primary' }, confirm);
  const cancel = h('button', { type: 'button' }, 'Cancel');
  const form = h('form', { novalidate: true }, heading, body, h('div', { class: 'actions' }, ok, cancel));
  const dialog = h('dialog', { class: 'confirm', 'aria-labelledby': heading.id }, form);
  document.body.append(dialog);
  return new Promise((resolve) => {
    let answer = false;
    // form-action 'none' forbids real submissions: the event is handled here.
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      answer = true;
      dialog.close();
    });
    cancel.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => {
      dialog.remove();
      if (opener && opener.isConnected && typeof opener.focus === 'function') opener.focus();
      resolve(answer);
    });
    dialog.showModal();
  });
}

/**
 * A secret shown once (an API key's, an app token): a read-only field
 * with a Copy button and the warning that it cannot be shown again.
 * onDone runs when the reader dismisses it; the box then removes itself,
 * and the secret with it, from the page.
 */
export function secretBox({ label, secret, warning, onDone = () => {} }) {
  const input = h('input', { type: 'text', readonly: true, value: secret, spellcheck: 'false', autocomplete: 'off', class: 'secret-value' });
  const status = h('span', { class: 'copy-status', role: 'status' });
  const copy = h('button', {
    type: 'button',
    onclick: async () => {
      input.select();
      try {
        await navigator.clipboard.writeText(secret);
        status.textContent = 'Copied.';
      } catch {
        // Without clipboard permission the text stays selected to copy by hand.
        status.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.';
      }
    },
  }, 'Copy');
  const done = h('button', { type: 'button', class: 'primary' }, 'I have stored it');
  const box = h('section', { class: 'secret', 'aria-label': label },
    h('p', { class: 'warning' }, warning),
    formField(label, input),
    h('div', { class: 'actions' }, copy, done, status),
  );
  done.addEventListener('click', () => {
    input.value = '';
    box.remove();
    onDone();
  });
  return { element: box, focus: () => { input.focus(); input.select(); } };
}

/**
 * Handles an error of a call: a key the server no longer accepts (revoked,
 * or rotated and past its grace period) sends the reader to sign in, by
 * reloading the console, whose start checks the stored key, forgets it and
 * says why; any other error is shown with showError. Returns err.
 */
export function reportError(err, context = '') {
  if (err?.code === 'UNAUTHORIZED') {
    if (inSession()) markEnded();
    window.location.reload();
    return err;
  }
  showError(err, context);
  return err;
}

/**
 * Whether scopes grant scope, as the server decides it: admin grants
 * every scope, and writing grants reading.
 */
export function holds(scopes, scope) {
  if (scopes.includes(scope) || scopes.includes('admin')) return true;
  const writing = { 'leads:read': 'leads:write', 'lending:read': 'lending:write' }[scope];
  return !!writing && scopes.includes(writing);
}

// ---------------------------------------------------------------------------
// A form's own errors: written inside the form, beside what failed, so the
// reader sees them where they are working.

/** An error the console finds itself, naming the form field it is about. */
export function fieldError(message, field = '') {
  return Object.assign(new Error(message), { code: 'VALIDATION_ERROR', field });
}

// The control of form that err names (extensions.field, or field of a
// fieldError), when it is one control the reader can see.
function namedControl(form, err) {
  const field = err?.field || err?.errors?.[0]?.extensions?.field || '';
  const el = field ? form.elements.namedItem(field) : null;
  if (!(el instanceof HTMLElement) || el.closest('[hidden]') || el.type === 'hidden') return null;
  return el;
}

/**
 * The server's message about control's field in the reader's words: the
 * field's label in place of its API name ("interestRate is required..."
 * reads "Rate is required..."), or before a message that names none
 * ("must not exceed..." reads "Funded amount must not exceed...").
 */
function fieldMessage(form, control, message) {
  const label = control ? form.querySelector(`label[for="${control.id}"]`)?.textContent.trim() : '';
  if (!label) return message;
  if (message.startsWith(`${control.name} `)) return `${label}${message.slice(control.name.length)}`;
  return /^[a-z]/.test(message) ? `${label} ${message}` : message;
}

/** Removes form's error and unmarks the control it named. */
export function clearFormError(form) {
  for (const msg of form.querySelectorAll('.form-error')) {
    for (const el of form.querySelectorAll('[aria-invalid="true"]')) {
      const rest = (el.getAttribute('aria-describedby') || '').split(' ').filter((t) => t && t !== msg.id);
      if (rest.length) el.setAttribute('aria-describedby', rest.join(' '));
      else el.removeAttribute('aria-describedby');
      el.removeAttribute('aria-invalid');
    }
    msg.remove();
  }
}

/**
 * Writes err in form: below the control it names, which is marked invalid,
 * described by the message and focused; else beside the form's submit
 * button, and the message is focused. The message is an assertive live
 * region, so it is read out as it appears.
 */
export function showFormError(form, err, context = '') {
  clearFormError(form);
  const control = namedControl(form, err);
  const msg = h('p', { class: 'form-error', id: `f${++ids}`, role: 'alert', 'aria-live': 'assertive', tabindex: '-1' },
    context ? `${context} ` : '',
    fieldMessage(form, control, err?.message || String(err)),
    err?.code ? h('span', { class: 'code' }, ` (${err.code})`) : null,
    err?.requestId ? h('span', { class: 'request-id' }, ` Request id: ${err.requestId}`) : null);
  if (control) {
    (control.closest('.field') || control).after(msg);
    control.setAttribute('aria-invalid', 'true');
    const described = (control.getAttribute('aria-describedby') || '').split(' ').filter(Boolean);
    control.setAttribute('aria-describedby', [...described, msg.id].join(' '));
    control.focus();
  } else {
    const submit = form.querySelector('[type="submit"]');
    const spot = submit?.closest('.actions') || submit;
    if (spot) spot.after(msg);
    else form.append(msg);
    msg.focus();
  }
  return msg;
}

/**
 * The one way a form runs its action: on submit, action(form) runs with
 * the submit button disabled. Success clears the form's error and the
 * page's message region; a failure is written in the form (showFormError),
 * with context, or err.context when the action gives one. A key the
 * server no longer accepts sends the reader to sign in (reportError).
 */
export function onFormSubmit(form, action, { context = '' } = {}) {
  let busy = false;
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (busy) return;
    busy = true;
    // aria-disabled, not disabled: a disabled button drops the focus to
    // the body, and the reader would start again from the top.
    const button = form.querySelector('[type="submit"]');
    button?.setAttribute('aria-disabled', 'true');
    try {
      await action(form);
      clearFormError(form);
      clearError();
    } catch (err) {
      // A sign-in form's 401 is its answer (a wrong password), not an
      // ended credential.
      if (err?.code === 'UNAUTHORIZED' && !form.classList.contains('sign-in')) reportError(err);
      else showFormError(form, err, err?.context || context);
    } finally {
      busy = false;
      button?.removeAttribute('aria-disabled');
    }
  });
  return form;
}

/**
 * A disclosure holding a form: summary is the button that opens it,
 * submit(form) runs on submit and resolves when done; errors show in words
 * with context and leave the form open to correct.
 */
export function actionForm(summary, context, fields, submitLabel, submit, { className = '' } = {}) {
  const button = h('button', { type: 'submit', class: 'primary' }, submitLabel);
  const form = h('form', { class: 'action-form', novalidate: true }, fields, h('div', { class: 'actions' }, button));
  const details = h('details', { class: ['action', className] }, h('summary', {}, summary), form);
  onFormSubmit(form, async () => {
    await submit(form);
    details.open = false;
  }, { context });
  return details;
}
