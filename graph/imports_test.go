package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/rest/resttest"
)

const importMutation = `mutation($file: Upload!, $mapping: JSON, $dedupe: ImportDedupe) {
  importLeads(file: $file, mapping: $mapping, dedupe: $dedupe) { id status filename dedupe mapping createdBy }
}`

const jobFields = `id status rowsTotal rowsImported rowsSkipped rowsFailed failure finishedAt
  errors { row field code message }`

// startImport sends importLeads and answers the response.
func startImport(t *testing.T, e *resttest.Env, key string, content []byte, vars map[string]any) *resttest.Response {
	t.Helper()
	return e.Upload(key, importMutation, maps.Clone(vars), resttest.File{Var: "file", Name: "leads.csv", Content: content})
}

// mustStart starts an import and answers its job's id.
func mustStart(t *testing.T, e *resttest.Env, key string, content []byte, vars map[string]any) string {
	t.Helper()
	r := startImport(t, e, key, content, vars)
	job, _ := r.Data()["importLeads"].(map[string]any)
	if r.Status != http.StatusOK || job == nil {
		t.Fatalf("importLeads: status %d: %s", r.Status, r.Raw)
	}
	if job["status"] != "queued" {
		t.Errorf("status = %v, want queued at once", job["status"])
	}
	return job["id"].(string)
}

