package money

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/mattn/go-sqlite3"
)

// testDB opens a real database: a fresh SQLite file, or the PostgreSQL
// database SVC_TEST_DATABASE_URL names. One connection, so a temporary
// table lives as long as the test.
func testDB(t *testing.T) *sql.Conn {
	t.Helper()
	driver, dsn := "sqlite3", filepath.Join(t.TempDir(), "money.db")
	if url := os.Getenv("SVC_TEST_DATABASE_URL"); url != "" {
		driver, dsn = "pgx", url
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatalf("opening %s: %v", driver, err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatalf("connecting to %s: %v", driver, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestStoredExactlyAndSummedExactly writes amounts and rates through
// Value, reads them back through Scan, and sums amounts in SQL exactly:
// ten times 0.10 is 1.00 (in binary floating point it is not), and a
// thousand maximal amounts and that dollar come to more cents than a
// float64 holds exactly.
func TestStoredExactlyAndSummedExactly(t *testing.T) {
	ctx := context.Background()
	db := testDB(t)
	if _, err := db.ExecContext(ctx, `CREATE TEMPORARY TABLE money_test (amount BIGINT NOT NULL, rate BIGINT NOT NULL, maybe BIGINT)`); err != nil {
		t.Fatal(err)
	}
	insert := func(a Amount, r Rate) {
		t.Helper()
		if _, err := db.ExecContext(ctx, `INSERT INTO money_test (amount, rate) VALUES ($1, $2)`, a, r); err != nil {
			t.Fatalf("inserting %v, %v: %v", a, r, err)
		}
	}
	for range 10 {
		insert(mustAmount(t, "0.10"), mustRate(t, "0.089"))
	}
	for range 1000 {
		insert(MaxAmount, MaxRate)
	}

	var a Amount
	var r Rate
	if err := db.QueryRowContext(ctx, `SELECT amount, rate FROM money_test WHERE amount = $1 LIMIT 1`, MaxAmount).Scan(&a, &r); err != nil {
		t.Fatal(err)
	}
	if a != MaxAmount || r != MaxRate {
		t.Errorf("read back %v, %v; want %v, %v", a, r, MaxAmount, MaxRate)
	}

	var small, all Amount
	if err := db.QueryRowContext(ctx, `SELECT SUM(amount) FROM money_test WHERE amount < $1`, MaxAmount).Scan(&small); err != nil {
		t.Fatal(err)
	}
	if small.String() != "1.00" {
		t.Errorf("ten times 0.10 sums to %v, want 1.00", small)
	}
	// PostgreSQL's SUM of a bigint is numeric, which arrives as text.
	if err := db.QueryRowContext(ctx, `SELECT SUM(amount) FROM money_test`).Scan(&all); err != nil {
		t.Fatal(err)
	}
	if all.String() != "1000000000000001.00" {
		t.Errorf("the sum is %v, want 1000000000000001.00", all)
	}

	// A NULL is refused, not read as zero; a nullable column is read
	// through sql.NullScanner (ent's Nillable fields) and stays absent.
	if err := db.QueryRowContext(ctx, `SELECT maybe FROM money_test LIMIT 1`).Scan(&a); err == nil || !strings.Contains(err.Error(), "NULL") {
		t.Errorf("scanning NULL into an Amount: %v, want an error naming NULL", err)
	}
	maybe := sql.Null[Amount]{}
	if err := db.QueryRowContext(ctx, `SELECT maybe FROM money_test LIMIT 1`).Scan(&maybe); err != nil || maybe.Valid {
		t.Errorf("scanning NULL into sql.Null[Amount]: %+v, %v", maybe, err)
	}
}

func TestScanForms(t *testing.T) {
	for _, src := range []any{int64(-1250), "-1250", []byte("-1250")} {
		var a Amount
		if err := a.Scan(src); err != nil || a != -1250 {
			t.Errorf("Scan(%T %v) = %v, %v", src, src, a, err)
		}
		var r Rate
		if err := r.Scan(src); err != nil || r != -1250 {
			t.Errorf("Rate.Scan(%T %v) = %v, %v", src, src, r, err)
		}
	}
	for _, src := range []any{nil, "12.50", "1e3", []byte(""), 12.5, true} {
		a := Amount(7)
		if err := a.Scan(src); err == nil || a != 7 {
			t.Errorf("Scan(%T %v) = %v, %v; want an error and the amount unchanged", src, src, a, err)
		}
		r := Rate(7)
		if err := r.Scan(src); err == nil || r != 7 {
			t.Errorf("Rate.Scan(%T %v) = %v, %v; want an error and the rate unchanged", src, src, r, err)
		}
	}
	if v, err := Amount(-1250).Value(); err != nil || v != int64(-1250) {
		t.Errorf("Value() = %v (%T), %v; want int64 -1250", v, v, err)
	}
	if v, err := Rate(89000).Value(); err != nil || v != int64(89000) {
		t.Errorf("Rate.Value() = %v (%T), %v; want int64 89000", v, v, err)
	}
	if err := new(Amount).Scan("99999999999999999999"); err == nil || errors.Is(err, ErrInvalid) {
		t.Errorf("Scan of an integer beyond int64: %v; want an error that is not the caller's mistake", err)
	}
}
