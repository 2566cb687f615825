package eventtest_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/event/eventtest"
)

// Check holds a payload to every part of its schema: a missing required
// field, a field the schema does not name, a wrong type or format, and an
// unknown event type are each refused.
func TestCheck(t *testing.T) {
	valid := func() map[string]any {
		return map[string]any{"leadId": uuid.NewString(), "orgId": uuid.NewString(), "changedFields": []string{"email"}, "updatedBy": nil}
	}
	if err := eventtest.Check(event.LeadUpdated, valid()); err != nil {
		t.Fatalf("a valid payload: %v", err)
	}
	tests := map[string]struct {
		name   string
		change func(map[string]any)
		why    string
	}{
		"MissingField": {event.LeadUpdated, func(d map[string]any) { delete(d, "updatedBy") }, "updatedBy"},
		"ExtraField":   {event.LeadUpdated, func(d map[string]any) { d["colour"] = "red" }, "colour"},
		"WrongType":    {event.LeadUpdated, func(d map[string]any) { d["changedFields"] = "email" }, "changedFields"},
		"NotAUUID":     {event.LeadUpdated, func(d map[string]any) { d["leadId"] = "lead-1" }, "leadId"},
		"NullRequired": {event.LeadUpdated, func(d map[string]any) { d["orgId"] = nil }, "orgId"},
		"UnknownEvent": {"lead.exploded", func(map[string]any) {}, "lead.exploded"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			d := valid()
			tt.change(d)
			err := eventtest.Check(tt.name, d)
			if err == nil || !strings.Contains(err.Error(), tt.why) {
				t.Errorf("err = %v, want a refusal naming %s", err, tt.why)
			}
		})
	}
	// Every schema of the catalog compiles.
	for _, ty := range event.Catalog {
		if err := eventtest.Check(ty.Name, map[string]any{}); err == nil || !strings.Contains(err.Error(), "does not match") {
			t.Errorf("%s: an empty payload: err = %v, want a mismatch", ty.Name, err)
		}
	}
}
