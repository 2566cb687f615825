package graph_test

import (
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// notificationAdded brings the person their notifications as they commit,
// and nobody else's: not another person's of the organization, not
// another organization's. A key bound to no one is FORBIDDEN.
func TestNotificationAdded(t *testing.T) {
	e := resttest.New(t)
	a := graphFixtures(t, e)
	other := e.NewUser(e.Org.ID, "Otto", "Other", "advisor", "Closers")
	data, code := gql(t, e, e.Key, `mutation($u: ID!) { createApiKey(input: {name: "Otto's", scopes: ["admin"], userId: $u}) { secret } }`,
		map[string]any{"u": other.ID.String()})
	if code != "" {
		t.Fatal(code)
	}
	otherPerson := data["createApiKey"].(map[string]any)["secret"].(string)
	// A colleague cannot read the person's notification by its id.
	data, code = gql(t, e, otherPerson, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": a["notification"]})
	if code != "NOT_FOUND" || data["node"] != nil {
		t.Errorf("a colleague's node(id) of the notification: %v %s; want NOT_FOUND", data, code)
	}
	if data, code = gql(t, e, a["personKey"], `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": a["notification"]}); code != "" {
		t.Errorf("its person's node(id): %v %s", data, code)
	}
	_, otherOrgKey := e.NewOrg("Other Org", viewer.AllScopes...)

	mine := dialWS(t, e, "graphql-transport-ws", nil)
	mine.mustInit(a["personKey"])
	mine.start("1", `subscription { notificationAdded { id kind leadId summary readAt } }`)
	theirs := dialWS(t, e, "graphql-transport-ws", nil)
	theirs.mustInit(otherPerson)
	theirs.start("1", `subscription { notificationAdded { id } }`)
	nobody := dialWS(t, e, "graphql-transport-ws", nil)
	nobody.mustInit(otherOrgKey)
	nobody.start("1", `subscription { notificationAdded { id } }`)
	if m, err := nobody.read(5 * time.Second); err != nil || wsErrorCode(m) != "FORBIDDEN" {
		t.Fatalf("a key bound to no one: %+v, %v; want FORBIDDEN", m, err)
	}
	time.Sleep(100 * time.Millisecond) // the subscriptions are listening

	// The key (not the advisor) declines the advisor's lead's open
	// application: the advisor is told.
	_, code = gql(t, e, e.Key, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: DECLINED, reason: "no"}) { id } }`,
		map[string]any{"id": a["openApplication"]})
	if code != "" {
		t.Fatal(code)
	}
	m, err := mine.read(5 * time.Second)
	if err != nil || m.Type != "next" {
		t.Fatalf("got %+v, %v; want the notification", m, err)
	}
	n := m.Payload["data"].(map[string]any)["notificationAdded"].(map[string]any)
	if n["kind"] != "application.decided" || n["leadId"] != a["lead"] || n["readAt"] != nil {
		t.Errorf("notification %v; want an unread application.decided of the lead", n)
	}
	theirs.mustBeOpen()
	mine.mustBeOpen()
}
