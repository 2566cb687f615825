package store

import (
	"context"
	"strconv"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
)

// PostgreSQL's term table, lead_search_terms: one row per word of each
// lead (the words of its search_words), keyed by (org_id, word,
// created_at, lead_id). A trigger on leads keeps it in the statement that
// writes the lead. It answers a one-word search from its index alone: the
// number of a word's leads is an index-only count, and the newest of them
// a backward walk of the same range. The GIN index cannot count without
// visiting the page of every match (62,000 pages for a word shared by one
// lead in sixteen of a million); several words still go through it, since
// their intersection is what GIN computes fast and it is small.

// termsDDL creates the table and its trigger; termsFill fills the table
// from the leads, once, when it is created.
var termsDDL = []string{
	`CREATE TABLE IF NOT EXISTS lead_search_terms (org_id uuid NOT NULL, word text COLLATE "C" NOT NULL, ` +
		`created_at timestamptz NOT NULL, lead_id uuid NOT NULL, PRIMARY KEY (org_id, word, created_at, lead_id))`,
	// Counting reads no heap page the visibility map marks all-visible:
	// vacuum this insert-only table sooner than after a fifth of it.
	`ALTER TABLE lead_search_terms SET (autovacuum_vacuum_insert_scale_factor = 0.02)`,
	`DROP TRIGGER IF EXISTS leads_search_terms ON leads`,
	`CREATE TRIGGER leads_search_terms AFTER INSERT OR DELETE OR UPDATE ON leads FOR EACH ROW EXECUTE FUNCTION svc_search_terms_sync()`,
}

const termsFill = `INSERT INTO lead_search_terms (org_id, word, created_at, lead_id) ` +
	`SELECT org_id, w, created_at, id FROM leads, unnest(tsvector_to_array(search_words)) AS w`

// termsTrigger is the trigger's function: a lead's rows go with its old
// words and come with its new ones. An update that changes none of them
// (most: a stage, an advisor) writes nothing.
var termsTrigger = pgFunction{name: "svc_search_terms_sync", returns: "trigger", trigger: true, body: `BEGIN ` +
	`IF TG_OP = 'UPDATE' AND OLD.search_words = NEW.search_words AND OLD.created_at = NEW.created_at AND OLD.org_id = NEW.org_id THEN RETURN NULL; END IF; ` +
	`IF TG_OP <> 'INSERT' THEN DELETE FROM lead_search_terms WHERE org_id = OLD.org_id AND word = ANY (tsvector_to_array(OLD.search_words)) ` +
	`AND created_at = OLD.created_at AND lead_id = OLD.id; END IF; ` +
	`IF TG_OP <> 'DELETE' THEN INSERT INTO lead_search_terms (org_id, word, created_at, lead_id) ` +
	`SELECT NEW.org_id, w, NEW.created_at, NEW.id FROM unnest(tsvector_to_array(NEW.search_words)) AS w; END IF; ` +
	`RETURN NULL; END`}

// pgWordEnd is past every index word beginning with a prefix, as the
// words compare (bytes, COLLATE "C"): no index word holds U+10FFFF, which
// is neither a letter nor a digit.
const pgWordEnd = "\U0010FFFF"

// pgExpansions lists the distinct words of an organization beginning with
// $2 (up to $3, the prefix followed by pgWordEnd), at most maxExpansions+1
// of them: a walk that jumps from each word to the next, as the table
// holds a row per lead for each.
var pgExpansions = `WITH RECURSIVE e(word) AS (` +
	`(SELECT word FROM lead_search_terms WHERE org_id = $1 AND word >= $2 AND word < $3 ORDER BY word LIMIT 1) ` +
	`UNION ALL SELECT (SELECT t.word FROM lead_search_terms t WHERE t.org_id = $1 AND t.word > e.word AND t.word < $3 ORDER BY t.word LIMIT 1) ` +
	`FROM e WHERE e.word IS NOT NULL) ` +
	`SELECT word FROM e WHERE word IS NOT NULL LIMIT ` + strconv.Itoa(maxExpansions+1)

