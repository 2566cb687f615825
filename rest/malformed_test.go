package rest_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/rest/resttest"
)

// twin is how GraphQL takes the inputs of one REST operation (PRODUCT 8.3).
type twin struct {
	path  string         // the REST path, with org A's ids
	body  map[string]any // a valid body, for a write; each probe changes one member
	field string         // the GraphQL field: "leadsPage", "createLead"
	fixed map[string]any // arguments every call passes (the ids of the path)
	// input is the argument the body's members go in ("input"); "" when
	// each member, or each query parameter, is an argument of its own.
	input string
	// names maps a REST input to its GraphQL argument or input field where
	// they differ (docs/api.md): "createdFrom": "where.createdAtGTE".
	names map[string]string
	// none lists REST inputs GraphQL does not take, each with why.
	none map[string]string
}

// rangeBounds are malformed values of a range bound (a date or a
// date-time), which the document types as a plain string.
var rangeBounds = []any{"2026-02-30", "yesterday", "2026-01-01T25:00:00Z"}

// extraProbes are malformed values the document's schemas cannot give:
// values of a plain string an operation reads further.
var extraProbes = map[string][]any{
	"from": rangeBounds, "to": rangeBounds, "createdFrom": rangeBounds, "createdTo": rangeBounds,
	"fundedFrom": rangeBounds, "fundedTo": rangeBounds, "dueBefore": rangeBounds,
	"timezone": {"Mars/Olympus", strings.Repeat("Z", 100000)},
	"tags":     {strings.Repeat("t", 51)},
	"status":   {"bogus_value"},
	// The dialer's time: RFC 3339 or Unix seconds.
	"occurredAt":  {"2026-13-01T00:00:00Z", "1969-12-31T23:59:59Z", -5, "soon"},
	"externalIds": {map[string]any{"crm": strings.Repeat("x", 256)}, "not an object"},
	"metadata":    {"not an object"},
	// A required field names an input member, a JSON path or a name.
	"requiredFields": {[]any{""}, []any{strings.Repeat("f", 501)}},
	// An automation's parts: members of the wrong type, out of their
	// values, or missing, at any depth.
	"trigger": {map[string]any{"event": 5}, map[string]any{"event": "bogus_value"}, map[string]any{"endpointId": "not-an-id"}},
	"actions": {
		[]any{map[string]any{"type": "add_tags", "tags": []any{"ok"}}, map[string]any{"type": "add_tags", "tags": []any{5}}},
		[]any{map[string]any{"type": "bogus_value"}}, []any{map[string]any{"type": "move_stage", "stageId": "not-an-id"}},
		[]any{map[string]any{"tags": []any{"a"}}},
	},
	"conditions": {[]any{map[string]any{"path": "$.x", "op": "bogus_value", "value": 1}}, []any{map[string]any{"op": "eq", "value": 1}},
		[]any{map[string]any{"path": 5, "op": "eq", "value": 1}}},
	"mapping": {map[string]any{"businessName": "not a path"}, "not an object"},
}

