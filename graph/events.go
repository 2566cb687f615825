package graph

import (
	"context"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/webhooks"
)

// liveEvents streams the viewer's organization's committed events of
// types (every type it may read when empty) until the subscription ends. A
// subscriber that falls webhooks.LiveBuffer events behind is ended with
// RATE_LIMITED rather than buffered without bound.
func (r *Resolver) liveEvents(ctx context.Context, types []string) (<-chan *webhooks.Envelope, error) {
	v, ok := viewer.FromContext(ctx)
	if !ok {
		return nil, apperr.New(apperr.Unauthorized, "authentication required")
	}
	if err := webhooks.CheckTypes(v, types); err != nil {
		return nil, err
	}
	sub, stop := r.events.Subscribe(v, types)
	out := make(chan *webhooks.Envelope)
	go func() {
		defer close(out)
		defer stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-sub.C:
				if !ok {
					if sub.Overflowed() {
						endSubscriptionWith(ctx, presentError(ctx, apperr.New(apperr.RateLimited,
							"the subscriber fell %d events behind and was ended; subscribe again", webhooks.LiveBuffer)))
					}
					return
				}
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}
