package rest

import (
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/lendingpipe/svc/internal/apperr"
)

// queryParams lists, for each operation ("GET /v1/leads/{id}"), the query
// parameters the OpenAPI document gives it. The document is the one table:
// a parameter added there is accepted here, and nowhere else.
var queryParams = sync.OnceValue(func() map[string][]string {
	shared := sharedParameters()
	out := map[string][]string{}
	for _, op := range operations() {
		if op.openQuery {
			continue // checkQuery lets it be
		}
		names := []string{}
		for _, p := range op.params {
			if ref, ok := p["$ref"].(string); ok {
				p, _ = shared[strings.TrimPrefix(ref, "#/components/parameters/")].(m)
			}
			if p["in"] == "query" {
				names = append(names, p["name"].(string))
			}
		}
		out[op.method+" "+op.path] = names
	}
	return out
})

// checkQuery refuses a query parameter a /v1 route does not take, 422
// naming it, as Stripe does (every /v1 handler runs it, through
// errorHandler): a filter the route does not know would otherwise be
// ignored, and the caller would silently get every record.
func checkQuery(r *http.Request) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	rc := chi.RouteContext(r.Context())
	if rc == nil {
		return nil
	}
	op := r.Method + " " + strings.TrimSuffix(rc.RoutePattern(), "/")
	allowed, ok := queryParams()[op]
	if !ok {
		return nil // not a documented operation (the router's table test keeps both the same)
	}
	names := make([]string, 0, len(r.URL.Query()))
	for name := range r.URL.Query() {
		names = append(names, name)
	}
	slices.Sort(names) // the parameter named does not depend on map order
	for _, name := range names {
		if !slices.Contains(allowed, name) {
			return unknownParam(op, name, allowed)
		}
	}
	return nil
}

func unknownParam(op, name string, allowed []string) error {
	if len(allowed) == 0 {
		return apperr.Invalid(apperr.Cut(name), "is not a query parameter of %s, which takes none", op)
	}
	return apperr.Invalid(apperr.Cut(name), "is not a query parameter of %s; it takes %s", op, strings.Join(allowed, ", "))
}