// TestMalformedValuesAgree sends malformed values (ids, dates, times,
// amounts, enums, over-long strings, out-of-range numbers) for every input
// of every operation of the OpenAPI document, over REST and over GraphQL,
// the value given as a variable and written in the document: every surface
// must answer VALIDATION_ERROR naming the same field, after the documented
// renames, quoting the value in at most 100 characters. The inputs come
// from the document (which the router's table test keeps equal to the
// routes), so a new parameter or body member without an entry here fails.
func TestMalformedValuesAgree(t *testing.T) {
	e := resttest.New(t)
	a := fixturesOf(t, e)
	args := graphQLArguments(t, e)
	twins := twinsOf(a)
	probes := 0
	documented := map[string]bool{} // "op" and "op name"
	for _, in := range documentInputs(t, e) {
		documented[in.op], documented[in.op+" "+in.name] = true, true
		tw, ok := twins[in.op]
		if !ok {
			t.Errorf("%s has no entry in the malformed-value comparison", in.op)
			continue
		}
		if _, ok := tw.none[in.name]; ok {
			continue
		}
		gqlName := cmp.Or(tw.names[in.name], in.name)
		if tw.input != "" {
			gqlName = tw.input + "." + gqlName
		}
		typ, ok := args.typeOf(tw.field, gqlName)
		if !ok {
			t.Errorf("%s %s: GraphQL %s takes no %s; give it a rename or a reason in none", in.op, in.name, tw.field, gqlName)
			continue
		}
		values := append(malformed(in.schema), extraProbes[in.name]...)
		if len(values) == 0 {
			t.Errorf("%s %s: no malformed value is known for it; add one to extraProbes or a reason in none", in.op, in.name)
		}
		for _, v := range values {
			probes++
			p := probe{e: e, tw: tw, in: in, value: v, gqlPath: gqlName, gqlType: typ, returnsObject: args.returnsObject(tw.field), args: args}
			t.Run(in.op+" "+in.name+"="+short(v), p.run)
		}
	}
	for op, tw := range twins { // an entry for what the document lacks is stale
		if !documented[op] {
			t.Errorf("%s has an entry but takes no input in the document", op)
		}
		for name := range tw.none {
			if !documented[op+" "+name] {
				t.Errorf("%s: %s is not one of its inputs", op, name)
			}
		}
	}
	t.Logf("%d malformed values compared on REST and GraphQL", probes)
}

