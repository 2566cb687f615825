// Package webhooks delivers events and receives them: the worker that fans
// the outbox out to subscriptions and sends each delivery signed (SPEC 5.6),
// the retry schedule and dead-letter queue (SPEC 6.4), retention, and the
// inbound endpoints whose verified requests start automations, and the
// operations on deliveries, subscriptions and endpoints (replay.go,
// subscriptions.go, endpoints.go). It is a domain: it imports ent, the
// store, events, webhooks/netguard and the leaves. A change's events are
// written in its transaction by the schema hooks through events; this
// package writes only its own (a paused subscription's).
package webhooks
