package rest_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
	"github.com/lendingpipe/svc/seed"
)

// export is a CSV export read whole: its header row and its rows, each
// as a map by column.
type export struct {
	header []string
	rows   []map[string]string
}

func (x export) ids() []string {
	out := make([]string, len(x.rows))
	for i, r := range x.rows {
		out[i] = r["id"]
	}
	return out
}

// getExport calls an export and parses it, holding it to the headers
// every export sends.
func getExport(t *testing.T, e *resttest.Env, path, key string) export {
	t.Helper()
	r := e.DoRaw(resttest.Request{Method: "GET", Path: path, Key: key})
	mustStatus(t, r, http.StatusOK)
	if got := r.Header.Get("Content-Type"); got != "text/csv; charset=utf-8" {
		t.Fatalf("Content-Type = %q", got)
	}
	name := strings.TrimSuffix(strings.TrimPrefix(strings.SplitN(path, "?", 2)[0], "/v1/exports/"), ".csv")
	want := fmt.Sprintf(`attachment; filename="%s-%s.csv"`, name, e.Clock.Now().UTC().Format(time.DateOnly))
	if got := r.Header.Get("Content-Disposition"); got != want {
		t.Fatalf("Content-Disposition = %q, want %q", got, want)
	}
	records, err := csv.NewReader(bytes.NewReader(r.Raw)).ReadAll()
	if err != nil {
		t.Fatalf("%s: not CSV: %v\n%s", path, err, r.Raw)
	}
	if len(records) == 0 {
		t.Fatalf("%s: no header row", path)
	}
	x := export{header: records[0]}
	for _, rec := range records[1:] {
		row := map[string]string{}
		for i, name := range x.header {
			row[name] = rec[i]
		}
		x.rows = append(x.rows, row)
	}
	return x
}

// listIDs pages through a list (100 at a time) and returns every id.
func listIDs(t *testing.T, e *resttest.Env, path, key string) []string {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var ids []string
	for page := 1; ; page++ {
		r := e.Get(fmt.Sprintf("%s%slimit=100&page=%d", path, sep, page), key)
		mustStatus(t, r, http.StatusOK)
		ids = append(ids, idsOf(r)...)
		if r.Meta()["hasMore"] != true {
			return ids
		}
	}
}

// mustMatchList holds an export to its list under the same query: the
// same ids in the same order.
func mustMatchList(t *testing.T, e *resttest.Env, list, query string) {
	t.Helper()
	path := list
	if query != "" {
		path += "?" + query
	}
	want := listIDs(t, e, path, e.Key)
	x := getExport(t, e, "/v1/exports/"+strings.TrimPrefix(list, "/v1/")+".csv"+strings.TrimPrefix(path, list), e.Key)
	if got := x.ids(); !slices.Equal(got, want) {
		t.Fatalf("%s: export ids %v, list ids %v", path, got, want)
	}
}

// mustRefuseAsList holds an export's answer to a malformed query to the
// list's: the same status, code and field.
func mustRefuseAsList(t *testing.T, e *resttest.Env, list, query string) {
	t.Helper()
	want := e.Get(list+"?"+query, e.Key)
	if want.Status < 400 {
		t.Fatalf("%s?%s: the list answered %d", list, query, want.Status)
	}
	got := e.Get("/v1/exports/"+strings.TrimPrefix(list, "/v1/")+".csv?"+query, e.Key)
	wantCode, wantField := want.Error()
	gotCode, gotField := got.Error()
	if got.Status != want.Status || gotCode != wantCode || gotField != wantField {
		t.Fatalf("%s?%s: export %d %s %q, list %d %s %q", list, query, got.Status, gotCode, gotField, want.Status, wantCode, wantField)
	}
}

