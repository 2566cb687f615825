package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/leads"
)

type searchFixture struct {
	t   *testing.T
	ctx context.Context
	db  *store.DB
	org uuid.UUID
	at  time.Time
}

func newSearchFixture(t *testing.T, db *store.DB) *searchFixture {
	ctx := rule.SystemContext(context.Background())
	org, _, err := store.CreateOrganization(ctx, db.Client, "Searched")
	if err != nil {
		t.Fatal(err)
	}
	return &searchFixture{t: t, ctx: ctx, db: db, org: org.ID, at: time.Now().Add(-time.Hour)}
}

// lead creates a lead a second newer than the previous one.
func (f *searchFixture) lead(business, first, email string) uuid.UUID {
	f.t.Helper()
	f.at = f.at.Add(time.Second)
	l, err := leads.Create(f.ctx, f.db.Client, ent.CreateLeadInput{}, leads.Fields(f.db.Client.Lead.Create().SetOrgID(f.org).SetBusinessName(business).
		SetContactFirstName(first).SetEmail(email).SetCreatedAt(f.at).SetUpdatedAt(f.at)))
	if err != nil {
		f.t.Fatal(err)
	}
	return l.ID
}

func (f *searchFixture) search(q string, limit, offset int) ([]uuid.UUID, int) {
	f.t.Helper()
	ids, total, err := f.db.SearchLeads(f.ctx, f.org, store.SearchTerms(q), limit, offset)
	if err != nil {
		f.t.Fatal(err)
	}
	return ids, total
}

// Words before the last match whole words, the last as a prefix; letters
// and digits split; diacritics fold; the same on both databases.
func TestSearchWords(t *testing.T) {
	db := storetest.Open(t)
	f := newSearchFixture(t, db)
	trucking := f.lead("Acme Trucking", "Jane", "jane.garcia123@acme-freight.com")
	jose := f.lead("Cafe Norte", "José", "jose@norte.example")
	cases := []struct {
		q    string
		want []uuid.UUID
	}{
		{"acme truck", []uuid.UUID{trucking}},
		{"acm truck", nil}, // acm is not a whole word
		{"acme", []uuid.UUID{trucking}},
		{"garcia12", []uuid.UUID{trucking}},
		{"jane garcia", []uuid.UUID{trucking}},
		{"norte jos", []uuid.UUID{jose}},
		{"zzz", nil},
		{"jose", []uuid.UUID{jose}},
	}
	for _, c := range cases {
		ids, total := f.search(c.q, 10, 0)
		if !slices.Equal(ids, c.want) || total != len(c.want) {
			t.Errorf("search %q = %v (total %d), want %v", c.q, ids, total, c.want)
		}
	}
}

// Both databases split and fold words the same way (the words SQLite's
// index holds), so a search finds the same leads, in the same order, with
// the same total on either: digits split from letters, diacritics folded
// both in the leads and in the search, an email split at its @ and dots,
// the organization's leads only.
func TestSearchSemanticsAgree(t *testing.T) {
	db := storetest.Open(t)
	other := newSearchFixture(t, db)
	other.lead("Núñez 7B Holdings", "Zoë", "zoe.nunez2024@kraków.example")
	f := newSearchFixture(t, db)
	nunez := f.lead("Núñez 7B Holdings", "Zoë", "zoe.nunez2024@kraków.example")
	r2 := f.lead("R2D2 Repairs", "Ana", "ana@r2d2.example")
	straße := f.lead("Große Straße Bäckerei", "Jürgen", "J.Muller@strasse.example")
	cases := []struct {
		q    string
		want []uuid.UUID
	}{
		{"nunez", []uuid.UUID{nunez}},
		{"NÚÑEZ holdings", []uuid.UUID{nunez}},
		{"zoe", []uuid.UUID{nunez}},
		{"zoë nunez", []uuid.UUID{nunez}},
		{"nunez2024", []uuid.UUID{nunez}}, // nunez, 2024
		{"2024", []uuid.UUID{nunez}},
		{"7", []uuid.UUID{nunez}},
		{"7b", []uuid.UUID{nunez}},
		{"krakow", []uuid.UUID{nunez}},
		{"r2d2", []uuid.UUID{r2}},
		{"r 2 d", []uuid.UUID{r2}},
		{"ana@r2d2.example", []uuid.UUID{r2}},
		{"d2", []uuid.UUID{r2}},
		{"straße", []uuid.UUID{straße}},
		{"strasse", []uuid.UUID{straße}}, // the email's word; ß does not fold
		{"backerei", []uuid.UUID{straße}},
		{"jurgen muller", []uuid.UUID{straße}},
		{"example", []uuid.UUID{straße, r2, nunez}}, // every email: ties newest first
		{"holding", []uuid.UUID{nunez}},             // the last word a prefix
		{"holding nunez", nil},                      // the others whole words
		{"2", []uuid.UUID{r2, nunez}},               // a business name's 2 above an email's 2024
	}
	for _, c := range cases {
		ids, total := f.search(c.q, 10, 0)
		if !slices.Equal(ids, c.want) || total != len(c.want) {
			t.Errorf("search %q = %v (total %d), want %v", c.q, ids, total, c.want)
		}
	}
}

