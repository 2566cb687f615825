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
type pgFunction struct {
	name, signature, returns, body string
	trigger                        bool // a trigger's function, which writes
}

// create is the function's definition. PL/pgSQL rather than SQL: a
// session keeps a PL/pgSQL function's plans, while a SQL function called
// per row of a one-row INSERT is parsed and planned again each time.
func (f pgFunction) create() string {
	kind := ` IMMUTABLE PARALLEL SAFE`
	if f.trigger {
		kind = ``
	}
	return `CREATE OR REPLACE FUNCTION ` + f.name + `(` + f.signature + `) RETURNS ` + f.returns +
		` LANGUAGE plpgsql` + kind + ` AS $body$` + f.body + `$body$`
}

// pgSearchFunctions are the search's functions, each using the ones before.
var pgSearchFunctions = sync.OnceValue(func() []pgFunction {
	return []pgFunction{
		{name: "svc_search_words", signature: "value text", returns: "text[]", body: pgWordsBody()},
		// A document's words, each once.
		{name: "svc_search_document", signature: "business text, first text, last text, email text", returns: "tsvector",
			body: `BEGIN RETURN (SELECT array_to_tsvector(coalesce(array_agg(DISTINCT w) FILTER (WHERE octet_length(w) <= ` + strconv.Itoa(maxPGWord) + `), '{}')) ` +
				`FROM unnest(svc_search_words(business) || svc_search_words(first) || svc_search_words(last) || svc_search_words(email)) AS w); END`},
		// The index's keys: the words prefixed by the organization's code (orgCode).
		{name: "svc_search_key", signature: "org uuid, doc tsvector", returns: "tsvector",
			body: `BEGIN RETURN array_to_tsvector(array(SELECT 'o' || replace(org::text, '-', '') || w FROM unnest(tsvector_to_array(doc)) AS w)); END`},
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
	// Once: the new column's and terms' statistics, and all-visible pages
	// to count on.
	for _, table := range vacuum {
		if _, err := s.write.ExecContext(ctx, `VACUUM (ANALYZE) `+table); err != nil {
			return fmt.Errorf("vacuuming %s after building the search index: %w", table, err)
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
	stale                                  []pgFunction
	staleTrigger                           bool
	hasColumn, hasIndex, hasTerms, hasSync bool
}

// current reports whether a start would change nothing of it.
func (l pgSearchLayout) current() bool {
	return len(l.stale) == 0 && !l.staleTrigger && l.hasColumn && l.hasIndex && l.hasTerms && l.hasSync
}

func readPGSearchLayout(ctx context.Context, q rowQueryer) (pgSearchLayout, error) {
	var l pgSearchLayout
	for _, f := range append(pgSearchFunctions(), termsTrigger) {
		var body string
		err := q.QueryRowContext(ctx, `SELECT coalesce((SELECT prosrc FROM pg_proc `+
			`WHERE proname = $1 AND pronamespace = current_schema()::regnamespace LIMIT 1), '')`, f.name).Scan(&body)
		if err != nil {
			return l, fmt.Errorf("reading the search function %s: %w", f.name, err)
		}
		switch {
		case body == f.body:
		case f.trigger:
			l.staleTrigger = true
		default:
			l.stale = append(l.stale, f)
		}
	}
	err := q.QueryRowContext(ctx, `SELECT `+
		`EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'leads' AND column_name = 'search_words'), `+
		`EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'leads_search_words'), `+
		`EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'lead_search_terms'), `+
		`EXISTS (SELECT 1 FROM information_schema.triggers WHERE trigger_schema = current_schema() AND trigger_name = 'leads_search_terms')`).
		Scan(&l.hasColumn, &l.hasIndex, &l.hasTerms, &l.hasSync)
	if err != nil {
		return l, fmt.Errorf("reading the search index's layout: %w", err)
	}
	return l, nil
}

// migratePGSearchTx makes the search functions, column, index and term
// table current in tx, and returns the tables it built (which need a
// vacuum).
func migratePGSearchTx(ctx context.Context, tx *sql.Tx) (built []string, err error) {
	l, err := readPGSearchLayout(ctx, tx)
	if err != nil {
		return nil, err
	}
	stale := l.stale
	if l.staleTrigger {
		stale = append(stale, termsTrigger)
	}
	for _, f := range stale {
		if _, err := tx.ExecContext(ctx, f.create()); err != nil {
			return nil, fmt.Errorf("creating the search function %s: %w", f.name, err)
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
	if !hasIndex {
		built = append(built, "leads")
	}
	switch {
	case !l.hasTerms:
		stmts = append(stmts, termsDDL...)
		stmts = append(stmts, termsFill)
		built = append(built, "lead_search_terms")
	case !hasColumn || len(l.stale) > 0 || !l.hasSync:
		// The words changed, or leads were written with no trigger to
		// follow them: the terms are filled again.
		if !l.hasSync {
			stmts = append(stmts, termsDDL[2:]...)
		}
		stmts = append(stmts, `TRUNCATE lead_search_terms`, termsFill)
		built = append(built, "lead_search_terms")
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("creating the search index: %w", err)
		}
	}
	return built, nil
}

// pgTSQuery is the text search query for words: every word but the last
// whole, each prefixed by prefix; the last any of its expansions, or, when
// it has more than maxExpansions, a prefix.
func pgTSQuery(prefix string, words, expansions []string) string {
	quote := func(w string) string {
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(prefix+w) + "'"
	}
	parts := make([]string, 0, len(words))
	for _, w := range words[:len(words)-1] {
		parts = append(parts, quote(w))
	}
	if len(expansions) > maxExpansions {
		parts = append(parts, quote(words[len(words)-1])+":*")
	} else {
		last := make([]string, len(expansions))
		for i, e := range expansions {
			last[i] = quote(e)
		}
		parts = append(parts, "("+strings.Join(last, " | ")+")")
	}
	return strings.Join(parts, " & ")
}

// pgSearch builds PostgreSQL's statements. The last word is expanded first
// into the organization's words it begins (pgExpansions). One word is
// answered by the term table (pgTermSearch). Several go through the GIN
// index: one pass over the matches gives both the newest RankWindow (their
// columns read by id after) and the number of all matches, as the
// candidates' last column.
func (s *DB) pgSearch(ctx context.Context, orgID uuid.UUID, terms []string) (search, bool, error) {
	words := indexWords(terms)
	expansions, err := s.pgExpandLast(ctx, orgID, words)
	if err != nil || len(expansions) == 0 {
		return search{}, false, err
	}
	last := words[len(words)-1]
	if len(words) == 1 {
		return pgTermSearch(orgID, last, expansions), true, nil
	}
	match := ` FROM leads WHERE ` + pgSearchKey + ` @@ $1::tsquery`
	newest := ` ORDER BY created_at DESC, id DESC`
	return search{
		args:    []any{pgTSQuery(orgCode(orgID.String()), words, expansions)},
		counted: true,
		candidates: `SELECT l.id, ` + leadColumnsOf("l") + `, w.total ` +
			`FROM (SELECT id, created_at, count(*) OVER () AS total` + match + newest + ` LIMIT ` + strconv.Itoa(RankWindow) + `) AS w ` +
			`JOIN leads l ON l.id = w.id ORDER BY w.created_at DESC, w.id DESC`,
		newer: `SELECT id` + match + newest + ` LIMIT $2 OFFSET $3`,
	}, true, nil
}

// pgExpandLast is the expansions of the last of words (pgExpand); none
// when no lead can match: no words, or one longer than the index keeps.
func (s *DB) pgExpandLast(ctx context.Context, orgID uuid.UUID, words []string) ([]string, error) {
	if len(words) == 0 {
		return nil, nil
	}
	for _, w := range words {
		if len(w) > maxPGWord {
			return nil, nil
		}
	}
	return s.pgExpand(ctx, orgID, words[len(words)-1])
}

// pgExpand is the organization's words that begin with prefix, at most
// maxExpansions+1 of them.
func (s *DB) pgExpand(ctx context.Context, orgID uuid.UUID, prefix string) ([]string, error) {
	words, err := s.strings(ctx, pgExpansions, orgID, prefix, prefix+pgWordEnd)
	if err != nil {
		return nil, fmt.Errorf("expanding the search's last word: %w", err)
	}
	return words, nil
}

// strings is the one text column of query's rows.
func (s *DB) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.SQL.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
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
