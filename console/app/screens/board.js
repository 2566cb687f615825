// The pipeline board: a column per stage, each column its own paged list
// of leads (newest first, "Load more" pages on), the same filters applied
// to every column. A card moves to another stage by dragging it (SortableJS
// in its fallback mode, which follows mouse and pointer events) or with its
// "Move…" menu; the board follows other people's changes over the events
// subscription. Each column's header shows its count and the sum its leads
// ask for (boardTotals, under the board's filters). In select mode cards
// carry checkboxes, and a bar changes the selected leads at once
// (bulkUpdateLeads). A card whose lead has an approved application ready
// to fund carries a "Ready to fund" badge, read once a page of cards
// (leadsReadyToFund). On a phone one column shows at a time, behind stage tabs.
// The filters live in the address (#/board?advisor=..&priority=..&q=..&source=..),
// and the "Views" menu saves and applies them by name.

import { gql, subscribe } from '../api.js';
import { loadSortable } from '../libs.js';
import { savedViewsMenu } from '../savedviews.js';
import { clearError, count, exportButton, formField, h, money, showError } from '../ui.js';

const PAGE = 25;

const LEAD_FIELDS = `id businessName contactFirstName contactLastName requestedAmount priority source stageId primaryAdvisorName createdAt`;

const COLUMN_QUERY = `query BoardColumn($first: Int!, $after: Cursor, $where: LeadWhereInput!) {
  leads(first: $first, after: $after, where: $where, orderBy: {field: CREATED_AT, direction: DESC}) {
    totalCount totalCountIsExact
    edges { node { ${LEAD_FIELDS} } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const MOVE = `mutation MoveLead($id: ID!, $stageId: ID!) { moveLeadToStage(id: $id, stageId: $stageId) { id stageId } }`;

const TOTALS = `query BoardTotals($where: LeadWhereInput) {
  boardTotals(where: $where) { stageId leads requestedAmount requestedAmountIsExact }
}`;

// Which leads of a page of cards have an approved application ready to
// fund: one read a page, not one a card.
const READY = `query ReadyToFund($ids: [ID!]!) { leadsReadyToFund(leadIds: $ids) }`;

const BULK = `mutation BulkUpdateLeads($ids: [ID!]!, $input: BulkUpdateLeadsInput!) { bulkUpdateLeads(ids: $ids, input: $input) { id } }`;

const CREATE = `mutation CreateLead($input: CreateLeadInput!) { createLead(input: $input) { id } }`;

/** Every stage of the pipeline, in order (stagesPage, page by page). */
export async function allStages() {
  const stages = [];
  for (let page = 1; page <= 100; page++) {
    const data = await gql(`query Stages($page: Int!) { stagesPage(page: $page, limit: 100) { nodes { id stageLabel color } hasMore } }`, { page });
    stages.push(...data.stagesPage.nodes);
    if (!data.stagesPage.hasMore) break;
  }
  return stages;
}

/** The values of a schema enum (introspection), so the console offers exactly what the API accepts. */
export async function enumValues(name) {
  const data = await gql(`query Enum($name: String!) { __type(name: $name) { enumValues { name description } } }`, { name });
  return data.__type?.enumValues || [];
}

/** "Ada Lovelace" from a lead's contact names, or ''. */
export function contactName(lead) {
  return [lead.contactFirstName, lead.contactLastName].filter(Boolean).join(' ');
}

/**
 * A select of the organization's advisors, paged: it holds the first page
 * (by last name) and a "More advisors…" entry that fetches the next one, so
 * no list of users is ever read whole. first is the option for "none".
 */
export function advisorSelect(first, attrs = {}) {
  const select = h('select', attrs, h('option', { value: '' }, first));
  const more = h('option', { value: '__more' }, 'More advisors…');
  let page = 0;
  let previous = '';
  async function loadPage() {
    page++;
    const data = await gql(`query Advisors($page: Int!) { usersPage(role: advisor, page: $page, limit: 50) { nodes { id firstName lastName } hasMore } }`, { page });
    more.remove();
    for (const u of data.usersPage.nodes) select.append(h('option', { value: u.id }, `${u.firstName} ${u.lastName}`));
    if (data.usersPage.hasMore) select.append(more);
  }
  select.addEventListener('focus', () => { previous = select.value; });
  select.addEventListener('change', async (ev) => {
    if (select.value !== '__more') {
      previous = select.value;
      return;
    }
    ev.stopImmediatePropagation();
    select.value = previous;
    try {
      await loadPage();
    } catch (err) {
      showError(err, 'The advisors could not be loaded.');
    }
  });
  select.ready = loadPage().catch((err) => showError(err, 'The advisors could not be loaded.'));
  return select;
}

/**
 * The board's filters as a saved view holds them: the leads query's where
 * and the search words. The address's names: advisor, source, priority, q.
 */
export function boardFilters(query) {
  const where = {};
  if (query.get('advisor')) where.primaryAdvisorId = query.get('advisor');
  if (query.get('source')) where.source = query.get('source');
  if (query.get('priority')) where.priority = query.get('priority');
  const out = {};
  if (Object.keys(where).length) out.where = where;
  if (query.get('q')) out.search = query.get('q');
  return out;
}

/** The address's query for a saved view's board filters (what the board shows of them). */
export function boardQuery(filters) {
  const w = filters.where || {};
  return { advisor: w.primaryAdvisorId, source: w.source, priority: w.priority, q: filters.search };
}

function enumSelect(values, first, attrs = {}) {
  return h('select', attrs,
    first === null ? null : h('option', { value: '' }, first),
    values.map((v) => h('option', { value: v.name, title: v.description || null }, v.name.replaceAll('_', ' '))));
}

/** Fills main; returns the cleanup that closes the live subscription. */
export async function render(main, ctx) {
  const [stages, sources, priorities, Sortable] = await Promise.all([
    allStages(), enumValues('LeadSource'), enumValues('LeadPriority'), loadSortable(),
  ]);
  // The reader may have moved on while these loaded: main is another screen's now.
  if (!ctx.isCurrent()) return undefined;

  const search = h('input', { type: 'search', name: 'search', placeholder: 'Business, contact or email', autocomplete: 'off' });
  const advisor = advisorSelect('Any advisor', { name: 'advisor' });
  const source = enumSelect(sources, 'Any source', { name: 'source' });
  const priority = enumSelect(priorities, 'Any priority', { name: 'priority' });
  // The filters come from the address; the advisor is set once its
  // options are there.
  search.value = ctx.query.get('q') || '';
  source.value = ctx.query.get('source') || '';
  priority.value = ctx.query.get('priority') || '';
  const filters = h('form', { class: 'board-filters', role: 'search', 'aria-label': 'Filter the board', onsubmit: (ev) => { ev.preventDefault(); filtered(); } },
    formField('Search', search),
    formField('Advisor', advisor),
    formField('Source', source),
    formField('Priority', priority),
  );
  // The export takes the board's filters and search.
  const exportLeads = exportButton(() => {
    const q = new URLSearchParams();
    if (advisor.value && advisor.value !== '__more') q.set('primaryAdvisorId', advisor.value);
    if (source.value) q.set('source', source.value);
    if (priority.value) q.set('priority', priority.value);
    if (search.value.trim()) q.set('search', search.value.trim());
    return `/v1/exports/leads.csv${q.size ? `?${q}` : ''}`;
  });
  /** The filters on show, as the address names them. */
  function params() {
    const a = advisor.value && advisor.value !== '__more' ? advisor.value : '';
    return { advisor: a, source: source.value, priority: priority.value, q: search.value.trim() };
  }
  // A filter changed: a new entry in the history (Back returns to the
  // filters before), then the columns again. Words typed in one go make
  // one entry, replaced as they grow.
  let typing = false;
  function filtered({ replace = false } = {}) {
    ctx.setQuery(params(), { replace });
    reloadAll();
  }
  let searchTimer = 0;
  search.addEventListener('input', () => {
    exportLeads.refresh();
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      filtered({ replace: typing });
      typing = true;
    }, 300);
  });
  search.addEventListener('blur', () => { typing = false; });
  for (const s of [advisor, source, priority]) s.addEventListener('change', () => { if (s.value !== '__more') filtered(); });

  const newButton = h('button', { type: 'button', class: 'primary', 'aria-expanded': 'false' }, 'New lead');
  const newForm = leadForm(sources, priorities, ctx);
  newForm.hidden = true;
  newButton.addEventListener('click', () => {
    newForm.hidden = !newForm.hidden;
    newButton.setAttribute('aria-expanded', String(!newForm.hidden));
    if (!newForm.hidden) newForm.querySelector('input')?.focus();
  });

  /** The filter every column shares, with its stage added per column. */
  function where(stageId) {
    return { stageId, ...filter() };
  }

  /** The board's filters alone: what the columns share, and what the totals sum. */
  function filter() {
    const w = {};
    if (advisor.value && advisor.value !== '__more') w.primaryAdvisorId = advisor.value;
    if (source.value) w.source = source.value;
    if (priority.value) w.priority = priority.value;
    // The same full-text search as the leads list: words, the last a prefix.
    const q = search.value.trim();
    if (q) w.search = q;
    return w;
  }

  const columns = new Map();
  const sortables = [];
  // The leads chosen in select mode, by id: kept across reloads until a
  // bulk change is made or the selection cleared.
  const selected = new Set();

  function card(lead) {
    const el = h('li', { class: 'card', dataset: { id: lead.id, stage: lead.stageId } },
      h('a', { href: `#/leads/${encodeURIComponent(lead.id)}`, class: 'card-title', title: lead.businessName || null }, lead.businessName || '(no business name)'),
      h('p', { class: 'card-meta' },
        lead.requestedAmount ? money(lead.requestedAmount) : 'No amount',
        ` · ${contactName(lead) || 'No contact'}`,
        ` · ${lead.source.replaceAll('_', ' ')}`,
        lead.primaryAdvisorName ? ` · ${lead.primaryAdvisorName}` : ''),
    );
    const [button, menu] = moveMenu(el, lead.businessName || 'lead');
    // Normal is most leads' priority: only the others are worth the room.
    const badge = lead.priority === 'normal' ? null : h('span', { class: `badge priority-${lead.priority}` }, lead.priority);
    const check = h('input', { type: 'checkbox', class: 'card-select', 'aria-label': `Select ${lead.businessName || 'lead'}`, checked: selected.has(lead.id) });
    check.addEventListener('change', () => {
      if (check.checked) selected.add(lead.id);
      else selected.delete(lead.id);
      showSelection();
    });
    el.append(h('div', { class: 'card-foot' }, check, badge, button), menu);
    return el;
  }

  /**
   * The card's "Move…" button and the menu of the other stages it opens
   * (the menu button pattern: arrows move, Escape closes), the way to move
   * a card without dragging it.
   */
  function moveMenu(el, name) {
    const button = h('button', { type: 'button', class: 'move', 'aria-haspopup': 'menu', 'aria-expanded': 'false', 'aria-label': `Move ${name} to another stage` }, 'Move…');
    const menu = h('ul', { class: 'move-menu', role: 'menu', 'aria-label': `Stages for ${name}`, hidden: true });
    const items = () => [...menu.querySelectorAll('[role="menuitem"]')];
    function close(focus) {
      menu.hidden = true;
      button.setAttribute('aria-expanded', 'false');
      if (focus) button.focus();
    }
    function open() {
      menu.replaceChildren(...stages.filter((s) => s.id !== el.dataset.stage).map((s) => h('li', { role: 'none' },
        h('button', { type: 'button', role: 'menuitem', tabindex: '-1', dataset: { stage: s.id } }, s.stageLabel))));
      menu.hidden = false;
      button.setAttribute('aria-expanded', 'true');
      items()[0]?.focus();
    }
    button.addEventListener('click', () => (menu.hidden ? open() : close(false)));
    menu.addEventListener('click', (ev) => {
      const item = ev.target.closest('[role="menuitem"]');
      if (!item) return;
      close(false);
      moveTo(el, item.dataset.stage);
    });
    menu.addEventListener('keydown', (ev) => {
      const all = items();
      const at = all.indexOf(document.activeElement);
      const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: all.length - 1 }[ev.key];
      if (to !== undefined) {
        ev.preventDefault();
        all[(to + all.length) % all.length]?.focus();
      } else if (ev.key === 'Escape') {
        ev.preventDefault();
        close(true);
      } else if (ev.key === 'Tab') {
        close(false);
      }
    });
    // A click or focus elsewhere closes the menu.
    el.addEventListener('focusout', (ev) => {
      if (!menu.hidden && !menu.contains(ev.relatedTarget) && ev.relatedTarget !== button) close(false);
    });
    return [button, menu];
  }

  /** Moves a card with its menu; the focus stays on it, or on the tab when it went out of sight. */
  async function moveTo(el, to) {
    const from = el.dataset.stage;
    const target = columns.get(to);
    if (target) target.list.prepend(el);
    else el.remove();
    await moveLead(el, from, to, () => {
      const back = columns.get(from);
      if (back) back.list.prepend(el);
    });
    if (el.getClientRects().length) el.querySelector('button.move').focus();
    else tablist.querySelector('[aria-selected="true"]')?.focus();
  }

  /** Saves a move already shown; on failure undo() puts the card back. */
  async function moveLead(el, from, to, undo) {
    if (from === to) return;
    const id = el.dataset.id;
    setCount(from, -1);
    setCount(to, +1);
    el.dataset.stage = to;
    el.setAttribute('aria-busy', 'true');
    try {
      clearError();
      await gql(MOVE, { id, stageId: to });
      loadTotals();
    } catch (err) {
      undo();
      el.dataset.stage = from;
      setCount(from, +1);
      setCount(to, -1);
      showError(err, `${el.querySelector('.card-title').textContent} could not be moved.`);
    } finally {
      el.removeAttribute('aria-busy');
    }
  }

  function setCount(stageId, delta) {
    const col = columns.get(stageId);
    if (!col || col.total === null) return;
    col.total += delta;
    showCount(col);
  }

  function showCount(col) {
    const text = col.exact ? count(col.total) : `about ${count(col.total)}+`;
    const label = col.exact ? `${count(col.total)} leads` : `more than ${count(col.total)} leads`;
    col.count.textContent = text;
    col.count.setAttribute('aria-label', label);
    col.tabCount.textContent = text;
    if (col.sum !== null) {
      const sum = col.sumExact ? money(col.sum) : `over ${money(col.sum)}`;
      col.sumEl.textContent = sum;
      col.sumEl.setAttribute('aria-label', `${sum} requested`);
    }
  }

  /**
   * The columns' counts and requested sums under the board's filters, in
   * one read; they replace the columns' own counts, which stop counting at
   * 10,000 under a filter.
   */
  let totalsSeq = 0;
  async function loadTotals() {
    const mine = ++totalsSeq;
    try {
      const data = await gql(TOTALS, { where: filter() });
      if (mine !== totalsSeq) return;
      for (const t of data.boardTotals) {
        const col = columns.get(t.stageId);
        if (!col) continue;
        Object.assign(col, { total: t.leads, exact: true, fromTotals: true, sum: t.requestedAmount, sumExact: t.requestedAmountIsExact });
        showCount(col);
      }
    } catch (err) {
      if (mine === totalsSeq) showError(err, 'The column totals could not be loaded.');
    }
  }

  /**
   * Badges the cards of leads with an approved application ready to fund,
   * for the ids of a page just loaded. The badge is extra: a person who
   * may not read lending records (an agent) is not asked, and a failed
   * read leaves the cards as they are.
   */
  async function markReady(ids) {
    if (!ids.length || (ctx.can && !ctx.can('lending:read'))) return;
    let ready;
    try {
      ready = (await gql(READY, { ids })).leadsReadyToFund;
    } catch {
      return;
    }
    for (const id of ready) {
      const el = main.querySelector(`.card[data-id="${CSS.escape(id)}"]`);
      const foot = el?.querySelector('.card-foot');
      if (foot && !foot.querySelector('.ready-to-fund')) foot.querySelector('.move')?.before(h('span', { class: 'badge ready-to-fund' }, 'Ready to fund'));
    }
  }

  async function loadColumn(col, more) {
    const mine = ++col.seq;
    col.more.disabled = true;
    col.list.setAttribute('aria-busy', 'true');
    try {
      const data = await gql(COLUMN_QUERY, { first: PAGE, after: more ? col.cursor : null, where: where(col.stage.id) });
      if (mine !== col.seq) return;
      const conn = data.leads;
      if (!more) col.list.replaceChildren();
      const added = [];
      for (const e of conn.edges || []) {
        if (e?.node && !col.list.querySelector(`[data-id="${CSS.escape(e.node.id)}"]`)) {
          col.list.append(card(e.node));
          added.push(e.node.id);
        }
      }
      markReady(added);
      col.cursor = conn.pageInfo.endCursor;
      if (!col.fromTotals) {
        col.total = conn.totalCount;
        col.exact = conn.totalCountIsExact;
        showCount(col);
      }
      col.more.hidden = !conn.pageInfo.hasNextPage;
    } catch (err) {
      if (mine === col.seq) showError(err, `The ${col.stage.stageLabel} column could not be loaded.`);
    } finally {
      if (mine === col.seq) {
        col.more.disabled = false;
        col.list.setAttribute('aria-busy', 'false');
      }
    }
  }

  function reloadAll() {
    for (const col of columns.values()) {
      col.fromTotals = false;
      loadColumn(col, false);
    }
    loadTotals();
  }

  // Select mode: a checkbox on every card, and the bar of bulk changes.
  const selectButton = h('button', { type: 'button', 'aria-pressed': 'false' }, 'Select');
  const selectedCount = h('p', { class: 'bulk-count', role: 'status' }, 'No lead selected');
  const bulkStage = h('select', { name: 'bulkStage' }, stages.map((s) => h('option', { value: s.id }, s.stageLabel)));
  const bulkAdvisor = advisorSelect('Choose an advisor', { name: 'bulkAdvisor' });
  const bulkPriority = enumSelect(priorities, null, { name: 'bulkPriority' });
  const bulkTag = h('input', { name: 'bulkTag', autocomplete: 'off', maxlength: 50 });
  const bulkButtons = [];
  function bulkButton(label, input) {
    const b = h('button', { type: 'button' }, label);
    b.addEventListener('click', () => bulkChange(input(), label));
    bulkButtons.push(b);
    return b;
  }
  const tag = () => bulkTag.value.trim();
  const bar = h('div', { class: 'bulk-bar', role: 'region', 'aria-label': 'Change the selected leads', hidden: true },
    selectedCount,
    h('div', { class: 'bulk-action' }, formField('Stage', bulkStage), bulkButton('Move', () => ({ stageId: bulkStage.value }))),
    h('div', { class: 'bulk-action' }, formField('Advisor', bulkAdvisor),
      bulkButton('Reassign', () => (bulkAdvisor.value && bulkAdvisor.value !== '__more' ? { primaryAdvisorId: bulkAdvisor.value } : null))),
    h('div', { class: 'bulk-action' }, formField('Priority', bulkPriority), bulkButton('Set priority', () => ({ priority: bulkPriority.value }))),
    h('div', { class: 'bulk-action' }, formField('Tag', bulkTag),
      bulkButton('Add tag', () => (tag() ? { addTags: [tag()] } : null)),
      bulkButton('Remove tag', () => (tag() ? { removeTags: [tag()] } : null))),
    h('button', { type: 'button', class: 'bulk-clear', onclick: () => { selected.clear(); syncChecks(); showSelection(); } }, 'Clear selection'),
  );
  selectButton.addEventListener('click', () => {
    const on = selectButton.getAttribute('aria-pressed') !== 'true';
    selectButton.setAttribute('aria-pressed', String(on));
    board.classList.toggle('selecting', on);
    bar.hidden = !on;
    if (!on) {
      selected.clear();
      syncChecks();
    }
    showSelection();
  });

  function syncChecks() {
    for (const c of board.querySelectorAll('.card-select')) c.checked = selected.has(c.closest('.card').dataset.id);
  }

  function showSelection() {
    const n = selected.size;
    selectedCount.textContent = n === 0 ? 'No lead selected' : `${count(n)} ${n === 1 ? 'lead' : 'leads'} selected`;
    for (const b of bulkButtons) b.disabled = n === 0;
  }

  /** Makes one bulk change to the selected leads, then reloads the board. */
  async function bulkChange(input, label) {
    if (!input) {
      showError(new Error('Choose a value first.'), `${label}: nothing to apply.`);
      return;
    }
    const ids = [...selected];
    if (ids.length === 0) return;
    for (const b of bulkButtons) b.disabled = true;
    bar.setAttribute('aria-busy', 'true');
    try {
      clearError();
      await gql(BULK, { ids, input });
      selected.clear();
      reloadAll();
      selectedCount.textContent = `${label}: ${count(ids.length)} ${ids.length === 1 ? 'lead' : 'leads'} changed`;
    } catch (err) {
      showError(err, 'The selected leads could not be changed.');
    } finally {
      bar.removeAttribute('aria-busy');
      for (const b of bulkButtons) b.disabled = selected.size === 0;
    }
  }
  showSelection();

  // On a phone the board shows one stage at a time, chosen with these tabs.
  const tablist = h('div', { class: 'board-tabs', role: 'tablist', 'aria-label': 'Stages' });
  const board = h('div', { class: 'board' });
  for (const stage of stages) {
    const headingId = `stage-${stage.id}`;
    const list = h('ul', { class: 'board-list', dataset: { stage: stage.id }, 'aria-labelledby': headingId });
    const countEl = h('span', { class: 'board-count' }, '…');
    const sumEl = h('span', { class: 'board-sum' });
    const tabCount = h('span', { class: 'board-count' }, '…');
    const tab = h('button', { type: 'button', role: 'tab', id: `tab-${stage.id}`, 'aria-controls': `column-${stage.id}`, 'aria-selected': 'false', tabindex: '-1', dataset: { stage: stage.id } },
      stage.stageLabel, ' ', tabCount);
    const more = h('button', { type: 'button', class: 'load-more', hidden: true }, 'Load more');
    const section = h('section', { class: 'board-column', id: `column-${stage.id}`, dataset: { stage: stage.id } },
      h('h2', { id: headingId }, stage.stageLabel, ' ', countEl, sumEl),
      list, more);
    const col = { stage, list, count: countEl, sumEl, tabCount, tab, section, more, cursor: null, total: null, exact: true, sum: null, sumExact: true, fromTotals: false, seq: 0 };
    more.addEventListener('click', () => loadColumn(col, true));
    more.setAttribute('aria-label', `Load more ${stage.stageLabel} leads`);
    columns.set(stage.id, col);
    tablist.append(tab);
    board.append(section);
    sortables.push(Sortable.create(list, {
      group: 'board',
      draggable: '.card',
      filter: '.move, .move-menu, .card-select',
      preventOnFilter: false,
      forceFallback: true,
      fallbackOnBody: true,
      animation: 0,
      onEnd: (evt) => {
        if (evt.from === evt.to) return;
        const el = evt.item;
        const from = evt.from.dataset.stage;
        const to = evt.to.dataset.stage;
        const { oldIndex } = evt;
        moveLead(el, from, to, () => {
          evt.from.insertBefore(el, evt.from.children[oldIndex] || null);
        });
      },
    }));
  }
  const tabs = stagesTabs(tablist, [...columns.values()], stages[0]?.id);

  const views = savedViewsMenu({
    ctx, screen: 'BOARD', route: '/board', toQuery: boardQuery,
    filters: () => boardFilters(new URLSearchParams(params())),
  });
  main.append(
    h('div', { class: 'screen-head' }, h('h1', {}, ctx.title), selectButton, exportLeads, newButton, views),
    newForm,
    filters,
    h('p', { class: 'hint' }, 'Drag a card to another column, or use its "Move…" menu; "Select" changes many at once.'),
    bar,
    tablist,
    board,
  );
  await Promise.all([advisor.ready, bulkAdvisor.ready]);
  if (!ctx.isCurrent()) return undefined;
  await chooseAdvisor(advisor, ctx.query.get('advisor'));
  if (!ctx.isCurrent()) return undefined;
  reloadAll();

  // Other people's changes: reload the columns an event touches (a move
  // touches two), at most every half second.
  const pending = new Set();
  let timer = 0;
  function touch(stageId) {
    if (stageId) pending.add(stageId);
    clearTimeout(timer);
    timer = setTimeout(() => {
      // A card being dragged would be dropped by a reload: wait for the drop.
      if (document.querySelector('.sortable-fallback')) {
        touch();
        return;
      }
      for (const id of pending) {
        const col = columns.get(id);
        if (col) loadColumn(col, false);
      }
      pending.clear();
      loadTotals();
    }, 500);
  }
  const unsubscribe = subscribe(`subscription BoardEvents { events(types: ["lead.created", "lead.status_changed", "lead.updated", "lead.assigned"]) { event data } }`, {}, {
    next: ({ events: ev }) => {
      const d = ev.data || {};
      if (ev.event === 'lead.status_changed') {
        // Our own move is already on screen.
        const el = board.querySelector(`.card[data-id="${CSS.escape(String(d.leadId || ''))}"]`);
        if (el && el.dataset.stage === d.newStageId) return;
        touch(d.previousStageId);
        touch(d.newStageId);
      } else if (d.stageId) {
        touch(d.stageId);
      } else {
        const el = board.querySelector(`.card[data-id="${CSS.escape(String(d.leadId || ''))}"]`);
        if (el) touch(el.dataset.stage);
      }
    },
    error: (err) => showError(err, 'Live updates stopped.'),
  });

  return () => {
    clearTimeout(timer);
    clearTimeout(searchTimer);
    unsubscribe();
    tabs.stop();
    for (const s of sortables) s.destroy();
  };
}

