// The lead's lending records (applications, deals, commissions), shown on
// the lead's screen. Placeholder until the lending section is written.

/** Fills container with the lead's lending records. */
export async function renderLending(container, lead, ctx) {}