func TestExportLeads(t *testing.T) {
	e := resttest.New(t)
	stages := e.Stages(e.Org.ID)
	advisor := e.NewUser(e.Org.ID, "Maya", "Lopez", "advisor", "")
	// The clock stands still: every lead has the same createdAt, so the
	// order (and the export's pages) rests on the id alone.
	full := createLead(t, e, e.Key, map[string]any{
		"businessName": "Acme, \"Trucking\" LLC", "contactFirstName": "Zoë", "contactLastName": "Doe",
		"email": "jane@acme.com", "phone": "+1 555 0100", "industry": "Logistics",
		"monthlyRevenue": "85000.00", "requestedAmount": "12500.00", "priority": "high", "source": "web_form",
		"tags": []string{"hot", "callback"}, "customFields": map[string]any{"fico": 720, "note": "line\nbreak"},
		"assignToAdvisorId": advisor.ID.String(), "stageId": stages[1].ID.String(),
	})
	bare := createLead(t, e, e.Key, map[string]any{"businessName": "Plain Bakery"})
	// PRODUCT 10.8: a text cell that would start a formula gets a leading '.
	dangerous := map[string]string{}
	for _, name := range []string{"=HYPERLINK(\"http://x\")", "+15550100", "-2+3", "@SUM(A1)", "\tTabbed", "\rReturned"} {
		dangerous[createLead(t, e, e.Key, map[string]any{"businessName": name})] = name
	}
	safe := map[string]string{}
	for _, name := range []string{"'Quoted", " =spaced", "Plain = fine", "1+1 Repairs"} {
		safe[createLead(t, e, e.Key, map[string]any{"businessName": name})] = name
	}

	t.Run("OK", func(t *testing.T) {
		x := getExport(t, e, "/v1/exports/leads.csv", e.Key)
		wantHeader := []string{"id", "businessName", "contactFirstName", "contactLastName", "email", "phone", "industry",
			"monthlyRevenue", "requestedAmount", "source", "priority", "isDoNotCall", "tags", "customFields", "externalIds",
			"leadScore", "stage.id", "stage.stageKey", "stage.stageLabel", "stage.color", "stage.semanticSlot",
			"primaryAdvisorId", "primaryAdvisorName", "contactId", "lastContactedAt", "stageChangedAt", "createdAt", "updatedAt",
			"dncReason", "dncAt", "convertedAt", "convertedAccountId", "convertedContactId", "importJobId", "createdBy"}
		if !slices.Equal(x.header, wantHeader) {
			t.Fatalf("header = %v", x.header)
		}
		if want := listIDs(t, e, "/v1/leads", e.Key); !slices.Equal(x.ids(), want) {
			t.Fatalf("ids = %v, want the list's %v", x.ids(), want)
		}
		rows := map[string]map[string]string{}
		for _, r := range x.rows {
			rows[r["id"]] = r
		}
		list := e.Get("/v1/leads/"+full, e.Key).Data()["attributes"].(map[string]any)
		want := map[string]string{
			"businessName": `Acme, "Trucking" LLC`, "contactFirstName": "Zoë", "phone": "'+1 555 0100",
			"monthlyRevenue": "85000.00", "requestedAmount": "12500.00", "source": "web_form", "priority": "high",
			"isDoNotCall": "false", "tags": "hot;callback", "customFields": `{"fico":720,"note":"line\nbreak"}`, "externalIds": "",
			"leadScore": "", "stage.id": stages[1].ID.String(), "stage.stageLabel": stages[1].StageLabel,
			"primaryAdvisorId": advisor.ID.String(), "primaryAdvisorName": "Maya Lopez", "lastContactedAt": "",
			"createdAt": list["createdAt"].(string), "updatedAt": list["updatedAt"].(string), "createdBy": list["createdBy"].(string),
		}
		for col, v := range want {
			if got := rows[full][col]; got != v {
				t.Errorf("%s = %q, want %q", col, got, v)
			}
		}
		if _, err := time.Parse(time.RFC3339, rows[full]["createdAt"]); err != nil || !strings.HasSuffix(rows[full]["createdAt"], "Z") {
			t.Errorf("createdAt %q is not RFC 3339 in UTC", rows[full]["createdAt"])
		}
		if got := rows[bare]["requestedAmount"] + rows[bare]["tags"] + rows[bare]["customFields"] + rows[bare]["primaryAdvisorName"]; got != "" {
			t.Errorf("absent values = %q, want empty cells", got)
		}
		for id, name := range dangerous {
			if got := rows[id]["businessName"]; got != "'"+name {
				t.Errorf("businessName %q written %q, want it after a '", name, got)
			}
		}
		for id, name := range safe {
			if got := rows[id]["businessName"]; got != name {
				t.Errorf("businessName %q written %q, want it as it is", name, got)
			}
		}
	})

	t.Run("Filters", func(t *testing.T) {
		for _, q := range []string{
			"stageId=" + stages[1].ID.String(), "stageId=" + stages[0].ID.String(), "priority=high", "source=web_form",
			"primaryAdvisorId=" + advisor.ID.String(), "tags=hot", "tags=hot,callback", "tags=cold",
			"createdFrom=" + url.QueryEscape(apitime.Format(e.Clock.Now())), "createdTo=2000-01-01", "search=acme", "search=plain",
			"search=", "priority=normal&source=manual", "search=acme&priority=high",
		} {
			mustMatchList(t, e, "/v1/leads", q)
		}
	})

	t.Run("ErrMalformedFilter", func(t *testing.T) {
		for _, q := range []string{"stageId=nope", "priority=highest", "source=fax", "createdFrom=yesterday",
			"createdFrom=2026-02-01&createdTo=2026-01-01", "tags=" + strings.Repeat("t", 51), "search=acme&priority=highest",
			"search=" + strings.Repeat("s", 201), "limit=5", "page=2", "colour=red"} {
			if strings.HasPrefix(q, "limit") || strings.HasPrefix(q, "page") {
				// The list pages; the export takes every row, so no page.
				_, field := e.Get("/v1/exports/leads.csv?"+q, e.Key).Error()
				if field != strings.Split(q, "=")[0] {
					t.Errorf("%s: field %q, want 422 naming it", q, field)
				}
				continue
			}
			mustRefuseAsList(t, e, "/v1/leads", q)
		}
	})

	t.Run("ErrScope", func(t *testing.T) {
		key := e.NewKey(e.Org.ID, viewer.ScopeLendingRead)
		mustError(t, e.Get("/v1/exports/leads.csv", key), http.StatusForbidden, "FORBIDDEN", "")
		mustError(t, e.Get("/v1/exports/leads.csv?search=acme", key), http.StatusForbidden, "FORBIDDEN", "")
	})

	t.Run("Isolation", func(t *testing.T) {
		other, key := e.NewOrg("Other Brokers", viewer.AllScopes...)
		mine := createLead(t, e, key, map[string]any{"businessName": "Other Acme"})
		for _, path := range []string{"/v1/exports/leads.csv", "/v1/exports/leads.csv?search=acme",
			"/v1/exports/leads.csv?stageId=" + stages[1].ID.String()} {
			x := getExport(t, e, path, key)
			for _, id := range x.ids() {
				if id != mine {
					t.Fatalf("%s: org %s saw %s", path, other.ID, id)
				}
			}
		}
	})
}