/**
 * Selects the advisor id in select: one of its first page, or, when the
 * address names another, an option added for them.
 */
async function chooseAdvisor(select, id) {
  if (!id) return;
  if (![...select.options].some((o) => o.value === id)) {
    let label = 'The advisor chosen';
    try {
      const data = await gql(`query Advisor($id: ID!) { node(id: $id) { ... on User { firstName lastName } } }`, { id });
      if (data.node?.firstName !== undefined) label = `${data.node.firstName} ${data.node.lastName}`;
    } catch {
      // Not one the reader may see: the filter still applies as given.
    }
    const more = select.querySelector('option[value="__more"]');
    select.insertBefore(h('option', { value: id }, label), more);
  }
  select.value = id;
}

/**
 * The stage tabs of a phone-sized screen: an ARIA tablist whose arrow keys
 * move between stages, each column its tabpanel and one shown at a time.
 * Wider screens show every column and hide the tabs (style.css).
 */
function stagesTabs(tablist, cols, first) {
  const query = matchMedia('(max-width: 700px)');
  let selected = first;
  function layout() {
    const phone = query.matches;
    for (const col of cols) {
      const on = col.stage.id === selected;
      col.tab.setAttribute('aria-selected', String(on));
      col.tab.tabIndex = on ? 0 : -1;
      if (phone) {
        col.section.setAttribute('role', 'tabpanel');
        col.section.setAttribute('aria-labelledby', col.tab.id);
      } else {
        col.section.removeAttribute('role');
        col.section.removeAttribute('aria-labelledby');
      }
      col.section.hidden = phone && !on;
    }
  }
  function select(col, focus) {
    selected = col.stage.id;
    layout();
    if (focus) col.tab.focus();
    col.tab.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
  tablist.addEventListener('click', (ev) => {
    const tab = ev.target.closest('[role="tab"]');
    const col = tab && cols.find((c) => c.tab === tab);
    if (col) select(col, false);
  });
  tablist.addEventListener('keydown', (ev) => {
    const at = cols.findIndex((c) => c.stage.id === selected);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: cols.length - 1 }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    select(cols[(to + cols.length) % cols.length], true);
  });
  query.addEventListener('change', layout);
  layout();
  return { stop: () => query.removeEventListener('change', layout) };
}

