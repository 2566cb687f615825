package dialer

import (
	"context"
	"maps"
	"strings"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/activity"
	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/dialer/board"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
)

// RecordCall stores a call event, counts it in the dialer report's
// rollups, writes the call in its lead's history and tells the agents board that the agent's row changed (once
// the change commits). The event's hooks (ent/schema/dialer_hooks.go,
// callEventEffects) check its agent and lead and apply the call to the
// lead (lastContactedAt, do-not-call).
func RecordCall(ctx context.Context, c *ent.Client, in CallEventInput) (*ent.CallEvent, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.CallEvent, error) {
		ev, err := createCallEvent(ctx, c, in)
		if err != nil {
			return nil, err
		}
		if err := countCall(ctx, c, ev); err != nil {
			return nil, err
		}
		if err := recordCallActivity(ctx, c, ev); err != nil {
			return nil, err
		}
		boardChanged(ctx, c, ev.OrgID, ev.UserID)
		return ev, nil
	})
}

// recordCallActivity writes a call entry in its lead's history for the
// first of the call's events that names the lead: one entry per call, not
// per event.
func recordCallActivity(ctx context.Context, c *ent.Client, ev *ent.CallEvent) error {
	if ev.LeadID == nil || viewer.IsBulkLoad(ctx) {
		return nil
	}
	earlier, err := c.CallEvent.Query().Where(callevent.OrgID(ev.OrgID), callevent.ExternalCallID(ev.ExternalCallID),
		callevent.LeadID(*ev.LeadID), callevent.IDNEQ(ev.ID)).Exist(rule.SystemContext(ctx))
	if err != nil || earlier {
		return err
	}
	summary := "Call"
	if ev.Direction != nil {
		summary = strings.ToUpper(string(*ev.Direction)[:1]) + string(*ev.Direction)[1:] + " call"
	}
	return activity.Record(ctx, c, activity.Entry{OrgID: ev.OrgID, LeadID: *ev.LeadID, Kind: history.Call,
		RecordID: ev.ID, Summary: summary})
}

// createCallEvent writes the event as reported.
func createCallEvent(ctx context.Context, c *ent.Client, in CallEventInput) (*ent.CallEvent, error) {
	create := c.CallEvent.Create().
		SetExternalCallID(in.ExternalCallID).SetUserID(in.UserID).SetNillableLeadID(in.LeadID).
		SetEventType(in.EventType).SetNillableDirection(in.Direction).
		SetNillableDurationSeconds(in.DurationSeconds).SetNillableDisposition(in.Disposition).
		SetNillableNotes(in.Notes).SetOccurredAt(in.OccurredAt.UTC())
	if in.Metadata != nil {
		create.SetMetadata(in.Metadata)
	}
	return create.Save(ctx)
}

// countCall adds ev to the dialer report's rollups; a bulk load rebuilds
// them after instead.
func countCall(ctx context.Context, c *ent.Client, ev *ent.CallEvent) error {
	if viewer.IsBulkLoad(ctx) {
		return nil
	}
	return rollup.CallRecorded(ctx, c, ev)
}

// AttachRecording stores a recording URL on the latest event of a call
// and tells the agents board that the event's agent's row changed.
func AttachRecording(ctx context.Context, c *ent.Client, externalCallID, url string) (*ent.CallEvent, error) {
	if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
		return nil, apperr.Invalid("recordingUrl", "must be an http(s) URL")
	}
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.CallEvent, error) {
		ev, err := c.CallEvent.Query().Where(callevent.ExternalCallID(externalCallID)).
			Order(callevent.ByOccurredAt(sql.OrderDesc()), callevent.ByCreatedAt(sql.OrderDesc())).First(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.Invalid("externalCallId", "no call event with this externalCallId")
		}
		if err != nil {
			return nil, err
		}
		meta := maps.Clone(ev.Metadata)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["recordingUrl"] = url
		// Metadata alone: the hooks refuse a change to what the rollups
		// counted (ent/schema/dialer_hooks.go, keepCallCounted).
		ev, err = c.CallEvent.UpdateOne(ev).SetMetadata(meta).Save(ctx)
		if err != nil {
			return nil, err
		}
		boardChanged(ctx, c, ev.OrgID, ev.UserID)
		return ev, nil
	})
}

// boardChanged tells the agents boards, once the change commits, that the
// agent's row changed.
func boardChanged(ctx context.Context, c *ent.Client, org, agent uuid.UUID) {
	board.Written(ctx, c, board.Change{OrgID: org, Agents: []uuid.UUID{agent}})
}

// AgentWritten tells the agents boards, once the change commits, that
// user u's row (name, email, role) may have changed: the user flows call
// it after writing a user.
func AgentWritten(ctx context.Context, c *ent.Client, u *ent.User) {
	boardChanged(ctx, c, u.OrgID, u.ID)
}
