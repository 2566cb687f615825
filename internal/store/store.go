// Package store opens the database behind the ent client: embedded SQLite by
// default, PostgreSQL when the URL says so. It migrates the schema, including
// the full-text search objects ent does not model, on open.
//
// It imports ent, the leaves, and the outbox writer (events), privacy rules
// (internal/rule) and funnel (analytics/funnel) it writes and reads
// through, never a subsystem or domain; every layer above opens its
// database and its transactions here.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver
	pgxuuid "github.com/vgarvardt/pgx-google-uuid/v5"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/auditevent"
	"github.com/lendingpipe/svc/ent/idempotencyrecord"
	"github.com/lendingpipe/svc/ent/migrate"
	_ "github.com/lendingpipe/svc/ent/runtime" // schema hooks and privacy policies
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/filestore"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/signals"
	"github.com/lendingpipe/svc/internal/telemetry"
	"github.com/lendingpipe/svc/internal/text"
)

// DB is an open database: the ent client for the models, and the raw handle
// for the few portable statements ent does not express (full-text search);
// and the file store that keeps the bytes its documents and imports name.
type DB struct {
	Client  *ent.Client
	SQL     *sql.DB // reads (on SQLite, the read pool)
	Dialect string
	Files   *filestore.Store
	write   *sql.DB      // on SQLite, the one writer connection; else SQL
	group   *groupCommit // on SQLite, how transactions share commits
	// stopCheckpoints ends SQLite's checkpointer.
	stopCheckpoints func()
	// readIdle is the read pool's idle-connection limit, restored after
	// Optimize recycles it.
	readIdle int
	// BusKind is the change bus chosen (BusMemory, BusPostgres, BusRedis).
	BusKind string
	// ImportsQueued and RunsQueued wake this process's lead import worker
	// and automation runner when a job or a run is queued through it.
	ImportsQueued, RunsQueued *signals.Signal
	// leadByID holds ReadLead's statements.
	leadByID leadStatements
}

// readConnLifetime bounds how long a pooled connection lives, so every
// connection picks up refreshed planner statistics before long.
const readConnLifetime = 30 * time.Minute

// Options tune the connection pool.
type Options struct {
	MaxOpenConns int // 0: DefaultMaxConns
	// FilesURL is the file store's (filestore.Open); empty: the
	// directory beside the database (filestore.DefaultURL).
	FilesURL string
	// Bus chooses the change bus live subscriptions hear other replicas'
	// changes on (BusAuto when empty); RedisURL and RedisPrefix are its
	// Redis's (SVC_REDIS_URL) and its channels' prefix.
	Bus, RedisURL, RedisPrefix string
	// WrapDriver, when set, wraps the ent driver: a test counts the
	// statements a request runs with it (dialect.DebugWithContext).
	WrapDriver func(dialect.Driver) dialect.Driver
}

// DefaultMaxConns sizes the pool (SQLite's read pool; PostgreSQL's whole
// pool) at four connections per core: enough that a request waiting on the
// database does not hold up others on a free core, few enough that a burst
// queues in the pool instead of thrashing the database, and every one stays
// open and warm (its prepared statements and page cache) rather than being
// closed and reopened as the load rises and falls.
func DefaultMaxConns() int { return 4 * runtime.GOMAXPROCS(0) }