// twinsOf is the GraphQL counterpart of every operation of the document.
func twinsOf(a *orgFixtures) map[string]twin {
	page := map[string]twin{}
	for op, field := range map[string]string{
		"GET /v1/applications": "applicationsPage", "GET /v1/commissions": "commissionsPage", "GET /v1/dialer/agents": "agentsBoardPage",
		"GET /v1/funded-deals": "fundedDealsPage", "GET /v1/lenders": "lendersPage", "GET /v1/stages": "stagesPage",
		"GET /v1/teams": "teamsPage", "GET /v1/users": "usersPage", "GET /v1/apps/installations": "appInstallations",
	} {
		page[op] = twin{path: strings.TrimPrefix(op, "GET "), field: field}
	}
	for _, report := range []string{"pipeline", "funding", "lenders", "commissions", "dialer"} {
		page["GET /v1/analytics/"+report] = twin{path: "/v1/analytics/" + report, field: "analytics"}
	}
	subscription := strings.TrimPrefix(a.subscription, "whsub_")
	leadBody := map[string]any{"businessName": "Probe Co"}
	automation := map[string]any{"name": "Probe", "trigger": map[string]any{"event": "lead.created"},
		"actions": []map[string]any{{"type": "add_tags", "tags": []string{"probe"}}}}
	now := apitime.Format(time.Now())
	call := map[string]any{"externalCallId": "probe-call", "userId": a.agent, "eventType": "call_started", "occurredAt": now}
	twins := mergeTwins(page, map[string]twin{
		"GET /v1/leads": {path: "/v1/leads", field: "leadsPage", names: map[string]string{"stageId": "where.stageId",
			"primaryAdvisorId": "where.primaryAdvisorId", "priority": "where.priority", "source": "where.source",
			"createdFrom": "where.createdAtGTE", "createdTo": "where.createdAtLT"}},
		"GET /v1/leads/{id}/lender-matches": {path: "/v1/leads/" + a.lead + "/lender-matches", field: "lenderMatches",
			fixed: map[string]any{"leadId": a.lead}},
		"GET /v1/renewals": {path: "/v1/renewals", field: "renewalQueue", names: map[string]string{
			"advisorId": "where.advisorId", "dueBefore": "where.dueBefore"}},
		"GET /v1/stipulations": {path: "/v1/stipulations", field: "stipulations", names: map[string]string{
			"applicationId": "where.applicationId", "leadId": "where.leadId", "status": "where.status"}},
		"GET /v1/tasks": {path: "/v1/tasks", field: "tasks", names: map[string]string{"assigneeId": "where.assigneeId",
			"status": "where.status", "leadId": "where.leadId", "dueBefore": "where.dueBefore"}},
		"GET /v1/app-webhooks/{id}/deliveries": {path: "/v1/app-webhooks/" + a.subscription + "/deliveries", field: "webhookDeliveries",
			fixed: map[string]any{"subscriptionId": subscription}},
		"GET /v1/automations/{id}/runs": {path: "/v1/automations/" + a.automation + "/runs", field: "automationRuns",
			fixed: map[string]any{"automationId": a.automation}},
		"GET /v1/inbound-endpoints/{id}/requests": {path: "/v1/inbound-endpoints/" + a.endpoint + "/requests", field: "inboundRequests",
			fixed: map[string]any{"endpointId": a.endpoint}},
		"GET /v1/automations": {path: "/v1/automations", field: "automations",
			none: map[string]string{"page": "GraphQL lists automations as a connection (first, after)", "limit": "as page"}},
		"GET /v1/leads/{id}/activity": {path: "/v1/leads/" + a.lead + "/activity", field: "lead",
			none: map[string]string{"page": "GraphQL reads a lead's history as a connection, Lead.activity(first, after)", "limit": "as page"}},

		"POST /v1/leads": {path: "/v1/leads", body: leadBody, field: "createLead", input: "input",
			names: map[string]string{"assignToAdvisorId": "primaryAdvisorId"}},
		"PATCH /v1/leads/{id}": {path: "/v1/leads/" + a.lead, body: leadBody, field: "updateLead", input: "input",
			fixed: map[string]any{"id": a.lead}},
		"POST /v1/leads/{id}/assign": {path: "/v1/leads/" + a.lead + "/assign", body: map[string]any{"advisorId": a.advisor},
			field: "assignLead", fixed: map[string]any{"id": a.lead}},
		"POST /v1/leads/{id}/stage": {path: "/v1/leads/" + a.lead + "/stage", body: map[string]any{"stageId": a.stage},
			field: "moveLeadToStage", fixed: map[string]any{"id": a.lead}},
		"POST /v1/app-webhooks": {path: "/v1/app-webhooks", body: map[string]any{"url": "https://example.com/hook", "events": []string{"*"}},
			field: "createWebhookSubscription", input: "input"},
		"PATCH /v1/app-webhooks/{id}": {path: "/v1/app-webhooks/" + a.subscription, body: map[string]any{"isActive": true},
			field: "updateWebhookSubscription", input: "input", fixed: map[string]any{"id": subscription}},
		"POST /v1/app-webhooks/{id}/replay": {path: "/v1/app-webhooks/" + a.subscription + "/replay", body: map[string]any{"since": "2026-01-01T00:00:00Z"},
			field: "replayWebhookDeliveries", fixed: map[string]any{"subscriptionId": subscription}},
		"POST /v1/automations": {path: "/v1/automations", body: automation, field: "createAutomation", input: "input"},
		"PATCH /v1/automations/{id}": {path: "/v1/automations/" + a.automation, body: map[string]any{"isActive": true},
			field: "updateAutomation", input: "input", fixed: map[string]any{"id": a.automation}},
		"POST /v1/inbound-endpoints": {path: "/v1/inbound-endpoints", body: map[string]any{"name": "Probe"},
			field: "createInboundEndpoint", input: "input"},
		"PATCH /v1/inbound-endpoints/{id}": {path: "/v1/inbound-endpoints/" + a.endpoint, body: map[string]any{"name": "Probe"},
			field: "updateInboundEndpoint", input: "input", fixed: map[string]any{"id": a.endpoint}},
		"POST /v1/dialer/events": {path: "/v1/dialer/events", body: call, field: "recordCallEvent", input: "input"},
		"POST /v1/dialer/disposition": {path: "/v1/dialer/disposition", field: "recordDisposition", input: "input",
			body: map[string]any{"externalCallId": "probe-call", "userId": a.agent, "disposition": "interested", "occurredAt": now}},
		"POST /auth/sign-in": {path: "/auth/sign-in", none: map[string]string{
			"email":    "signing in is REST's alone: the cookie is set on the HTTP answer",
			"password": "as email"}},
		"GET /auth/oidc/callback": {path: "/auth/oidc/callback", none: map[string]string{
			"code":              "single sign-on is REST's alone: the provider sends the browser back to this URL",
			"state":             "as code",
			"error":             "as code",
			"error_description": "as code"}},
		"POST /v1/dialer/presence": {path: "/v1/dialer/presence", field: "updatePresence", input: "input",
			body: map[string]any{"userId": a.agent, "status": "online"}},
	})
	// An export takes its list's filters: the list's twin is its twin.
	for _, x := range []string{"leads", "applications", "funded-deals", "commissions"} {
		tw := twins["GET /v1/"+x]
		tw.path = "/v1/exports/" + x + ".csv"
		twins["GET "+tw.path] = tw
	}
	return twins
}

