package store

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
)

// leadColumns are the columns full-text search covers (SPEC 4.1: business
// name, contact name and email).
const leadColumns = "business_name, contact_first_name, contact_last_name, email"

// pgDocument is the searched document on PostgreSQL, kept in a stored
// generated column (search_doc) so neither the index recheck nor ts_rank
// recomputes it per row. The email's @ and dots become spaces so that "acme"
// finds jane@acme.com, and the weights rank a business-name hit above a
// contact-name hit above an email hit.
const pgDocument = `(setweight(to_tsvector('simple', coalesce(business_name, '')), 'A') || ` +
	`setweight(to_tsvector('simple', coalesce(contact_first_name, '') || ' ' || coalesce(contact_last_name, '')), 'B') || ` +
	`setweight(to_tsvector('simple', translate(coalesce(email, ''), '@.', '  ')), 'C'))`

func searchDDL(dia string) []string {
	if dia == dialect.Postgres {
		return []string{
			`ALTER TABLE leads ADD COLUMN IF NOT EXISTS search_doc tsvector GENERATED ALWAYS AS ` + pgDocument + ` STORED`,
			`CREATE INDEX IF NOT EXISTS leads_search_doc ON leads USING GIN (search_doc)`,
		}
	}
	// A contentless FTS5 index over the leads' rowids, kept in step by
	// triggers in the same transaction as every write. Its first column holds
	// the organization as a token (orgToken), so a search filters, ranks and
	// counts inside the index without reading one lead row per match; only
	// the page's rows are read. bm25 weights mirror the PostgreSQL ones.
	// Note: VACUUM may renumber rowids of a table without an INTEGER PRIMARY
	// KEY; run `svc reindex` after one.
	values := func(row string) string {
		return row + `.rowid, 'o' || replace(` + row + `.org_id, '-', ''), ` + row + `.business_name, ` +
			row + `.contact_first_name, ` + row + `.contact_last_name, ` + row + `.email`
	}
	insert := `INSERT INTO leads_fts(rowid, org, ` + leadColumns + `) VALUES (` + values("new") + `);`
	remove := `INSERT INTO leads_fts(leads_fts, rowid, org, ` + leadColumns + `) VALUES ('delete', ` + values("old") + `);`
	return []string{
		`CREATE VIRTUAL TABLE IF NOT EXISTS leads_fts USING fts5(org, ` + leadColumns +
			`, content='', tokenize='unicode61 remove_diacritics 2', prefix='2 3')`,
		`CREATE TRIGGER IF NOT EXISTS leads_fts_insert AFTER INSERT ON leads BEGIN ` + insert + ` END`,
		`CREATE TRIGGER IF NOT EXISTS leads_fts_delete AFTER DELETE ON leads BEGIN ` + remove + ` END`,
		`CREATE TRIGGER IF NOT EXISTS leads_fts_update AFTER UPDATE OF ` + leadColumns + ` ON leads BEGIN ` +
			remove + ` ` + insert + ` END`,
	}
}

// orgToken is how an organization appears in the SQLite search index.
func orgToken(orgID uuid.UUID) string {
	return "o" + strings.ReplaceAll(orgID.String(), "-", "")
}

// Reindex rebuilds the SQLite search index from the leads table.
func (s *DB) Reindex(ctx context.Context) error {
	if s.Dialect != dialect.SQLite {
		return nil // PostgreSQL's search_doc is a generated column; it cannot drift.
	}
	return WithTx(ctx, s.Client, func(ctx context.Context, tx *ent.Client) error {
		for _, stmt := range []string{
			`INSERT INTO leads_fts(leads_fts) VALUES ('delete-all')`,
			`INSERT INTO leads_fts(rowid, org, ` + leadColumns + `) SELECT rowid, 'o' || replace(org_id, '-', ''), ` + leadColumns + ` FROM leads`,
		} {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("rebuilding the search index: %w", err)
			}
		}
		return nil
	})
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
// term (each as a prefix), best match first (ties: newest first), and the
// number of matches.
func (s *DB) SearchLeads(ctx context.Context, orgID uuid.UUID, terms []string, limit, offset int) ([]uuid.UUID, int, error) {
	if len(terms) == 0 {
		return nil, 0, nil
	}
	var page, count string
	var pageArgs, countArgs []any
	if s.Dialect == dialect.Postgres {
		tsq := make([]string, len(terms))
		for i, t := range terms {
			tsq[i] = t + ":*"
		}
		match := strings.Join(tsq, " & ")
		where := `org_id = $1 AND search_doc @@ to_tsquery('simple', $2)`
		page = `SELECT id, count(*) OVER () FROM leads WHERE ` + where +
			` ORDER BY ts_rank(search_doc, to_tsquery('simple', $2)) DESC, created_at DESC, id DESC LIMIT $3 OFFSET $4`
		count = `SELECT count(*) FROM leads WHERE ` + where
		pageArgs, countArgs = []any{orgID, match, limit, offset}, []any{orgID, match}
	} else {
		q := make([]string, len(terms))
		for i, t := range terms {
			q[i] = `"` + t + `"*`
		}
		match := `org : "` + orgToken(orgID) + `" AND {` + strings.ReplaceAll(leadColumns, ",", "") + `} : (` + strings.Join(q, " AND ") + `)`
		// CROSS JOIN keeps the index as the outer loop: SQLite must not start
		// from the organization's leads and probe the index once per row.
		page = `SELECT leads.id, hit.total FROM (SELECT rowid, score, count(*) OVER () AS total FROM` +
			` (SELECT rowid, bm25(leads_fts, 0.0, 10.0, 5.0, 5.0, 2.0) AS score FROM leads_fts WHERE leads_fts MATCH ?)` +
			` ORDER BY score, rowid DESC LIMIT ? OFFSET ?) AS hit` +
			` CROSS JOIN leads ON leads.rowid = hit.rowid ORDER BY hit.score, hit.rowid DESC`
		count = `SELECT count(*) FROM leads_fts WHERE leads_fts MATCH ?`
		pageArgs, countArgs = []any{match, limit, offset}, []any{match}
	}
	// The page carries the number of matches (a window count over the same
	// match, so the index is searched once); a page past the end has no
	// rows to carry it, and only then is the count asked for on its own.
	ids, total, err := s.searchPage(ctx, page, pageArgs)
	if err != nil || len(ids) > 0 {
		return ids, total, err
	}
	if err := s.SQL.QueryRowContext(ctx, count, countArgs...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("counting search matches: %w", err)
	}
	return ids, total, nil
}

func (s *DB) searchPage(ctx context.Context, query string, args []any) ([]uuid.UUID, int, error) {
	rows, err := s.SQL.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("searching leads: %w", err)
	}
	defer rows.Close()
	var (
		ids   []uuid.UUID
		total int
	)
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id, &total); err != nil {
			return nil, 0, fmt.Errorf("reading search results: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, total, rows.Err()
}
