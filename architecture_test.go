package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/lendingpipe/svc"

// The layers, from the top. A package may import its own layer and the
// ones below it, never one above. Each layer is a list of package paths
// (a path ending in "/..." names a folder and everything in it; a path
// with no package yet is fine); a package of this module in none of them
// fails TestEveryPackageHasALayer. A package's layer follows from what it
// imports: internal/rule and analytics/funnel import ent's generated
// packages, so they are ent's; internal/bus imports nothing of this
// service, and the generated client carries it, so it is a leaf.
var layers = []struct {
	name     string
	packages []string
}{
	{"main: configuration, wiring, commands; the test server; the tools",
		[]string{"", "rest/resttest", "tools/..."}},
	{"adapters: the /v1 adapter and its client, the HTTP root",
		[]string{"rest", "rest/openapiclient", "root"}},
	{"operations: GraphQL; the automation runner, a client of them as REST is",
		[]string{"graph/...", "webhooks/autorun"}},
	{"domains: leads, the lending flows, access, people's sign-ins, documents and lead imports, seeding; delivery, signing, inbound; the dialer's rules; notes, tasks, a person's day; saved views; renewals",
		[]string{"leads", "lending", "access", "people", "documents", "leadimport", "seed", "webhooks", "webhooks/netguard", "webhooks/webhookstest", "dialer", "notes", "tasks", "myday", "views", "renewals"}},
	{"subsystems: the reports, the rollups they read, the agents board, the leads' history, notifications",
		[]string{"analytics", "analytics/rollup", "dialer/board", "activity", "notify"}},
	{"store: the store and the helpers that read and write through it",
		[]string{"internal/store/...", "internal/reqbody", "internal/errclass"}},
	{"ent: schemas, hooks and generated code; the outbox writer; the privacy rules; the funnel's predicates",
		[]string{"ent/...", "events", "internal/rule", "analytics/funnel"}},
	{"leaves: errors, time, money, bounds, enumerations, the event catalog, the viewer, signals, the bus; the analytics definitions the schema reads; the web console's files",
		[]string{"console", "internal/webpage", "internal/apitime", "internal/apperr", "internal/autodef", "internal/telemetry", "internal/bounds", "internal/counted",
			"analytics/decision", "analytics/dispositions", "internal/enum", "internal/event/...", "internal/filestore/...", "internal/leadcsv", "internal/lendingrules", "internal/money",
			"internal/password", "internal/history", "internal/period", "internal/signals", "internal/stagesread", "internal/bus", "internal/text", "internal/token", "internal/txstate", "internal/viewer"}},
}

// layer ranks a package of this module (higher is further up), or -1 when
// no layer lists it.
func layer(pkg string) int {
	p := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	for i, l := range layers {
		for _, q := range l.packages {
			if dir, ok := strings.CutSuffix(q, "/..."); ok && (p == dir || strings.HasPrefix(p, dir+"/")) || p == q {
				return len(layers) - 1 - i
			}
		}
	}
	return -1
}

// schemaReaders may import ent/schema: the schemas are the input of code
// generation, and what other packages need of them (enumerations, bounds,
// the event catalog) lives in the leaf packages under internal.
var schemaReaders = []string{"ent/runtime"}

// leaf reports whether pkg (short) is in the bottom layer.
func leaf(pkg string) bool { return layer(module+"/"+pkg) == 0 }

// narrow holds packages to fewer imports than their layer allows.
var narrow = []struct {
	from string
	may  func(to string) bool
	why  string
}{
	// The schemas may import the leaves, ent's own packages, the privacy
	// rules and the funnel's predicates they are written with, and events:
	// the outbox hook is kept in the schema on purpose, so that every
	// change of a model writes its event in its own transaction, whatever
	// surface made it. What a change does beyond its model's rows (the
	// rollups, the agents board, the stages' reads) lives in the
	// subsystems and domains, which the schema never reaches for.
	{"ent/schema", func(to string) bool {
		return leaf(to) || to == "ent" || strings.HasPrefix(to, "ent/") || to == "events" || to == "internal/rule" || to == "analytics/funnel"
	}, "the schemas import the leaves, ent, the privacy rules and events only"},
	// The outbox writer sits beside the generated code it writes through.
	{"events", func(to string) bool { return leaf(to) || to == "ent" || strings.HasPrefix(to, "ent/") },
		"the outbox writer imports ent and the leaves only"},
	// Storage serves every layer above it and knows none of them: what
	// a subsystem or domain adds to a store read it passes in.
	{"internal/store", func(to string) bool {
		l := layer(module + "/" + to)
		return l >= 0 && l <= layer(module+"/internal/store")
	},
		"the store imports no subsystem or domain"},
	// The HTTP root mounts the /v1 adapter, never the other way.
	{"rest", func(to string) bool { return to != "root" }, "the /v1 adapter does not reach for the HTTP root"},
	// GraphQL starts the automation runner; the runner acts through the
	// domains' flows, never through a resolver of its own.
	{"webhooks/autorun", func(to string) bool { return to != "graph" && !strings.HasPrefix(to, "graph/") },
		"the automation runner acts through the domains, not GraphQL"},
}

