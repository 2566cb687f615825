package lending_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/lending"
)

// lendingLead is a lead of org a with an approved application (to be
// funded) and a submitted one, in the new stage: where a concurrent
// operation that read it early would move it "forward" to.
type lendingLead struct {
	lead, approved, submitted, spareLender uuid.UUID
}

func (e *env) lendingLead(t *testing.T) lendingLead {
	t.Helper()
	var out lendingLead
	rate, _ := money.ParseRate("1.3")
	err := e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
		var lenders [3]uuid.UUID
		for i := range lenders {
			ld, err := c.Lender.Create().SetName(uuid.NewString()).Save(ctx)
			if err != nil {
				return err
			}
			lenders[i] = ld.ID
		}
		l, err := leads.Create(ctx, c, ent.CreateLeadInput{}, leads.Fields(c.Lead.Create().SetBusinessName("Locked Lead")))
		if err != nil {
			return err
		}
		submit := func(lender uuid.UUID) (uuid.UUID, error) {
			amount := money.FromCents(1_000_000)
			a, err := lending.Submit(ctx, c, lending.Submission{LeadID: l.ID, LenderID: lender, RequestedAmount: &amount})
			if err != nil {
				return uuid.Nil, err
			}
			return a.ID, nil
		}
		if out.approved, err = submit(lenders[0]); err != nil {
			return err
		}
		_, err = lending.Decide(ctx, c, out.approved, lending.Decision{Approved: true,
			InterestRate: &rate, RateType: ptr(application.RateTypeFactor), TermMonths: ptr(6)})
		if err != nil {
			return err
		}
		if out.submitted, err = submit(lenders[1]); err != nil {
			return err
		}
		out.lead, out.spareLender = l.ID, lenders[2]
		return c.Lead.UpdateOneID(l.ID).SetStageID(e.a.stages[0].ID).Exec(ctx)
	})
	if err != nil {
		t.Fatalf("setting up: %v", err)
	}
	return out
}

// TestLendingTakesTheLeadBeforeItsApplications: a funding holds its lead's
// row from its first statement, then moves the lead's applications. An
// operation on another application of the lead that moves the lead (an
// approval, a submission) must wait for the lead before it takes its
// application's row, and decide on the lead as the funding left it:
// else the two wait for each other (PostgreSQL aborts one as deadlocked),
// or the later one moves the funded lead back out of won.
//
// SQLite runs one writing transaction at a time, so only PostgreSQL can
// hold the funding where this test holds it.
func TestLendingTakesTheLeadBeforeItsApplications(t *testing.T) {
	e := newEnv(t)
	if e.db.Dialect != dialect.Postgres {
		t.Skip("SQLite runs one writing transaction at a time")
	}
	rate, _ := money.ParseRate("1.2")
	cases := []struct {
		name    string
		other   func(ctx context.Context, c *ent.Client, l lendingLead) error
		wantErr func(err error) bool
	}{
		{"Approval", func(ctx context.Context, c *ent.Client, l lendingLead) error {
			_, err := lending.Decide(ctx, c, l.submitted, lending.Decision{Approved: true,
				InterestRate: &rate, RateType: ptr(application.RateTypeFactor), TermMonths: ptr(3)})
			return err
		}, func(err error) bool {
			// The funding withdrew the application first.
			var ae *apperr.Error
			return errors.As(err, &ae) && ae.Code == apperr.Conflict && ae.Detail["from"] == "withdrawn"
		}},
		{"Submission", func(ctx context.Context, c *ent.Client, l lendingLead) error {
			amount := money.FromCents(500_000)
			_, err := lending.Submit(ctx, c, lending.Submission{LeadID: l.lead, LenderID: l.spareLender, RequestedAmount: &amount})
			return err
		}, func(err error) bool { return err == nil }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := e.lendingLead(t)
			pid := make(chan int, 1)
			proceed := make(chan struct{})
			funded := make(chan error, 1)
			go func() {
				funded <- e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
					// What funding does first: take the lead's row.
					err := c.Lead.Update().Where(lead.ID(l.lead)).SetConvertedAt(time.Now()).Exec(rule.SystemContext(ctx))
					if err != nil {
						pid <- 0
						return err
					}
					pid <- backendPID(ctx, t, c)
					<-proceed
					_, err = lending.Fund(ctx, c, lending.Funding{ApplicationID: l.approved})
					return err
				})
			}()
			holder := <-pid
			if holder == 0 {
				t.Fatal(<-funded)
			}
			other := make(chan error, 1)
			go func() {
				other <- e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error { return tc.other(ctx, c, l) })
			}()
			waitBlockedBy(t, e, holder)
			close(proceed)
			if err := <-funded; err != nil {
				t.Fatalf("the funding failed: %v", err)
			}
			if err := <-other; !tc.wantErr(err) {
				t.Fatalf("the other operation answered %v", err)
			}
			sys := rule.SystemContext(context.Background())
			got, err := e.db.Client.Lead.Query().Where(lead.ID(l.lead)).WithStage().Only(sys)
			if err != nil {
				t.Fatal(err)
			}
			if got.Edges.Stage.SemanticSlot != pipelinestage.SemanticSlotWon {
				t.Errorf("the funded lead ends in %s, want won", got.Edges.Stage.SemanticSlot)
			}
			a, err := e.db.Client.Application.Get(sys, l.submitted)
			if err != nil {
				t.Fatal(err)
			}
			if a.Status != application.StatusWithdrawn {
				t.Errorf("the lead's other application ends %s, want withdrawn", a.Status)
			}
		})
	}
}

// backendPID is the PostgreSQL backend of the transaction c runs in.
func backendPID(ctx context.Context, t *testing.T, c *ent.Client) int {
	rows, err := c.QueryContext(ctx, "SELECT pg_backend_pid()")
	if err != nil {
		t.Error(err)
		return 0
	}
	defer rows.Close()
	pid := 0
	for rows.Next() {
		_ = rows.Scan(&pid)
	}
	return pid
}

// waitBlockedBy returns once a backend waits for a lock the backend pid
// holds.
func waitBlockedBy(t *testing.T, e *env, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		err := e.db.SQL.QueryRow("SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", pid).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the other operation never waited for the funding's lead")
}

func ptr[T any](v T) *T { return &v }