/** The "New lead" form: creates the lead and opens it. */
function leadForm(sources, priorities, ctx) {
  const field = (name, label, attrs = {}) => formField(label, h('input', { name, autocomplete: 'off', ...attrs }));
  const source = enumSelect(sources, null, { name: 'source' });
  source.value = 'manual';
  const priority = enumSelect(priorities, null, { name: 'priority' });
  priority.value = 'normal';
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create lead');
  const form = h('form', { class: 'new-lead', 'aria-label': 'New lead' },
    h('h2', {}, 'New lead'),
    field('businessName', 'Business name', { required: true, maxlength: 255 }),
    field('contactFirstName', 'Contact first name', { maxlength: 100 }),
    field('contactLastName', 'Contact last name', { maxlength: 100 }),
    field('email', 'Email', { type: 'email', maxlength: 254 }),
    field('phone', 'Phone', { type: 'tel', maxlength: 20 }),
    formField('Requested amount', h('input', { name: 'requestedAmount', inputmode: 'decimal', autocomplete: 'off' }), { hint: 'A decimal amount, such as 25000.00.' }),
    formField('Source', source),
    formField('Priority', priority),
    submit,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const input = {};
    for (const el of form.elements) {
      if (!el.name) continue;
      const v = el.value.trim();
      // The amount goes as typed: the server validates decimals.
      if (v !== '') input[el.name] = v;
    }
    submit.disabled = true;
    try {
      clearError();
      const data = await gql(CREATE, { input });
      ctx.navigate(`/leads/${data.createLead.id}`);
    } catch (err) {
      showError(err, 'The lead could not be created.');
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