// violation says why the import from -> to is not allowed, or "" when it is.
func violation(from, to string) string {
	if !strings.HasPrefix(to, module) {
		return ""
	}
	short := func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, module), "/") }
	if layer(to) > layer(from) {
		return "imports upward (layer " + strconv.Itoa(layer(from)) + " -> " + strconv.Itoa(layer(to)) + ")"
	}
	if to == module {
		return "imports main: nothing does"
	}
	for _, n := range narrow {
		if short(from) == n.from && !n.may(short(to)) {
			return n.why
		}
	}
	if short(to) == "ent/schema" && !slices.Contains(schemaReaders, short(from)) {
		return "imports the schema definitions; read their values from the leaf packages under internal"
	}
	return ""
}

// TestImportsPointDown fails when a package imports one of a layer above
// its own (main and the HTTP root > rest > graph and the automation runner >
// webhooks and dialer > ent and the helpers over it > the shared leaves),
// so that a reader knows where a rule lives from its folder.
// Tests in external test packages may reach up for a harness (resttest
// starts the whole server), so only the packages' own imports are checked.
func TestImportsPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "sqlite_fts5", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		for _, to := range fields[1:] {
			if why := violation(fields[0], to); why != "" {
				t.Errorf("%s -> %s %s", fields[0], to, why)
			}
		}
	}
}

// TestEveryPackageHasALayer fails when a package of this module is in no
// layer's list: a new package is placed on purpose, not by its folder.
func TestEveryPackageHasALayer(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "sqlite_fts5", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if layer(pkg) < 0 {
			t.Errorf("%s is in no layer of the architecture test", pkg)
		}
	}
}

// TestArchitectureRulesCatchUpwardImports proves the check above can fail:
// each import below once existed, and each must be refused.
func TestArchitectureRulesCatchUpwardImports(t *testing.T) {
	refused := [][2]string{
		{"ent/schema", "webhooks"},                       // the hooks' outbox writer lived with delivery
		{"internal/reqbody", "rest"},                     // input decoding lived in the REST adapter
		{"rest", "ent/schema"},                           // the OpenAPI document read enumerations from the schemas
		{"internal/store", "graph"},                      // storage reaching for the operations
		{"webhooks", "graph"},                            // delivery reaching for the operations
		{"dialer", "rest"},                               // the dialer's rules reaching for the adapter
		{"graph", "rest"},                                // the operations reaching for the adapter
		{"webhooks/autorun", "rest"},                     // the automation runner is a client of the operations, not of REST
		{"internal/event", "webhooks"},                   // a leaf reaching up
		{"tools/loadtest", "github.com/lendingpipe/svc"}, // nothing imports main
		{"rest", "root"},                                 // the root's router (GraphQL, the probes) lived in the /v1 adapter
		{"internal/money", "ent"},                        // a shared leaf reaching into the generated code
		{"internal/apperr", "internal/store"},            // a shared leaf reaching for storage
		{"ent/schema", "analytics/rollup"},               // the schema kept the rollups itself
		{"ent/schema", "dialer/board"},                   // the schema published the agents board
		{"ent/schema", "internal/store/stagesread"},      // the schema read a lead's stages through the store
		{"internal/store", "analytics/rollup"},           // storage rebuilt and read the rollups' zone itself
		{"ent/schema", "internal/store"},                 // the lead hooks read the stages a flow had read through the store
		{"webhooks/autorun", "graph"},                    // the automation runner acted through a second GraphQL resolver
		{"events", "internal/rule"},                      // the outbox writer takes nothing beside ent and the leaves
		{"internal/bus", "ent"},                          // a leaf the generated client carries reaching back
	}
	for _, e := range refused {
		from, to := module+"/"+e[0], module+"/"+e[1]
		if e[1] == module {
			to = module
		}
		if violation(from, to) == "" {
			t.Errorf("%s -> %s is allowed; the rules must refuse it", e[0], e[1])
		}
	}
	allowed := [][2]string{{"rest", "graph"}, {"ent/runtime", "ent/schema"}, {"graph", "events"}, {"dialer", "ent"},
		{"root", "rest"}, {"root", "graph"}, {"rest/resttest", "root"}, {"graph", "webhooks/autorun"},
		{"ent/schema", "events"}, {"ent/schema", "internal/rule"}, {"ent/schema", "internal/money"}, {"ent/schema", "ent/hook"}, {"ent/schema", "internal/stagesread"},
		{"events", "ent"}, {"events", "internal/signals"}, {"internal/store", "events"}, {"internal/store", "analytics/funnel"},
		{"analytics/rollup", "internal/store/readexpr"}, {"lending", "analytics/rollup"}, {"leads", "analytics/rollup"}, {"seed", "internal/store"}}
	for _, e := range allowed {
		if why := violation(module+"/"+e[0], module+"/"+e[1]); why != "" {
			t.Errorf("%s -> %s is refused (%s); the design allows it", e[0], e[1], why)
		}
	}
}