// Open connects to databaseURL and migrates the schema. A postgres:// or
// postgresql:// URL selects PostgreSQL; anything else is a SQLite file path
// (optionally prefixed file:), but a URL of another scheme is refused
// (CheckDatabaseURL).
func Open(ctx context.Context, databaseURL string, opts Options) (*DB, error) {
	if err := CheckDatabaseURL(databaseURL); err != nil {
		return nil, err
	}
	drv, dsn, dia := driverFor(databaseURL)
	if opts.MaxOpenConns <= 0 {
		opts.MaxOpenConns = DefaultMaxConns()
	}
	read, err := openPool(ctx, drv, dsn, dia, opts.MaxOpenConns)
	if err != nil {
		return nil, err
	}
	s := &DB{SQL: read, write: read, Dialect: dia, readIdle: opts.MaxOpenConns, leadByID: newLeadStatements(dia),
		ImportsQueued: signals.NewSignal(), RunsQueued: signals.NewSignal()}
	var driver dialect.Driver = entsql.OpenDB(dia, read)
	if dia == dialect.SQLite {
		if s.write, err = openPool(ctx, drv, dsn+"&"+writerParam, dia, 1); err != nil {
			read.Close()
			return nil, err
		}
		write := entsql.OpenDB(dia, s.write)
		s.group = newGroupCommit(write)
		driver = splitDriver{read: entsql.OpenDB(dia, read), write: write, group: s.group}
	}
	if telemetry.Tracing() {
		driver = newTracedDriver(driver)
	}
	if opts.WrapDriver != nil {
		driver = opts.WrapDriver(driver)
	}
	b, err := s.openBus(opts, databaseURL)
	if err != nil {
		_ = driver.Close()
		return nil, err
	}
	s.Client = ent.NewClient(ent.Driver(driver), ent.Bus(b), ent.Signals(signals.New()))
	s.Client.Use(text.RefuseNUL, apitime.StoreMillis) // before any use: Use is not safe beside running queries
	if err := s.migrateLocked(ctx, drv, dsn); err != nil {
		s.Close()
		return nil, err
	}
	if opts.FilesURL == "" {
		opts.FilesURL = filestore.DefaultURL(databaseURL)
	}
	if s.Files, err = filestore.Open(ctx, opts.FilesURL); err != nil {
		s.Close()
		return nil, err
	}
	if dia == dialect.SQLite {
		s.stopCheckpoints = s.checkpointer()
	}
	return s, nil
}

// checkpointInterval is how often the checkpointer copies the WAL back into
// the database file.
const checkpointInterval = 250 * time.Millisecond

// walRestartFrames is the WAL length, in pages (64 MiB of 4 KiB pages), past
// which the checkpointer restarts the WAL rather than only copying it back.
const walRestartFrames = 16384

// checkpointer checkpoints the WAL from a read connection, beside the
// writer. SQLite's automatic checkpoint runs inside the commit that crosses
// its threshold, on the one writer connection, and with it the database
// file's fsync: every transaction queued behind that commit waited for it.
//
// A PASSIVE checkpoint waits for no one, but it alone does not bound the
// WAL: the writer starts the WAL again from its beginning only when every
// frame has been copied back and no reader is still reading a snapshot in
// it, and under steady reads and writes both are rarely true at once, so
// the file grew by the size of every write (gigabytes a minute under load).
// Past walRestartFrames a RESTART checkpoint waits (for at most the busy
// timeout) until the readers of older snapshots finish, copies the rest and
// makes the next write start the WAL again; the writer's journal_size_limit
// then cuts the file back.
func (s *DB) checkpointer() (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(checkpointInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				// An error (the database closing, a busy lock) is retried
				// at the next tick; the WAL only grows meanwhile. Read as
				// rows: the pragma answers one, and a statement left on it
				// would hold its connection's read snapshot open.
				var busy, frames, copied int
				_ = s.SQL.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
				if frames > walRestartFrames {
					_ = s.SQL.QueryRow("PRAGMA wal_checkpoint(RESTART)").Scan(&busy, &frames, &copied)
				}
			}
		}
	}()
	return func() { close(done); <-stopped }
}

func openPool(ctx context.Context, drv, dsn, dia string, maxConns int) (*sql.DB, error) {
	db, err := openSQL(drv, dsn, dia)
	if err != nil {
		return nil, fmt.Errorf("opening %s database: %w", dia, err)
	}
	if maxConns > 0 {
		db.SetMaxOpenConns(maxConns)
		db.SetMaxIdleConns(maxConns)
	}
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(readConnLifetime)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connecting to %s database: %w", dia, err)
	}
	return db, nil
}

// openSQL opens the pool. PostgreSQL's connections learn the uuid.UUID
// type: otherwise pgx encodes each id parameter through its driver.Valuer,
// text that it fails to encode in binary, then parses and encodes again,
// an error value built and dropped per parameter (about a quarter of a
// bulk load's client CPU).
func openSQL(drv, dsn, dia string) (*sql.DB, error) {
	if dia != dialect.Postgres {
		return sql.Open(drv, dsn)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	// Each new connection reads the URL again, as the plain driver does, so
	// a password rotated in a password file or PGPASSWORD is used at once.
	fresh := func(_ context.Context, c *pgx.ConnConfig) error {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return err
		}
		*c = *cfg
		return nil
	}
	return stdlib.OpenDB(*cfg, stdlib.OptionBeforeConnect(fresh), stdlib.OptionAfterConnect(func(_ context.Context, c *pgx.Conn) error {
		pgxuuid.Register(c.TypeMap())
		return nil
	})), nil
}

