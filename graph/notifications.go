package graph

import (
	"context"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/notify"
)

// notificationBuffer bounds the notifications waiting for one slow
// subscriber; past it the newest are dropped for it (the list query has
// them all).
const notificationBuffer = 64

// notificationsAdded streams the acting person's notifications as they
// commit, on any replica, until the subscription ends.
func (r *Resolver) notificationsAdded(ctx context.Context) (<-chan *ent.Notification, error) {
	v, ok := viewer.FromContext(ctx)
	if !ok {
		return nil, apperr.New(apperr.Unauthorized, "authentication required")
	}
	if _, err := notify.Unread(ctx, r.client(ctx)); err != nil {
		return nil, err // FORBIDDEN for a key bound to no one
	}
	heard := make(chan notify.Added, notificationBuffer)
	stop := notify.Listen(r.db.Client.Bus, func(a notify.Added) {
		if a.OrgID != v.OrgID || a.UserID != v.UserID {
			return
		}
		select {
		case heard <- a:
		default:
		}
	})
	out := make(chan *ent.Notification)
	go func() {
		defer close(out)
		defer stop()
		for {
			select {
			case <-ctx.Done():
				return
			case a := <-heard:
				found, err := notify.ByIDs(ctx, r.db.Client, a.IDs)
				if err != nil {
					continue // the next announcement, or the list query, brings them
				}
				for _, n := range found {
					select {
					case out <- n:
					case <-ctx.Done():
						return
					}
				}
			}
		}
	}()
	return out, nil
}
