// Package schema defines the models: their fields, edges and indexes, the
// privacy policies that isolate organizations and check scopes, and the hooks
// that hold every write's rules (field checks, defaults, counters) and write
// its events into the outbox in the same transaction. Every surface reaches
// these rules through the generated client, so none of them repeats one.
//
// Code generation reads this package, and at run time only ent/runtime
// imports it. It imports ent's own packages and the packages under internal
// (internal/apperr, internal/viewer, internal/rule, internal/bounds, internal/enum, internal/event,
// internal/outbox and the like), never graph, rest, webhooks or dialer.
package schema
