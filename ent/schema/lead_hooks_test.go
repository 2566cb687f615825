package schema_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"entgo.io/ent/privacy"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
)

func strs(n int, f func(i int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func members(n int, f func(i int) any) map[string]any {
	out := map[string]any{}
	for i := range n {
		out[fmt.Sprintf("k%d", i)] = f(i)
	}
	return out
}

// The lead checks refuse collections over the bounds of internal/bounds and
// references outside the lead's organization, naming the field in API
// spelling; values at the bounds pass.
func TestLeadChecks(t *testing.T) {
	e := newEnv(t)
	other := newUser(t, e, e.b, "other@beta.example")
	var otherContact *ent.Contact
	if err := e.tx(e.b.as, func(ctx context.Context, c *ent.Client) (err error) {
		otherContact, err = c.Contact.Create().SetFirstName("Theirs").Save(ctx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	tag := func(int) string { return "t" }
	tests := []struct {
		name  string
		set   func(*ent.LeadCreate)
		field string // "" when the lead is valid
	}{
		{"TagsAtTheBound", func(c *ent.LeadCreate) {
			c.SetTags(strs(bounds.MaxTags, func(i int) string { return fmt.Sprint("tag", i) }))
		}, ""},
		{"TooManyTags", func(c *ent.LeadCreate) { c.SetTags(strs(bounds.MaxTags+1, tag)) }, "tags"},
		{"TagAtItsLength", func(c *ent.LeadCreate) { c.SetTags([]string{strings.Repeat("é", bounds.MaxTagLen)}) }, ""},
		{"TagTooLong", func(c *ent.LeadCreate) { c.SetTags([]string{strings.Repeat("é", bounds.MaxTagLen+1)}) }, "tags"},
		{"EmptyTag", func(c *ent.LeadCreate) { c.SetTags([]string{""}) }, "tags"},
		{"CustomFieldsAtTheBound", func(c *ent.LeadCreate) {
			c.SetCustomFields(members(bounds.MaxCustomFields, func(int) any { return "v" }))
		}, ""},
		{"TooManyCustomFields", func(c *ent.LeadCreate) {
			c.SetCustomFields(members(bounds.MaxCustomFields+1, func(int) any { return "v" }))
		}, "customFields"},
		{"CustomFieldKeyTooLong", func(c *ent.LeadCreate) {
			c.SetCustomFields(map[string]any{strings.Repeat("k", bounds.MaxKeyLen+1): "v"})
		}, "customFields"},
		{"ExternalIDsAtTheBound", func(c *ent.LeadCreate) {
			c.SetExternalIds(members(bounds.MaxExternalIDs, func(i int) any { return float64(i) }))
		}, ""},
		{"TooManyExternalIDs", func(c *ent.LeadCreate) {
			c.SetExternalIds(members(bounds.MaxExternalIDs+1, func(i int) any { return "x" }))
		}, "externalIds"},
		{"ExternalIDNeitherStringNorNumber", func(c *ent.LeadCreate) {
			c.SetExternalIds(map[string]any{"partner": true})
		}, "externalIds.partner"},
		{"ExternalIDTooLong", func(c *ent.LeadCreate) {
			c.SetExternalIds(map[string]any{"partner": strings.Repeat("x", 256)})
		}, "externalIds.partner"},
		{"OwnStage", func(c *ent.LeadCreate) { c.SetStageID(e.a.stages[1].ID) }, ""},
		{"OtherOrgsStage", func(c *ent.LeadCreate) { c.SetStageID(e.b.stages[0].ID) }, "stageId"},
		{"OtherOrgsAdvisor", func(c *ent.LeadCreate) { c.SetPrimaryAdvisorID(other.ID) }, "assignToAdvisorId"},
		{"OtherOrgsContact", func(c *ent.LeadCreate) { c.SetContactID(otherContact.ID) }, "contactId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
				create := c.Lead.Create().SetBusinessName(tt.name)
				tt.set(create)
				_, err := leads.Create(ctx, c, ent.CreateLeadInput{}, leads.Fields(create))
				return err
			})
			if tt.field == "" {
				if err != nil {
					t.Fatalf("a valid lead was refused: %v", err)
				}
				return
			}
			wantInvalid(t, err, tt.field)
		})
	}
	n, err := e.db.Client.Lead.Query().Where(lead.BusinessNameHasPrefix("Too")).Count(rule.SystemContext(context.Background()))
	if err != nil || n != 0 {
		t.Errorf("%d refused leads were stored (%v)", n, err)
	}
}

// On update the same checks hold: a stage of another organization is
// refused, and tags appended to a lead count those it already has.
func TestLeadChecksOnUpdate(t *testing.T) {
	e := newEnv(t)
	l := e.createLead(t, e.a, func(c *ent.LeadCreate) {
		c.SetBusinessName("Updated").SetTags(strs(bounds.MaxTags-1, func(i int) string { return fmt.Sprint("tag", i) }))
	})
	_, err := e.updateLead(e.a.as, l.ID, func(u *ent.LeadUpdateOne) { u.SetStageID(e.b.stages[0].ID) })
	wantInvalid(t, err, "stageId")
	if _, err := e.updateLead(e.a.as, l.ID, func(u *ent.LeadUpdateOne) { u.AppendTags([]string{"last"}) }); err != nil {
		t.Fatalf("appending the last tag allowed: %v", err)
	}
	_, err = e.updateLead(e.a.as, l.ID, func(u *ent.LeadUpdateOne) { u.AppendTags([]string{"one too many"}) })
	wantInvalid(t, err, "tags")
	got, err := e.db.Client.Lead.Get(rule.SystemContext(context.Background()), l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.StageID != e.a.stages[0].ID || len(got.Tags) != bounds.MaxTags {
		t.Errorf("after refused updates: stage %s, %d tags; want the first stage and %d", got.StageID, len(got.Tags), bounds.MaxTags)
	}
}

// A viewer of one organization can neither read nor change another's lead:
// the privacy rules filter it out (not found), and a create naming the
// other organization is denied. Without a viewer, or without the scope,
// nothing is read.
func TestOrgIsolationThroughPrivacy(t *testing.T) {
	e := newEnv(t)
	theirs := e.createLead(t, e.b, func(c *ent.LeadCreate) { c.SetBusinessName("Theirs") })
	ours := e.createLead(t, e.a, func(c *ent.LeadCreate) { c.SetBusinessName("Ours") })
	c := e.db.Client

	if _, err := c.Lead.Get(e.a.as, theirs.ID); !ent.IsNotFound(err) {
		t.Errorf("reading another organization's lead: err = %v, want not found", err)
	}
	ids, err := c.Lead.Query().IDs(e.a.as)
	if err != nil || len(ids) != 1 || ids[0] != ours.ID {
		t.Errorf("listing leads: %v, %v; want only the organization's own", ids, err)
	}
	if _, err := e.updateLead(e.a.as, theirs.ID, func(u *ent.LeadUpdateOne) { u.SetIndustry("Hijacked") }); !ent.IsNotFound(err) {
		t.Errorf("updating another organization's lead: err = %v, want not found", err)
	}
	n, err := c.Lead.Update().Where(lead.ID(theirs.ID)).SetIndustry("Hijacked").Save(e.a.as)
	if err != nil || n != 0 {
		t.Errorf("a bulk update reached %d of another organization's leads (%v)", n, err)
	}
	if err := c.Lead.DeleteOneID(theirs.ID).Exec(e.a.as); !ent.IsNotFound(err) {
		t.Errorf("deleting another organization's lead: err = %v, want not found", err)
	}
	err = e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
		_, err := leads.Create(ctx, c, ent.CreateLeadInput{}, leads.Fields(c.Lead.Create().SetOrgID(e.b.ID).SetBusinessName("Planted")))
		return err
	})
	if !isDenied(err) {
		t.Errorf("creating a lead in another organization: err = %v, want denied", err)
	}
	got, err := c.Lead.Get(rule.SystemContext(context.Background()), theirs.ID)
	if err != nil || got.Industry != nil {
		t.Errorf("the other organization's lead = %+v, %v; want it untouched", got, err)
	}
	if n := len(e.events(t, e.b)); n != 1 {
		t.Errorf("the other organization has %d events, want its own lead.created", n)
	}

	if _, err := c.Lead.Query().All(context.Background()); !isDenied(err) {
		t.Errorf("reading without a viewer: err = %v, want denied", err)
	}
	dialerOnly := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: e.a.ID, Scopes: []string{viewer.ScopeDialerWrite}})
	if _, err := c.Lead.Query().All(dialerOnly); !isDenied(err) {
		t.Errorf("reading without leads:read: err = %v, want denied", err)
	}
	readOnly := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: e.a.ID, Scopes: []string{viewer.ScopeLeadsRead}})
	if _, err := e.updateLead(readOnly, ours.ID, func(u *ent.LeadUpdateOne) { u.SetIndustry("Read only") }); !isDenied(err) {
		t.Errorf("writing with leads:read only: err = %v, want denied", err)
	}
}

// isDenied reports whether a privacy rule refused the operation.
func isDenied(err error) bool { return errors.Is(err, privacy.Deny) }