func mergeTwins(a, b map[string]twin) map[string]twin {
	maps.Copy(a, b)
	return a
}

// input is one value a REST operation takes: a query parameter or a member
// of its JSON body.
type input struct {
	op, name string
	inBody   bool
	schema   map[string]any
}

// documentInputs lists every query parameter and body member of every
// operation of the served OpenAPI document, in a fixed order.
func documentInputs(t *testing.T, e *resttest.Env) []input {
	r := e.Get("/v1/openapi.json", e.Key)
	mustStatus(t, r, http.StatusOK)
	doc := r.Body
	components := doc["components"].(map[string]any)
	resolve := func(s map[string]any) map[string]any {
		for {
			if ref, ok := s["$ref"].(string); ok {
				parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
				s = components[parts[0]].(map[string]any)[parts[1]].(map[string]any)
				continue
			}
			if all, ok := s["allOf"].([]any); ok && len(all) == 1 {
				s = all[0].(map[string]any)
				continue
			}
			if alts, ok := s["anyOf"].([]any); ok { // the canonical names come first
				s = alts[0].(map[string]any)
				continue
			}
			return s
		}
	}
	var out []input
	for path, ops := range doc["paths"].(map[string]any) {
		for method, op := range ops.(map[string]any) {
			opName := strings.ToUpper(method) + " " + path
			o := op.(map[string]any)
			params, _ := o["parameters"].([]any)
			for _, p := range params {
				p := resolve(p.(map[string]any))
				if p["in"] == "query" {
					out = append(out, input{op: opName, name: p["name"].(string), schema: resolve(p["schema"].(map[string]any))})
				}
			}
			body, _ := o["requestBody"].(map[string]any)
			content, _ := body["content"].(map[string]any)
			js, _ := content["application/json"].(map[string]any)
			schema, _ := js["schema"].(map[string]any)
			if schema == nil {
				continue
			}
			props, _ := resolve(schema)["properties"].(map[string]any)
			for name, s := range props {
				s := resolve(s.(map[string]any))
				if items, ok := s["items"].(map[string]any); ok {
					s = maps.Clone(s)
					s["items"] = resolve(items)
				}
				out = append(out, input{op: opName, name: name, inBody: true, schema: s})
			}
		}
	}
	slices.SortFunc(out, func(a, b input) int { return strings.Compare(a.op+" "+a.name, b.op+" "+b.name) })
	return out
}

