package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"entgo.io/ent/dialect"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/lendingpipe/svc/ent"
)

// The SQLite search index is a contentless FTS5 table over the leads'
// rowids, kept in step by triggers in the same transaction as every write.
// Every word is indexed prefixed by its organization (svc_fts, see
// searchText), so one organization's words are terms of their own: a search
// walks only that organization's postings of its words, never a list of
// every lead of the organization. Words also split where letters meet
// digits, so an email's "jane.doe1987" indexes "jane", "doe" and "1987",
// and "doe" is one term rather than one per number it was seen with.
//
// leads_fts_terms lists every term the index has held, so the last word of
// a search (a prefix) expands into the few whole terms it begins: FTS5
// answers a prefix query by merging the postings of every term it prefixes
// into one list before it can skip through them, while an OR of whole terms
// skips like any other. Terms are never removed; one no lead holds any more
// costs an empty OR branch.
//
// Note: VACUUM may renumber rowids of a table without an INTEGER PRIMARY
// KEY; run `svc reindex` after one.
var sqliteSearchObjects = []struct{ name, sql string }{
	// Each as SQLite keeps it in sqlite_master, so a changed layout shows.
	{"leads_fts", `CREATE VIRTUAL TABLE leads_fts USING fts5(` + leadColumns +
		`, content='', tokenize='unicode61 remove_diacritics 2')`},
	{"leads_fts_terms", `CREATE TABLE leads_fts_terms (term TEXT PRIMARY KEY) WITHOUT ROWID`},
	{"leads_fts_insert", `CREATE TRIGGER leads_fts_insert AFTER INSERT ON leads BEGIN ` +
		ftsInsert("new") + ` ` + ftsTerms("new") + ` END`},
	{"leads_fts_delete", `CREATE TRIGGER leads_fts_delete AFTER DELETE ON leads BEGIN ` + ftsDelete("old") + ` END`},
	{"leads_fts_update", `CREATE TRIGGER leads_fts_update AFTER UPDATE OF ` + leadColumns + ` ON leads BEGIN ` +
		ftsDelete("old") + ` ` + ftsInsert("new") + ` ` + ftsTerms("new") + ` END`},
}

// ftsValues is the index's row for a lead row (new, old, or a table name).
func ftsValues(row string) string {
	cols := strings.Split(leadColumns, ", ")
	vals := make([]string, len(cols))
	for i, c := range cols {
		vals[i] = `svc_fts(` + row + `.org_id, ` + row + `.` + c + `)`
	}
	return row + `.rowid, ` + strings.Join(vals, ", ")
}

func ftsInsert(row string) string {
	return `INSERT INTO leads_fts(rowid, ` + leadColumns + `) VALUES (` + ftsValues(row) + `);`
}

// ftsDelete removes a row from the contentless index, which needs the very
// tokens it was given: svc_fts is deterministic.
func ftsDelete(row string) string {
	return `INSERT INTO leads_fts(leads_fts, rowid, ` + leadColumns + `) VALUES ('delete', ` + ftsValues(row) + `);`
}

// ftsTerms records a lead row's terms (row: new, or a table name).
func ftsTerms(row string) string {
	from := ""
	if row != "new" {
		from = row + ", "
	}
	return `INSERT OR IGNORE INTO leads_fts_terms(term) SELECT value FROM ` + from +
		`json_each(svc_fts_terms(` + row + `.org_id, ` + row + `.` +
		strings.ReplaceAll(leadColumns, ", ", ", "+row+".") + `));`
}

