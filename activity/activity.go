// Package activity keeps each lead's stored history (PRODUCT 10.3). The
// flows that change a lead or a record of it (package leads, lending,
// dialer, documents, notes, tasks) call Record in their own transaction,
// so an entry commits with its change or not at all, whoever the writer:
// GraphQL, REST, the dialer's connector, an inbound action, an import, a
// bulk change. List reads a lead's entries newest first, with the name of
// each entry's actor.
//
// The bulk loader (svc seed) writes the same entries itself, in bulk,
// for what it seeds: each lead's lead.created and its lending book
// (submissions, decisions, fundings, commission payments), by the system
// actor. It seeds no stage moves or calls as changes, so they have none.
//
// It imports ent, the privacy rules and the leaves.
package activity

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	entactivity "github.com/lendingpipe/svc/ent/activity"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Entry is one change to record: what happened to which lead, about which
// record, in a line of words, and the attributes it changed.
type Entry struct {
	OrgID    uuid.UUID
	LeadID   uuid.UUID
	Kind     string
	RecordID uuid.UUID // uuid.Nil when the entry is about the lead itself
	Summary  string
	Changes  []history.Change
}

// Record writes entries in ctx's transaction (the caller's), stamped with
// the clock's time and the acting viewer: one INSERT for them all.
func Record(ctx context.Context, c *ent.Client, entries ...Entry) error {
	if len(entries) == 0 || viewer.IsBulkLoad(ctx) {
		return nil
	}
	actorType, actorID := actorOf(ctx)
	at := apitime.Now(ctx)
	builders := make([]*ent.ActivityCreate, len(entries))
	for i, e := range entries {
		b := c.Activity.Create().SetOrgID(e.OrgID).SetLeadID(e.LeadID).SetKind(e.Kind).
			SetAt(at).SetActorType(entactivity.ActorType(actorType)).SetNillableActorID(actorID).SetSummary(e.Summary)
		if e.RecordID != uuid.Nil {
			b.SetRecordID(e.RecordID)
		}
		if len(e.Changes) > 0 {
			b.SetChanges(e.Changes)
		}
		builders[i] = b
	}
	// The flow has already checked that its caller may make the change;
	// the entry is part of it, whatever the caller's scopes.
	if err := c.Activity.CreateBulk(builders...).Exec(rule.SystemContext(ctx)); err != nil {
		return fmt.Errorf("recording activity: %w", err)
	}
	return nil
}

// actorOf is who is acting in ctx, as an entry stores it: the person
// (signed in, or through a key bound to them) before the key, an app's
// token, the connector, an automation (a system actor named by its id),
// else the system.
func actorOf(ctx context.Context) (string, *string) {
	v, ok := viewer.FromContext(ctx)
	id := func(s string) *string { return &s }
	switch {
	case !ok:
		return history.ActorSystem, nil
	case v.UserID != uuid.Nil:
		return history.ActorUser, id(v.UserID.String())
	case v.InstallationID != uuid.Nil:
		return history.ActorApp, id(v.InstallationID.String())
	case v.KeyID != uuid.Nil:
		return history.ActorAPIKey, id(v.KeyID.String())
	case v.Connector:
		return history.ActorConnector, nil
	case v.AutomationID != uuid.Nil:
		return history.ActorSystem, id(automationPrefix + v.AutomationID.String())
	}
	return history.ActorSystem, nil
}

const automationPrefix = "automation:"
