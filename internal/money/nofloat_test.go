package money

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// moneyPath lists, beside this package, the code amounts and rates pass
// through: a directory stands for all its non-test files.
var moneyPath = []string{
	".",
	"../lendingrules",                   // the lender's box, a deal's terms
	"../../ent/schema/lending_hooks.go", // offers, rates, lender bounds
	"../../lending",                     // defaults, payback, commission, payments
	"../../analytics/rollup",            // the sums the reports read
	"../../graph/lending.go",            // the lending operations
	"../../graph/lending.resolvers.go",
	"../../rest/matches.go", // the lender matches as REST writes them
}

// TestNoFloatingPoint fails when the money path's code names a floating
// point type or a float conversion (strconv.ParseFloat, FormatFloat,
// big.Float, Rat.Float64, ...): no amount or rate may pass through binary
// floating point, however briefly.
func TestNoFloatingPoint(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	for _, path := range moneyPath {
		files, err := goFiles(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Errorf("%s: no source file to check", path)
		}
		for _, name := range files {
			f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, use := range floatUses(fset, f) {
				t.Errorf("%s uses floating point", use)
			}
			checked++
		}
	}
	if checked < len(moneyPath) {
		t.Fatalf("%d source files checked", checked)
	}
}

// goFiles is path itself, or the non-test Go files of the directory path.
func goFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			out = append(out, filepath.Join(path, name))
		}
	}
	return out, nil
}

// TestNoFloatingPointCheckFindsFloats proves the check above can fail.
func TestNoFloatingPointCheckFindsFloats(t *testing.T) {
	src := `package money

import ("math/big"; "strconv")

var a float64
func b(s string) (float32, error) { v, err := strconv.ParseFloat(s, 32); return float32(v), err }
func c(v int64) string { return strconv.FormatFloat(1, 'f', 2, 64) }
func d(x *big.Rat) { x.Float64() }
var e = new(big.Float)
var f complex128
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "floats.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	uses := floatUses(fset, f)
	for _, want := range []string{"float64", "float32", "ParseFloat", "FormatFloat", "Float64", "Float", "complex128"} {
		found := false
		for _, u := range uses {
			found = found || strings.HasSuffix(u, " "+want)
		}
		if !found {
			t.Errorf("the check misses %s; it found %q", want, uses)
		}
	}
}

// floatUses lists each identifier in f that names a floating point (or
// complex) type, or a function or type whose name says Float.
func floatUses(fset *token.FileSet, f *ast.File) []string {
	var uses []string
	ast.Inspect(f, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		switch name := id.Name; {
		case name == "float32", name == "float64", name == "complex64", name == "complex128",
			strings.Contains(name, "Float"):
			uses = append(uses, fset.Position(id.Pos()).String()+": "+name)
		}
		return true
	})
	return uses
}
