package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// stateAllowed lists the package-level variables that look like state but
// are not, as "dir.name" (dir slash-separated from the module root), each
// with why. Everything that a running process changes belongs on a value
// (the store's signals, a cache owned by its server, a transaction's
// state), so that several stores or servers in one process, as tests open,
// never share it.
var stateAllowed = map[string]string{
	"analytics/rollup.slotSeed":       "a hash seed, made once and only read",
	"analytics/rollup.upsertQueries":  "SQL text built from constants, the same for every store",
	"internal/period.zones":           "loaded time zones, the same for every store",
	"internal/store/readexpr.written": "SQL text of subqueries built from constants, the same for every store",
	"internal/store/readexpr.fresh":   "a benchmark's switch (Fresh) over the memo above",
	"internal/store.cacheStatements":  "a benchmark's switch (BenchmarkWriteTricks)",
	"internal/store.registerOnce":     "registers the database drivers once per process, as database/sql requires",
	"internal/telemetry.tracing":      "whether the process installed a tracing provider (one per process)",
	"rest.built":                      "the OpenAPI document, encoded once from code, the same for every server",
	"graph.newestFirst":               "an order argument, only read",
	"graph.newestLenders":             "an order argument, only read",
	"graph.newestApplications":        "an order argument, only read",
	"graph.latestFunding":             "an order argument, only read",
	"graph.newestCommissions":         "an order argument, only read",
	"graph.newestAudit":               "an order argument, only read",
}

// stateVar reports why the package-level variable name, declared by spec
// with value (nil when it has none), holds state, or "" when it does not.
// written reports whether the package assigns to it outside init.
func stateVar(spec *ast.ValueSpec, value ast.Expr, written bool) string {
	if t := spec.Type; t != nil {
		if why := stateType(t); why != "" {
			return why
		}
	}
	if value != nil {
		if why := stateValue(value); why != "" {
			return why
		}
	}
	if written {
		return "is written at run time"
	}
	return ""
}

// stateType reports why a variable of type t holds state: a channel, or
// one of sync's or sync/atomic's types (a lock, a map, a counter, a once).
func stateType(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.ChanType:
		return "is a channel"
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok && (x.Name == "sync" || x.Name == "atomic") {
			return "is a " + x.Name + "." + t.Sel.Name
		}
	case *ast.IndexExpr: // atomic.Pointer[T]
		return stateType(t.X)
	}
	return ""
}

// stateValue reports why a variable initialised to v holds state: a
// channel or map made to be written, a pointer to a fresh value, or a
// sync or sync/atomic value. Sentinel errors, compiled expressions and
// literal tables are values, not state (a table written later is caught
// by its writes).
func stateValue(v ast.Expr) string {
	switch v := v.(type) {
	case *ast.CallExpr:
		if fn, ok := v.Fun.(*ast.Ident); ok && len(v.Args) > 0 {
			switch fn.Name {
			case "make":
				if _, ok := v.Args[0].(*ast.ChanType); ok {
					return "is a channel"
				}
				return "is made to be written"
			case "new":
				return "points to a fresh value"
			}
		}
	case *ast.UnaryExpr:
		if v.Op == token.AND {
			return "points to a fresh value"
		}
		if v.Op == token.ARROW {
			return ""
		}
	case *ast.CompositeLit:
		return stateType(v.Type)
	}
	return ""
}

// packageState lists the package-level variables of one package's files
// that hold state, as "file:line: name why", leaving out the allowed ones
// (stateAllowed, keyed by dir).
func packageState(fset *token.FileSet, dir string, files []*ast.File) []string {
	written := packageWrites(files)
	var found []string
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				spec := s.(*ast.ValueSpec)
				for i, name := range spec.Names {
					if name.Name == "_" {
						continue
					}
					var value ast.Expr
					if i < len(spec.Values) {
						value = spec.Values[i]
					}
					why := stateVar(spec, value, written[name.Name])
					if _, ok := stateAllowed[dir+"."+name.Name]; why == "" || ok {
						continue
					}
					found = append(found, fmt.Sprintf("%s: %s %s", fset.Position(name.Pos()), name.Name, why))
				}
			}
		}
	}
	return found
}

