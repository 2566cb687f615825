// The Pipeline board screen (route in main.js's SCREENS). Not built yet: it
// shows its title until its screen is written here.

import { h } from '../ui.js';

/** Fills main; may return a cleanup function, called on leaving. */
export async function render(main, ctx, params) {
  main.append(
    h('h1', {}, ctx.title),
    h('p', { class: 'muted' }, 'Not built yet.'),
  );
}
