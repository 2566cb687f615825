package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"

	"github.com/lendingpipe/svc/ent"
)

// demoClaimDDL creates the table whose one row says a demo organization
// was made; ent does not model it, as nothing reads it.
const demoClaimDDL = `CREATE TABLE IF NOT EXISTS demo_claims (id INTEGER PRIMARY KEY)`

// demoClaim claims it, on both databases.
const demoClaim = `INSERT INTO demo_claims (id) VALUES (1)`

// ClaimDemo claims, in tx, the right to make the database's one demo
// organization, and reports false when it was claimed before. Several
// replicas starting at once on one database make it once: a second claim
// waits for the first transaction and then fails on the row's key.
func ClaimDemo(ctx context.Context, tx *ent.Client) (bool, error) {
	if _, err := tx.ExecContext(ctx, demoClaim); err != nil {
		if isUniqueViolation(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// isUniqueViolation reports whether err is a unique key's refusal, on
// either database.
func isUniqueViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505"
	}
	var lite sqlite3.Error
	if errors.As(err, &lite) {
		return lite.ExtendedCode == sqlite3.ErrConstraintPrimaryKey || lite.ExtendedCode == sqlite3.ErrConstraintUnique
	}
	return false
}
