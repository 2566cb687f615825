package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
)

// Every response, errors included, carries the SPEC 4 headers, and every
// error uses the SPEC 2.1 envelope with meta.requestId.
func TestHeadersOnEveryResponse(t *testing.T) {
	e := resttest.New(t)
	cases := map[string]resttest.Request{
		"OK":               {Method: "GET", Path: "/v1/leads", Key: e.Key},
		"Unauthorized":     {Method: "GET", Path: "/v1/leads"},
		"NotFoundRoute":    {Method: "GET", Path: "/v1/nowhere", Key: e.Key},
		"MethodNotAllowed": {Method: "DELETE", Path: "/v1/leads", Key: e.Key},
		"Status":           {Method: "GET", Path: "/status"},
		"Validation":       {Method: "GET", Path: "/v1/leads?limit=0", Key: e.Key},
	}
	for name, req := range cases {
		t.Run(name, func(t *testing.T) {
			r := e.Do(req)
			if got := r.Header.Get("SVC-API-Version"); got != rest.APIVersion {
				t.Errorf("SVC-API-Version = %q", got)
			}
			for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
				if r.Header.Get(h) == "" {
					t.Errorf("missing %s", h)
				}
			}
			id := r.Header.Get("X-Request-Id")
			if _, err := uuid.Parse(id); err != nil {
				t.Errorf("X-Request-Id %q is not a UUID", id)
			}
			if r.Meta()["requestId"] != id {
				t.Errorf("meta.requestId = %v, want %q", r.Meta()["requestId"], id)
			}
			if r.Status >= 400 {
				if code, _ := r.Error(); code == "" {
					t.Errorf("status %d without an error envelope: %s", r.Status, r.Raw)
				}
			}
		})
	}
	t.Run("Codes", func(t *testing.T) {
		mustError(t, e.Do(cases["NotFoundRoute"]), http.StatusNotFound, "NOT_FOUND", "")
		mustError(t, e.Do(cases["MethodNotAllowed"]), http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "")
	})
}

func TestRequestID(t *testing.T) {
	e := resttest.New(t)
	mine := uuid.NewString()
	r := e.Do(resttest.Request{Method: "GET", Path: "/v1/leads", Key: e.Key, Header: map[string]string{"X-Request-Id": mine}})
	if r.Header.Get("X-Request-Id") != mine || r.Meta()["requestId"] != mine {
		t.Errorf("caller's UUID not kept: header %q meta %v", r.Header.Get("X-Request-Id"), r.Meta()["requestId"])
	}
	r = e.Do(resttest.Request{Method: "GET", Path: "/v1/leads", Key: e.Key, Header: map[string]string{"X-Request-Id": "<script>"}})
	if got := r.Header.Get("X-Request-Id"); got == "<script>" || uuid.Validate(got) != nil {
		t.Errorf("unsafe request id kept: %q", got)
	}
}