// An export of more rows than a page reads (seeded, so createdAt spreads
// over a year with ties to the second) holds every lead once, in the
// list's order.
func TestExportLeadsPages(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 2,500 leads")
	}
	e := resttest.New(t)
	if err := seed.Leads(context.Background(), e.DB, e.Org.ID, 2500, nil); err != nil {
		t.Fatal(err)
	}
	x := getExport(t, e, "/v1/exports/leads.csv", e.Key)
	if len(x.rows) != 2500 {
		t.Fatalf("%d rows, want 2500", len(x.rows))
	}
	if want := listIDs(t, e, "/v1/leads", e.Key); !slices.Equal(x.ids(), want) {
		t.Fatal("the export's ids differ from the list's")
	}
	mustMatchList(t, e, "/v1/leads", "source=web_form")
}

func TestExportLending(t *testing.T) {
	e := resttest.New(t)
	b := newLendingBook(t, e)

	t.Run("Applications", func(t *testing.T) {
		x := getExport(t, e, "/v1/exports/applications.csv", e.Key)
		if want := listIDs(t, e, "/v1/applications", e.Key); !slices.Equal(x.ids(), want) {
			t.Fatalf("ids = %v, want %v", x.ids(), want)
		}
		if x.header[0] != "id" || !slices.Contains(x.header, "requestedAmount") || !slices.Contains(x.header, "conditions") {
			t.Fatalf("header = %v", x.header)
		}
		for _, q := range []string{"leadId=" + b.leadA, "lenderId=" + b.summit, "status=funded", "status=approved",
			"leadId=" + b.leadC + "&lenderId=" + b.harbor + "&status=declined"} {
			mustMatchList(t, e, "/v1/applications", q)
		}
		for _, q := range []string{"leadId=lead-a", "status=open", "status=FUNDED", "colour=red"} {
			mustRefuseAsList(t, e, "/v1/applications", q)
		}
	})

	t.Run("FundedDeals", func(t *testing.T) {
		x := getExport(t, e, "/v1/exports/funded-deals.csv", e.Key)
		if want := []string{b.d1, b.d2}; !slices.Equal(x.ids(), want) {
			t.Fatalf("ids = %v, want %v", x.ids(), want)
		}
		d1 := x.rows[0]
		for col, v := range map[string]string{"fundedAmount": "40000.40", "interestRate": "0.189", "commission": "500.00",
			"paybackAmount": "", "lenderName": "Harbor Funding", "fundedAt": ts(b.d1FundedAt), "advisorId": b.maya} {
			if d1[col] != v {
				t.Errorf("%s = %q, want %q", col, d1[col], v)
			}
		}
		if got := x.rows[1]["paybackAmount"]; got != "270000.40" {
			t.Errorf("d2 paybackAmount = %q", got)
		}
		day := b.d2FundedAt.UTC().Format(time.DateOnly)
		for _, q := range []string{"leadId=" + b.leadB, "lenderId=" + b.harbor, "advisorId=" + b.sam,
			"fundedFrom=" + day + "&fundedTo=" + day, "fundedFrom=" + url.QueryEscape(ts(b.d1FundedAt))} {
			mustMatchList(t, e, "/v1/funded-deals", q)
		}
		for _, q := range []string{"fundedFrom=2026-02-30", "fundedFrom=2026-02-01&fundedTo=2026-01-01", "advisorId=x"} {
			mustRefuseAsList(t, e, "/v1/funded-deals", q)
		}
	})

	t.Run("Commissions", func(t *testing.T) {
		x := getExport(t, e, "/v1/exports/commissions.csv", e.Key)
		if want := listIDs(t, e, "/v1/commissions", e.Key); !slices.Equal(x.ids(), want) {
			t.Fatalf("ids = %v, want %v", x.ids(), want)
		}
		var c2 map[string]string
		for _, r := range x.rows {
			if r["id"] == b.c2 {
				c2 = r
			}
		}
		if c2["paidAmount"] != "600.00" || c2["status"] != "clawed_back" {
			t.Errorf("c2 = %v", c2)
		}
		if p := c2["payments"]; !strings.HasPrefix(p, `[{"amount":"1000.00","kind":"payment"`) || !strings.Contains(p, `"kind":"clawback"`) {
			t.Errorf("payments = %q, want the list's payments as JSON", p)
		}
		for _, q := range []string{"dealId=" + b.d1, "lenderId=" + b.summit, "advisorId=" + b.maya, "status=clawed_back", "status=pending"} {
			mustMatchList(t, e, "/v1/commissions", q)
		}
		for _, q := range []string{"dealId=x", "status=bogus"} {
			mustRefuseAsList(t, e, "/v1/commissions", q)
		}
	})

	t.Run("ErrScope", func(t *testing.T) {
		key := e.NewKey(e.Org.ID, viewer.ScopeLeadsRead)
		for _, x := range []string{"applications", "funded-deals", "commissions"} {
			mustError(t, e.Get("/v1/exports/"+x+".csv", key), http.StatusForbidden, "FORBIDDEN", "")
		}
	})
}
