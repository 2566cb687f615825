package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
)

// leadColumns are the columns full-text search covers (SPEC 4.1: business
// name, contact name and email).
const leadColumns = "business_name, contact_first_name, contact_last_name, email"

// leadColumnsOf is leadColumns, each qualified by table.
func leadColumnsOf(table string) string {
	return table + "." + strings.ReplaceAll(leadColumns, ", ", ", "+table+".")
}

// SearchTerms splits a search string into the words it matches on: runs of
// letters and digits, lower-cased. Everything else separates words, so no
// input can reach the full-text query syntax.
func SearchTerms(q string) []string {
	return strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// RankWindow is how many matches a search ranks by relevance: the newest
// ones. Past the window, results continue newest first. Scoring a word
// shared by a tenth of a million leads would otherwise mean scoring a
// hundred thousand rows per request.
const RankWindow = 250

// maxExpansions bounds how many index terms the last (prefix) word of a
// SQLite search is expanded into; a shorter prefix than that is left to
// FTS5's own prefix query.
const maxExpansions = 16

// search is one dialect's statements for a search. Each takes the match
// arguments first; older takes a candidate's position after them, newer
// LIMIT and OFFSET.
type search struct {
	args       []any  // the match arguments
	counted    bool   // the candidates' last column is the number of all matches (PostgreSQL)
	candidates string // the newest RankWindow matches: id, the searched columns and position, newest first
	older      string // the number of matches older than a position
	newer      string // a page of ids past the window, newest first
}

// SearchLeads returns one page of the ids of orgID's leads matching the
// terms, and the number of matches. Every term but the last must match a
// whole word; the last matches as a prefix (search as you type). Results
// are the newest RankWindow matches by relevance (rank, ties newest first),
// then the older matches newest first.
func (s *DB) SearchLeads(ctx context.Context, orgID uuid.UUID, terms []string, limit, offset int) ([]uuid.UUID, int, error) {
	if len(terms) == 0 {
		return nil, 0, nil
	}
	q, ok, err := s.searchFor(ctx, orgID, terms)
	if err != nil || !ok {
		return nil, 0, err
	}
	cands, err := s.searchCandidates(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	total := len(cands)
	switch {
	case q.counted:
		if total > 0 {
			n, ok := cands[0].position[0].(int64)
			if !ok {
				return nil, 0, fmt.Errorf("counting search matches: a count of %T", cands[0].position[0])
			}
			total = int(n)
		}
	case total == RankWindow: // there may be more
		// Counting only past the window walks each match once in all.
		var older int
		args := append(q.args[:len(q.args):len(q.args)], cands[total-1].position...)
		if err := s.SQL.QueryRowContext(ctx, q.older, args...).Scan(&older); err != nil {
			return nil, 0, fmt.Errorf("counting search matches: %w", err)
		}
		total += older
	}
	rank(cands, terms)
	var ids []uuid.UUID
	for _, c := range cands[min(offset, len(cands)):min(offset+limit, len(cands))] {
		ids = append(ids, c.id)
	}
	window := len(cands)
	if rest := offset + limit - max(offset, window); total > window && rest > 0 {
		older, err := s.searchPage(ctx, q.newer, q.args, rest, max(offset, window))
		if err != nil {
			return nil, 0, err
		}
		ids = append(ids, older...)
	}
	return ids, total, nil
}

// searchFor builds the dialect's statements; ok is false when nothing can
// match.
func (s *DB) searchFor(ctx context.Context, orgID uuid.UUID, terms []string) (search, bool, error) {
	window := strconv.Itoa(RankWindow)
	if s.Dialect == dialect.Postgres {
		return s.pgSearch(ctx, orgID, terms)
	}
	match, ok, err := s.sqliteMatch(ctx, orgID, terms)
	if err != nil || !ok {
		return search{}, ok, err
	}
	// CROSS JOIN keeps the index as the outer loop: SQLite must not start
	// from the organization's leads and probe the index once per row.
	hits := func(limit string) string {
		return ` FROM (SELECT rowid FROM leads_fts WHERE leads_fts MATCH ? ORDER BY rowid DESC LIMIT ` + limit + `) AS hit` +
			` CROSS JOIN leads ON leads.rowid = hit.rowid ORDER BY hit.rowid DESC`
	}
	return search{
		args:       []any{match},
		candidates: `SELECT leads.id, ` + leadColumnsOf("leads") + `, hit.rowid` + hits(window),
		older:      `SELECT count(*) FROM leads_fts WHERE leads_fts MATCH ? AND rowid < ?`,
		newer:      `SELECT leads.id` + hits(`? OFFSET ?`),
	}, true, nil
}

// candidate is a match with the columns it is ranked on.
type candidate struct {
	id       uuid.UUID
	cols     [4]sql.NullString // leadColumns
	position []any             // its place in the newest-first order, as the dialect sorts it
	score    int
	newest   int // index in the newest-first order
}

func (s *DB) searchCandidates(ctx context.Context, q search) ([]*candidate, error) {
	rows, err := s.SQL.QueryContext(ctx, q.candidates, q.args...)
	if err != nil {
		return nil, fmt.Errorf("searching leads: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("searching leads: %w", err)
	}
	var out []*candidate
	for rows.Next() {
		c := &candidate{newest: len(out), position: make([]any, len(cols)-5)}
		dest := []any{&c.id, &c.cols[0], &c.cols[1], &c.cols[2], &c.cols[3]}
		for i := range c.position {
			dest = append(dest, &c.position[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("reading search results: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// columnWeights rank a business-name hit above a contact-name hit above an
// email hit (leadColumns order).
var columnWeights = [4]int{10, 5, 5, 2}

// rank orders candidates by relevance, ties newest first. A candidate
// scores, for each term and each column, the column's weight times the
// term's strength there: 2 when a word of the column is the term, 1 when
// (for the last term, a prefix) a word begins with it.
// The index chose the candidates; this only orders them, so it needs no
// corpus statistics (bm25's document frequencies cost a walk of every
// term's full postings per search).
func rank(cands []*candidate, terms []string) {
	terms = indexWords(terms)
	last := len(terms) - 1
	strength := make([]int, len(terms)) // per term, in one column
	for _, c := range cands {
		for i := range c.cols {
			if !c.cols[i].Valid {
				continue
			}
			clear(strength)
			eachIndexWord(c.cols[i].String, func(w string) {
				for t, term := range terms {
					switch {
					case w == term:
						strength[t] = 2
					case t == last && strength[t] == 0 && strings.HasPrefix(w, term):
						strength[t] = 1
					}
				}
			})
			for _, s := range strength {
				c.score += columnWeights[i] * s
			}
		}
	}
	sort.SliceStable(cands, func(a, b int) bool {
		if cands[a].score != cands[b].score {
			return cands[a].score > cands[b].score
		}
		return cands[a].newest < cands[b].newest
	})
}

// sqliteMatch is the FTS5 query: the organization's whole words, and the
// terms the last word begins (see leads_fts_terms).
func (s *DB) sqliteMatch(ctx context.Context, orgID uuid.UUID, terms []string) (string, bool, error) {
	code := orgCode(orgID.String())
	words := indexWords(terms)
	if len(words) == 0 {
		return "", false, nil
	}
	parts := make([]string, 0, len(words))
	for _, w := range words[:len(words)-1] {
		parts = append(parts, `"`+code+w+`"`)
	}
	last := code + words[len(words)-1]
	// Terms compare as bytes, and no UTF-8 byte is 0xff.
	rows, err := s.SQL.QueryContext(ctx, `SELECT term FROM leads_fts_terms WHERE term >= ? AND term < ? LIMIT ?`,
		last, last+"\xff", maxExpansions+1)
	if err != nil {
		return "", false, fmt.Errorf("expanding the search's last word: %w", err)
	}
	defer rows.Close()
	var expansions []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return "", false, fmt.Errorf("expanding the search's last word: %w", err)
		}
		expansions = append(expansions, `"`+t+`"`)
	}
	if err := rows.Err(); err != nil {
		return "", false, fmt.Errorf("expanding the search's last word: %w", err)
	}
	switch {
	case len(expansions) == 0:
		return "", false, nil
	case len(expansions) > maxExpansions:
		parts = append(parts, `"`+last+`"*`)
	default:
		parts = append(parts, "("+strings.Join(expansions, " OR ")+")")
	}
	return strings.Join(parts, " AND "), true, nil
}

func (s *DB) searchPage(ctx context.Context, query string, match []any, limit, offset int) ([]uuid.UUID, error) {
	rows, err := s.SQL.QueryContext(ctx, query, append(match[:len(match):len(match)], limit, offset)...)
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

// SearchMatches is a predicate of orgID's leads matching the terms as
// SearchLeads matches them, to combine with other filters in a query of
// the leads (the board's columns and totals, a filtered list); ok is false
// when no lead can match. Such a query orders and counts the leads itself.
func (s *DB) SearchMatches(ctx context.Context, orgID uuid.UUID, terms []string) (p func(*entsql.Selector), ok bool, err error) {
	words := indexWords(terms)
	if len(words) == 0 {
		return nil, false, nil
	}
	if s.Dialect == dialect.Postgres {
		return s.pgMatches(ctx, orgID, words)
	}
	match, ok, err := s.sqliteMatch(ctx, orgID, terms)
	if err != nil || !ok {
		return nil, ok, err
	}
	return func(sel *entsql.Selector) {
		sel.Where(entsql.P(func(b *entsql.Builder) {
			b.WriteString(sel.C("rowid") + ` IN (SELECT rowid FROM leads_fts WHERE leads_fts MATCH `).Arg(match).WriteString(`)`)
		}))
	}, true, nil
}
