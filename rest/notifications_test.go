package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// notified is an organization with an advisor who signs in through a key
// bound to them, and a key bound to no one that makes the decisions.
type notified struct {
	key, advisorKey, colleagueKey string
	advisor                       uuid.UUID
	lender                        string
}

func newNotified(t *testing.T, db *store.DB, writer string) notified {
	t.Helper()
	org, key := resttest.OrgWithKey(t, db, "Notified", viewer.AllScopes...)
	n := notified{key: key}
	bound := func(first string) (uuid.UUID, string) {
		u, err := store.CreateUser(context.Background(), db.Client, store.UserSpec{OrgID: org.ID, First: first, Last: "Advisor",
			Email: first + "@notified.example", Role: "advisor"})
		if err != nil {
			t.Fatal(err)
		}
		k, _, err := store.CreateKey(context.Background(), db.Client, org.ID, store.KeySpec{Kind: "live", Name: first + "'s",
			Scopes: []string{viewer.ScopeLeadsRead}, UserID: &u.ID})
		if err != nil {
			t.Fatal(err)
		}
		return u.ID, k
	}
	n.advisor, n.advisorKey = bound("ada")
	_, n.colleagueKey = bound("cole")
	n.lender = gqlAt(t, writer, key, `mutation { createLender(input: {name: "Northwind Capital", commissionRate: "0.05"}) { id } }`, nil)["createLender"].(map[string]any)["id"].(string)
	return n
}

// decide submits a new lead of the advisor's to the lender and approves
// it through writer: the advisor is notified of the decision.
func (n notified) decide(t *testing.T, writer string, i int) string {
	t.Helper()
	app := n.submit(t, writer, i)
	n.approve(t, writer, app)
	return app
}

// submit submits a new lead of the advisor's to the lender through writer
// and returns the application's id.
func (n notified) submit(t *testing.T, writer string, i int) string {
	t.Helper()
	code, body := send(t, "POST", writer+"/v1/leads", n.key, nil,
		fmt.Sprintf(`{"businessName":"Notified %d","requestedAmount":"50000.00","assignToAdvisorId":%q}`, i, n.advisor))
	if code != http.StatusCreated {
		t.Fatalf("lead: %d %v", code, body)
	}
	lead := body["data"].(map[string]any)["id"].(string)
	app := gqlAt(t, writer, n.key, `mutation($lead: ID!, $lender: ID!) { submitApplication(input: {leadId: $lead, lenderId: $lender}) { id } }`,
		map[string]any{"lead": lead, "lender": n.lender})["submitApplication"].(map[string]any)["id"].(string)
	return app
}

// approve approves the application app through writer.
func (n notified) approve(t *testing.T, writer, app string) {
	t.Helper()
	gqlAt(t, writer, n.key, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, approvedAmount: "40000.00",
		interestRate: "1.3", rateType: factor, termMonths: 10}) { id } }`, map[string]any{"id": app})
}

// gqlAt runs a GraphQL operation on the server at base and fails the test
// on any error.
func gqlAt(t *testing.T, base, key, query string, vars map[string]any) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	code, body := send(t, "POST", base+"/graphql", key, nil, string(raw))
	if code != http.StatusOK || body["errors"] != nil {
		t.Fatalf("GraphQL %d: %v", code, body)
	}
	return body["data"].(map[string]any)
}

const notificationAdded = "subscription { notificationAdded { id kind recordId leadId summary readAt } }"

// notificationsReach checks that the advisor's subscriber on listener
// hears each decision made through writer, once, with its record, and
// that a colleague's subscriber hears none of them.
func notificationsReach(t *testing.T, n notified, writer, listener string, count int) {
	t.Helper()
	sub := wsSubscribe(t, listener, n.advisorKey, notificationAdded)
	colleague := wsSubscribe(t, listener, n.colleagueKey, notificationAdded)
	i := 0
	warmUp(t, sub, "notificationAdded", func() { i++; n.decide(t, writer, i) })
	var ds []time.Duration
	for range count {
		i++
		app := n.submit(t, writer, i)
		sent := time.Now()
		n.approve(t, writer, app)
		got := sub.next("notificationAdded", arrival)
		if got == nil {
			t.Fatalf("the decision of %s did not reach the subscriber within %s", app, arrival)
		}
		ds = append(ds, time.Since(sent))
		if got["kind"] != "application.decided" || got["recordId"] != app || got["leadId"] == nil ||
			got["summary"] != "Northwind Capital approved 40000.00" || got["readAt"] != nil {
			t.Fatalf("got %v, want the decision of %s", got, app)
		}
	}
	latencies(t, "notificationAdded from the decision's request", ds)
	if m := sub.read(200 * time.Millisecond); m != nil {
		t.Errorf("a notification came twice, or one too many: %v", m)
	}
	if m := colleague.read(200 * time.Millisecond); m != nil {
		t.Errorf("a colleague's subscriber received %v", m)
	}
}

// notificationAdded on one server: the advisor's subscriber hears each
// decision on their leads as it commits, a colleague's hears none, and a
// key bound to no one is refused (notifications are a person's).
func TestNotificationAddedOverWebsocket(t *testing.T) {
	e := resttest.New(t)
	n := newNotified(t, e.DB, e.Server.URL)
	notificationsReach(t, n, e.Server.URL, e.Server.URL, 5)

	// The refusal comes as the subscription's result with its errors (or
	// as an error message): FORBIDDEN either way.
	c := wsSubscribe(t, e.Server.URL, n.key, notificationAdded)
	m := c.read(arrival)
	var errs []any
	switch p := m["payload"].(type) {
	case []any:
		errs = p
	case map[string]any:
		errs, _ = p["errors"].([]any)
	}
	if len(errs) == 0 || errs[0].(map[string]any)["extensions"].(map[string]any)["code"] != "FORBIDDEN" {
		t.Errorf("a key bound to no one got %v, want FORBIDDEN", m)
	}
}

// notificationAdded across replicas: a decision made through replica A
// reaches the advisor's subscriber on replica B, over PostgreSQL's
// LISTEN/NOTIFY or Redis.
func TestNotificationAddedAcrossReplicas(t *testing.T) {
	for _, kind := range []string{store.BusPostgres, store.BusRedis} {
		t.Run(kind, func(t *testing.T) {
			reps := busReplicas(t, kind)
			n := newNotified(t, reps[0].db, reps[0].srv.URL)
			notificationsReach(t, n, reps[0].srv.URL, reps[1].srv.URL, 20)
		})
	}
}
