package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/google/uuid"
)

// PostgreSQL's search index: the leads' words (svc_search_words, the same
// words SQLite indexes) in a stored generated column, search_words, and a
// GIN index over them prefixed by the organization (svc_search_key), so an
// organization's words are keys of their own and the index alone decides
// which leads match: a count of the matches is a bitmap of the matching
// rows (PostgreSQL still visits each matching row's page to check that
// the row is visible).

// maxPGWord is the longest word (in bytes) PostgreSQL indexes: a GIN key
// has a size limit. A search for a longer word finds nothing.
const maxPGWord = 1000

// pgFunction is a SQL function of the search, created or replaced when its
// body differs from the database's.
type pgFunction struct{ name, signature, returns, body string }

// create is the function's definition. PL/pgSQL rather than SQL: a
// session keeps a PL/pgSQL function's plans, while a SQL function called
// per row of a one-row INSERT is parsed and planned again each time.
func (f pgFunction) create() string {
	return `CREATE OR REPLACE FUNCTION ` + f.name + `(` + f.signature + `) RETURNS ` + f.returns +
		` LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $body$` + f.body + `$body$`
}

// pgSearchFunctions are the search's functions, each using the ones before.
var pgSearchFunctions = sync.OnceValue(func() []pgFunction {
	return []pgFunction{
		{"svc_search_words", "value text", "text[]", pgWordsBody()},
		// A document's words, each once.
		{"svc_search_document", "business text, first text, last text, email text", "tsvector",
			`BEGIN RETURN (SELECT array_to_tsvector(coalesce(array_agg(DISTINCT w) FILTER (WHERE octet_length(w) <= ` + strconv.Itoa(maxPGWord) + `), '{}')) ` +
				`FROM unnest(svc_search_words(business) || svc_search_words(first) || svc_search_words(last) || svc_search_words(email)) AS w); END`},
		// The index's keys: the words prefixed by the organization's code (orgCode).
		{"svc_search_key", "org uuid, doc tsvector", "tsvector",
			`BEGIN RETURN array_to_tsvector(array(SELECT 'o' || replace(org::text, '-', '') || w FROM unnest(tsvector_to_array(doc)) AS w)); END`},
	}
})

// pgSearchKey is the indexed expression.
const pgSearchKey = `svc_search_key(org_id, search_words)`

// migratePGSearch creates PostgreSQL's search column, its functions and its
// index. A changed function recomputes the column (a rewrite of the leads
// table, as adding it to an older database is); so does an older
// database's search_doc column, which the column replaces. The functions,
// the column and the index change in one transaction, so a process that
// stops half-way leaves the previous layout whole, and the next start finds
// the functions still to change; the vacuum runs after it commits.
func (s *DB) migratePGSearch(ctx context.Context) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrating the search index: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	vacuum, err := migratePGSearchTx(ctx, tx)
	if err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrating the search index: %w", err)
	}
	if vacuum {
		// Once: the new column's statistics, and all-visible pages to count on.
		if _, err := s.write.ExecContext(ctx, `VACUUM (ANALYZE) leads`); err != nil {
			return fmt.Errorf("vacuuming the leads after building the search index: %w", err)
		}
	}
	return nil
}

// rowQueryer is a *sql.DB or a *sql.Tx.
type rowQueryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// pgSearchLayout is what the database holds of the search layout: the
// functions whose bodies differ from this release's, and whether the
// column and its index exist.
type pgSearchLayout struct {
	stale               []pgFunction
	hasColumn, hasIndex bool
}

// current reports whether a start would change nothing of it.
func (l pgSearchLayout) current() bool { return len(l.stale) == 0 && l.hasColumn && l.hasIndex }

func readPGSearchLayout(ctx context.Context, q rowQueryer) (pgSearchLayout, error) {
	var l pgSearchLayout
	for _, f := range pgSearchFunctions() {
		var body string
		err := q.QueryRowContext(ctx, `SELECT coalesce((SELECT prosrc FROM pg_proc `+
			`WHERE proname = $1 AND pronamespace = current_schema()::regnamespace LIMIT 1), '')`, f.name).Scan(&body)
		if err != nil {
			return l, fmt.Errorf("reading the search function %s: %w", f.name, err)
		}
		if body != f.body {
			l.stale = append(l.stale, f)
		}
	}
	err := q.QueryRowContext(ctx, `SELECT `+
		`EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'leads' AND column_name = 'search_words'), `+
		`EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'leads_search_words')`).Scan(&l.hasColumn, &l.hasIndex)
	if err != nil {
		return l, fmt.Errorf("reading the search index's layout: %w", err)
	}
	return l, nil
}

// migratePGSearchTx makes the search functions, column and index current
// in tx, and reports whether the index was built (and the table needs a
// vacuum).
func migratePGSearchTx(ctx context.Context, tx *sql.Tx) (built bool, err error) {
	l, err := readPGSearchLayout(ctx, tx)
	if err != nil {
		return false, err
	}
	for _, f := range l.stale {
		if _, err := tx.ExecContext(ctx, f.create()); err != nil {
			return false, fmt.Errorf("creating the search function %s: %w", f.name, err)
		}
	}
	hasColumn, hasIndex := l.hasColumn, l.hasIndex
	var stmts []string
	if len(l.stale) > 0 && hasColumn {
		stmts = append(stmts, `ALTER TABLE leads DROP COLUMN IF EXISTS search_words`)
		hasColumn, hasIndex = false, false
	}
	if !hasColumn {
		stmts = append(stmts, `ALTER TABLE leads DROP COLUMN IF EXISTS search_doc, ADD COLUMN IF NOT EXISTS search_words tsvector `+
			`GENERATED ALWAYS AS (svc_search_document(business_name, contact_first_name, contact_last_name, email)) STORED`,
			// Counting reads no heap page the visibility map marks all-visible:
			// vacuum an insert-mostly table sooner than after a fifth of it.
			`ALTER TABLE leads SET (autovacuum_vacuum_insert_scale_factor = 0.02)`)
	}
	if !hasIndex {
		stmts = append(stmts, `CREATE INDEX IF NOT EXISTS leads_search_words ON leads USING gin (`+pgSearchKey+`)`)
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return false, fmt.Errorf("creating the search index: %w", err)
		}
	}
	return !hasIndex, nil
}