// pgTermSearch is a one-word search's statements over the term table: the
// words are the prefix's expansions ($2, a text array), or, when there are
// more than maxExpansions of them, every word in the prefix's range.
func pgTermSearch(orgID uuid.UUID, prefix string, words []string) search {
	window := strconv.Itoa(RankWindow)
	match, args := "", []any{orgID}
	for _, c := range termConds(prefix, words) {
		args = append(args, c.arg)
		match += c.before + "$" + strconv.Itoa(len(args)) + c.after
	}
	hits := `SELECT created_at, lead_id FROM lead_search_terms WHERE org_id = $1` + match
	newest := ` ORDER BY created_at DESC, lead_id DESC`
	// A lead holding two of the words is one match.
	count := `SELECT count(*) FROM (SELECT DISTINCT lead_id FROM lead_search_terms WHERE org_id = $1` + match + `) AS d`
	window250 := `SELECT DISTINCT created_at, lead_id FROM (` + hits + `) AS h` + newest + ` LIMIT ` + window
	if len(words) == 1 {
		count = `SELECT count(*) FROM lead_search_terms WHERE org_id = $1` + match
		window250 = hits + newest + ` LIMIT ` + window
	} else if len(words) <= maxExpansions {
		// Each word's newest, merged: no sort of all their rows.
		window250 = `SELECT DISTINCT created_at, lead_id FROM unnest($2::text[]) AS x(word), LATERAL (` +
			`SELECT created_at, lead_id FROM lead_search_terms t WHERE t.org_id = $1 AND t.word = x.word` + newest + ` LIMIT ` + window + `) AS y` +
			newest + ` LIMIT ` + window
	}
	next := len(args) + 1
	return search{
		args:    args,
		counted: true,
		candidates: `SELECT l.id, ` + leadColumnsOf("l") + `, (` + count + `) AS total ` +
			`FROM (` + window250 + `) AS w JOIN leads l ON l.id = w.lead_id ORDER BY w.created_at DESC, w.lead_id DESC`,
		newer: `SELECT lead_id FROM (SELECT DISTINCT created_at, lead_id FROM (` + hits + `) AS h) AS d` + newest +
			` LIMIT $` + strconv.Itoa(next) + ` OFFSET $` + strconv.Itoa(next+1),
	}
}

// termCond is a condition of the term table's words on one argument.
type termCond struct {
	before string
	arg    any
	after  string
}

// termConds selects a prefix's words: its one expansion (a plain equality,
// which walks the index in order where a list would not), its expansions,
// or, past maxExpansions, its range.
func termConds(prefix string, words []string) []termCond {
	switch {
	case len(words) == 1:
		return []termCond{{" AND word = ", words[0], ""}}
	case len(words) > maxExpansions:
		return []termCond{{" AND word >= ", prefix, ""}, {" AND word < ", prefix + pgWordEnd, ""}}
	}
	return []termCond{{" AND word = ANY (", words, "::text[])"}}
}

// pgMatches is SearchMatches on PostgreSQL: one word through the term
// table, several through the GIN index.
func (s *DB) pgMatches(ctx context.Context, orgID uuid.UUID, words []string) (func(*entsql.Selector), bool, error) {
	expansions, err := s.pgExpandLast(ctx, orgID, words)
	if err != nil || len(expansions) == 0 {
		return nil, false, err
	}
	last := words[len(words)-1]
	return func(sel *entsql.Selector) {
		sel.Where(entsql.P(func(b *entsql.Builder) {
			if len(words) > 1 {
				b.WriteString(`svc_search_key(` + sel.C("org_id") + `, ` + sel.C("search_words") + `) @@ `).
					Arg(pgTSQuery(orgCode(orgID.String()), words, expansions)).WriteString(`::tsquery`)
				return
			}
			b.WriteString(sel.C("id") + ` IN (SELECT lead_id FROM lead_search_terms WHERE org_id = `).Arg(orgID)
			for _, c := range termConds(last, expansions) {
				b.WriteString(c.before).Arg(c.arg).WriteString(c.after)
			}
			b.WriteString(`)`)
		}))
	}, true, nil
}
