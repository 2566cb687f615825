// The vendored libraries the screens load on demand (see vendor/README.md):
// only the screens that draw charts or drag cards pay for them.

/** Chart.js's Chart class (its UMD build sets globalThis.Chart). */
export async function loadChart() {
  if (!globalThis.Chart) await import('../vendor/chart.js-4.6.1/chart.umd.min.js');
  return globalThis.Chart;
}

/** SortableJS's Sortable class. */
export async function loadSortable() {
  const mod = await import('../vendor/sortablejs-1.15.7/sortable.esm.js');
  return mod.default;
}
