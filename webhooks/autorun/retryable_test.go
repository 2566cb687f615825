package autorun

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/autodef"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
)

// A failed run is retried only when the failure may clear by itself: the
// errors here are what the database and ent really return.
func TestRetryable(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	sys := rule.SystemContext(ctx)
	org, _, err := store.CreateOrganization(ctx, db.Client, "Classify Co")
	if err != nil {
		t.Fatal(err)
	}
	failure := func(err error) error {
		if err == nil {
			t.Fatal("the operation did not fail")
		}
		return actionError(0, autodef.Action{Type: autodef.CreateLead}, err)
	}
	expired, cancel := context.WithDeadline(sys, time.Now().Add(-time.Second))
	defer cancel()
	closed := storetest.Open(t)
	closed.Close()

	tests := []struct {
		name  string
		err   error
		retry bool
	}{
		{"EntValidation", failure(db.Client.Lead.Create().SetOrgID(org.ID).SetEmail("not-an-email").Exec(sys)), false},
		{"EntNotFound", failure(db.Client.Lead.DeleteOneID(uuid.New()).Exec(sys)), false},
		{"PrivacyDenied", failure(first(db.Client.Lead.Query().First(ctx))), false},
		{"ConstraintViolated", failure(db.Client.Organization.Create().SetName("Twin").
			SetConnectorTokenHash(org.ConnectorTokenHash).Exec(sys)), false},
		{"AppValidation", failure(apperr.Invalid("email", "is required")), false},
		{"AppConflict", failure(apperr.New(apperr.Conflict, "already done")), false},
		{"Timeout", failure(first(db.Client.Lead.Query().First(expired))), true},
		{"DatabaseClosed", failure(first(closed.Client.Lead.Query().First(sys))), true},
		{"Internal", failure(fmt.Errorf("disk I/O error")), true},
		{"AwaitedNotFound", failure(awaited{apperr.New(apperr.NotFound, "no lead has email = %q", "a@b.example")}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryable(tt.err); got != tt.retry {
				t.Errorf("retryable(%v) = %v, want %v", tt.err, got, tt.retry)
			}
		})
	}
}

func first[T any](_ T, err error) error { return err }
