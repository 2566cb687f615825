package store

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"
)

// leadColumns are the columns full-text search covers (SPEC 4.1: business
// name, contact name and email).
const leadColumns = "business_name, contact_first_name, contact_last_name, email"

// pgDocument is the indexed document on PostgreSQL. The email's @ and dots
// become spaces so that "acme" finds jane@acme.com, and the weights rank a
// business-name hit above a contact-name hit above an email hit. The
// expression is repeated verbatim in queries so the GIN index serves them.
const pgDocument = `(setweight(to_tsvector('simple', coalesce(business_name, '')), 'A') || ` +
	`setweight(to_tsvector('simple', coalesce(contact_first_name, '') || ' ' || coalesce(contact_last_name, '')), 'B') || ` +
	`setweight(to_tsvector('simple', translate(coalesce(email, ''), '@.', '  ')), 'C'))`

func searchDDL(dia string) []string {
	if dia == dialect.Postgres {
		return []string{`CREATE INDEX IF NOT EXISTS leads_search ON leads USING GIN (` + pgDocument + `)`}
	}
	// An external-content FTS5 table over the leads' rowids, kept in step
	// by triggers in the same transaction as every write. bm25 weights
	// mirror the PostgreSQL ones. Note: VACUUM may renumber rowids of a
	// table without an INTEGER PRIMARY KEY; run `svc reindex` after one.
	return []string{
		`CREATE VIRTUAL TABLE IF NOT EXISTS leads_fts USING fts5(` + leadColumns +
			`, content='leads', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2', prefix='2 3')`,
		`CREATE TRIGGER IF NOT EXISTS leads_fts_insert AFTER INSERT ON leads BEGIN
			INSERT INTO leads_fts(rowid, ` + leadColumns + `) VALUES (new.rowid, new.business_name, new.contact_first_name, new.contact_last_name, new.email);
		END`,
		`CREATE TRIGGER IF NOT EXISTS leads_fts_delete AFTER DELETE ON leads BEGIN
			INSERT INTO leads_fts(leads_fts, rowid, ` + leadColumns + `) VALUES ('delete', old.rowid, old.business_name, old.contact_first_name, old.contact_last_name, old.email);
		END`,
		`CREATE TRIGGER IF NOT EXISTS leads_fts_update AFTER UPDATE OF ` + leadColumns + ` ON leads BEGIN
			INSERT INTO leads_fts(leads_fts, rowid, ` + leadColumns + `) VALUES ('delete', old.rowid, old.business_name, old.contact_first_name, old.contact_last_name, old.email);
			INSERT INTO leads_fts(rowid, ` + leadColumns + `) VALUES (new.rowid, new.business_name, new.contact_first_name, new.contact_last_name, new.email);
		END`,
	}
}

// Reindex rebuilds the SQLite search index from the leads table.
func (s *DB) Reindex(ctx context.Context) error {
	if s.Dialect != dialect.SQLite {
		return nil // PostgreSQL's index is an expression index; it cannot drift.
	}
	_, err := s.SQL.ExecContext(ctx, `INSERT INTO leads_fts(leads_fts) VALUES ('rebuild')`)
	return err
}

// SearchTerms splits a search string into the words it matches on: runs of
// letters and digits, lower-cased. Everything else separates words, so no
// input can reach the full-text query syntax.
func SearchTerms(q string) []string {
	return strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// SearchLeads returns one page of the ids of orgID's leads matching every
// term (each as a prefix), best match first, and the number of matches.
func (s *DB) SearchLeads(ctx context.Context, orgID uuid.UUID, terms []string, limit, offset int) ([]uuid.UUID, int, error) {
	if len(terms) == 0 {
		return nil, 0, nil
	}
	var match, page, count string
	if s.Dialect == dialect.Postgres {
		tsq := make([]string, len(terms))
		for i, t := range terms {
			tsq[i] = t + ":*"
		}
		match = strings.Join(tsq, " & ")
		where := `org_id = $1 AND ` + pgDocument + ` @@ to_tsquery('simple', $2)`
		page = `SELECT id FROM leads WHERE ` + where +
			` ORDER BY ts_rank(` + pgDocument + `, to_tsquery('simple', $2)) DESC, created_at DESC, id DESC LIMIT $3 OFFSET $4`
		count = `SELECT count(*) FROM leads WHERE ` + where
	} else {
		q := make([]string, len(terms))
		for i, t := range terms {
			q[i] = `"` + t + `"*`
		}
		match = strings.Join(q, " AND ")
		from := ` FROM leads_fts JOIN leads ON leads.rowid = leads_fts.rowid WHERE leads.org_id = ? AND leads_fts MATCH ?`
		page = `SELECT leads.id` + from +
			` ORDER BY bm25(leads_fts, 10.0, 5.0, 5.0, 2.0), leads.created_at DESC, leads.id DESC LIMIT ? OFFSET ?`
		count = `SELECT count(*)` + from
	}
	ids, err := s.searchPage(ctx, page, orgID, match, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	var total int
	if err := s.SQL.QueryRowContext(ctx, count, orgID, match).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("counting search matches: %w", err)
	}
	return ids, total, nil
}

func (s *DB) searchPage(ctx context.Context, query string, orgID uuid.UUID, match string, limit, offset int) ([]uuid.UUID, error) {
	rows, err := s.SQL.QueryContext(ctx, query, orgID, match, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("searching leads: %w", err)
	}
	defer rows.Close()
	var ids []uuid.UUID
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("reading search results: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
