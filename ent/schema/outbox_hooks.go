package schema

import (
	"context"

	"entgo.io/ent"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/event"
)

// emitContactEvents writes contact.created and contact.updated.
func emitContactEvents(next ent.Mutator) ent.Mutator {
	return hook.ContactFunc(func(ctx context.Context, m *gen.ContactMutation) (gen.Value, error) {
		v, err := next.Mutate(ctx, m)
		if err != nil {
			return nil, err
		}
		ct, ok := v.(*gen.Contact)
		if !ok {
			return v, nil
		}
		t := event.ContactUpdated
		if m.Op().Is(ent.OpCreate) {
			t = event.ContactCreated
		}
		data := map[string]any{"contactId": ct.ID, "orgId": ct.OrgID, "firstName": ct.FirstName,
			"lastName": ct.LastName, "email": ct.Email, "phone": ct.Phone}
		return ct, events.Emit(ctx, m.Client(), ct.OrgID, t, data)
	})
}

func (Contact) Hooks() []ent.Hook {
	return []ent.Hook{hook.On(emitContactEvents, ent.OpCreate|ent.OpUpdateOne)}
}
