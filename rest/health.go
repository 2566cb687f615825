package rest

import (
	"context"
	"net/http"
	"time"

	"github.com/lendingpipe/svc/ent/apperr"
	"github.com/lendingpipe/svc/ent/store"
)

type healthHandlers struct {
	db      *store.DB
	version string
	started time.Time
	now     func() time.Time
}

type statusAttributes struct {
	Status        string `json:"status"`
	Version       string `json:"version"`
	APIVersion    string `json:"apiVersion"`
	Database      string `json:"database"`
	UptimeSeconds int64  `json:"uptimeSeconds"`
}

// status reports health in the single-resource envelope; 503 when the
// database does not answer.
func (h healthHandlers) status(w http.ResponseWriter, r *http.Request) error {
	a := statusAttributes{Status: "ok", Version: h.version, APIVersion: APIVersion, Database: h.db.Dialect,
		UptimeSeconds: int64(h.now().Sub(h.started).Seconds())}
	code := http.StatusOK
	if err := h.ping(r.Context()); err != nil {
		a.Status, code = "unavailable", http.StatusServiceUnavailable
	}
	writeResource(w, r, code, Resource{ID: "status", Type: "status", Attributes: a})
	return nil
}

func (h healthHandlers) live(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (h healthHandlers) ready(w http.ResponseWriter, r *http.Request) error {
	if err := h.ping(r.Context()); err != nil {
		return apperr.New(apperr.Unavailable, "the database is unreachable")
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	return nil
}

func (h healthHandlers) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return h.db.Ping(ctx)
}