func TestAuthentication(t *testing.T) {
	e := resttest.New(t)
	for name, header := range map[string]string{
		"Missing":      "",
		"Unknown":      "Bearer svc_live_" + "abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrst",
		"Malformed":    "Bearer not-a-key",
		"WrongScheme":  "Basic " + e.Key,
		"WrongPrefix":  "Bearer svc_test_abcdefghijklmnopqrstuvwxyz",
		"KeyOfNothing": "Bearer ",
	} {
		t.Run(name, func(t *testing.T) {
			req := resttest.Request{Method: "GET", Path: "/v1/leads"}
			if header != "" {
				req.Header = map[string]string{"Authorization": header}
			}
			mustError(t, e.Do(req), http.StatusUnauthorized, "UNAUTHORIZED", "")
		})
	}
	t.Run("GraphQL", func(t *testing.T) {
		// GraphQL refuses in its own shape: errors[].extensions.code.
		r := e.Post("/graphql", "", map[string]any{"query": "{ leadsPage { total } }"})
		mustStatus(t, r, http.StatusUnauthorized)
		errs, _ := r.Body["errors"].([]any)
		if len(errs) != 1 || errs[0].(map[string]any)["extensions"].(map[string]any)["code"] != "UNAUTHORIZED" {
			t.Fatalf("body %s, want one error coded UNAUTHORIZED", r.Raw)
		}
	})
	t.Run("AppToken", func(t *testing.T) {
		// svc_at_ keys (app tokens, made by installing an app)
		// authenticate like svc_live_ keys.
		app := e.Post("/graphql", e.Key, map[string]any{"query": `mutation { registerApp(input: {name: "Sync", scopes: ["leads:read"]}) { id } }`})
		id, _ := app.Body["data"].(map[string]any)["registerApp"].(map[string]any)["id"].(string)
		inst := e.Post("/graphql", e.Key, map[string]any{"query": `mutation($a: ID!) { installApp(appId: $a, scopes: ["leads:read"]) { token } }`,
			"variables": map[string]any{"a": id}})
		key, _ := inst.Body["data"].(map[string]any)["installApp"].(map[string]any)["token"].(string)
		if !strings.HasPrefix(key, "svc_at_") {
			t.Fatalf("key %q: %s", key, inst.Raw)
		}
		mustStatus(t, e.Get("/v1/leads", key), http.StatusOK)
	})
}

func TestScopes(t *testing.T) {
	e := resttest.New(t)
	id := createLead(t, e, e.Key, map[string]any{"businessName": "Acme"})
	readOnly := e.NewKey(e.Org.ID, viewer.ScopeLeadsRead)
	writeOnly := e.NewKey(e.Org.ID, viewer.ScopeLeadsWrite)
	dialerOnly := e.NewKey(e.Org.ID, viewer.ScopeDialerWrite)
	t.Run("ReadOnlyCannotCreate", func(t *testing.T) {
		mustError(t, e.Post("/v1/leads", readOnly, map[string]any{"businessName": "X"}), http.StatusForbidden, "FORBIDDEN", "")
	})
	t.Run("ReadOnlyCanRead", func(t *testing.T) {
		mustStatus(t, e.Get("/v1/leads/"+id, readOnly), http.StatusOK)
		mustStatus(t, e.Get("/v1/leads?search=acme", readOnly), http.StatusOK)
	})
	t.Run("WriteOnlyCanCreate", func(t *testing.T) {
		mustStatus(t, e.Post("/v1/leads", writeOnly, map[string]any{"businessName": "Y"}), http.StatusCreated)
	})
	t.Run("OtherScopeCannotRead", func(t *testing.T) {
		mustError(t, e.Get("/v1/leads", dialerOnly), http.StatusForbidden, "FORBIDDEN", "")
		mustError(t, e.Get("/v1/leads?search=acme", dialerOnly), http.StatusForbidden, "FORBIDDEN", "")
		mustError(t, e.Get("/v1/leads/"+id, dialerOnly), http.StatusForbidden, "FORBIDDEN", "")
	})
}

func TestRateLimit(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.RateLimit, c.RateWindow = 3, time.Minute })
	for i := range 3 {
		r := e.Get("/v1/leads", e.Key)
		mustStatus(t, r, http.StatusOK)
		if got, want := r.Header.Get("X-RateLimit-Remaining"), []string{"2", "1", "0"}[i]; got != want {
			t.Errorf("request %d: X-RateLimit-Remaining = %q, want %q", i+1, got, want)
		}
	}
	r := e.Get("/v1/leads", e.Key)
	mustError(t, r, http.StatusTooManyRequests, "RATE_LIMITED", "")
	if r.Header.Get("Retry-After") == "" || r.Header.Get("X-RateLimit-Limit") != "3" {
		t.Errorf("headers = %v", r.Header)
	}
	// The limit is per key: another key of the same org is not limited.
	mustStatus(t, e.Get("/v1/leads", e.NewKey(e.Org.ID, viewer.ScopeLeadsRead)), http.StatusOK)
}

