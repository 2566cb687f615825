package store

import (
	"context"
	"database/sql"
	"os"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"
)

// postgresURL is the test database, or a skip.
func postgresURL(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv("SVC_TEST_DATABASE_URL")
	if base == "" {
		tb.Skip("PostgreSQL only: set SVC_TEST_DATABASE_URL")
	}
	return base
}

// Ids keep their values through the pool's uuid type, as parameters
// (alone, absent and in arrays) and as results.
func TestPostgresPoolEncodesIDs(t *testing.T) {
	db, err := openSQL("pgx", postgresURL(t), dialect.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	id, other := uuid.Must(uuid.NewV7()), uuid.New()
	var got uuid.UUID
	var text string
	var absent uuid.NullUUID
	var in bool
	err = db.QueryRowContext(ctx, `SELECT $1::uuid, $1::uuid::text, $2::uuid, $1::uuid = ANY ($3::uuid[])`,
		id, (*uuid.UUID)(nil), []uuid.UUID{other, id}).Scan(&got, &text, &absent, &in)
	if err != nil {
		t.Fatal(err)
	}
	if got != id || text != id.String() || absent.Valid || !in {
		t.Errorf("got %v, %q, %v, %v; want %v, its text, NULL, true", got, text, absent, in, id)
	}
	absent = uuid.NullUUID{UUID: other, Valid: true}
	if err := db.QueryRowContext(ctx, `SELECT $1::uuid`, absent).Scan(&got); err != nil || got != other {
		t.Errorf("a valid NullUUID came back as %v, %v; want %v", got, err, other)
	}
}

// BenchmarkPostgresIDParameters shows what registering the uuid type saves
// on a statement with four id parameters: "valuer" is pgx's default path
// (each id as text through driver.Valuer, refused in binary, parsed and
// encoded again), "registered" the pool's.
func BenchmarkPostgresIDParameters(b *testing.B) {
	base := postgresURL(b)
	open := map[string]func() (*sql.DB, error){
		"valuer":     func() (*sql.DB, error) { return sql.Open("pgx", base) },
		"registered": func() (*sql.DB, error) { return openSQL("pgx", base, dialect.Postgres) },
	}
	ids := []any{uuid.New(), uuid.New(), uuid.New(), uuid.New()}
	for _, name := range []string{"valuer", "registered"} {
		b.Run(name, func(b *testing.B) {
			db, err := open[name]()
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(1)
			ctx := context.Background()
			var n int
			b.ReportAllocs()
			for b.Loop() {
				err := db.QueryRowContext(ctx, `SELECT num_nonnulls($1::uuid, $2::uuid, $3::uuid, $4::uuid)`, ids...).Scan(&n)
				if err != nil || n != 4 {
					b.Fatalf("%d, %v", n, err)
				}
			}
		})
	}
}