// migrateSearch creates the SQLite search objects, replacing all of them
// when any differs from (or lacks) its definition, and reports whether the
// index must then be filled from the leads.
func (s *DB) migrateSearch(ctx context.Context) (rebuild bool, err error) {
	stored := map[string]string{}
	rows, err := s.write.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE name LIKE 'leads_fts%'`)
	if err != nil {
		return false, fmt.Errorf("reading the search index's definition: %w", err)
	}
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return false, fmt.Errorf("reading the search index's definition: %w", err)
		}
		stored[name] = def
	}
	rows.Close()
	current := true
	for _, o := range sqliteSearchObjects {
		current = current && stored[o.name] == o.sql
	}
	if current {
		return false, nil
	}
	var stmts []string
	for i := len(sqliteSearchObjects) - 1; i >= 0; i-- { // triggers first
		o := sqliteSearchObjects[i]
		kind := "TABLE"
		if strings.HasPrefix(o.sql, "CREATE TRIGGER") {
			kind = "TRIGGER"
		}
		stmts = append(stmts, `DROP `+kind+` IF EXISTS `+o.name)
	}
	for _, o := range sqliteSearchObjects {
		stmts = append(stmts, o.sql)
	}
	for _, stmt := range stmts {
		if _, err := s.write.ExecContext(ctx, stmt); err != nil {
			return false, fmt.Errorf("replacing the search index: %w", err)
		}
	}
	return true, nil
}

// Reindex rebuilds the SQLite search index from the leads table.
func (s *DB) Reindex(ctx context.Context) error {
	if s.Dialect != dialect.SQLite {
		return nil // PostgreSQL's search_words is a generated column; it cannot drift.
	}
	return WithTx(ctx, s.Client, func(ctx context.Context, tx *ent.Client) error {
		for _, stmt := range []string{
			`INSERT INTO leads_fts(leads_fts) VALUES ('delete-all')`,
			`INSERT INTO leads_fts(rowid, ` + leadColumns + `) SELECT ` + ftsValues("leads") + ` FROM leads`,
			ftsTerms("leads"),
		} {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("rebuilding the search index: %w", err)
			}
		}
		return nil
	})
}

// orgCode is how an organization prefixes its words in the SQLite index.
func orgCode(orgID string) string {
	return "o" + strings.ReplaceAll(orgID, "-", "")
}

// searchText is svc_fts(org_id, value): value's index words (indexWords),
// each prefixed by the organization's code, separated by spaces.
func searchText(orgID string, value any) string {
	return strings.Join(orgWords(orgID, value), " ")
}

// searchTerms is svc_fts_terms(org_id, values...): the JSON array of the
// distinct terms searchText gives the values.
func searchTerms(orgID string, values ...any) (string, error) {
	seen := map[string]bool{}
	terms := []string{}
	for _, v := range values {
		for _, t := range orgWords(orgID, v) {
			if !seen[t] {
				seen[t] = true
				terms = append(terms, t)
			}
		}
	}
	b, err := json.Marshal(terms)
	return string(b), err
}

func orgWords(orgID string, value any) []string {
	var text string
	switch v := value.(type) {
	case string:
		text = v
	case []byte:
		text = string(v)
	default: // NULL
		return nil
	}
	code := orgCode(orgID)
	var words []string
	eachIndexWord(text, func(w string) { words = append(words, code+w) })
	return words
}

// indexWords are the index's words for search terms (see eachIndexWord).
// rank compares words the same way on both databases.
func indexWords(terms []string) []string {
	var out []string
	for _, t := range terms {
		eachIndexWord(t, func(w string) { out = append(out, w) })
	}
	return out
}

// eachIndexWord calls fn with each of text's index words: its SearchTerms,
// each with diacritics removed (so a prefix typed without them finds the
// terms the index holds) and split where letters meet digits, so
// "jane.doe1987" is three words. The index's words for a row must never
// change (a contentless index deletes a row by its words), so this is the
// order of steps the index was built with.
func eachIndexWord(text string, fn func(word string)) {
	text = strings.ToLower(text)
	start := -1
	for i, r := range text {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			splitDigits(foldDiacritics(text[start:i]), fn)
			start = -1
		}
	}
	if start >= 0 {
		splitDigits(foldDiacritics(text[start:]), fn)
	}
}

// splitDigits calls fn with each run of digits or non-digits of word.
func splitDigits(word string, fn func(string)) {
	start := 0
	var prevDigit bool
	for i, r := range word {
		digit := unicode.IsDigit(r)
		if i > 0 && digit != prevDigit {
			fn(word[start:i])
			start = i
		}
		prevDigit = digit
	}
	if start < len(word) {
		fn(word[start:])
	}
}

var diacritics = runes.Remove(runes.In(unicode.Mn))

// foldDiacritics removes combining marks, as the index's tokenizer does.
func foldDiacritics(s string) string {
	for _, r := range s {
		if r >= utf8.RuneSelf {
			out, _, err := transform.String(transform.Chain(norm.NFD, diacritics, norm.NFC), s)
			if err != nil {
				return s
			}
			return out
		}
	}
	return s
}
