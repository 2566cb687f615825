package people

import (
	"context"
	"fmt"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// audit records action on u in u's organization's audit log, in the
// caller's transaction, with the actor in ctx; from, when known, is where
// a sign-in event came from. Never a password or token.
func audit(ctx context.Context, c *ent.Client, u *ent.User, action string, from *Client) error {
	return writeAudit(ctx, c, u, action, *events.Actor(ctx), nil, from)
}

// auditFailure records a refused sign-in with the email tried: its actor
// is anonymous, since who tried is what is unknown.
func auditFailure(ctx context.Context, c *ent.Client, u *ent.User, email string, from Client) error {
	return writeAudit(ctx, c, u, "user.sign_in_failed", "anonymous", &email, &from)
}

func writeAudit(ctx context.Context, c *ent.Client, u *ent.User, action, actor string, email *string, from *Client) error {
	create := c.AuditEvent.Create().SetOrgID(u.OrgID).SetOccurredAt(apitime.Now(ctx)).SetActor(actor).
		SetAction(action).SetTargetType("user").SetTargetID(u.ID).
		SetNillableRequestID(viewer.RequestIDOf(ctx)).SetNillableEmail(email)
	if from != nil && from.IP != "" {
		create.SetClientIP(from.IP)
	}
	if err := create.Exec(rule.SystemContext(ctx)); err != nil {
		return fmt.Errorf("writing the audit log: %w", err)
	}
	return nil
}