// Pools names the connection pools for their metrics: on SQLite the read
// pool and the one writer connection, on PostgreSQL the one pool.
func (s *DB) Pools() map[string]*sql.DB {
	if s.write == s.SQL {
		return map[string]*sql.DB{"main": s.SQL}
	}
	return map[string]*sql.DB{"read": s.SQL, "write": s.write}
}

// GroupCommitStats reports how many transactions have committed on SQLite
// and in how many commits (see groupCommit); zeros on PostgreSQL.
func (s *DB) GroupCommitStats() (transactions, commits int64) {
	if s.group == nil {
		return 0, 0
	}
	return s.group.members.Load(), s.group.commits.Load()
}

// Close stops the checkpointer and releases the pool.
func (s *DB) Close() error {
	if s.stopCheckpoints != nil {
		s.stopCheckpoints()
		s.stopCheckpoints = nil
	}
	if s.Files != nil {
		_ = s.Files.Close() // nothing of a closed bucket is kept to flush
	}
	_ = s.Client.Bus.Close() // messages not yet sent are lost, as on a crash
	return s.Client.Close()
}

// Ping reports whether the database answers.
func (s *DB) Ping(ctx context.Context) error { return s.SQL.PingContext(ctx) }

func driverFor(databaseURL string) (driver, dsn, dia string) {
	if isPostgres(databaseURL) {
		return "pgx", databaseURL, dialect.Postgres
	}
	registerCachedSQLite()
	return cachedSQLite, sqliteDSN(databaseURL), dialect.SQLite
}

// sqliteDSN turns a path into a DSN with the settings the service relies on:
// WAL so readers never wait for the writer, a busy timeout instead of
// immediate SQLITE_BUSY, foreign keys, and BEGIN IMMEDIATE so a transaction
// takes the write lock up front rather than failing to upgrade mid-way.
func sqliteDSN(databaseURL string) string {
	path, q := splitSQLite(databaseURL)
	set := func(k, v string) {
		if q.Get(k) == "" {
			q.Set(k, v)
		}
	}
	set("_fk", "1")
	set("_journal_mode", "WAL")
	set("_busy_timeout", "10000")
	set("_txlock", "immediate")
	set("_synchronous", "NORMAL")
	return "file:" + path + "?" + q.Encode()
}

func (s *DB) migrate(ctx context.Context) error {
	unsummed, err := s.countsWithoutSums(ctx)
	if err != nil {
		return err
	}
	unrenewed, err := s.tableWithoutColumn(ctx, "deal_days", "renewal_deals")
	if err != nil {
		return err
	}
	if err := s.Client.Schema.Create(ctx, migrate.WithGlobalUniqueID(false)); err != nil {
		return fmt.Errorf("migrating the schema: %w", err)
	}
	if unsummed || unrenewed {
		// The kept counts gained their requested sums, or the deal rollup
		// its renewal figures, just now, as zeros: the rebuild computes
		// them (reports read the records meanwhile).
		if _, err := s.write.ExecContext(ctx, `UPDATE organizations SET rollup_zone = NULL`); err != nil {
			return fmt.Errorf("marking the rollups to rebuild: %w", err)
		}
	}
	if unrenewed {
		// The index holding the deal rollup's sums lacks the renewal
		// figures: moneySumsDDL creates it again with them.
		if _, err := s.write.ExecContext(ctx, `DROP INDEX IF EXISTS dealday_dimension_sums`); err != nil {
			return fmt.Errorf("dropping the deal rollup's sums index: %w", err)
		}
	}
	rebuild := false
	if s.Dialect == dialect.SQLite {
		var err error
		if rebuild, err = s.migrateSearch(ctx); err != nil {
			return err
		}
	}
	if err := s.staleRollupLayout(ctx); err != nil {
		return err
	}
	ddl := slices.Concat([]string{heartbeatDDL, demoClaimDDL, openApplicationDDL()}, superseded, []string{callSumsDDL(s.Dialect)}, moneySumsDDL(s.Dialect))
	if s.Dialect == dialect.Postgres {
		if err := s.migratePGSearch(ctx); err != nil {
			return err
		}
	}
	for _, stmt := range ddl {
		if _, err := s.write.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("creating the search index: %w", err)
		}
	}
	if rebuild {
		if err := s.Reindex(ctx); err != nil {
			return err
		}
	}
	if err := s.backfillLeadCounts(ctx); err != nil {
		return err
	}
	if err := s.backfillDealDays(ctx); err != nil {
		return err
	}
	if err := s.backfillSubscriptionKeys(ctx); err != nil {
		return err
	}
	if err := s.backfillRenewals(ctx, time.Now()); err != nil {
		return err
	}
	if err := s.backfillMatchKeys(ctx); err != nil {
		return err
	}
	if s.Dialect == dialect.SQLite {
		// Cheap on SQLite; on PostgreSQL an ANALYZE at every start would cost
		// seconds on a large database, and autovacuum keeps it current.
		return s.Optimize(ctx)
	}
	return nil
}

