// Package notify tells people what happened to their records (PRODUCT
// 10.9): a decision on an application of a lead they own, a funding of
// their lead, a commission payment or clawback on their deal, a task
// someone else gave them, and, for admins, a paused subscription or a
// failed import. The flow of the cause calls Send in its transaction, so a
// notification commits with its cause or not at all; once it commits, its
// id travels on the change bus, so the live subscribers of every replica
// hear of it.
//
// Nobody is notified of their own doing: a notice whose user is the one
// acting is not written.
//
// It imports ent, the privacy rules, events (after-commit calls) and the
// leaves.
package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/bus"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// The kinds of notification.
const (
	ApplicationDecided   = "application.decided"
	DealFunded           = "deal.funded"
	CommissionPaid       = "commission.paid"
	CommissionClawedBack = "commission.clawed_back"
	TaskAssigned         = "task.assigned"
	RenewalDue           = "deal.renewal_due"
	SubscriptionPaused   = "subscription.paused"
	ImportFailed         = "import.failed"
)

// Notice is one notification to write: to whom, what, about which record
// (and lead), in a line of words.
type Notice struct {
	OrgID    uuid.UUID
	UserID   uuid.UUID
	Kind     string
	RecordID uuid.UUID
	LeadID   uuid.UUID // uuid.Nil when about no lead
	Summary  string
}

// Send writes the notices in ctx's transaction, leaving out those to the
// person acting, and announces them on the bus once it commits.
func Send(ctx context.Context, c *ent.Client, notices ...Notice) error {
	actor := uuid.Nil
	if v, ok := viewer.FromContext(ctx); ok {
		actor = v.UserID
	}
	at := apitime.Now(ctx)
	var builders []*ent.NotificationCreate
	for _, n := range notices {
		if n.UserID == uuid.Nil || n.UserID == actor {
			continue
		}
		b := c.Notification.Create().SetOrgID(n.OrgID).SetUserID(n.UserID).SetKind(n.Kind).
			SetAt(at).SetRecordID(n.RecordID).SetSummary(n.Summary)
		if n.LeadID != uuid.Nil {
			b.SetLeadID(n.LeadID)
		}
		builders = append(builders, b)
	}
	if len(builders) == 0 || viewer.IsBulkLoad(ctx) {
		return nil
	}
	// The cause's flow has checked its caller; the notice is part of it.
	sent, err := c.Notification.CreateBulk(builders...).Save(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("writing notifications: %w", err)
	}
	if b := c.Bus; b != nil {
		events.AfterCommit(ctx, func() { announce(b, sent) })
	}
	return nil
}

// ToAdmins is a notice of kind to every active admin of the organization.
func ToAdmins(ctx context.Context, c *ent.Client, org uuid.UUID, n Notice) ([]Notice, error) {
	admins, err := c.User.Query().Where(user.OrgID(org), user.RoleEQ(user.RoleAdmin), user.DeactivatedAtIsNil()).
		IDs(rule.SystemContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("reading the organization's admins: %w", err)
	}
	out := make([]Notice, len(admins))
	for i, id := range admins {
		n.OrgID, n.UserID = org, id
		out[i] = n
	}
	return out, nil
}

// Added names notifications committed for one user: what the bus
// carries.
type Added struct {
	OrgID  uuid.UUID   `json:"o"`
	UserID uuid.UUID   `json:"u"`
	IDs    []uuid.UUID `json:"n"`
}

// maxIDs bounds the ids of one message, well inside a bus frame.
const maxIDs = 100

// announce publishes the notifications' ids, one message per user.
func announce(b *bus.Bus, sent []*ent.Notification) {
	byUser := map[uuid.UUID]*Added{}
	var order []uuid.UUID
	for _, n := range sent {
		a, ok := byUser[n.UserID]
		if !ok {
			a = &Added{OrgID: n.OrgID, UserID: n.UserID}
			byUser[n.UserID] = a
			order = append(order, n.UserID)
		}
		a.IDs = append(a.IDs, n.ID)
	}
	for _, u := range order {
		a := byUser[u]
		for ids := range slices.Chunk(a.IDs, maxIDs) {
			raw, err := json.Marshal(Added{OrgID: a.OrgID, UserID: a.UserID, IDs: ids})
			if err != nil {
				slog.Warn("encoding a notification announcement", "err", err)
				return
			}
			b.Publish(bus.Notifications, raw)
		}
	}
}

// Listen calls fn with every replica's committed notifications heard on b
// until stop is called. fn must not block.
func Listen(b *bus.Bus, fn func(Added)) (stop func()) {
	return b.Subscribe(bus.Notifications, func(raw []byte) {
		var a Added
		if err := json.Unmarshal(raw, &a); err != nil {
			slog.Warn("an unreadable notification announcement", "err", err)
			return
		}
		fn(a)
	})
}
