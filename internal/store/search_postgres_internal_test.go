package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// PostgreSQL's svc_search_words gives the very words eachIndexWord gives
// (the words SQLite indexes), whatever the database's locale.
func TestPostgresSearchWordsAreGos(t *testing.T) {
	base := os.Getenv("SVC_TEST_DATABASE_URL")
	if base == "" {
		t.Skip("PostgreSQL only: set SVC_TEST_DATABASE_URL")
	}
	ctx := context.Background()
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // the schema goes with the transaction
	schema := "t_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	stmts := []string{`CREATE SCHEMA ` + schema, `SET LOCAL search_path TO ` + schema}
	for _, f := range pgSearchFunctions() {
		stmts = append(stmts, f.create())
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	for _, in := range []string{
		"Acme Trucking LLC", "jane.garcia123@acme.com", "JOSÉ Núñez", "Cafe\u0301s", "  --  ", "", "R2D2 unit 7b",
		"Straße 12Ω", "İstanbul ΣΊΣΥΦΟΣ", "ＡＢＣ１２３", "١٢٣abc٤", "x² Ⅻ ½", "ﬁle", "한국어 서울2",
		"Ñandú Łódź Åström", "ǅemal ǈ", "emoji😀between", "o'brien-smith", "ÉCOLE", "Ǻ", "ŉ", "ꞵ",
	} {
		var want []string
		eachIndexWord(in, func(w string) { want = append(want, w) })
		var raw []byte
		if err := tx.QueryRowContext(ctx, `SELECT array_to_json(svc_search_words($1))`, in).Scan(&raw); err != nil {
			t.Fatalf("svc_search_words(%q): %v", in, err)
		}
		got := parseJSONStrings(t, raw)
		if !slices.Equal(got, want) {
			t.Errorf("svc_search_words(%q) = %q, want %q", in, got, want)
		}
	}
	var doc string
	err = tx.QueryRowContext(ctx, `SELECT svc_search_document('Café Ünal', NULL, 'cafe', 'x@café.example')::text`).Scan(&doc)
	if want := `'cafe' 'example' 'unal' 'x'`; err != nil || doc != want {
		t.Errorf("svc_search_document = %s, %v; want %s", doc, err, want)
	}
}

func parseJSONStrings(t *testing.T, raw []byte) []string {
	t.Helper()
	var out []string
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("parsing %s: %v", raw, err)
	}
	return out
}