// Beyond the ranked window of the newest matches, results continue newest
// first; pages across the boundary join the two without gaps or repeats.
func TestSearchRankWindow(t *testing.T) {
	db := storetest.Open(t)
	f := newSearchFixture(t, db)
	const n = store.RankWindow + 30
	var ids []uuid.UUID // oldest first
	for i := range n {
		// Every fifth holds the word in its business name (ranked first);
		// the others only in the email.
		business := fmt.Sprintf("Shop %d", i)
		if i%5 == 0 {
			business = fmt.Sprintf("Zephyr Shop %d", i)
		}
		ids = append(ids, f.lead(business, "Ann", fmt.Sprintf("a%d@zephyr.example", i)))
	}
	// The window: the newest RankWindow matches, business-name hits first,
	// each group newest first.
	var names, emails []uuid.UUID
	for i := n - 1; i >= n-store.RankWindow; i-- {
		if i%5 == 0 {
			names = append(names, ids[i])
		} else {
			emails = append(emails, ids[i])
		}
	}
	want := append(names, emails...)
	for i := n - store.RankWindow - 1; i >= 0; i-- {
		want = append(want, ids[i]) // then the older ones, newest first
	}
	var all []uuid.UUID
	for offset := 0; offset < n+20; offset += 40 {
		page, total := f.search("zephyr", 40, offset)
		if total != n {
			t.Fatalf("total = %d, want %d", total, n)
		}
		all = append(all, page...)
	}
	if !slices.Equal(all, want) {
		t.Fatalf("order differs from the ranked window then newest first")
	}
}

