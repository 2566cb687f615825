// Package webhooks delivers events and receives them: the worker that fans
// the outbox out to subscriptions and sends each delivery signed (SPEC 5.6),
// the retry schedule and dead-letter queue (SPEC 6.4), retention, and the
// inbound endpoints whose verified requests start automations. It sits beside
// the operations and imports only ent and the packages under internal: events are
// written by the schema hooks through events, never by this package's
// callers.
package webhooks