// pgTSQuery is the text search query for words: every word but the last
// whole, the last a prefix, each prefixed by prefix.
func pgTSQuery(prefix string, words []string) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(prefix+w) + "'"
	}
	parts[len(parts)-1] += ":*"
	return strings.Join(parts, " & ")
}

// pgSearch builds PostgreSQL's statements: one pass over the matches
// through the index gives both the newest RankWindow (their columns read
// by id after) and the number of all matches, as the candidates' last
// column.
func pgSearch(orgID uuid.UUID, terms []string) (search, bool) {
	words := indexWords(terms)
	if len(words) == 0 {
		return search{}, false
	}
	for _, w := range words {
		if len(w) > maxPGWord {
			return search{}, false
		}
	}
	match := ` FROM leads WHERE ` + pgSearchKey + ` @@ $1::tsquery`
	newest := ` ORDER BY created_at DESC, id DESC`
	return search{
		args:    []any{pgTSQuery(orgCode(orgID.String()), words)},
		counted: true,
		candidates: `SELECT l.id, l.` + strings.ReplaceAll(leadColumns, ", ", ", l.") + `, w.total ` +
			`FROM (SELECT id, created_at, count(*) OVER () AS total` + match + newest + ` LIMIT ` + strconv.Itoa(RankWindow) + `) AS w ` +
			`JOIN leads l ON l.id = w.id ORDER BY w.created_at DESC, w.id DESC`,
		newer: `SELECT id` + match + newest + ` LIMIT $2 OFFSET $3`,
	}, true
}

// pgWordsBody is svc_search_words(value): value's index words exactly as

// eachIndexWord gives them, in SQL so that a trigger can index a row in the
// statement that writes it. Every step is spelled with Go's own Unicode
// tables rather than the database's locale: lower-casing is a translate()
// of every rune unicode.ToLower changes, and letters, digits and combining
// marks are character classes listing their ranges. Words split on the
// lower-cased text, each is folded (NFD, marks removed, NFC) and split
// where digits meet other characters, as on SQLite.
func pgWordsBody() string {
	upper, lower := caseMap()
	word := "[" + runeClass(func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) + "]+"
	marks := "[" + runeClass(func(r rune) bool { return unicode.Is(unicode.Mn, r) }) + "]+"
	digits := runeClass(unicode.IsDigit)
	// ASCII text (most of it) takes a short way with the same result:
	// regular expressions of Unicode-wide classes cost ten times more per
	// call, and translate() walks its list per character.
	return `BEGIN IF value IS NULL THEN RETURN '{}'; END IF; ` +
		`IF octet_length(value) = char_length(value) THEN RETURN (SELECT coalesce(array_agg(part[1]), '{}') ` +
		`FROM regexp_matches(lower(value COLLATE "C"), '[a-z]+|[0-9]+', 'g') AS part); END IF; ` +
		`RETURN (SELECT coalesce(array_agg(part[1]), '{}') FROM ` +
		`regexp_matches(translate(value, ` + sqlString(upper) + `, ` + sqlString(lower) + `), ` + sqlString(word) + `, 'g') AS word, ` +
		`LATERAL (SELECT CASE WHEN octet_length(word[1]) = char_length(word[1]) THEN word[1] ` +
		`ELSE normalize(regexp_replace(normalize(word[1], NFD), ` + sqlString(marks) + `, '', 'g'), NFC) END AS folded) AS f, ` +
		`regexp_matches(f.folded, ` + sqlString("["+digits+"]+|[^"+digits+"]+") + `, 'g') AS part); END`
}

// caseMap lists every rune unicode.ToLower changes and what it becomes,
// as translate()'s two arguments.
func caseMap() (from, to string) {
	var f, t strings.Builder
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue // surrogates are not text
		}
		if l := unicode.ToLower(r); l != r {
			f.WriteRune(r)
			t.WriteRune(l)
		}
	}
	return f.String(), t.String()
}

// runeClass is the inside of a regular expression bracket matching exactly
// the runes in, as ranges of code points. None of them is a character
// special inside brackets (letters, digits and marks only).
func runeClass(in func(rune) bool) string {
	var b strings.Builder
	write := func(lo, hi rune) {
		b.WriteRune(lo)
		if hi > lo {
			if hi > lo+1 {
				b.WriteByte('-')
			}
			b.WriteRune(hi)
		}
	}
	start := rune(-1)
	for r := rune(0); r <= unicode.MaxRune+1; r++ {
		ok := r <= unicode.MaxRune && in(r) && (r < 0xd800 || r > 0xdfff)
		switch {
		case ok && start < 0:
			start = r
		case !ok && start >= 0:
			write(start, r-1)
			start = -1
		}
	}
	return b.String()
}

// sqlString quotes s as a standard SQL string literal.
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