// A database whose search objects differ from the current layout (an older
// version's) has them replaced and refilled when opened.
func TestSearchIndexMigrates(t *testing.T) {
	ctx := context.Background()
	url := filepath.Join(t.TempDir(), "old.db")
	db, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := newSearchFixture(t, db)
	id := f.lead("Quillon Bakery", "Ida", "ida@quillon.example")
	// An older layout: the index holds other terms and a trigger differs.
	for _, stmt := range []string{
		`INSERT INTO leads_fts(leads_fts) VALUES ('delete-all')`,
		`DROP TRIGGER leads_fts_update`,
		`CREATE TRIGGER leads_fts_update AFTER UPDATE OF email ON leads BEGIN SELECT 1; END`,
	} {
		if _, err := db.SQL.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	if ids, _ := f.search("quillon", 10, 0); len(ids) != 0 {
		t.Fatalf("the emptied index still finds %v", ids)
	}
	db.Close()

	reopened, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	f.db = reopened
	if ids, total := f.search("quillon bak", 10, 0); !slices.Equal(ids, []uuid.UUID{id}) || total != 1 {
		t.Fatalf("after reopening: %v (total %d)", ids, total)
	}
	if err := reopened.Client.Lead.UpdateOneID(id).SetBusinessName("Rowan Bakery").Exec(f.ctx); err != nil {
		t.Fatal(err)
	}
	if ids, _ := f.search("rowan", 10, 0); !slices.Equal(ids, []uuid.UUID{id}) {
		t.Fatalf("the restored update trigger missed a rename: %v", ids)
	}
}

// A PostgreSQL database of an older layout (the 'simple' search_doc column
// and its index) or with a search function that differs from the current
// one has its search column recomputed and indexed when opened.
func TestSearchIndexMigratesPostgres(t *testing.T) {
	if os.Getenv(storetest.EnvURL) == "" {
		t.Skip("PostgreSQL only")
	}
	ctx := context.Background()
	url := storetest.URL(t)
	open := func() *store.DB {
		db, err := store.Open(ctx, url, store.Options{FilesURL: filepath.Join(t.TempDir(), "files")})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	db := open()
	f := newSearchFixture(t, db)
	id := f.lead("Quillon Bäckerei", "Ida", "ida@quillon.example")
	older := [][]string{
		{ // the layout before search_words
			`ALTER TABLE leads DROP COLUMN search_words`,
			`ALTER TABLE leads ADD COLUMN search_doc tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(business_name, ''))) STORED`,
			`CREATE INDEX leads_search_doc ON leads USING GIN (search_doc)`,
		},
		{ // a function of another version
			`CREATE OR REPLACE FUNCTION svc_search_words(value text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$SELECT '{}'::text[]$$`,
			`ALTER TABLE leads DROP COLUMN search_words`,
			`ALTER TABLE leads ADD COLUMN search_words tsvector GENERATED ALWAYS AS (svc_search_document(business_name, contact_first_name, contact_last_name, email)) STORED`,
		},
	}
	for i, stmts := range older {
		for _, stmt := range stmts {
			if _, err := db.SQL.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("layout %d: %s: %v", i, stmt, err)
			}
		}
		db.Close()
		db = open()
		f.db = db
		if ids, total := f.search("ida backer", 10, 0); !slices.Equal(ids, []uuid.UUID{id}) || total != 1 {
			t.Fatalf("layout %d, after reopening: %v (total %d)", i, ids, total)
		}
		var left int
		err := db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.columns `+
			`WHERE table_schema = current_schema() AND table_name = 'leads' AND column_name = 'search_doc'`).Scan(&left)
		if err != nil || left != 0 {
			t.Fatalf("layout %d: search_doc left: %d, %v", i, left, err)
		}
	}
	// Leads written while the term table's trigger was missing are in the
	// terms once the trigger is back.
	if _, err := db.SQL.ExecContext(ctx, `DROP TRIGGER leads_search_terms ON leads`); err != nil {
		t.Fatal(err)
	}
	if err := db.Client.Lead.UpdateOneID(id).SetBusinessName("Zyrtle Bakery").Exec(f.ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	f.db = open()
	if ids, total := f.search("zyrtle", 10, 0); !slices.Equal(ids, []uuid.UUID{id}) || total != 1 {
		t.Fatalf("after the trigger came back: %v (total %d)", ids, total)
	}
	if ids, _ := f.search("backerei", 10, 0); len(ids) != 0 {
		t.Fatalf("the old name still finds %v", ids)
	}
}

// A last word that begins several of the organization's words matches
// each of them, and a lead holding two of them is one match: with a few
// such words (each walked on its own) and with more than the expansion
// limit (the prefix's whole range). A renamed lead is found by its new
// words alone.
func TestSearchPrefixExpansions(t *testing.T) {
	db := storetest.Open(t)
	f := newSearchFixture(t, db)
	var family []uuid.UUID // oldest first: pre + a letter + x, 18 words
	for i := range 18 {
		email := fmt.Sprintf("owner%d@shop.example", i)
		if i == 0 {
			email = "prebx@shop.example" // a second word of the family
		}
		family = append(family, f.lead(fmt.Sprintf("Pre%cx Shop", 'a'+i), "Ann", email))
	}
	both := f.lead("Quax Quay", "Ann", "q1@shop.example") // two of the three qua words
	quaz := f.lead("Quaz", "Ann", "q2@shop.example")
	newestFirst := slices.Clone(family)
	slices.Reverse(newestFirst)
	newestFirst = newestFirst[:len(newestFirst)-1] // family[0] ranks first
	cases := []struct {
		q     string
		total int
		first []uuid.UUID // the first results, in order
	}{
		{"pre", 18, []uuid.UUID{family[0], newestFirst[0]}}, // more words than the limit; two in one lead score above one
		{"preb", 2, []uuid.UUID{family[1], family[0]}},      // a business-name hit above an email's
		{"preax", 1, family[:1]},
		{"qua", 2, []uuid.UUID{quaz, both}}, // a few words, two of them in one lead; a tie, newest first
		{"quay", 1, []uuid.UUID{both}},
		{"shop pre", 18, nil},
		{"shop quax", 1, []uuid.UUID{both}}, // shop from the email
		{"pre quax", 0, nil},
	}
	for _, c := range cases {
		ids, total := f.search(c.q, 40, 0)
		if total != c.total || len(ids) != c.total || len(c.first) > len(ids) || !slices.Equal(ids[:len(c.first)], c.first) {
			t.Errorf("search %q = %v (total %d), want %d beginning %v", c.q, ids, total, c.total, c.first)
			continue
		}
		seen := map[uuid.UUID]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Errorf("search %q lists %s twice", c.q, id)
			}
			seen[id] = true
		}
	}
	if err := db.Client.Lead.UpdateOneID(quaz).SetBusinessName("Rowanberry").Exec(f.ctx); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string][]uuid.UUID{"quaz": nil, "rowanberry": {quaz}, "rowan": {quaz}, "qua": {both}} {
		if ids, total := f.search(q, 10, 0); !slices.Equal(ids, want) || total != len(want) {
			t.Errorf("after the rename, search %q = %v (total %d), want %v", q, ids, total, want)
		}
	}
}