// countsWithoutSums reports whether the kept lead counts exist without
// their requested sums: a database of a release before the board's totals.
func (s *DB) countsWithoutSums(ctx context.Context) (bool, error) {
	return s.tableWithoutColumn(ctx, "lead_counts", "requested")
}

// tableWithoutColumn reports whether table exists without column: a
// database of a release before the column was added, whose rows the
// migration gives the column's default.
func (s *DB) tableWithoutColumn(ctx context.Context, table, column string) (bool, error) {
	q := `SELECT (SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?),
		(SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = ?)`
	if s.Dialect == dialect.Postgres {
		q = `SELECT (SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1),
			(SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $2 AND column_name = $3)`
	}
	var tables, columns int
	if err := s.write.QueryRowContext(ctx, q, table, table, column).Scan(&tables, &columns); err != nil {
		return false, fmt.Errorf("reading the layout of %s: %w", table, err)
	}
	return tables == 1 && columns == 0, nil
}

// rollupsByMonthIndex is the lender rollup's index before the rollups were
// kept by year too: a database that still has it holds rollups without
// their year rows.
const rollupsByMonthIndex = "lenderday_org_id_day_lender_id_slot"

// dispositionDays is the table that counted dispositions one row per code
// before they were packed into the call rollup's rows.
const dispositionDays = "disposition_days"

// staleRollupLayout marks every organization's rollups as not built when
// they were built in an older layout, which an index or a table of that
// layout shows (both are dropped after): reports read the records until
// the rollups are rebuilt, which serve does within a minute.
func (s *DB) staleRollupLayout(ctx context.Context) error {
	q := `SELECT COUNT(*) FROM sqlite_master WHERE (type = 'index' AND name = ?) OR (type = 'table' AND name = ?)`
	if s.Dialect == dialect.Postgres {
		q = `SELECT (SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1) +
			(SELECT COUNT(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = $2)`
	}
	var n int
	if err := s.write.QueryRowContext(ctx, q, rollupsByMonthIndex, dispositionDays).Scan(&n); err != nil {
		return fmt.Errorf("reading the rollups' layout: %w", err)
	}
	if n == 0 {
		return nil
	}
	if _, err := s.write.ExecContext(ctx, `UPDATE organizations SET rollup_zone = NULL`); err != nil {
		return fmt.Errorf("marking the rollups to rebuild: %w", err)
	}
	return nil
}