// malformed lists values the schema refuses: an id, a time, an email, a
// URL, an enum member, a number out of its range or not a number, a string
// over its length, a list holding one such value.
func malformed(s map[string]any) []any {
	var out []any
	if _, ok := s["enum"]; ok {
		return []any{"bogus_value"}
	}
	switch s["format"] {
	case "uuid":
		out = append(out, "not-an-id", "00000000-0000-0000-0000-00000000000g")
	case "date-time":
		out = append(out, "2026-13-01T00:00:00Z", "1969-12-31T23:59:59Z", "tomorrow")
	case "email":
		out = append(out, "not-an-email")
	case "uri":
		out = append(out, "not a url")
	}
	switch s["type"] {
	case "integer":
		out = append(out, "ten", 1.5)
		if min, ok := s["minimum"].(float64); ok {
			out = append(out, min-1)
		}
		if max, ok := s["maximum"].(float64); ok {
			out = append(out, max+1)
		}
	case "boolean":
		out = append(out, "maybe")
	case "string":
		if max, ok := s["maxLength"].(float64); ok {
			out = append(out, strings.Repeat("x", int(max)+1))
		}
		if _, ok := s["pattern"]; ok {
			out = append(out, "ten dollars")
		}
	case "object":
		if max, ok := s["maxProperties"].(float64); ok {
			many := map[string]any{}
			for i := range int(max) + 1 {
				many["key"+strconv.Itoa(i)] = i
			}
			out = append(out, many)
		}
		out = append(out, "not an object")
	case "array":
		if items, ok := s["items"].(map[string]any); ok {
			for _, v := range malformed(items) {
				out = append(out, []any{v})
			}
		}
		if max, ok := s["maxItems"].(float64); ok {
			many := make([]any, int(max)+1)
			for i := range many {
				many[i] = "item" + strconv.Itoa(i)
			}
			out = append(out, many)
		}
	}
	return out
}

// probe is one malformed value sent for one input on both surfaces.
type probe struct {
	e             *resttest.Env
	tw            twin
	in            input
	value         any
	gqlPath       string // "where.createdAtGTE", "input.email"
	gqlType       string // the GraphQL type of the path's first argument
	returnsObject bool
	args          arguments
}

func (p probe) run(t *testing.T) {
	restField := p.in.name
	code, field, msg, status := p.rest()
	// A member within the input is named by its path on both surfaces:
	// externalIds.crm, trigger.event, actions[1].tags.
	member := strings.TrimPrefix(field, restField)
	if status != http.StatusUnprocessableEntity || code != "VALIDATION_ERROR" || !(member == "" || member[0] == '.' || member[0] == '[') {
		t.Errorf("REST: %d %s naming %q (%s), want 422 VALIDATION_ERROR naming %q", status, code, field, short(msg), restField)
	}
	quotesAtMost100(t, "REST", msg, p.value)
	gqlField := p.gqlPath[strings.LastIndex(p.gqlPath, ".")+1:] + member
	for _, asVariable := range []bool{true, false} {
		code, field, msg, status := p.graphQL(asVariable)
		if code != "VALIDATION_ERROR" || field != gqlField {
			t.Errorf("GraphQL (value as a %s): %s naming %q (%s), want VALIDATION_ERROR naming %q",
				map[bool]string{true: "variable", false: "literal"}[asVariable], code, field, short(msg), gqlField)
		}
		// Refused before the operation ran, the request is 422, as on
		// REST; refused by a resolver, it is a field's error in a 200.
		if status != http.StatusUnprocessableEntity && status != http.StatusOK {
			t.Errorf("GraphQL answered %d", status)
		}
		quotesAtMost100(t, "GraphQL", msg, p.value)
	}
}

// quotesAtMost100 fails when msg holds more than 100 characters of a
// refused string value in a row (PRODUCT 8.3: quoted, cut with "...").
func quotesAtMost100(t *testing.T, surface, msg string, value any) {
	t.Helper()
	s, ok := value.(string)
	if !ok || len(s) <= 100 {
		return
	}
	for i := 0; i+101 <= len(s); i += 50 {
		if strings.Contains(msg, s[i:i+101]) {
			t.Errorf("%s quotes more than 100 characters of the value: %s", surface, short(msg))
			return
		}
	}
}

