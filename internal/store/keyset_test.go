package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/leads"
)

// Keyset pages hold every row once, in the order one query would give,
// whatever the page size: ties on the time (three leads in one
// millisecond, as a bulk import writes them) are broken by the id, and a
// time with and without a fraction of a second compare as times on both
// databases (SQLite compares the stored text).
func TestKeyset(t *testing.T) {
	db := storetest.Open(t)
	ctx := rule.SystemContext(context.Background())
	org, _, err := store.CreateOrganization(ctx, db.Client, "Paged")
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, at := range []time.Time{
		base, base, base, base.Add(time.Millisecond), base.Add(500 * time.Millisecond), base.Add(time.Second),
		base.Add(time.Second), base.Add(-time.Millisecond), base.Add(-time.Hour), base.Add(24 * time.Hour),
	} {
		if _, err := leads.Create(ctx, db.Client, ent.CreateLeadInput{}, leads.Fields(db.Client.Lead.Create().
			SetOrgID(org.ID).SetBusinessName("Paged").SetCreatedAt(at).SetUpdatedAt(at))); err != nil {
			t.Fatal(err)
		}
	}
	query := db.Client.Lead.Query().Where(lead.OrgID(org.ID))
	newest := func(q *ent.LeadQuery) *ent.LeadQuery {
		return q.Order(lead.ByCreatedAt(sql.OrderDesc()), lead.ByID(sql.OrderDesc()))
	}
	want, err := newest(query.Clone()).IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 2, 3, 9, 10, 11} {
		next := store.Keyset(lead.FieldCreatedAt, size, func(after func(*sql.Selector), limit int) ([]*ent.Lead, error) {
			q := query.Clone()
			if after != nil {
				q = q.Where(predicate.Lead(after))
			}
			return newest(q).Limit(limit).All(ctx)
		}, func(l *ent.Lead) store.Key { return store.Key{At: l.CreatedAt, ID: l.ID} })
		var got []uuid.UUID
		for reads := 0; ; reads++ {
			page, err := next()
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > size || reads > len(want) {
				t.Fatalf("size %d: a page of %d after %d reads", size, len(page), reads)
			}
			if len(page) == 0 {
				break
			}
			for _, l := range page {
				got = append(got, l.ID)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("size %d: %v, want %v", size, got, want)
		}
	}
}
