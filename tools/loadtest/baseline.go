package loadtest

import (
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"entgo.io/ent/dialect"

	"github.com/lendingpipe/svc/internal/store"
)

// Baseline is the yardstick the load runner measures our overhead against:
// a bare handler that reads one lead row by primary key with database/sql
// (the server's own pool and settings) and writes it as JSON. No router,
// middleware, authentication, ORM or envelope.
func Baseline(db *store.DB) http.Handler {
	query := `SELECT id, business_name, email, requested_amount, created_at FROM leads WHERE id = ?`
	if db.Dialect == dialect.Postgres {
		query = strings.Replace(query, "?", "$1", 1)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" {
			w.WriteHeader(http.StatusOK)
			return
		}
		var row struct {
			ID              string     `json:"id"`
			BusinessName    *string    `json:"businessName"`
			Email           *string    `json:"email"`
			RequestedAmount *string    `json:"requestedAmount"`
			CreatedAt       *time.Time `json:"createdAt"`
		}
		err := db.SQL.QueryRowContext(r.Context(), query, strings.TrimPrefix(r.URL.Path, "/leads/")).
			Scan(&row.ID, &row.BusinessName, &row.Email, &row.RequestedAmount, &row.CreatedAt)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			http.NotFound(w, r)
			return
		case err != nil:
			http.Error(w, "database error", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(row)
	})
}
