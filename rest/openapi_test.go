package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/root"
)

// The served document is a valid OpenAPI 3.0 document.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc, err := rest.LoadOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document does not validate: %v", err)
	}
	if doc.OpenAPI != "3.0.3" {
		t.Fatalf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}
}

// Every route the server has is documented, and every documented
// operation is routed: the document is generated from an operation list
// that this test holds to the router's own table.
func TestOpenAPICoversTheRouteTable(t *testing.T) {
	db := storetest.Open(t)
	router, ok := root.Handler(rest.Config{MaxBodyBytes: 1 << 20, RateLimit: 10, RateWindow: time.Minute}, db, slog.Default()).(chi.Routes)
	if !ok {
		t.Fatal("the server is not a chi router")
	}
	routed := map[string]bool{}
	err := chi.Walk(router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if route != "/" {
			route = strings.TrimSuffix(route, "/")
		}
		if !root.OutsideContract(method, route) {
			routed[method+" "+route] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := rest.LoadOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	for op := range routed {
		if !documented[op] {
			t.Errorf("%s is routed but not documented", op)
		}
	}
	for op := range documented {
		if !routed[op] {
			t.Errorf("%s is documented but not routed", op)
		}
	}
	if len(documented) < 30 {
		t.Fatalf("only %d operations documented", len(documented))
	}
}

// The document's schemas are shaped so that generators and strict
// validators read them as the server means them: an enumeration of more
// than one value is a named component (inline, a generator names its type
// after where it appears, and one enum under two properties of one name
// became two types of one name), a $ref has no siblings (OpenAPI 3.0
// ignores them), and nullable stands beside the type it qualifies
// (OpenAPI 3.0.3: elsewhere it adds nothing, and strict validators refuse
// null).
func TestOpenAPISchemaShapes(t *testing.T) {
	raw, err := rest.OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	problems := schemaShapeProblems(doc)
	for _, p := range problems {
		t.Error(p)
	}
	// The check itself must catch each shape.
	bad := map[string]any{"components": map[string]any{"schemas": map[string]any{
		"Thing": map[string]any{"type": "object", "properties": map[string]any{
			"kind":  map[string]any{"type": "string", "enum": []any{"a", "b"}},
			"ref":   map[string]any{"$ref": "#/components/schemas/Other", "description": "ignored"},
			"maybe": map[string]any{"nullable": true, "allOf": []any{map[string]any{"$ref": "#/components/schemas/Other"}}},
		}},
		"Kind": map[string]any{"type": "string", "enum": []any{"a", "b"}},
	}}}
	if got := schemaShapeProblems(bad); len(got) != 3 {
		t.Fatalf("the check found %d problems in a document with 3: %v", len(got), got)
	}
}

func schemaShapeProblems(doc map[string]any) []string {
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if e, ok := x["enum"].([]any); ok && nonNull(e) > 1 && strings.Count(path, "/") != 3 {
				out = append(out, fmt.Sprintf("%s: an inline enumeration %v; make it a named component", path, e))
			}
			if _, ok := x["$ref"]; ok && len(x) > 1 {
				out = append(out, fmt.Sprintf("%s: $ref with siblings %v", path, slices.Sorted(maps.Keys(x))))
			}
			if x["nullable"] == true && x["type"] == nil && (x["allOf"] != nil || x["anyOf"] != nil || x["oneOf"] != nil || x["enum"] != nil) {
				out = append(out, fmt.Sprintf("%s: nullable without a type", path))
			}
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(path+"/"+k, x[k])
			}
		case []any:
			for i, item := range x {
				walk(fmt.Sprintf("%s/%d", path, i), item)
			}
		}
	}
	walk("", doc)
	return out
}

func nonNull(values []any) int {
	n := 0
	for _, v := range values {
		if v != nil {
			n++
		}
	}
	return n
}

// Every component is referenced (Spectral's oas3-unused-component, which CI
// runs, as a Go test: an enumeration split into variants must not leave one
// behind).
func TestOpenAPIComponentsAreUsed(t *testing.T) {
	raw, err := rest.OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components map[string]map[string]json.RawMessage `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for kind, components := range doc.Components {
		if kind == "securitySchemes" {
			continue // named by each operation's security, not by $ref
		}
		for name := range components {
			if ref := fmt.Sprintf(`"$ref":"#/components/%s/%s"`, kind, name); !strings.Contains(string(raw), ref) {
				t.Errorf("components.%s.%s is not referenced", kind, name)
			}
		}
	}
}
