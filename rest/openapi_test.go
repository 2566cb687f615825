package rest_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/lendingpipe/svc/ent/store/storetest"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/root"
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