// waitJob polls importJob until the job ends.
func waitJob(t *testing.T, e *resttest.Env, key, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		data, code := gql(t, e, key, `query($id: ID!) { importJob(id: $id) { `+jobFields+` } }`, map[string]any{"id": id})
		if code != "" {
			t.Fatalf("importJob: %s", code)
		}
		job, _ := data["importJob"].(map[string]any)
		if job == nil {
			t.Fatalf("importJob(%s) is null", id)
		}
		if s := job["status"]; s == "done" || s == "failed" {
			return job
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("import %s did not end within a minute", id)
	return nil
}

func rowErrors(job map[string]any) []map[string]any {
	list, _ := job["errors"].([]any)
	out := make([]map[string]any, len(list))
	for i, x := range list {
		out[i], _ = x.(map[string]any)
	}
	return out
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

func TestImportLeadsEndToEnd(t *testing.T) {
	e := resttest.New(t)
	file := "\ufeffCompany,First Name,E-mail,Phone Number,Loan Amount,Tags,Priority,Notes\r\n" +
		"\"Acme, Inc.\",Ada,ada@acme.test,555-0100,\"$12,500.00\",\"a; b\",High,x\r\n" + // line 2
		"Bolt LLC,Bo,not-an-email,555-0101,5000,,,\r\n" + // line 3: email invalid
		"\"Multi\nLine Co\",Cy,cy@multi.test,,,,,\r\n" + // lines 4-5: a quoted line break
		"Short,Row\r\n" + // line 6: ragged
		"Bad\"Quote,Di,di@x.test,,,,,\r\n" + // line 7: broken quoting
		"Dough Co,Dee,dee@dough.test,,12x,,,\r\n" + // line 8: amount invalid
		"Last Co,Le,le@last.test,,,,urgent,\r\n" // line 9
	id := mustStart(t, e, e.Key, []byte(file), nil)
	job := waitJob(t, e, e.Key, id)
	if job["status"] != "done" {
		t.Fatalf("job = %v, want done", job)
	}
	if got := [4]int{num(job["rowsTotal"]), num(job["rowsImported"]), num(job["rowsSkipped"]), num(job["rowsFailed"])}; got != [4]int{7, 3, 0, 4} {
		t.Errorf("total, imported, skipped, failed = %v, want [7 3 0 4]", got)
	}
	errs := rowErrors(job)
	want := []struct {
		row         int
		field, code string
	}{{3, "email", "VALIDATION_ERROR"}, {6, "", "BAD_REQUEST"}, {7, "", "BAD_REQUEST"}, {8, "requestedAmount", "VALIDATION_ERROR"}}
	if len(errs) != len(want) {
		t.Fatalf("errors = %v, want %d", errs, len(want))
	}
	for i, w := range want {
		field, _ := errs[i]["field"].(string)
		if w.field == "" && errs[i]["field"] != nil {
			t.Errorf("error %d names field %v, want null for a row that could not be read", i, errs[i]["field"])
		}
		if num(errs[i]["row"]) != w.row || field != w.field || errs[i]["code"] != w.code {
			t.Errorf("error %d = %v, want row %d field %q code %s", i, errs[i], w.row, w.field, w.code)
		}
	}

	t.Run("RowErrorsAsPostLeads", func(t *testing.T) {
		for i, body := range []map[string]any{
			{"businessName": "Bolt LLC", "contactFirstName": "Bo", "email": "not-an-email", "phone": "555-0101", "requestedAmount": "5000"},
			{"businessName": "Dough Co", "contactFirstName": "Dee", "email": "dee@dough.test", "requestedAmount": "12x"},
		} {
			r := e.Post("/v1/leads", e.Key, body)
			code, field := r.Error()
			imported := errs[[]int{0, 3}[i]]
			if code != imported["code"] || field != imported["field"] {
				t.Errorf("POST /v1/leads answers %s %s; the import recorded %v", code, field, imported)
			}
			msg, _ := r.Body["errors"].([]any)[0].(map[string]any)["message"].(string)
			if !strings.Contains(msg, imported["message"].(string)) {
				t.Errorf("POST /v1/leads says %q; the import recorded %q", msg, imported["message"])
			}
		}
	})

	t.Run("Leads", func(t *testing.T) {
		ctx := rule.SystemContext(context.Background())
		leads, err := e.DB.Client.Lead.Query().Where(lead.OrgID(e.Org.ID), lead.ImportJobIDNotNil()).
			Order(lead.ByBusinessName()).All(ctx)
		must(t, err)
		if len(leads) != 3 {
			t.Fatalf("%d imported leads, want 3", len(leads))
		}
		acme := leads[0]
		if *acme.BusinessName != "Acme, Inc." || *acme.RequestedAmount != "12500.00" || acme.Priority != lead.PriorityHigh ||
			strings.Join(acme.Tags, "|") != "a|b" || *acme.Email != "ada@acme.test" || *acme.Phone != "555-0100" {
			t.Errorf("Acme = %+v", acme)
		}
		if *leads[2].BusinessName != "Multi\nLine Co" {
			t.Errorf("the quoted line break was lost: %q", *leads[2].BusinessName)
		}
		for _, l := range leads {
			if l.Source != lead.SourceCsvImport || l.ImportJobID == nil || l.ImportJobID.String() != id || l.CreatedBy == nil {
				t.Errorf("lead %v: source %s importJobId %v createdBy %v", l.BusinessName, l.Source, l.ImportJobID, l.CreatedBy)
			}
		}
		// createdBy is the importing key, as POST /v1/leads records it.
		r := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Posted"})
		if want := r.Attr("createdBy"); want != *acme.CreatedBy {
			t.Errorf("createdBy = %v, POST /v1/leads says %v", *acme.CreatedBy, want)
		}
		var created []string
		for _, l := range leads {
			created = append(created, l.ID.String())
		}
		events, err := e.DB.Client.WebhookEvent.Query().Where(webhookevent.OrgID(e.Org.ID), webhookevent.EventType("lead.created")).All(ctx)
		must(t, err)
		seen := map[string]int{}
		for _, ev := range events {
			seen[fmt.Sprint(ev.Data["leadId"])]++
		}
		for _, id := range created {
			if seen[id] != 1 {
				t.Errorf("lead %s has %d lead.created events, want 1 (events %v)", id, seen[id], seen)
			}
		}
	})

	t.Run("CountsAsRebuilt", func(t *testing.T) {
		// The batch adds its leads to the stage counts and lead days at its
		// end: they equal what a rebuild computes from the leads.
		kept := rollupRows(t, e.DB.Client, e.Org.ID)
		if len(kept) == 0 {
			t.Fatal("the import left no counts")
		}
		must(t, analytics.RebuildRollups(context.Background(), e.DB.Client, e.Org.ID))
		if d := rowsDiff(rollupRows(t, e.DB.Client, e.Org.ID), kept); d != "" {
			t.Errorf("rebuilt counts differ from the kept ones:\n%s", d)
		}
		data, code := gql(t, e, e.Key, `{ leads { totalCount } }`, nil)
		n, err := e.DB.Client.Lead.Query().Where(lead.OrgID(e.Org.ID)).Count(rule.SystemContext(context.Background()))
		must(t, err)
		if code != "" || num(data["leads"].(map[string]any)["totalCount"]) != n {
			t.Errorf("leads.totalCount = %v (%s), want %d", data, code, n)
		}
	})

	t.Run("FileRemoved", func(t *testing.T) {
		j, err := e.DB.Client.ImportJob.Get(rule.SystemContext(context.Background()), uuidOf(t, id))
		must(t, err)
		if j.StorageKey != nil || j.ClaimToken != nil {
			t.Errorf("a done job still names its file (%v) or a claim (%v)", j.StorageKey, j.ClaimToken)
		}
	})
}

func uuidOf(t *testing.T, s string) uuid.UUID {
	t.Helper()
	id, err := uuid.Parse(s)
	must(t, err)
	return id
}

func TestImportDedupe(t *testing.T) {
	e := resttest.New(t)
	if r := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Old", "email": "Dup@Example.test", "phone": "555-0100"}); r.Status != http.StatusCreated {
		t.Fatalf("creating the existing lead: %d %s", r.Status, r.Raw)
	}
	file := "Business Name,Email,Phone\n" +
		"A,dup@example.test,555-0199\n" + // email of the existing lead
		"B,new@example.test,555-0100\n" + // phone of the existing lead
		"C,NEW@example.test,555-0101\n" + // email of row B
		"D,,555-0101\n" + // phone of row C
		"E,,\n" // neither
	for _, tc := range []struct {
		dedupe                     string
		imported, skipped, invalid int
	}{
		{"NONE", 5, 0, 0},
		{"EMAIL", 3, 2, 0}, // A, C skipped
		{"PHONE", 3, 2, 0}, // B, D skipped
	} {
		t.Run(tc.dedupe, func(t *testing.T) {
			org, key := e.NewOrg("Dedupe "+tc.dedupe, viewer.AllScopes...)
			if r := e.Post("/v1/leads", key, map[string]any{"businessName": "Old", "email": "Dup@Example.test", "phone": "555-0100"}); r.Status != http.StatusCreated {
				t.Fatalf("creating the existing lead: %d %s", r.Status, r.Raw)
			}
			id := mustStart(t, e, key, []byte(file), map[string]any{"dedupe": tc.dedupe})
			job := waitJob(t, e, key, id)
			if got := [3]int{num(job["rowsImported"]), num(job["rowsSkipped"]), num(job["rowsFailed"])}; got != [3]int{tc.imported, tc.skipped, tc.invalid} {
				t.Errorf("imported, skipped, failed = %v, want %v", got, [3]int{tc.imported, tc.skipped, tc.invalid})
			}
			n, err := e.DB.Client.Lead.Query().Where(lead.OrgID(org.ID)).Count(rule.SystemContext(context.Background()))
			must(t, err)
			if n != tc.imported+1 {
				t.Errorf("%d leads, want %d", n, tc.imported+1)
			}
		})
	}
}

func TestImportRefusals(t *testing.T) {
	e := resttest.New(t, func(c *rest.Config) { c.GraphQL.Uploads.Import = 1000 })
	for _, tc := range []struct {
		name        string
		file        string
		vars        map[string]any
		status      int
		code, field string
	}{
		{"NotUTF8", "Company\nCaf\xe9 Ltd\n", nil, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", ""},
		{"Empty", "", nil, http.StatusUnprocessableEntity, "VALIDATION_ERROR", "file"},
		{"OnlyABOM", "\ufeff", nil, http.StatusUnprocessableEntity, "VALIDATION_ERROR", "file"},
		{"TooLarge", "Company\n" + strings.Repeat("Acme\n", 300), nil, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", ""},
		{"NoLeadColumns", "Foo,Bar\n1,2\n", nil, http.StatusUnprocessableEntity, "VALIDATION_ERROR", "file"},
		{"MappingNotAnObject", "Company\nAcme\n", map[string]any{"mapping": []any{"x"}}, http.StatusOK, "VALIDATION_ERROR", "mapping"},
		{"MappingUnknownField", "Company\nAcme\n", map[string]any{"mapping": map[string]any{"nickname": "Company"}}, http.StatusOK, "VALIDATION_ERROR", "mapping"},
		{"MappingHeaderMissing", "Company\nAcme\n", map[string]any{"mapping": map[string]any{"businessName": "Firm"}}, http.StatusOK, "VALIDATION_ERROR", "mapping"},
		{"MappingNotStrings", "Company\nAcme\n", map[string]any{"mapping": map[string]any{"businessName": 3}}, http.StatusOK, "VALIDATION_ERROR", "mapping"},
		{"DedupeUnknown", "Company\nAcme\n", map[string]any{"dedupe": "NAME"}, http.StatusUnprocessableEntity, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startImport(t, e, e.Key, []byte(tc.file), tc.vars)
			code, field := r.Error()
			if r.Status != tc.status || tc.code != "" && (code != tc.code || field != tc.field) {
				t.Fatalf("status %d, %s %q; want %d, %s %q: %s", r.Status, code, field, tc.status, tc.code, tc.field, r.Raw)
			}
			if code == "" {
				t.Fatalf("no error: %s", r.Raw)
			}
			if tc.name == "NotUTF8" && !strings.Contains(string(r.Raw), "CSV UTF-8") {
				t.Errorf("the message does not say to save the file as CSV UTF-8: %s", r.Raw)
			}
		})
	}
	n, err := e.DB.Client.ImportJob.Query().Count(rule.SystemContext(context.Background()))
	must(t, err)
	if n != 0 {
		t.Errorf("%d jobs were queued by refused imports", n)
	}
}

func TestImportMapping(t *testing.T) {
	e := resttest.New(t)
	// The mapping wins over the aliases: "Company" is an alias of
	// businessName, but the mapping reads it from "Trading As".
	file := "Company,Trading As,Mail\nLegal Ltd,Shop Front,a@b.test\n"
	mapping := map[string]any{"businessName": " trading  as ", "email": "MAIL"}
	r := startImport(t, e, e.Key, []byte(file), map[string]any{"mapping": mapping})
	job, _ := r.Data()["importLeads"].(map[string]any)
	if job == nil {
		t.Fatalf("importLeads: %s", r.Raw)
	}
	if got, _ := json.Marshal(job["mapping"]); string(got) != `{"businessName":" trading  as ","email":"MAIL"}` {
		t.Errorf("mapping = %s", got)
	}
	waitJob(t, e, e.Key, job["id"].(string))
	l, err := e.DB.Client.Lead.Query().Where(lead.OrgID(e.Org.ID)).Only(rule.SystemContext(context.Background()))
	must(t, err)
	if *l.BusinessName != "Shop Front" || *l.Email != "a@b.test" {
		t.Errorf("lead = %v %v, want Shop Front a@b.test", *l.BusinessName, *l.Email)
	}
}

// leadsCSV is a file of n leads with unique emails.
func leadsCSV(n int) []byte {
	var b bytes.Buffer
	b.WriteString("Company,First Name,Email,Amount\n")
	for i := range n {
		fmt.Fprintf(&b, "Co %d,Name%d,lead%d@example.test,%d.50\n", i, i, i, 1000+i)
	}
	return b.Bytes()
}

func TestImportProgress(t *testing.T) {
	e := resttest.New(t)
	id := mustStart(t, e, e.Key, leadsCSV(3000), nil)
	ws := dialWS(t, e, "graphql-transport-ws", nil)
	ws.mustInit(e.Key)
	ws.start("p", `subscription { importJobProgress(id: "`+id+`") { status rowsTotal rowsImported } }`)
	var seen []map[string]any
	for {
		m, err := ws.read(60 * time.Second)
		must(t, err)
		if m.Type == "complete" {
			break
		}
		if m.Type != "next" {
			t.Fatalf("got %+v", m)
		}
		data, _ := m.Payload["data"].(map[string]any)
		seen = append(seen, data["importJobProgress"].(map[string]any))
	}
	if len(seen) == 0 {
		t.Fatal("no progress was sent")
	}
	last := seen[len(seen)-1]
	if last["status"] != "done" || num(last["rowsImported"]) != 3000 || num(last["rowsTotal"]) != 3000 {
		t.Errorf("last progress = %v, want done with 3000 of 3000", last)
	}
	for i := 1; i < len(seen); i++ {
		if num(seen[i]["rowsImported"]) < num(seen[i-1]["rowsImported"]) {
			t.Errorf("progress went back: %v after %v", seen[i], seen[i-1])
		}
	}
	data, code := gql(t, e, e.Key, `{ importJobs(limit: 5) { total nodes { id status rowsImported } } }`, nil)
	page, _ := data["importJobs"].(map[string]any)
	if code != "" || num(page["total"]) != 1 || page["nodes"].([]any)[0].(map[string]any)["id"] != id {
		t.Errorf("importJobs = %v (%s)", page, code)
	}
}

func TestImportScopesAndTenants(t *testing.T) {
	e := resttest.New(t)
	file := []byte("Company\nAcme\n")
	readOnly := e.NewKey(e.Org.ID, viewer.ScopeLeadsRead)
	if code, _ := startImport(t, e, readOnly, file, nil).Error(); code != "FORBIDDEN" {
		t.Errorf("importLeads with leads:read only = %q, want FORBIDDEN", code)
	}
	writer := e.NewKey(e.Org.ID, viewer.ScopeLeadsWrite)
	id := mustStart(t, e, writer, file, nil)
	waitJob(t, e, readOnly, id) // leads:read reads jobs
	other := e.NewKey(e.Org.ID, viewer.ScopeDialerWrite)
	if _, code := gql(t, e, other, `query($id: ID!) { importJob(id: $id) { id } }`, map[string]any{"id": id}); code != "FORBIDDEN" {
		t.Errorf("importJob without leads:read = %q, want FORBIDDEN", code)
	}

	_, stranger := e.NewOrg("Other Brokers", viewer.AllScopes...)
	data, code := gql(t, e, stranger, `query($id: ID!) { importJob(id: $id) { id } importJobs { total } }`, map[string]any{"id": id})
	if code != "" || data["importJob"] != nil || num(data["importJobs"].(map[string]any)["total"]) != 0 {
		t.Errorf("another organization reads %v (%s), want null and no jobs", data, code)
	}
	ws := dialWS(t, e, "graphql-transport-ws", nil)
	ws.mustInit(stranger)
	ws.start("p", `subscription { importJobProgress(id: "`+id+`") { status } }`)
	m, err := ws.read(10 * time.Second)
	must(t, err)
	if m.Type != "error" && wsErrorCode(m) == "" || wsErrorCode(m) != "NOT_FOUND" {
		t.Errorf("another organization's subscription got %+v, want NOT_FOUND", m)
	}
}

// utf16Of is s in UTF-16 (little- or big-endian), after bom.
func utf16Of(s string, bigEndian bool, bom string) []byte {
	out := []byte(bom)
	for _, u := range utf16.Encode([]rune(s)) {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

// utf32Of is s in UTF-32 (little- or big-endian), after bom.
func utf32Of(s string, bigEndian bool, bom string) []byte {
	out := []byte(bom)
	for _, r := range s {
		b := []byte{byte(r), byte(r >> 8), byte(r >> 16), byte(r >> 24)}
		if bigEndian {
			slices.Reverse(b)
		}
		out = append(out, b...)
	}
	return out
}

// A file in another encoding than UTF-8 is UNSUPPORTED_MEDIA_TYPE (415),
// named and told to save the file as CSV UTF-8, before its header is
// matched: a UTF-16 file's header would otherwise name no lead field.
// A UTF-8 byte-order mark is not another encoding.
func TestImportRefusesOtherEncodings(t *testing.T) {
	e := resttest.New(t)
	const list = "Company,Email\r\nAcme,a@acme.example\r\n"
	for _, tc := range []struct {
		name string
		file []byte
		says string
	}{
		{"ErrUTF16LE", utf16Of(list, false, "\xff\xfe"), "UTF-16"},
		{"ErrUTF16BE", utf16Of(list, true, "\xfe\xff"), "UTF-16"},
		{"ErrUTF32LE", utf32Of(list, false, "\xff\xfe\x00\x00"), "UTF-32"},
		{"ErrUTF32BE", utf32Of(list, true, "\x00\x00\xfe\xff"), "UTF-32"},
		{"ErrUTF16WithoutBOM", utf16Of(list, false, ""), "UTF-16"},
		{"ErrLatin1Header", []byte("Soci\xe9t\xe9,Adresse\r\nAcme,1 rue\r\n"), "not UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startImport(t, e, e.Key, tc.file, nil)
			code, _ := r.Error()
			if r.Status != http.StatusUnsupportedMediaType || code != "UNSUPPORTED_MEDIA_TYPE" {
				t.Fatalf("%d %s, want 415 UNSUPPORTED_MEDIA_TYPE: %s", r.Status, code, r.Raw)
			}
			if !strings.Contains(string(r.Raw), tc.says) || !strings.Contains(string(r.Raw), "CSV UTF-8") {
				t.Fatalf("the message does not say %q and to save as CSV UTF-8: %s", tc.says, r.Raw)
			}
		})
	}
	n, err := e.DB.Client.ImportJob.Query().Count(rule.SystemContext(context.Background()))
	must(t, err)
	if n != 0 {
		t.Fatalf("%d jobs were queued by refused imports", n)
	}
	t.Run("UTF8BOM", func(t *testing.T) {
		job := waitJob(t, e, e.Key, mustStart(t, e, e.Key, []byte("\ufeff"+list), nil))
		if job["status"] != "done" || num(job["rowsImported"]) != 1 {
			t.Fatalf("%v", job)
		}
	})
}