// rest sends the value on REST: as the query parameter, or as the member
// of the operation's valid body.
func (p probe) rest() (code, field, msg string, status int) {
	method, _, _ := strings.Cut(p.in.op, " ")
	req := resttest.Request{Method: method, Path: p.tw.path, Header: map[string]string{"Authorization": "Bearer " + p.e.Key}}
	if p.in.inBody {
		body := maps.Clone(p.tw.body)
		body[p.in.name] = p.value
		req.Body, _ = json.Marshal(body)
	} else {
		req.Path += "?" + url.Values{p.in.name: {fmt.Sprint(p.value)}}.Encode()
		if method != http.MethodGet {
			req.Body = []byte("{}")
		}
	}
	r := p.e.Do(req)
	code, field = r.Error()
	if errs, ok := r.Body["errors"].([]any); ok && len(errs) > 0 {
		msg, _ = errs[0].(map[string]any)["message"].(string)
	}
	return code, field, msg, r.Status
}

// graphQL sends the value on GraphQL, as a variable or written as a
// literal in the document, with the rest of the operation's valid input.
func (p probe) graphQL(asVariable bool) (code, field, msg string, status int) {
	args := map[string]any{}
	for k, v := range p.tw.fixed {
		args[k] = v
	}
	if p.tw.input != "" {
		args[p.tw.input] = renamed(p.tw.body, p.tw.names)
	} else {
		for k, v := range renamed(p.tw.body, p.tw.names) {
			args[k] = v
		}
	}
	setPath(args, strings.Split(p.gqlPath, "."), p.value)
	first, _, _ := strings.Cut(p.gqlPath, ".")
	selection := ""
	if p.returnsObject {
		selection = " { __typename }"
	}
	var list []string
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if k == first && asVariable {
			list = append(list, k+": $"+k)
		} else {
			list = append(list, k+": "+p.args.literal(args[k], p.args.fields[p.tw.field][k]))
		}
	}
	opType := "query"
	if p.in.inBody {
		opType = "mutation"
	}
	doc := opType + " { " + p.tw.field + "(" + strings.Join(list, ", ") + ")" + selection + " }"
	var vars map[string]any
	if asVariable {
		doc = opType + "($" + first + ": " + p.gqlType + ") { " + p.tw.field + "(" + strings.Join(list, ", ") + ")" + selection + " }"
		vars = map[string]any{first: args[first]}
	}
	r := p.e.Post("/graphql", p.e.Key, map[string]any{"query": doc, "variables": vars})
	errs, _ := r.Body["errors"].([]any)
	if len(errs) == 0 {
		return "(accepted)", "", string(r.Raw), r.Status
	}
	top := errs[0].(map[string]any)
	ext, _ := top["extensions"].(map[string]any)
	code, _ = ext["code"].(string)
	field, _ = ext["field"].(string)
	msg, _ = top["message"].(string)
	return code, field, msg, r.Status
}

// renamed is body under GraphQL's names.
func renamed(body map[string]any, names map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		out[cmp.Or(names[k], k)] = v
	}
	return out
}

// setPath sets a dotted path in m, making the objects on the way.
func setPath(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
		} else {
			next = maps.Clone(next)
		}
		m[k] = next
		m = next
	}
	m[path[len(path)-1]] = v
}

