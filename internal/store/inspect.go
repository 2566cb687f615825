package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/schema"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/migrate"
)

// Inspection is what Inspect learned of a database without changing its
// schema: the facts `svc doctor` judges a deployment by.
type Inspection struct {
	Dialect string
	// Exists is false for a SQLite file not made yet; nothing else is then
	// known.
	Exists  bool
	Version string // the server's (PostgreSQL) or the library's (SQLite)
	// VersionNum is PostgreSQL's server_version_num (150004 for 15.4).
	VersionNum int
	Latency    time.Duration // of one round trip
	// PendingDDL are the statements the next start would run to migrate
	// the schema (none when it is current); Migrated is false when the
	// database holds none of the service's tables.
	PendingDDL []string
	Migrated   bool
	// Writable reports a heartbeat committed; WriteErr why not.
	Writable bool
	WriteErr error
	// PostgreSQL only: the connections the server allows to ordinary
	// roles, and those open now.
	MaxConnections, OpenConnections int
	// SQLite only: the journal mode (the service sets WAL).
	JournalMode string
}

// Inspect connects to databaseURL and reads, without migrating, what an
// operator checks before a start or an upgrade. It commits one heartbeat
// row when the database has the service's tables, to show it takes writes.
func Inspect(ctx context.Context, databaseURL string) (*Inspection, error) {
	if err := CheckDatabaseURL(databaseURL); err != nil {
		return nil, err
	}
	drv, dsn, dia := driverFor(databaseURL)
	in := &Inspection{Dialect: dia, Exists: true}
	if path, ok := SQLiteFile(databaseURL); ok {
		// Connecting would create the file.
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			in.Exists = false
			return in, nil
		}
	}
	db, err := openPool(ctx, drv, dsn, dia, 1)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	start := time.Now()
	if err := db.PingContext(ctx); err != nil {
		return nil, fmt.Errorf("connecting to %s database: %w", dia, err)
	}
	in.Latency = time.Since(start)
	if err := in.readServer(ctx, db); err != nil {
		return nil, err
	}
	if err := in.readSchema(ctx, db); err != nil {
		return nil, err
	}
	if in.Migrated && in.Dialect == dialect.Postgres {
		search, err := readPGSearchLayout(ctx, db)
		if err != nil {
			return nil, err
		}
		if !search.current() {
			in.PendingDDL = append(in.PendingDDL, "(the leads' search words: the leads table is rewritten and its search index built)")
		}
	}
	if in.Migrated {
		in.WriteErr = heartbeat(ctx, db)
		in.Writable = in.WriteErr == nil
	}
	return in, nil
}

func (in *Inspection) readServer(ctx context.Context, db *sql.DB) error {
	if in.Dialect == dialect.SQLite {
		if err := db.QueryRowContext(ctx, `SELECT sqlite_version()`).Scan(&in.Version); err != nil {
			return fmt.Errorf("reading the SQLite version: %w", err)
		}
		if err := db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&in.JournalMode); err != nil {
			return fmt.Errorf("reading the journal mode: %w", err)
		}
		return nil
	}
	err := db.QueryRowContext(ctx, `SELECT current_setting('server_version'), current_setting('server_version_num')::int,
		current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int,
		(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')`).
		Scan(&in.Version, &in.VersionNum, &in.MaxConnections, &in.OpenConnections)
	if err != nil {
		return fmt.Errorf("reading the PostgreSQL server's settings: %w", err)
	}
	return nil
}

// readSchema asks ent for the statements a migration would run now. Every
// table it would create means none of the service's tables is there.
func (in *Inspection) readSchema(ctx context.Context, db *sql.DB) error {
	var buf bytes.Buffer
	client := ent.NewClient(ent.Driver(entsql.OpenDB(in.Dialect, db)))
	if err := client.Schema.WriteTo(ctx, &buf, migrate.WithGlobalUniqueID(false), schema.WithDropIndex(false)); err != nil {
		return fmt.Errorf("comparing the schema: %w", err)
	}
	var stmts []string
	for _, line := range strings.Split(buf.String(), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "--") || strings.EqualFold(line, "BEGIN;") || strings.EqualFold(line, "COMMIT;") {
			continue
		}
		stmts = append(stmts, line)
	}
	in.PendingDDL = withoutRebuilds(stmts)
	creates := 0
	for _, stmt := range in.PendingDDL {
		if strings.HasPrefix(strings.ToUpper(stmt), "CREATE TABLE") {
			creates++
		}
	}
	in.Migrated = creates < len(migrate.Tables)
	return nil
}

// heartbeat commits the row CheckWrite commits.
func heartbeat(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("beginning a write: %w", err)
	}
	if _, err := tx.ExecContext(ctx, heartbeatUpsert); err != nil {
		tx.Rollback() //nolint:errcheck // the write's own error is the one to report
		return &WriteRefused{Reason: writeFailure(err), Err: err}
	}
	if err := tx.Commit(); err != nil {
		return &WriteRefused{Reason: writeFailure(err), Err: err}
	}
	return nil
}

// withoutRebuilds drops each index that stmts drop and create again under
// the same name. The migration compares a partial index's predicate as
// text, and PostgreSQL keeps it in a normalised form, so such an index is
// made again at every start: not a change of schema.
func withoutRebuilds(stmts []string) []string {
	name := func(stmt string) string {
		if _, rest, ok := strings.Cut(stmt, `INDEX "`); ok {
			n, _, _ := strings.Cut(rest, `"`)
			return n
		}
		return ""
	}
	dropped, made := map[string]bool{}, map[string]bool{}
	for _, stmt := range stmts {
		switch {
		case strings.HasPrefix(stmt, "DROP INDEX"):
			dropped[name(stmt)] = true
		case strings.HasPrefix(stmt, "CREATE ") && strings.Contains(stmt, " INDEX "):
			made[name(stmt)] = true
		}
	}
	var out []string
	for _, stmt := range stmts {
		if n := name(stmt); n != "" && dropped[n] && made[n] {
			continue
		}
		out = append(out, stmt)
	}
	return out
}
