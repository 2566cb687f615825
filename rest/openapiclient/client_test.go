package openapiclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"testing"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/openapiclient"
	"github.com/lendingpipe/svc/rest/resttest"
)

// The committed snapshot the client was generated from is the document the
// server serves, so the client is generated from the truth.
func TestSnapshotIsServed(t *testing.T) {
	snapshot, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	served, err := rest.OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := json.Compact(&a, snapshot); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&b, served); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("openapi.json is stale: run go generate ./...")
	}
}

// A client generated from the document creates, reads, patches and lists a
// lead against a live server (which checks each exchange against the
// document as well).
func TestGeneratedClient(t *testing.T) {
	e := resttest.New(t)
	bearer := func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+e.Key)
		return nil
	}
	c, err := openapiclient.NewClientWithResponses(e.Server.URL, openapiclient.WithRequestEditorFn(bearer))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	name, amount := "Harbor Freight Co", "75000.50"
	email := openapi_types.Email("ops@harbor.example")
	tags := []string{"vip"}
	key := "client-test-1"
	created, err := c.CreateLeadWithResponse(ctx, &openapiclient.CreateLeadParams{IdempotencyKey: &key}, openapiclient.LeadCreate{
		BusinessName: &name, Email: &email, RequestedAmount: &amount, Tags: &tags,
	})
	if err != nil {
		t.Fatal(err)
	}
	if created.JSON201 == nil {
		t.Fatalf("create: %d %s", created.StatusCode(), created.Body)
	}
	lead := created.JSON201.Data
	if *lead.Attributes.BusinessName != name || *lead.Attributes.Email != string(email) || *lead.Attributes.RequestedAmount != amount {
		t.Fatalf("created lead = %+v", lead.Attributes)
	}

	got, err := c.GetLeadWithResponse(ctx, lead.Id, nil)
	if err != nil || got.JSON200 == nil {
		t.Fatalf("get: %v %s", err, got.Body)
	}
	if got.JSON200.Data.Attributes.Stage.StageKey == "" || got.JSON200.Data.Attributes.Tags[0] != "vip" {
		t.Fatalf("got %+v", got.JSON200.Data.Attributes)
	}

	priority := openapiclient.LeadPatchPriority("urgent")
	industry := "Logistics"
	patched, err := c.UpdateLeadWithResponse(ctx, lead.Id, nil, openapiclient.LeadPatch{Priority: &priority, Industry: &industry})
	if err != nil || patched.JSON200 == nil {
		t.Fatalf("patch: %v %s", err, patched.Body)
	}
	if a := patched.JSON200.Data.Attributes; a.Priority != "urgent" || *a.Industry != industry || *a.BusinessName != name {
		t.Fatalf("patched %+v", a)
	}

	search := "harbor"
	list, err := c.ListLeadsWithResponse(ctx, &openapiclient.ListLeadsParams{Search: &search})
	if err != nil || list.JSON200 == nil {
		t.Fatalf("list: %v %s", err, list.Body)
	}
	if list.JSON200.Meta.Total != 1 || list.JSON200.Data[0].Id != lead.Id {
		t.Fatalf("list = %+v", list.JSON200)
	}

	missing, err := c.GetLeadWithResponse(ctx, [16]byte{1}, nil)
	if err != nil || missing.JSON404 == nil || missing.JSON404.Errors[0].Code != "NOT_FOUND" {
		t.Fatalf("missing lead: %v %d %s", err, missing.StatusCode(), missing.Body)
	}
}
