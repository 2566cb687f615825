// The vendored libraries the screens load on demand (see vendor/README.md):
// only the screens that draw charts or drag cards pay for them.

/** Chart.js's Chart class (its UMD build sets globalThis.Chart). */
export async function loadChart() {
  if (!globalThis.Chart) await import('../vendor/chart.js-4.6.1/chart.umd.min.js');
  // Axis text and grid lines in the style sheet's colours, read at each
  // load so a chart drawn after a switch to dark mode follows it.
  const css = getComputedStyle(document.documentElement);
  globalThis.Chart.defaults.color = css.getPropertyValue('--muted').trim();
  globalThis.Chart.defaults.borderColor = css.getPropertyValue('--line').trim();
  return globalThis.Chart;
}

/** SortableJS's Sortable class. */
export async function loadSortable() {
  const mod = await import('../vendor/sortablejs-1.15.7/sortable.esm.js');
  return mod.default;
}
