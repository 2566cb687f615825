package money

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestNoFloatingPoint fails when the package's own code names a floating
// point type or a float conversion (strconv.ParseFloat, FormatFloat,
// big.Float, Rat.Float64, ...): no amount or rate may pass through binary
// floating point, however briefly.
func TestNoFloatingPoint(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, use := range floatUses(fset, f) {
			t.Errorf("%s uses floating point", use)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no source files checked")
	}
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
