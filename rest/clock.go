package rest

import (
	"net/http"
	"time"

	"github.com/lendingpipe/svc/internal/apitime"
)

// withClock puts the server's clock in every request's context, so the
// rows and events a request writes are stamped by it (apitime.Now), as
// the rest of what the request decides by time is.
func withClock(now func() time.Time) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(apitime.WithClock(r.Context(), now)))
		})
	}
}
