package graph_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// nextEvent reads the next events message of c, failing on anything else.
func nextEvent(t *testing.T, c *wsClient) map[string]any {
	t.Helper()
	m, err := c.read(5 * time.Second)
	if err != nil || m.Type != "next" {
		t.Fatalf("got %+v, %v; want an event", m, err)
	}
	data, _ := m.Payload["data"].(map[string]any)
	ev, _ := data["events"].(map[string]any)
	if ev == nil {
		t.Fatalf("got %+v, want an event", m)
	}
	return ev
}

// openEvents opens a socket authenticated with key and subscribes to query.
func openEvents(t *testing.T, e *resttest.Env, key, query string) *wsClient {
	t.Helper()
	c := dialWS(t, e, "graphql-transport-ws", nil)
	c.mustInit(key)
	c.start("1", query)
	return c
}

// The events subscription sends the organization's events in the webhook
// envelope, only of the types asked for and the key may read; another
// organization hears nothing.
func TestEventsSubscription(t *testing.T) {
	e := resttest.New(t)
	created := openEvents(t, e, e.Key, `subscription { events(types: ["lead.created"]) { id event timestamp data } }`)
	all := openEvents(t, e, e.Key, eventsSubscription)
	_, otherKey := e.NewOrg("Other", viewer.AllScopes...)
	other := openEvents(t, e, otherKey, eventsSubscription)
	lendingOnly := openEvents(t, e, e.NewKey(e.Org.ID, viewer.ScopeLendingRead), eventsSubscription)
	time.Sleep(100 * time.Millisecond) // let the subscriptions start before the changes

	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Live Lead"}).Data()["id"].(string)
	e.Patch("/v1/leads/"+lead, e.Key, map[string]any{"businessName": "Live Lead Renamed"})
	second := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Second Lead"}).Data()["id"].(string)

	for i, want := range []string{lead, second} {
		ev := nextEvent(t, created)
		data := ev["data"].(map[string]any)
		if ev["event"] != "lead.created" || data["leadId"] != want || !strings.HasPrefix(ev["id"].(string), "evt_") || ev["timestamp"] == nil {
			t.Errorf("lead.created subscriber, event %d: got %v, want lead.created of %s", i, ev, want)
		}
	}
	var types []string
	for range 3 {
		types = append(types, nextEvent(t, all)["event"].(string))
	}
	if fmt.Sprint(types) != "[lead.created lead.updated lead.created]" {
		t.Errorf("every-type subscriber got %v", types)
	}
	// Nothing else arrived before each socket's pong.
	for _, c := range []*wsClient{created, all, other, lendingOnly} {
		c.mustBeOpen()
	}
}

// An unknown type is a VALIDATION_ERROR and one the key may not read
// FORBIDDEN, each naming the type.
func TestEventsSubscriptionRefusals(t *testing.T) {
	e := resttest.New(t)
	cases := []struct {
		key, types, code, says string
	}{
		{e.Key, `["lead.exploded"]`, "VALIDATION_ERROR", "lead.exploded"},
		{e.NewKey(e.Org.ID, viewer.ScopeLendingRead), `["lead.created"]`, "FORBIDDEN", "leads:read"},
		{e.NewKey(e.Org.ID, viewer.ScopeLendingRead), `["app.installed"]`, "FORBIDDEN", "admin"},
		{e.NewKey(e.Org.ID, viewer.ScopeDialerWrite), `null`, "FORBIDDEN", "no scope"},
	}
	for _, c := range cases {
		t.Run(c.types+" "+c.code, func(t *testing.T) {
			ws := dialWS(t, e, "graphql-transport-ws", nil)
			ws.mustInit(c.key)
			ws.start("1", `subscription { events(types: `+c.types+`) { id } }`)
			m, err := ws.read(5 * time.Second)
			if err != nil || wsErrorCode(m) != c.code || !strings.Contains(fmt.Sprint(m.Payload), c.says) {
				t.Fatalf("got %+v, %v; want %s naming %s", m, err, c.code, c.says)
			}
		})
	}
}

// subscriptionIsolation lists, for every Subscription field, a
// subscription by another organization's key that org A's changes must not
// reach.
var subscriptionIsolation = map[string]string{
	"Subscription.agentPresenceChanged": presenceSubscription,
	"Subscription.events":               eventsSubscription,
	// Another organization's job id is NOT_FOUND (the GraphQL matrix).
	"Subscription.importJobProgress": "",
	// A person's own only: another organization's key is bound to no one
	// (FORBIDDEN), and its person is another user (TestNotificationAdded).
	"Subscription.notificationAdded": "",
}

// The isolation matrix of subscriptions: another organization's subscriber
// of each field hears none of org A's changes.
func TestSubscriptionIsolation(t *testing.T) {
	e := resttest.New(t)
	_, otherKey := e.NewOrg("Other", viewer.AllScopes...)
	var open []*wsClient
	for _, field := range subscriptionFields() {
		q, ok := subscriptionIsolation[field]
		if !ok {
			t.Errorf("%s has no entry in the subscription isolation matrix", field)
		}
		if q == "" {
			continue
		}
		c := dialWS(t, e, "graphql-transport-ws", nil)
		c.mustInit(otherKey)
		c.start("1", q)
		open = append(open, c)
	}
	own := dialWS(t, e, "graphql-transport-ws", nil)
	own.mustInit(e.Key)
	own.start("1", eventsSubscription)
	time.Sleep(100 * time.Millisecond)
	agent := e.NewUser(e.Org.ID, "Ida", "Isolated", "agent", "")
	e.Post("/v1/dialer/presence", e.Key, map[string]any{"userId": agent.ID, "status": "available"})
	e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Org A Only"})
	nextEvent(t, own) // org A's change has been published
	for _, c := range open {
		c.mustBeOpen()
	}
}

func subscriptionFields() []string {
	var out []string
	for _, f := range graph.NewExecutableSchema(graph.Config{}).Schema().Types["Subscription"].Fields {
		if !strings.HasPrefix(f.Name, "__") {
			out = append(out, "Subscription."+f.Name)
		}
	}
	return out
}