func TestAPIVersionPin(t *testing.T) {
	e := resttest.New(t)
	r := e.Do(resttest.Request{Method: "GET", Path: "/v1/leads", Key: e.Key, Header: map[string]string{"SVC-API-Version": rest.APIVersion}})
	mustStatus(t, r, http.StatusOK)
	r = e.Do(resttest.Request{Method: "GET", Path: "/v1/leads", Key: e.Key, Header: map[string]string{"SVC-API-Version": "1999-01-01"}})
	mustError(t, r, http.StatusBadRequest, "BAD_REQUEST", "SVC-API-Version")
	detail := r.Body["errors"].([]any)[0].(map[string]any)["detail"].(map[string]any)
	if versions, _ := detail["supportedVersions"].([]any); len(versions) == 0 || versions[0] != rest.APIVersion {
		t.Errorf("supportedVersions = %v", detail["supportedVersions"])
	}
}

func TestStatus(t *testing.T) {
	e := resttest.New(t)
	r := e.Get("/status", "")
	mustStatus(t, r, http.StatusOK)
	if r.Data()["type"] != "status" || r.Attr("status") != "ok" || r.Attr("apiVersion") != rest.APIVersion ||
		r.Attr("databaseReachable") != true || r.Attr("version") != "test" {
		t.Errorf("got %s", r.Raw)
	}
	for _, k := range []string{"outboxDepth", "deadLetterDepth", "automationQueueDepth", "uptimeSeconds"} {
		if _, ok := r.Attr(k).(float64); !ok {
			t.Errorf("%s = %v", k, r.Attr(k))
		}
	}
	mustStatus(t, e.Get("/readyz", ""), http.StatusOK)
	mustStatus(t, e.Get("/healthz", ""), http.StatusOK)
}