// TestPackagesSayWhatTheyAre fails when a package written by hand has no
// doc comment: each says what it provides and what it may import. Packages
// that are wholly generated (one per ent model) are exempt.
func TestPackagesSayWhatTheyAre(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "sqlite_fts5", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \",\"}}\t{{.Doc}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	// Trim only the final newline: a missing doc leaves a trailing tab.
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		f := strings.SplitN(line, "\t", 4)
		if len(f) < 4 || !handWritten(t, f[1], strings.Split(f[2], ",")) {
			continue
		}
		if strings.TrimSpace(f[3]) == "" {
			t.Errorf("%s has no package doc comment", f[0])
		}
	}
}

// handWritten reports whether any of a package's files is not generated.
func handWritten(t *testing.T, dir string, files []string) bool {
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("reading %s: %v", name, err)
		}
		if !strings.HasPrefix(string(b), "// Code generated") {
			return true
		}
	}
	return false
}

// TestFilesSpeakOfTheProduct fails when a file of the repository speaks of
// how it was built rather than of the product: numbered issues or work
// rounds, or paths of the machine it was built on. History belongs in git.
func TestFilesSpeakOfTheProduct(t *testing.T) {
	banned := regexp.MustCompile(`(?i)\bissue\s*#?\d+|\b(work|review|fix)\s+rounds?\b|\bround\s+\d+\b|(^|[\s("'` + "`" + `])/(work|home|Users|root)/`)
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !speaks(path) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b, 0) >= 0 {
			return nil // a binary, such as a built svc
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := banned.FindString(line); m != "" {
				t.Errorf("%s:%d speaks of how it was built (%q): %s", path, i+1, strings.TrimSpace(m), strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// speaks reports whether a file is prose or code a person wrote: documents,
// Go sources (generated ones aside), scripts and configuration.
func speaks(path string) bool {
	if path == "architecture_test.go" || strings.HasSuffix(path, ".gen.go") || strings.HasSuffix(path, "generated.go") {
		return false
	}
	switch filepath.Ext(path) {
	case ".md", ".go", ".graphql", ".yml", ".yaml", ".json", ".sh", "":
		return !strings.HasSuffix(path, "package-lock.json")
	}
	return false
}

// txOwner is the one package that opens transactions (store.WithTx), so
// that every surface's commits, rollbacks and commit hooks behave alike.
const txOwner = "internal/store"

// txOpener names call when it opens a transaction: ent's Client.Tx(ctx) and
// BeginTx, entgql's OpenTx helpers, database/sql's Begin and BeginTx. A
// mutation's Tx() (no argument) only names the transaction it runs in.
func txOpener(call *ast.CallExpr) (string, bool) {
	var name string
	switch fn := call.Fun.(type) {
	case *ast.SelectorExpr:
		name = fn.Sel.Name
	case *ast.Ident:
		name = fn.Name
	default:
		return "", false
	}
	switch name {
	case "Tx":
		return name, len(call.Args) > 0
	case "Begin", "BeginTx", "OpenTx", "OpenTxFromContext":
		return name, true
	}
	return "", false
}

// txCalls lists the transactions a Go source file opens itself, as
// "file:line: Name"; a generated file and a test are not looked at.
func txCalls(path string, src []byte) ([]string, error) {
	if strings.HasSuffix(path, "_test.go") {
		return nil, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	if ast.IsGenerated(f) {
		return nil, nil
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if name, ok := txOpener(n); ok {
				found = append(found, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), name))
			}
		case *ast.SelectorExpr:
			// entgql's GraphQL extension opens its own transactions.
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "entgql" && n.Sel.Name == "Transactioner" {
				found = append(found, fmt.Sprintf("%s: entgql.Transactioner", fset.Position(n.Pos())))
			}
		}
		return true
	})
	return found, nil
}

