// The header's bell: how many of the signed-in person's notifications are
// unread, kept live by the notificationAdded subscription (which hears
// every replica's), and a panel of the recent ones. Notifications are a
// person's: with a key bound to no one the bell is not shown (the API
// would answer FORBIDDEN).

import { gql, subscribe } from './api.js';
import { date, h, showError } from './ui.js';

const NOTIFICATION_FIELDS = 'id kind at summary recordId leadId readAt';

const RECENT = `query RecentNotifications($first: Int!) {
  unreadNotificationCount
  notifications(first: $first) { edges { node { ${NOTIFICATION_FIELDS} } } }
}`;
const COUNT = 'query UnreadNotifications { unreadNotificationCount }';
const ADDED = `subscription NotificationAdded { notificationAdded { ${NOTIFICATION_FIELDS} } }`;
const MARK = 'mutation MarkNotificationsRead($ids: [ID!]) { markNotificationsRead(ids: $ids) }';

// How many notifications the panel lists.
const SHOWN = 20;

/**
 * Shows the bell in the header for me (the signed-in caller) when a
 * person is acting; returns the function that stops it and hides it.
 */
export function startBell(me) {
  const slot = document.getElementById('bell');
  if (!slot) return () => {};
  if (!me?.user) {
    slot.replaceChildren();
    slot.hidden = true;
    return () => {};
  }

  let unread = 0;
  let items = []; // the panel's notifications, newest first
  let stopped = false;

  const count = h('span', { class: 'bell-count', 'aria-hidden': 'true' });
  const button = h('button', {
    type: 'button', class: 'bell-button', 'aria-expanded': 'false', 'aria-controls': 'bell-panel',
  }, bellIcon(), count);
  const heading = h('h2', { id: 'bell-title', tabindex: '-1' }, 'Notifications');
  const markAll = h('button', { type: 'button', class: 'bell-mark-all' }, 'Mark all read');
  const list = h('ul', { class: 'bell-list', 'aria-busy': 'false' });
  const panel = h('div', {
    id: 'bell-panel', class: 'bell-panel', role: 'dialog', 'aria-labelledby': 'bell-title', hidden: true,
  }, h('div', { class: 'bell-head' }, heading, markAll), list);
  slot.replaceChildren(button, panel);
  slot.hidden = false;

  function showCount() {
    const shown = unread > 99 ? '99+' : String(unread);
    count.textContent = unread > 0 ? shown : '';
    count.hidden = unread === 0;
    button.setAttribute('aria-label', `Notifications, ${unread === 0 ? 'none' : shown} unread`);
    button.dataset.unread = String(unread);
    markAll.disabled = unread === 0;
  }

  function showList() {
    if (items.length === 0) {
      list.replaceChildren(h('li', { class: 'muted' }, 'No notifications yet.'));
      return;
    }
    list.replaceChildren(...items.map(item));
  }

  function item(n) {
    const text = [h('span', { class: 'bell-summary' }, n.summary), ' ', h('time', { datetime: n.at }, date(n.at))];
    const label = n.readAt ? n.summary : `Unread: ${n.summary}`;
    // Opening a notification marks it read; one about a lead opens the
    // lead; a read one about no lead is only its words.
    if (!n.leadId && n.readAt) return h('li', { class: 'read', dataset: { id: n.id } }, h('span', {}, text));
    const open = n.leadId
      ? h('a', { href: `#/leads/${encodeURIComponent(n.leadId)}`, 'aria-label': label }, text)
      : h('button', { type: 'button', class: 'link', 'aria-label': label }, text);
    open.addEventListener('click', () => {
      markRead(n);
      if (n.leadId) close({ focus: false });
    });
    return h('li', { class: n.readAt ? 'read' : 'unread', dataset: { id: n.id } }, open);
  }

  async function markRead(n) {
    if (n.readAt) return;
    n.readAt = new Date().toISOString();
    unread = Math.max(0, unread - 1);
    showCount();
    showList();
    try {
      await gql(MARK, { ids: [n.id] });
    } catch (err) {
      showError(err, 'The notification could not be marked read.');
    }
  }

  markAll.addEventListener('click', async () => {
    try {
      await gql(MARK, {});
      const now = new Date().toISOString();
      for (const n of items) n.readAt ??= now;
      unread = 0;
      showCount();
      showList();
      heading.focus();
    } catch (err) {
      showError(err, 'The notifications could not be marked read.');
    }
  });

  async function load() {
    list.setAttribute('aria-busy', 'true');
    try {
      const data = await gql(RECENT, { first: SHOWN });
      if (stopped) return;
      unread = data.unreadNotificationCount;
      items = (data.notifications.edges || []).map((e) => e.node);
      showCount();
      showList();
    } catch (err) {
      showError(err, 'The notifications could not be loaded.');
    } finally {
      list.setAttribute('aria-busy', 'false');
    }
  }

  function isOpen() {
    return !panel.hidden;
  }

  function open() {
    panel.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    list.replaceChildren(h('li', { class: 'muted' }, 'Loading…'));
    heading.focus();
    load();
  }

  // focus: give it back to the bell (Escape, the bell again), or leave it
  // where the reader went (a lead, a click elsewhere).
  function close({ focus = true } = {}) {
    if (!isOpen()) return;
    panel.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    if (focus) button.focus();
  }

  button.addEventListener('click', () => (isOpen() ? close() : open()));
  panel.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Escape') return;
    ev.preventDefault();
    ev.stopPropagation();
    close();
  });
  button.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && isOpen()) {
      ev.preventDefault();
      close();
    }
  });
  const outside = (ev) => {
    if (isOpen() && !slot.contains(ev.target)) close({ focus: false });
  };
  document.addEventListener('pointerdown', outside);
  const leaving = (ev) => {
    if (isOpen() && ev.relatedTarget && !slot.contains(ev.relatedTarget)) close({ focus: false });
  };
  panel.addEventListener('focusout', leaving);

  showCount();

  // The count read when a notification is heard settles the one shown at
  // once, whichever of the first count and the first notification came
  // first; only the latest read counts.
  let counting = 0;
  function recount() {
    const mine = ++counting;
    gql(COUNT).then((data) => {
      if (stopped || mine !== counting) return;
      unread = data.unreadNotificationCount;
      button.dataset.counted = 'true';
      showCount();
    }, (err) => showError(err, 'The notifications could not be counted.'));
  }

  const unsubscribe = subscribe(ADDED, {}, {
    next: ({ notificationAdded: n }) => {
      if (stopped || items.some((m) => m.id === n.id)) return;
      if (!n.readAt) unread += 1;
      items = [n, ...items].slice(0, SHOWN);
      showCount();
      if (isOpen()) showList();
      recount();
    },
    error: (err) => showError(err, 'Live notifications stopped.'),
  });

  recount();

  return () => {
    stopped = true;
    unsubscribe();
    document.removeEventListener('pointerdown', outside);
    slot.replaceChildren();
    slot.hidden = true;
  };
}

/** The bell's picture, drawn in the text's colour. */
function bellIcon() {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  for (const [k, v] of Object.entries({ viewBox: '0 0 24 24', width: '18', height: '18', 'aria-hidden': 'true', focusable: 'false', class: 'bell-icon' })) {
    svg.setAttribute(k, v);
  }
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('fill', 'currentColor');
  path.setAttribute('d', 'M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22zm7-6v-5a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2z');
  svg.append(path);
  return svg;
}
