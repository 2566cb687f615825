// Package schema defines the models: their fields, edges and indexes, the
// privacy policies that isolate organizations and check scopes, and the hooks
// that hold what is true whichever writer makes a change: field and reference
// checks, the transition tables, and one named hook per entity that writes
// the change's events into the outbox (through events) in its transaction.
// What a change does beyond its own rows (counts, rollups, the agents board)
// is a step of the flows in leads, lending and dialer. Every surface reaches
// these rules through the generated client, so none of them repeats one.
//
// Code generation reads this package, and at run time only ent/runtime
// imports it. It imports ent's own packages, the leaves (internal/apperr,
// internal/viewer, internal/bounds, internal/enum, internal/event,
// analytics/decision and the like), internal/rule, analytics/funnel and
// events, never the store, a subsystem or a domain.
package schema