// superseded are the indexes and tables dropped at start-up: ent's
// migration adds what the schema gains but leaves what it loses (dropping
// every index unknown to the schema would drop the search index too).
var superseded = []string{
	// Replaced by lenderday_org_id_grain_day_lender_id_slot: the lender
	// rollup is kept by day, month and year (staleRollupLayout).
	`DROP INDEX IF EXISTS ` + rollupsByMonthIndex,
	// Replaced by the covering callevent_user_id_occurred_at_external_call_id_event_type.
	`DROP INDEX IF EXISTS callevent_user_id_occurred_at`,
	// Prefixes of indexes that begin with org_id (OrgMixin.LeadingIndexes).
	`DROP INDEX IF EXISTS automation_org_id`, `DROP INDEX IF EXISTS callevent_org_id`,
	`DROP INDEX IF EXISTS lead_org_id`, `DROP INDEX IF EXISTS pipelinestage_org_id`,
	`DROP INDEX IF EXISTS team_org_id`, `DROP INDEX IF EXISTS user_org_id`,
	// Replaced by the same indexes ending with id, which answer a list's
	// order and its total alone.
	`DROP INDEX IF EXISTS application_org_id_lender_id_created_at`, `DROP INDEX IF EXISTS application_org_id_status_created_at`,
	`DROP INDEX IF EXISTS fundeddeal_org_id_lender_id_funded_at`, `DROP INDEX IF EXISTS fundeddeal_org_id_advisor_id_funded_at`,
	`DROP INDEX IF EXISTS commission_org_id_lender_id_created_at`, `DROP INDEX IF EXISTS commission_org_id_advisor_id_created_at`,
	`DROP INDEX IF EXISTS commission_org_id_status_created_at`,
	// Replaced by the lead counts by stage.
	`DROP INDEX IF EXISTS leadcount_org_id_slot`,
	// Replaced by the deal rollup's indexes by grain.
	`DROP INDEX IF EXISTS dealday_org_id_day_dimension_subject_id`, `DROP INDEX IF EXISTS dealday_sums`,
	`DROP INDEX IF EXISTS dealday_grain_sums`,
	`DROP INDEX IF EXISTS decisionday_org_id_day_lender_id_octave`,
	// Replaced by the call rollup's packed dispositions (staleRollupLayout).
	`DROP TABLE IF EXISTS ` + dispositionDays,
	// Replaced by callday_sums (callSumsDDL); on PostgreSQL ent named it
	// by a hash, the name being longer than an identifier may be there.
	`DROP INDEX IF EXISTS callday_org_id_span_day_user_id_slot_calls_answered_talk_seconds`,
	`DROP INDEX IF EXISTS callday_org_id_span_day_user_i_44561b6a932c2dd0bdc97812d3018870`,
	// Replaced by the same index holding calls, which the series reads.
	`DROP INDEX IF EXISTS callday_org_id_user_id_span_day`,
	// (org_id, lender_id, submitted_at, status, decision_seconds), replaced
	// by application_org_id_submitted_at: a lender's whole window is the
	// lenders report's sums. Named by a hash, as on each database.
	`DROP INDEX IF EXISTS application_org_id_lender_id_su_3014c601688893baa9bed9d913d47ac7`,
	`DROP INDEX IF EXISTS application_org_id_lender_id_s_3014c601688893baa9bed9d913d47ac7`,
}

// openApplicationDDL creates the index that holds a lead to one open
// application per lender when two submissions race (the submission's
// check says so first). The store creates it, not ent's migration: ent
// compares a partial index's condition as written with PostgreSQL's
// rendering of it (status = ANY (ARRAY[...])), finds them different, and
// dropped and built the index again at every start, locking the
// applications meanwhile.
// The open statuses are lendingrules.Open, the rule the check reads.
func openApplicationDDL() string {
	quoted := make([]string, len(lendingrules.Open))
	for i, status := range lendingrules.Open {
		quoted[i] = sqlString(status)
	}
	return `CREATE UNIQUE INDEX IF NOT EXISTS application_lead_id_lender_id ON applications (lead_id, lender_id) ` +
		`WHERE status IN (` + strings.Join(quoted, ", ") + `)`
}

// callSumsDDL creates the index the dialer report reads the call rollup
// from, which holds every column it reads. On SQLite that includes the
// packed dispositions: a year's 800 rows read through the table took five
// times as long as from the index alone. A PostgreSQL index entry is limited
// to about 2.7 kB, which the dispositions of an agent with many long codes
// could pass; there they are read from the table.
func callSumsDDL(d string) string {
	cols := "org_id, span, day, user_id, slot, calls, answered, talk_seconds"
	if d == dialect.SQLite {
		cols += ", dispositions"
	}
	return `CREATE INDEX IF NOT EXISTS callday_sums ON call_days (` + cols + `)`
}

// moneySumsDDL keeps, on PostgreSQL, the indexes the funding, lenders and
// commissions reports read the deal and payment rollups from, which hold
// every column they read: there a report read through the table took about
// a quarter longer. On SQLite the sums are read from the table: each
// row a funding or a payment adds to would take an index entry deleted
// and one inserted, which was most of a payment's rollup cost.
func moneySumsDDL(d string) []string {
	if d == dialect.SQLite {
		return []string{`DROP INDEX IF EXISTS dealday_dimension_sums`, `DROP INDEX IF EXISTS paymentday_sums`}
	}
	return []string{
		`CREATE INDEX IF NOT EXISTS dealday_dimension_sums ON deal_days (org_id, grain, dimension, day, subject_id, ` +
			`deals, funded_amount, expected_commission, paid, clawed_back, outstanding, ` +
			`renewal_deals, renewal_amount, renewal_expected, renewal_paid)`,
		`CREATE INDEX IF NOT EXISTS paymentday_sums ON payment_days (org_id, day, paid, clawed_back)`,
	}
}

