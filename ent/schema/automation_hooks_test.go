package schema_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/autodef"
	"github.com/lendingpipe/svc/internal/rule"
)

func newEndpoint(t *testing.T, e *env, o *org) *ent.InboundEndpoint {
	t.Helper()
	var endpoint *ent.InboundEndpoint
	err := e.tx(o.as, func(ctx context.Context, c *ent.Client) (err error) {
		endpoint, err = c.InboundEndpoint.Create().SetName("Partner").SetEndpointKey("ep_" + uuid.NewString()).
			SetSecret("whsec_inbound_secret_0123456789").Save(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return endpoint
}

func tags(t ...string) []autodef.Action { return []autodef.Action{{Type: autodef.AddTags, Tags: t}} }

// An automation is checked as it will be stored: exactly one trigger, an
// event trigger from the catalog, a well-formed definition, and references
// into its own organization only.
func TestAutomationChecks(t *testing.T) {
	e := newEnv(t)
	endpoint, theirEndpoint := newEndpoint(t, e, e.a), newEndpoint(t, e, e.b)
	theirAdvisor := newUser(t, e, e.b, "theirs@beta.example")
	tests := []struct {
		name  string
		set   func(*ent.AutomationCreate)
		field string // "" when the automation is valid
	}{
		{"EventTrigger", func(c *ent.AutomationCreate) { c.SetTriggerEvent("lead.created").SetActions(tags("new")) }, ""},
		{"EndpointTrigger", func(c *ent.AutomationCreate) {
			c.SetEndpointID(endpoint.ID).SetActions([]autodef.Action{{Type: autodef.CreateLead}})
		}, ""},
		{"UnknownTriggerEvent", func(c *ent.AutomationCreate) { c.SetTriggerEvent("lead.exploded").SetActions(tags("x")) }, "trigger.event"},
		{"WildcardIsNoTrigger", func(c *ent.AutomationCreate) { c.SetTriggerEvent("*").SetActions(tags("x")) }, "trigger.event"},
		{"NoTrigger", func(c *ent.AutomationCreate) { c.SetActions(tags("x")) }, "trigger"},
		{"TwoTriggers", func(c *ent.AutomationCreate) {
			c.SetTriggerEvent("lead.created").SetEndpointID(endpoint.ID).SetActions(tags("x"))
		}, "trigger"},
		{"OtherOrgsEndpoint", func(c *ent.AutomationCreate) {
			c.SetEndpointID(theirEndpoint.ID).SetActions([]autodef.Action{{Type: autodef.CreateLead}})
		}, "trigger.endpointId"},
		{"DefinitionChecked", func(c *ent.AutomationCreate) {
			c.SetTriggerEvent("lead.created").SetActions([]autodef.Action{{Type: autodef.MoveStage}})
		}, "actions[0].stageId"},
		{"LeadActionNeedsALead", func(c *ent.AutomationCreate) { c.SetEndpointID(endpoint.ID).SetActions(tags("x")) }, "actions[0].type"},
		{"OwnStage", func(c *ent.AutomationCreate) {
			c.SetTriggerEvent("lead.created").SetActions([]autodef.Action{{Type: autodef.MoveStage, StageID: &e.a.stages[1].ID}})
		}, ""},
		{"OtherOrgsStage", func(c *ent.AutomationCreate) {
			c.SetTriggerEvent("lead.created").SetActions([]autodef.Action{{Type: autodef.AddTags, Tags: []string{"x"}},
				{Type: autodef.MoveStage, StageID: &e.b.stages[1].ID}})
		}, "actions[1].stageId"},
		{"OtherOrgsAdvisor", func(c *ent.AutomationCreate) {
			c.SetTriggerEvent("lead.created").SetActions([]autodef.Action{{Type: autodef.AssignAdvisor, AdvisorID: &theirAdvisor.ID}})
		}, "actions[0].advisorId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
				create := c.Automation.Create().SetName(tt.name)
				tt.set(create)
				return create.Exec(ctx)
			})
			if tt.field == "" {
				if err != nil {
					t.Fatalf("a valid automation was refused: %v", err)
				}
				return
			}
			wantInvalid(t, err, tt.field)
		})
	}
}

// An update is checked against the automation it leaves: changing the
// trigger to an unknown event, or clearing it, is refused and the stored
// automation stands.
func TestAutomationChecksOnUpdate(t *testing.T) {
	e := newEnv(t)
	var a *ent.Automation
	if err := e.tx(e.a.as, func(ctx context.Context, c *ent.Client) (err error) {
		a, err = c.Automation.Create().SetName("Tagger").SetTriggerEvent("lead.created").SetActions(tags("new")).Save(ctx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	update := func(set func(*ent.AutomationUpdateOne)) error {
		return e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
			u := c.Automation.UpdateOneID(a.ID)
			set(u)
			return u.Exec(ctx)
		})
	}
	wantInvalid(t, update(func(u *ent.AutomationUpdateOne) { u.SetTriggerEvent("lead.deleted") }), "trigger.event")
	wantInvalid(t, update(func(u *ent.AutomationUpdateOne) { u.ClearTriggerEvent() }), "trigger")
	wantInvalid(t, update(func(u *ent.AutomationUpdateOne) { u.SetActions(nil) }), "actions")
	if err := update(func(u *ent.AutomationUpdateOne) { u.SetTriggerEvent("lead.updated").SetName("Renamed") }); err != nil {
		t.Fatalf("a valid update was refused: %v", err)
	}
	got, err := e.db.Client.Automation.Get(rule.SystemContext(context.Background()), a.ID)
	if err != nil || got.TriggerEvent == nil || *got.TriggerEvent != "lead.updated" {
		t.Fatalf("stored automation = %+v, %v", got, err)
	}
}

// An endpoint that automations are triggered by cannot be deleted (409),
// and one of another organization is not found rather than revealed.
func TestEndpointWithAutomationsIsKept(t *testing.T) {
	e := newEnv(t)
	endpoint := newEndpoint(t, e, e.a)
	err := e.tx(e.a.as, func(ctx context.Context, c *ent.Client) error {
		return c.Automation.Create().SetName("Intake").SetEndpointID(endpoint.ID).
			SetActions([]autodef.Action{{Type: autodef.CreateLead}}).Exec(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = e.db.Client.InboundEndpoint.DeleteOneID(endpoint.ID).Exec(e.a.as)
	if ae, ok := apperr.As(err); !ok || ae.Code != apperr.Conflict {
		t.Errorf("deleting an endpoint with automations: err = %v, want CONFLICT", err)
	}
	if err := e.db.Client.InboundEndpoint.DeleteOneID(endpoint.ID).Exec(e.b.as); !ent.IsNotFound(err) {
		t.Errorf("another organization deleting it: err = %v, want not found", err)
	}
	if _, err := e.db.Client.InboundEndpoint.Get(e.a.as, endpoint.ID); err != nil {
		t.Errorf("the endpoint is gone: %v", err)
	}
}