// literal writes v as a GraphQL value of type t: a string given for an
// enum is written as the enum's member when it is a name, as a client
// would; anything else as JSON, which GraphQL reads alike.
func (a arguments) literal(v any, t typeRef) string {
	named := t.named()
	switch v := v.(type) {
	case map[string]any:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			parts = append(parts, k+": "+a.literal(v[k], a.inputs[named.Name][k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any, []string, []map[string]any:
		var parts []string
		raw, _ := json.Marshal(v)
		var items []any
		_ = json.Unmarshal(raw, &items)
		for _, item := range items {
			parts = append(parts, a.literal(item, named))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case string:
		if named.Kind == "ENUM" && enumName.MatchString(v) {
			return v
		}
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

var enumName = regexp.MustCompile(`^[_A-Za-z][_0-9A-Za-z]*$`)

// arguments are GraphQL's fields' arguments and input types, introspected.
type arguments struct {
	fields map[string]map[string]typeRef // field → argument → type
	inputs map[string]map[string]typeRef // input type → field → type
	kinds  map[string]string             // field → the kind of what it returns
}

type typeRef struct {
	Kind   string   `json:"kind"`
	Name   string   `json:"name"`
	OfType *typeRef `json:"ofType"`
}

func (r typeRef) String() string {
	switch r.Kind {
	case "NON_NULL":
		return r.OfType.String() + "!"
	case "LIST":
		return "[" + r.OfType.String() + "]"
	}
	return r.Name
}

func (r typeRef) named() typeRef {
	for r.OfType != nil {
		r = *r.OfType
	}
	return r
}

func graphQLArguments(t *testing.T, e *resttest.Env) arguments {
	const ref = `kind name ofType { kind name ofType { kind name ofType { kind name } } }`
	data := gql(t, e, e.Key, `{ __schema {
		queryType { fields { name type { `+ref+` } args { name type { `+ref+` } } } }
		mutationType { fields { name type { `+ref+` } args { name type { `+ref+` } } } }
		types { name kind inputFields { name type { `+ref+` } } } } }`, nil)
	var schema struct {
		QueryType, MutationType struct {
			Fields []struct {
				Name string  `json:"name"`
				Type typeRef `json:"type"`
				Args []struct {
					Name string  `json:"name"`
					Type typeRef `json:"type"`
				} `json:"args"`
			} `json:"fields"`
		}
		Types []struct {
			Name        string `json:"name"`
			InputFields []struct {
				Name string  `json:"name"`
				Type typeRef `json:"type"`
			} `json:"inputFields"`
		} `json:"types"`
	}
	raw, _ := json.Marshal(data["__schema"])
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	out := arguments{fields: map[string]map[string]typeRef{}, inputs: map[string]map[string]typeRef{}, kinds: map[string]string{}}
	for _, f := range append(schema.QueryType.Fields, schema.MutationType.Fields...) {
		out.fields[f.Name] = map[string]typeRef{}
		out.kinds[f.Name] = f.Type.named().Kind
		for _, a := range f.Args {
			out.fields[f.Name][a.Name] = a.Type
		}
	}
	for _, typ := range schema.Types {
		if typ.InputFields == nil {
			continue
		}
		out.inputs[typ.Name] = map[string]typeRef{}
		for _, f := range typ.InputFields {
			out.inputs[typ.Name][f.Name] = f.Type
		}
	}
	return out
}

// typeOf is the GraphQL type of path's first argument when the whole path
// exists on field: "where.stageId" is LeadWhereInput's when it has stageId.
func (a arguments) typeOf(field, path string) (string, bool) {
	names := strings.Split(path, ".")
	first, ok := a.fields[field][names[0]]
	if !ok {
		return "", false
	}
	at := first
	for _, n := range names[1:] {
		next, ok := a.inputs[at.named().Name][n]
		if !ok {
			return "", false
		}
		at = next
	}
	return first.String(), true
}

func (a arguments) returnsObject(field string) bool {
	return a.kinds[field] == "OBJECT" || a.kinds[field] == "INTERFACE"
}

// short writes v in at most 60 characters, for a test's name or message.
func short(v any) string {
	s, ok := v.(string)
	if !ok {
		raw, _ := json.Marshal(v)
		s = string(raw)
	}
	if len(s) > 60 {
		return fmt.Sprintf("%s...(%d)", s[:40], len(s))
	}
	return s
}