func TestStatusWhenTheDatabaseIsGone(t *testing.T) {
	e := resttest.New(t)
	if err := e.DB.Close(); err != nil {
		t.Fatal(err)
	}
	r := e.Get("/status", "")
	mustStatus(t, r, http.StatusServiceUnavailable)
	if r.Attr("status") != "unavailable" || r.Attr("databaseReachable") != false || r.Attr("outboxDepth") != nil {
		t.Errorf("got %s", r.Raw)
	}
	mustError(t, e.Get("/readyz", ""), http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE", "")
	mustStatus(t, e.Get("/healthz", ""), http.StatusOK) // the process itself is alive
}

// With the database gone, a key cannot be looked up: GraphQL answers the
// 5xx REST answers (and logs it), not 401 with a challenge telling the
// client its key is invalid.
func TestGraphQLAuthWhenTheDatabaseIsGone(t *testing.T) {
	e := resttest.New(t)
	if err := e.DB.Close(); err != nil {
		t.Fatal(err)
	}
	r := e.Post("/graphql", e.Key, map[string]any{"query": "{ leadsPage { total } }"})
	mustStatus(t, r, http.StatusInternalServerError)
	if got := r.Header.Get("WWW-Authenticate"); got != "" {
		t.Errorf("WWW-Authenticate %q on an outage", got)
	}
	errs, _ := r.Body["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["extensions"].(map[string]any)["code"] != "INTERNAL_ERROR" {
		t.Errorf("body %s, want one error coded INTERNAL_ERROR", r.Raw)
	}
}

// refuseWrites makes the test database refuse writes while it still answers
// reads, and returns the function that lets it write again. SQLite: the
// writer connection's file size limit is lowered to the file's size.
// PostgreSQL: the pool is narrowed to one connection, made read-only.
func refuseWrites(t *testing.T, db *store.DB) (restore func()) {
	t.Helper()
	ctx := rule.SystemContext(context.Background())
	exec := func(stmt string) {
		t.Helper()
		err := store.WithTx(ctx, db.Client, func(ctx context.Context, tx *ent.Client) error {
			_, err := tx.ExecContext(ctx, stmt)
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if db.Dialect == dialect.SQLite {
		var limit int64
		if err := db.SQL.QueryRow("PRAGMA max_page_count").Scan(&limit); err != nil {
			t.Fatal(err)
		}
		exec("PRAGMA max_page_count = 1") // clamped to the current page count
		return func() { exec(fmt.Sprintf("PRAGMA max_page_count = %d", limit)) }
	}
	db.SQL.SetMaxOpenConns(1)
	db.SQL.SetMaxIdleConns(1)
	deadline := time.Now().Add(10 * time.Second)
	for db.SQL.Stats().OpenConnections > 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // connections in use close as they are returned
	}
	if _, err := db.SQL.Exec("SET default_transaction_read_only = on"); err != nil {
		t.Fatal(err)
	}
	return func() {
		if _, err := db.SQL.Exec("SET default_transaction_read_only = off"); err != nil {
			t.Fatal(err)
		}
		db.SQL.SetMaxOpenConns(store.DefaultMaxConns())
		db.SQL.SetMaxIdleConns(store.DefaultMaxConns())
	}
}

// awaitReadiness polls /readyz (whose write check stands for a second)
// until it answers want, and returns that answer.
func awaitReadiness(t *testing.T, e *resttest.Env, want int) *resttest.Response {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := e.Get("/readyz", "")
		if r.Status == want || time.Now().After(deadline) {
			return r
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A database that answers but refuses writes makes the server not ready,
// saying why, and ready again once writes work; the process stays live.
func TestReadinessFollowsWrites(t *testing.T) {
	e := resttest.New(t)
	mustStatus(t, e.Get("/readyz", ""), http.StatusOK)
	restore := refuseWrites(t, e.DB)
	// Large enough to need pages of its own (a small row may fit in a page
	// the file already has).
	fields := map[string]any{}
	for i := range 10 {
		fields[fmt.Sprintf("notes%d", i)] = strings.Repeat("n", 1600)
	}
	big := map[string]any{"businessName": "Full Co", "customFields": fields}
	mustError(t, e.Post("/v1/leads", e.Key, big), http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE", "")
	r := awaitReadiness(t, e, http.StatusServiceUnavailable)
	mustError(t, r, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE", "")
	msg, _ := r.Body["errors"].([]any)[0].(map[string]any)["message"].(string)
	want := map[string]string{dialect.SQLite: "size limit", dialect.Postgres: "read-only"}[e.DB.Dialect]
	if !strings.HasPrefix(msg, "the database does not take writes: ") || !strings.Contains(msg, want) {
		t.Errorf("message = %q, want the reason (%s)", msg, want)
	}
	mustStatus(t, e.Get("/healthz", ""), http.StatusOK)
	mustStatus(t, e.Get("/status", ""), http.StatusOK) // reads still work
	restore()
	mustStatus(t, awaitReadiness(t, e, http.StatusOK), http.StatusOK)
	mustStatus(t, e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Room Again"}), http.StatusCreated)
}

// A write check that waits out its time for a busy writer leaves the
// server ready: under load a replica stays in the load balancer.
func TestReadinessWhileTheWriterIsBusy(t *testing.T) {
	e := resttest.New(t)
	mustStatus(t, e.Get("/readyz", ""), http.StatusOK) // the heartbeat row exists now
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- store.WithTx(rule.SystemContext(context.Background()), e.DB.Client, func(ctx context.Context, tx *ent.Client) error {
			// Holds SQLite's one writer, and PostgreSQL's lock on the heartbeat row.
			_, err := tx.ExecContext(ctx, "UPDATE heartbeats SET beats = beats + 1 WHERE id = 1")
			close(held)
			<-release
			return err
		})
	}()
	<-held
	time.Sleep(1100 * time.Millisecond) // the last check's outcome goes stale
	start := time.Now()
	r := e.Get("/readyz", "")
	waited := time.Since(start)
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustStatus(t, r, http.StatusOK)
	if waited < time.Second {
		t.Errorf("/readyz answered in %v: the check did not wait for the writer", waited)
	}
}