// mayOpenTx reports whether the file at path (slash-separated, relative to
// the module root) belongs to txOwner.
func mayOpenTx(path string) bool {
	return strings.HasPrefix(path, txOwner+"/")
}

// TestOnlyTheStoreOpensTransactions fails when Go code outside internal/store
// opens a transaction itself instead of through store.WithTx.
func TestOnlyTheStoreOpensTransactions(t *testing.T) {
	scanGoFiles(t, mayOpenTx, txCalls, "opens a transaction; use store.WithTx")
}

// scanGoFiles runs scan over every Go file of the tree but those skip
// names (paths slash-separated, relative to the module root) and reports
// each place it finds, followed by what it is.
func scanGoFiles(t *testing.T, skip func(path string) bool, scan func(path string, src []byte) ([]string, error), what string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		path = filepath.ToSlash(path)
		if !strings.HasSuffix(path, ".go") || skip(path) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found, err := scan(path, src)
		if err != nil {
			return err
		}
		files++
		for _, f := range found {
			t.Errorf("%s %s", f, what)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files scanned; the walk missed the tree", files)
	}
}

// TestTransactionScanCatchesOpeners proves the scan above can fail: each
// source below opens a transaction outside internal/store and must be flagged,
// and the others must not be.
func TestTransactionScanCatchesOpeners(t *testing.T) {
	const body = "package p\n\nfunc f() {\n\t%s\n}\n"
	cases := []struct {
		path, code string
		flagged    bool
	}{
		{"webhooks/worker.go", "tx, err := w.client.Tx(ctx)", true},
		{"webhooks/receive.go", "tx, err := c.Tx(ctx)", true},
		{"rest/leads.go", "tx, err := h.client.BeginTx(ctx, &sql.TxOptions{})", true},
		{"graph/handler.go", "ctx, tx, err := r.db.Client.OpenTx(ctx)", true},
		{"graph/handler.go", "ctx, tx, err := ent.OpenTxFromContext(ctx)", true},
		{"tools/loadtest/sql.go", "tx, err := db.Begin()", true},
		{"webhooks/autorun/runner.go", "go func() { _, _ = r.db.Client.Tx(context.Background()) }()", true},
		{"graph/handler.go", "srv.Use(entgql.Transactioner{TxOpener: r.db.Client})", true},
		{"internal/storefront/x.go", "tx, err := c.Tx(ctx)", true}, // a name that starts like the store's
		{"dialer/board/board.go", "tx, err := m.Tx()", false},      // the mutation's own transaction
		{"rest/leads.go", "err := store.WithTx(ctx, c, fn)", false},
		{"rest/leads.go", "tx := ent.TxFromContext(ctx)", false},
		{"webhooks/worker_test.go", "tx, err := c.Tx(ctx)", false},
	}
	for _, c := range cases {
		src := fmt.Sprintf(body, c.code)
		found, err := txCalls(c.path, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", c.code, err)
		}
		if got := len(found) > 0 && !mayOpenTx(c.path); got != c.flagged {
			t.Errorf("%s in %s: flagged %v, want %v", c.code, c.path, got, c.flagged)
		}
	}
	generated := "// Code generated by ent, DO NOT EDIT.\n\n" + fmt.Sprintf(body, "tx, err := c.Tx(ctx)")
	if found, _ := txCalls("ent/client.go", []byte(generated)); len(found) > 0 {
		t.Errorf("a generated file was flagged: %v", found)
	}
	if !mayOpenTx("internal/store/tx.go") || !mayOpenTx("internal/store/storetest/storetest.go") {
		t.Error("internal/store may open transactions")
	}
}

