// The users screen (#/users), for admins: the organization's people with
// their role and whether they can sign in; inviting one, resetting their
// sign-in and deactivating them. An invitation's link is shown once, to
// send to the person.

import { gql } from '../api.js';
import { clearError, confirmDialog, date, h, pager, reportError, secretBox } from '../ui.js';

const USER_FIELDS = 'id firstName lastName email role signIn lastSignInAt invitationExpiresAt deactivatedAt';

const LIST = `query ConsoleUsers($page: Int, $limit: Int) {
  usersPage(page: $page, limit: $limit) { nodes { ${USER_FIELDS} } total page limit hasMore }
}`;

const INVITE = `mutation ConsoleInviteUser($id: ID!) { inviteUser(userId: $id) { url expiresAt user { ${USER_FIELDS} } } }`;
const RESET = `mutation ConsoleResetUserSignIn($id: ID!) { resetUserSignIn(userId: $id) { url expiresAt user { ${USER_FIELDS} } } }`;
const DEACTIVATE = `mutation ConsoleDeactivateUser($id: ID!) { deactivateUser(userId: $id) { ${USER_FIELDS} } }`;

const STATUS = {
  NONE: 'No sign-in',
  INVITED: 'Invited',
  ACTIVE: 'Active',
  DEACTIVATED: 'Deactivated',
};

function status(u) {
  const words = STATUS[u.signIn] || u.signIn;
  if (u.signIn === 'INVITED' && u.invitationExpiresAt) {
    const expired = new Date(u.invitationExpiresAt) <= new Date();
    return h('span', { class: expired ? 'badge off' : 'badge' }, expired ? 'Invitation expired' : `${words} until ${date(u.invitationExpiresAt)}`);
  }
  return h('span', { class: u.signIn === 'ACTIVE' ? 'badge' : 'badge off' }, words);
}

/** Fills main; returns nothing to clean up (no live parts). */
export async function render(main, ctx) {
  const linkSlot = h('div', { class: 'secret-slot' });
  const list = pager({
    style: 'page',
    limit: 50,
    caption: "The organization's people",
    empty: 'No users yet.',
    load: async ({ page, limit }) => (await gql(LIST, { page, limit })).usersPage,
    columns: [
      { label: 'Name', render: (u) => `${u.firstName} ${u.lastName}` },
      { label: 'Email', render: (u) => u.email },
      { label: 'Role', render: (u) => u.role },
      { label: 'Sign-in', render: status },
      { label: 'Last sign-in', render: (u) => date(u.lastSignInAt) },
      { label: 'Actions', render: (u) => h('div', { class: 'actions' }, actions(u)) },
    ],
  });

  function actions(u) {
    const name = `${u.firstName} ${u.lastName}`;
    const out = [];
    if (u.signIn === 'NONE' || u.signIn === 'DEACTIVATED' || u.signIn === 'INVITED') {
      const again = u.signIn === 'INVITED';
      out.push(h('button', { type: 'button', class: 'invite', 'aria-label': `${again ? 'Invite again' : 'Invite'} ${name}`, onclick: () => invite(u, INVITE) }, again ? 'Invite again' : 'Invite'));
    }
    if (u.signIn === 'ACTIVE') {
      out.push(h('button', { type: 'button', class: 'reset', 'aria-label': `Reset sign-in of ${name}`, onclick: () => reset(u) }, 'Reset'));
    }
    // A user with no sign-in may still have API keys bound to them:
    // deactivating stops those too.
    if (u.signIn !== 'DEACTIVATED') {
      out.push(h('button', { type: 'button', class: 'deactivate danger', 'aria-label': `Deactivate ${name}`, onclick: () => deactivate(u) }, 'Deactivate'));
    }
    return out;
  }

  function showLink(u, inv) {
    const box = secretBox({
      label: `Invitation link for ${u.firstName} ${u.lastName}`,
      secret: new URL(inv.url, window.location.origin).href,
      warning: `Send this link to ${u.email}: it sets their password once, until ${date(inv.expiresAt)}. It is shown this once.`,
    });
    linkSlot.replaceChildren(box.element);
    box.focus();
  }

  async function invite(u, mutation) {
    try {
      const data = await gql(mutation, { id: u.id });
      const inv = data.inviteUser || data.resetUserSignIn;
      clearError();
      await list.refresh();
      showLink(u, inv);
    } catch (err) {
      reportError(err, `Inviting ${u.email} failed.`);
    }
  }

  async function reset(u) {
    const yes = await confirmDialog({
      title: `Reset the sign-in of ${u.firstName} ${u.lastName}?`,
      body: [h('p', {}, 'Their sessions end now and their password stops working; a new invitation link sets another.')],
      confirm: 'Reset',
      danger: true,
    });
    if (yes) await invite(u, RESET);
  }

  async function deactivate(u) {
    const yes = await confirmDialog({
      title: `Deactivate ${u.firstName} ${u.lastName}?`,
      body: [h('p', {}, 'Their sessions end now, they cannot sign in, and API keys bound to them stop working. Inviting them again reactivates them.')],
      confirm: 'Deactivate',
      danger: true,
    });
    if (!yes) return;
    try {
      await gql(DEACTIVATE, { id: u.id });
      clearError();
      await list.refresh();
    } catch (err) {
      reportError(err, `Deactivating ${u.email} failed.`);
    }
  }

  main.append(
    h('h1', {}, ctx.title),
    h('p', { class: 'muted' }, 'People sign in with their email: invite them, and send them the link shown once.'),
    linkSlot,
    list.element,
  );
}
