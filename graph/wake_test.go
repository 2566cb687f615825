package graph_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/webhooks"
)

// woken reports whether db's delivery worker's wake-up has been signalled,
// and consumes it. No worker runs in this test to take it first.
func woken(db *store.DB) bool {
	select {
	case <-db.Client.Signals.Woken():
		return true
	default:
		return false
	}
}

var errRollback = errors.New("rolled back by the test")

// The delivery worker is woken by a resume or a replay only once the
// transaction that made the deliveries due has committed: woken earlier, it
// finds nothing (its read cannot see the change) and sleeps until its next
// poll; and a rolled-back change wakes nothing.
func TestWorkerIsWokenOnlyAfterCommit(t *testing.T) {
	db := storetest.Open(t)
	org, _ := resttest.OrgWithKey(t, db, "Wake Co", viewer.AllScopes...)
	cfg := webhooks.DefaultConfig()
	cfg.AllowPrivate, cfg.AllowHTTP = true, true
	r := graph.NewResolver(db, time.Now, cfg)
	ctx := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: org.ID, Scopes: viewer.AllScopes})
	created, err := r.Mutation().CreateWebhookSubscription(ctx, graph.NewWebhookSubscription{URL: "http://127.0.0.1:1/hook", Events: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	sub := created.Subscription
	sys := rule.SystemContext(ctx)
	ev, err := db.Client.WebhookEvent.Create().SetOrgID(org.ID).SetEventType(event.LeadCreated).
		SetData(map[string]any{}).SetOccurredAt(time.Now().UTC().Add(-time.Minute)).SetDispatched(true).Save(sys)
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.Client.WebhookDelivery.Create().SetOrgID(org.ID).SetEventID(ev.ID).SetSubscriptionID(sub.ID).
		SetNextAttemptAt(time.Now().UTC()).Save(sys)
	if err != nil {
		t.Fatal(err)
	}
	yes, since := true, time.Now().Add(-time.Hour)
	changes := map[string]func(ctx context.Context) error{
		"ResumeSubscription": func(ctx context.Context) error {
			_, err := r.Mutation().UpdateWebhookSubscription(ctx, sub.ID, graph.WebhookSubscriptionPatch{IsActive: &yes})
			return err
		},
		"ReplayDelivery": func(ctx context.Context) error {
			_, err := r.Mutation().ReplayWebhookDelivery(ctx, sub.ID, d.ID)
			return err
		},
		"ReplayRange": func(ctx context.Context) error {
			_, err := r.Mutation().ReplayWebhookDeliveries(ctx, sub.ID, &since, nil)
			return err
		},
	}
	for name, change := range changes {
		for _, commit := range []bool{true, false} {
			t.Run(name+map[bool]string{true: "Committed", false: "RolledBack"}[commit], func(t *testing.T) {
				woken(db) // a signal left by set-up
				err := store.WithTx(ctx, db.Client, func(ctx context.Context, _ *ent.Client) error {
					if err := change(ctx); err != nil {
						return err
					}
					if woken(db) {
						t.Error("the worker was woken while the transaction was still open")
					}
					if !commit {
						return errRollback
					}
					return nil
				})
				if err != nil && !errors.Is(err, errRollback) {
					t.Fatal(err)
				}
				if got := woken(db); got != commit {
					t.Errorf("woken after the transaction ended = %v, want %v", got, commit)
				}
			})
		}
	}
}