// leadWriters are the files outside the lead flows (leads/) that may write
// leads through the generated client, and why.
var leadWriters = map[string]string{
	"seed/leads.go":              "the seeder's bulk load writes leads whole and counts them at once",
	"ent/schema/dialer_hooks.go": "a call event's effect on its lead (last contacted, do-not-call), in the call event's hook",
}

// leadWrite names call when it writes leads through the generated client:
// x.Lead.Create(), CreateBulk, MapCreateBulk, Update, UpdateOne or
// UpdateOneID.
func leadWrite(call *ast.CallExpr) (string, bool) {
	fn, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	client, ok := fn.X.(*ast.SelectorExpr)
	if !ok || client.Sel.Name != "Lead" {
		return "", false
	}
	switch fn.Sel.Name {
	case "Create", "CreateBulk", "MapCreateBulk", "Update", "UpdateOne", "UpdateOneID":
		return "Lead." + fn.Sel.Name, true
	}
	return "", false
}

// leadWrites lists the lead writes of a Go source file at path outside
// the lead flows, as "file:line: Lead.Name"; the flows themselves, the
// files of leadWriters, generated files and tests are not looked at.
func leadWrites(path string, src []byte) ([]string, error) {
	if strings.HasPrefix(path, "leads/") || strings.HasSuffix(path, "_test.go") || leadWriters[path] != "" {
		return nil, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	if ast.IsGenerated(f) {
		return nil, nil
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if name, ok := leadWrite(call); ok {
				found = append(found, fmt.Sprintf("%s: %s", fset.Position(call.Pos()), name))
			}
		}
		return true
	})
	return found, nil
}

// TestOnlyTheLeadFlowsWriteLeads fails when Go code outside leads/ creates
// or updates a lead through the generated client rather than through the
// flows, which keep its defaults, counts and board rows.
func TestOnlyTheLeadFlowsWriteLeads(t *testing.T) {
	scanGoFiles(t, func(string) bool { return false }, leadWrites, "writes a lead; call the leads package")
	for path := range leadWriters {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s may write leads but is gone: drop it from leadWriters", path)
		}
	}
}

// TestLeadWriteScanCatchesWriters proves the scan above can fail: each
// source below writes a lead outside the flows and must be flagged, and
// the others must not be.
func TestLeadWriteScanCatchesWriters(t *testing.T) {
	const body = "package p\n\nfunc f() {\n\t%s\n}\n"
	cases := []struct {
		path, code string
		flagged    bool
	}{
		{"graph/schema.resolvers.go", "l, err := r.client(ctx).Lead.Create().SetInput(input).Save(ctx)", true},
		{"leadimport/batch.go", "err := tx.Lead.CreateBulk(builders...).Exec(ctx)", true},
		{"lending/lending.go", "err := c.Lead.Update().Where(lead.ID(id)).SetConvertedAt(at).Exec(ctx)", true},
		{"graph/dialer.go", "l, err := c.Lead.UpdateOne(l).SetIsDoNotCall(true).Save(ctx)", true},
		{"rest/leads.go", "l, err := h.client.Lead.UpdateOneID(id).SetPriority(p).Save(ctx)", true},
		{"leads/create.go", "l, err := c.Lead.Create().Save(ctx)", false},
		{"seed/leads.go", "err := tx.Lead.CreateBulk(builders...).Exec(ctx)", false},
		{"graph/leads_test.go", "l, err := c.Lead.Create().Save(ctx)", false},
		{"graph/resolver.go", "l, err := c.Lead.Get(ctx, id)", false},
		{"graph/contacts.go", "c.Contact.UpdateOneID(id).Save(ctx)", false},
	}
	for _, c := range cases {
		found, err := leadWrites(c.path, []byte(fmt.Sprintf(body, c.code)))
		if err != nil {
			t.Fatalf("%s: %v", c.code, err)
		}
		if got := len(found) > 0; got != c.flagged {
			t.Errorf("%s in %s: flagged %v, want %v", c.code, c.path, got, c.flagged)
		}
	}
	generated := "// Code generated by ent, DO NOT EDIT.\n\n" + fmt.Sprintf(body, "c.Lead.Create()")
	if found, _ := leadWrites("ent/client.go", []byte(generated)); len(found) > 0 {
		t.Errorf("a generated file was flagged: %v", found)
	}
}