// filledTables is the schema's tables on PostgreSQL that hold a page.
// An empty table is left unanalyzed: analyzed empty, the planner takes it
// for empty until the next analysis, and a plan a connection keeps (a foreign
// key's check) scans it whole however large it grows. The webhook tables
// after a bulk load were such: their deliveries fell a minute behind.
// Never analyzed, the planner assumes a few pages and uses the index.
func (s *DB) filledTables(ctx context.Context) ([]string, error) {
	names := make([]string, len(migrate.Tables), len(migrate.Tables)+1)
	for i, t := range migrate.Tables {
		names[i] = t.Name
	}
	names = append(names, "lead_search_terms") // the store's own, not ent's
	filled, err := s.strings(ctx, `SELECT relname FROM pg_class WHERE relname = ANY ($1::text[]) `+
		`AND relnamespace = current_schema()::regnamespace AND relkind = 'r' AND pg_relation_size(oid) > 0 ORDER BY relname`, names)
	if err != nil {
		return nil, fmt.Errorf("listing the tables to analyze: %w", err)
	}
	return filled, nil
}

// AfterBulkLoad leaves a database as autovacuum would some time after a
// bulk load: on PostgreSQL every table holding rows vacuumed (its pages
// marked all-visible, so that a count reads an index alone) and analyzed;
// on SQLite, Optimize.
func (s *DB) AfterBulkLoad(ctx context.Context) error {
	if s.Dialect != dialect.Postgres {
		return s.Optimize(ctx)
	}
	if err := s.eachFilledTable(ctx, "VACUUM (ANALYZE)"); err != nil {
		return fmt.Errorf("vacuuming after the load: %w", err)
	}
	return nil
}

// eachFilledTable runs command (ANALYZE, VACUUM) over filledTables, on
// PostgreSQL: only this schema's tables, as a bare command would take the
// whole database.
func (s *DB) eachFilledTable(ctx context.Context, command string) error {
	names, err := s.filledTables(ctx)
	if err != nil || len(names) == 0 {
		return err
	}
	_, err = s.SQL.ExecContext(ctx, command+" "+strings.Join(names, ", "))
	return err
}

// Optimize refreshes the query planner's statistics. Without them both
// databases guess that org_id = ? is selective and may scan a whole
// organization instead of using the primary key or the search index.
// PostgreSQL's autovacuum analyzes too, but only some time after a bulk load.
func (s *DB) Optimize(ctx context.Context) error {
	if s.Dialect == dialect.Postgres {
		if err := s.eachFilledTable(ctx, "ANALYZE"); err != nil {
			return fmt.Errorf("refreshing planner statistics: %w", err)
		}
		return nil
	}
	// 0x10002: analyze every table whose statistics are missing or stale,
	// not only those this connection has queried.
	if _, err := s.write.ExecContext(ctx, "PRAGMA optimize=0x10002"); err != nil {
		return fmt.Errorf("refreshing planner statistics: %w", err)
	}
	// A SQLite connection reads the statistics when it loads the schema and
	// keeps them, so the read pool's idle connections are closed here; the
	// ones in use retire within readConnLifetime.
	s.SQL.SetMaxIdleConns(0)
	s.SQL.SetMaxIdleConns(s.readIdle)
	return nil
}

// DefaultAuditRetention is how long the audit log keeps an action unless
// SVC_AUDIT_RETENTION says otherwise: a year.
const DefaultAuditRetention = 365 * 24 * time.Hour

// PurgeAudit deletes the audit log's actions made before before.
func (s *DB) PurgeAudit(ctx context.Context, before time.Time) (int, error) {
	return s.Client.AuditEvent.Delete().Where(auditevent.OccurredAtLT(before)).Exec(rule.SystemContext(ctx))
}

// PurgeIdempotency deletes idempotency records that expired before now.
func (s *DB) PurgeIdempotency(ctx context.Context, now time.Time) (int, error) {
	return s.Client.IdempotencyRecord.Delete().
		Where(idempotencyrecord.ExpiresAtLT(now)).Exec(rule.SystemContext(ctx))
}
