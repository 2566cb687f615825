package store_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/seed"
)

// ReadLead answers what an ent query of the lead answers: the same lead,
// every column, set or NULL; the same refusals; and for a viewer, only a
// lead of its own organization.
func TestReadLead(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t)
	org, _, err := store.CreateOrganization(ctx, db.Client, "Reader")
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := store.CreateOrganization(ctx, db.Client, "Other")
	if err != nil {
		t.Fatal(err)
	}
	advisor, err := store.CreateUser(ctx, db.Client, store.UserSpec{OrgID: org.ID, First: "Ada", Last: "Byron", Email: "ada@reader.example", Role: "advisor"})
	if err != nil {
		t.Fatal(err)
	}
	as := func(orgID uuid.UUID, scopes ...string) context.Context {
		return viewer.NewContext(ctx, viewer.Viewer{OrgID: orgID, KeyID: uuid.New(), Scopes: scopes})
	}
	reader := as(org.ID, viewer.AllScopes...)

	// A lead with every column set, and one with every optional column NULL.
	full, err := leads.Create(reader, db.Client, ent.CreateLeadInput{}, leads.Fields(db.Client.Lead.Create().SetBusinessName("Full Freight LLC").SetContactFirstName("Ana").SetContactLastName("Ruiz").
		SetEmail("ana@full.example").SetPhone("+15555550100").SetIndustry("Logistics").SetMonthlyRevenue("12500.50").
		SetRequestedAmount("50000").SetSource(lead.SourceWebForm).SetPriority(lead.PriorityHigh).SetTags([]string{"a", "b"}).
		SetCustomFields(map[string]any{"fleet": 12.0, "nested": map[string]any{"x": []any{"y"}}}).
		SetExternalIds(map[string]any{"crm": "C-1"}).SetPrimaryAdvisorID(advisor.ID)))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 4, 5, 6, 7, 8_000_000, time.UTC)
	err = db.Client.Lead.UpdateOneID(full.ID).SetLeadScore(77).SetIsDoNotCall(true).SetDncReason("asked").SetDncAt(at).
		SetConvertedAt(at.Add(time.Hour)).SetConvertedAccountID(uuid.New()).SetConvertedContactID(uuid.New()).
		SetLastContactedAt(at.Add(-time.Hour)).Exec(rule.SystemContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	bare, err := leads.Create(reader, db.Client, ent.CreateLeadInput{})
	if err != nil {
		t.Fatal(err)
	}
	for name, id := range map[string]uuid.UUID{"Full": full.ID, "Bare": bare.ID} {
		t.Run(name, func(t *testing.T) {
			want, err := db.Client.Lead.Get(reader, id)
			if err != nil {
				t.Fatal(err)
			}
			got, err := db.ReadLead(reader, id)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := asJSON(t, got), asJSON(t, want); g != w {
				t.Errorf("got  %s\nwant %s", g, w)
			}
			if got.String() != want.String() {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}

	// Refusals and isolation, each against ent's own answer for the same context.
	cases := []struct {
		name     string
		ctx      context.Context
		wantCode string // "" when the lead is read
	}{
		{"OK", reader, ""},
		{"ReadScopeOnly", as(org.ID, viewer.ScopeLeadsRead), ""},
		{"SystemContext", rule.SystemContext(ctx), ""},
		{"ErrOtherOrganization", as(other.ID, viewer.AllScopes...), apperr.NotFound},
		{"ErrNoViewer", ctx, "forbidden"},
		{"ErrLacksScope", as(org.ID, viewer.ScopeDialerWrite), "forbidden"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := db.ReadLead(c.ctx, full.ID)
			want, entErr := db.Client.Lead.Get(c.ctx, full.ID)
			switch {
			case c.wantCode == "":
				if err != nil || entErr != nil {
					t.Fatalf("got %v; ent %v", err, entErr)
				}
				if got.ID != want.ID {
					t.Errorf("got lead %s, want %s", got.ID, want.ID)
				}
			case c.wantCode == apperr.NotFound:
				if e, ok := apperr.As(err); !ok || e.Code != apperr.NotFound || e.Message != "lead not found" || !ent.IsNotFound(entErr) {
					t.Errorf("got %v, want the 404 of ent's %v", err, entErr)
				}
			default:
				if err == nil || entErr == nil || err.Error() != entErr.Error() {
					t.Errorf("got %v, want ent's refusal %v", err, entErr)
				}
			}
		})
	}
}

// ReadLead scans every column of the lead, in the schema's order.
func TestReadLeadColumns(t *testing.T) {
	if got := store.LeadReadColumns(); !slices.Equal(got, lead.Columns) {
		t.Errorf("ReadLead reads %v;\nthe lead's columns are %v", got, lead.Columns)
	}
}

func asJSON(t *testing.T, l *ent.Lead) string {
	t.Helper()
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// BenchmarkReadLead reads one lead by id as a viewer: through an ent query
// (Ent), as a lead was read before, and with ReadLead (Prepared).
func BenchmarkReadLead(b *testing.B) {
	ctx := context.Background()
	db := storetest.Open(b)
	org, _, err := store.CreateOrganization(ctx, db.Client, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	reader := viewer.NewContext(ctx, viewer.Viewer{OrgID: org.ID, KeyID: uuid.New(), Scopes: viewer.AllScopes})
	if err := seed.Leads(ctx, db, org.ID, 2000, nil); err != nil {
		b.Fatal(err)
	}
	ids, err := db.Client.Lead.Query().IDs(reader)
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []struct {
		name string
		read func(context.Context, uuid.UUID) (*ent.Lead, error)
	}{
		{"Ent", func(ctx context.Context, id uuid.UUID) (*ent.Lead, error) {
			return db.Client.Lead.Query().Where(lead.ID(id)).Only(ctx)
		}},
		{"Prepared", db.ReadLead},
	} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := v.read(reader, ids[i%len(ids)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
