package store

import (
	"context"
	"fmt"
)

// backfillSubscriptionKeys names, on each subscription made before
// subscriptions recorded the API key that created them, that key: the
// audit log's record of the subscription's creation has it as the actor.
// Only a key of the subscription's own organization is taken. A
// subscription still without a credential after this (its creation no
// longer in the audit log) receives no events: nothing creates a
// subscription without a key or an app token, so it is not the system's.
//
// One statement, the same on both databases: ent stores a UUID as its
// text on SQLite, and PostgreSQL casts its uuid to the same text.
func (s *DB) backfillSubscriptionKeys(ctx context.Context) error {
	const stmt = `UPDATE webhook_subscriptions SET key_id = (
	SELECT k.id FROM audit_events a JOIN api_keys k ON CAST(k.id AS TEXT) = a.actor
	WHERE a.org_id = webhook_subscriptions.org_id AND a.target_id = webhook_subscriptions.id AND a.action = 'webhook_subscription.created'
	AND k.org_id = webhook_subscriptions.org_id
	ORDER BY a.occurred_at LIMIT 1)
WHERE key_id IS NULL AND installation_id IS NULL`
	if _, err := s.write.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("naming the API keys of subscriptions made before keys were recorded: %w", err)
	}
	return nil
}
