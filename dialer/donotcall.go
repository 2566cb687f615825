package dialer

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/leads"
)

// MarkDoNotCall marks do-not-call the lead leadID names, or every lead
// with phone, as of now, with the reason when one is given, and returns
// them. A lead already marked keeps its first mark. It writes through c
// as ctx's viewer, whose organization's leads alone it finds.
func MarkDoNotCall(ctx context.Context, c *ent.Client, leadID *uuid.UUID, phone, reason *string, now time.Time) ([]*ent.Lead, error) {
	if leadID == nil && (phone == nil || *phone == "") {
		return nil, apperr.Invalid("leadId", "leadId or phone is required")
	}
	q := c.Lead.Query()
	if leadID != nil {
		q = q.Where(lead.ID(*leadID))
	} else {
		q = q.Where(lead.Phone(*phone))
	}
	found, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	if leadID != nil && len(found) == 0 {
		return nil, apperr.Invalid("leadId", "no lead with this id exists in your organization")
	}
	now = now.UTC()
	for i, l := range found {
		if l.IsDoNotCall {
			continue
		}
		if found[i], err = leads.MarkDoNotCall(ctx, c, l, now, reason); err != nil {
			return nil, err
		}
	}
	return found, nil
}