// packageWrites names the package-level identifiers that the package's
// functions other than init assign to, change, or delete from.
func packageWrites(files []*ast.File) map[string]bool {
	top := map[any]bool{} // the package-level variables' specs
	for _, f := range files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, s := range g.Specs {
					top[s] = true
				}
			}
		}
	}
	out := map[string]bool{}
	mark := func(e ast.Expr) {
		// The parser resolves a file's own declarations: an identifier
		// bound to a local or a parameter is not the package's; one
		// declared in another file of the package is left unresolved.
		if id := rootIdent(e); id != nil && (id.Obj == nil || top[id.Obj.Decl]) {
			out[id.Name] = true
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || (fn.Recv == nil && fn.Name.Name == "init") {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					if n.Tok != token.DEFINE {
						for _, l := range n.Lhs {
							mark(l)
						}
					}
				case *ast.IncDecStmt:
					mark(n.X)
				case *ast.CallExpr:
					if fn, ok := n.Fun.(*ast.Ident); ok && (fn.Name == "delete" || fn.Name == "clear") && len(n.Args) > 0 {
						mark(n.Args[0])
					}
				}
				return true
			})
		}
	}
	return out
}

// rootIdent is the variable an assignment's left side writes into: x in
// x, x[k], x.f and *x.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch v := e.(type) {
		case *ast.Ident:
			return v
		case *ast.IndexExpr:
			e = v.X
		case *ast.SelectorExpr:
			e = v.X
		case *ast.StarExpr:
			e = v.X
		case *ast.ParenExpr:
			e = v.X
		default:
			return nil
		}
	}
}

// stateFiles reports whether a file is looked at: Go code written by hand
// and built into the service (tests and generated code aside; of ent/,
// only the schemas).
func stateFiles(path string) bool {
	if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
		return false
	}
	return !strings.HasPrefix(path, "ent/") || strings.HasPrefix(path, "ent/schema/")
}

// TestNoPackageState fails when a package of this module keeps state in
// a package-level variable: a channel, a map or counter written at run
// time, a sync or sync/atomic value, a pointer to a fresh value. Such
// state is shared by every store, server and test of a process.
func TestNoPackageState(t *testing.T) {
	fset := token.NewFileSet()
	byDir := map[string][]*ast.File{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		path = filepath.ToSlash(path)
		if !stateFiles(path) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		byDir[dir] = append(byDir[dir], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(byDir) < 30 {
		t.Fatalf("only %d packages scanned; the walk missed the tree", len(byDir))
	}
	dirs := make([]string, 0, len(byDir))
	for dir := range byDir {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		for _, f := range packageState(fset, dir, byDir[dir]) {
			t.Errorf("%s: package-level state; hold it on a value (the store's signals, its owner)", f)
		}
	}
	for key := range stateAllowed {
		if dir, _, _ := strings.Cut(key, "."); byDir[dir] == nil {
			t.Errorf("stateAllowed names %s, in no package scanned", key)
		}
	}
}

// TestStateScanCatchesState proves the scan above can fail: each source
// below declares package-level state and must be flagged, and the others
// must not be.
func TestStateScanCatchesState(t *testing.T) {
	cases := []struct {
		code    string
		flagged bool
	}{
		{"var wake = make(chan struct{}, 1)", true}, // the outbox's wake, once
		{"var wake chan struct{}", true},
		{"var version atomic.Int64", true}, // the cached rows' versions, once
		{"var turns atomic.Uint64\n\nfunc init() { turns.Store(1) }", true},
		{"var seen sync.Map", true}, // a per-process guess, once
		{"var mu sync.Mutex", true},
		{"var cache = map[string]int{}\n\nfunc put(k string) { cache[k] = 1 }", true},
		{"var cache = make(map[string]int)", true},
		{"var last *int\n\nfunc set(n int) { last = &n }", true},
		{"var n int\n\nfunc bump() { n++ }", true},
		{"var current = &config{}", true},
		{"var ErrGone = errors.New(\"gone\")", false},
		{"var words = regexp.MustCompile(`\\w+`)", false},
		{"var names = map[string]int{\"a\": 1}\n\nfunc get(k string) int { return names[k] }", false},
		{"var order = []string{\"a\", \"b\"}", false},
		{"var _ = fmt.Sprint()", false},
		{"var names = map[string]int{}\n\nfunc init() { names[\"a\"] = 1 }", false}, // filled once, then read
		{"var n int\n\nfunc f() { n := 2; n++ }", false},                            // a local of the same name
	}
	for _, c := range cases {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "p.go", "package p\n\n"+c.code+"\n", parser.ParseComments)
		if err != nil {
			t.Fatalf("%s: %v", c.code, err)
		}
		if got := len(packageState(fset, "p", []*ast.File{f})) > 0; got != c.flagged {
			t.Errorf("%q: flagged %v, want %v", c.code, got, c.flagged)
		}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "keep.go", "package rollup\n\nvar slotSeed = new(int)\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := packageState(fset, "analytics/rollup", []*ast.File{f}); len(got) > 0 {
		t.Errorf("an allowed variable was flagged: %v", got)
	}
}
