package graph_test

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// gqlCase calls one Query or Mutation field with org A's ids.
type gqlCase struct {
	doc  string
	vars map[string]any
}

// multipartCases are the fields that take files: their operation is sent
// as a multipart request holding these.
var multipartCases = map[string][]resttest.File{
	"Mutation.uploadDocument": {{Var: "file", Name: "a.txt", Content: []byte("hello\n")}},
	"Mutation.importLeads":    {{Var: "file", Name: "leads.csv", Content: []byte("Company\nAnother Shop Lead\n")}},
}

// TestGraphQLIsolationMatrix calls every Query and Mutation field of the
// schema (a field without an entry fails): with another organization's
// key the answer holds none of org A's ids, and a field aimed at one of
// A's ids fails; with an org A key holding no scope every field is refused.
func TestGraphQLIsolationMatrix(t *testing.T) {
	e := resttest.New(t)
	a := graphFixtures(t, e)
	_, otherKey := e.NewOrg("Other Shop", viewer.AllScopes...)
	noScopes := e.NewKey(e.Org.ID)
	page := "{ total }"
	conn := "{ totalCount edges { node { id } } }"
	cases := map[string]gqlCase{
		"Query.node":                         {`query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": a["lead"]}},
		"Query.nodes":                        {`query($id: ID!) { nodes(ids: [$id]) { id } }`, map[string]any{"id": a["lead"]}},
		"Query.automations":                  {`{ automations ` + conn + ` }`, nil},
		"Query.callEvents":                   {`{ callEvents ` + conn + ` }`, nil},
		"Query.contacts":                     {`{ contacts ` + conn + ` }`, nil},
		"Query.inboundEndpoints":             {`{ inboundEndpoints ` + conn + ` }`, nil},
		"Query.leads":                        {`{ leads ` + conn + ` }`, nil},
		"Query.stages":                       {`{ stages ` + conn + ` }`, nil},
		"Query.teams":                        {`{ teams ` + conn + ` }`, nil},
		"Query.users":                        {`{ users ` + conn + ` }`, nil},
		"Query.webhookSubscriptions":         {`{ webhookSubscriptions ` + conn + ` }`, nil},
		"Query.leadsPage":                    {`{ leadsPage(search: "secret") ` + page + ` }`, nil},
		"Query.boardTotals":                  {`{ boardTotals { stageId leads requestedAmount } }`, nil},
		"Query.lead":                         {`query($id: ID!) { lead(id: $id) { id offers { applicationId lenderId } } }`, map[string]any{"id": a["lead"]}},
		"Query.agentsBoard":                  {`{ agentsBoard { totalCount edges { node { userId } } } }`, nil},
		"Query.agentsBoardPage":              {`{ agentsBoardPage { total nodes { userId } } }`, nil},
		"Query.stagesPage":                   {`{ stagesPage(limit: 100) { total nodes { id } } }`, nil},
		"Query.usersPage":                    {`{ usersPage(limit: 100) { total nodes { id team { id } } } }`, nil},
		"Query.teamsPage":                    {`{ teamsPage(limit: 100) { total nodes { id } } }`, nil},
		"Query.automationRuns":               {`query($id: ID!) { automationRuns(automationId: $id) ` + page + ` }`, map[string]any{"id": a["automation"]}},
		"Query.webhookDeliveries":            {`query($id: ID!) { webhookDeliveries(subscriptionId: $id) ` + page + ` }`, map[string]any{"id": a["subscription"]}},
		"Query.inboundRequests":              {`query($id: ID!) { inboundRequests(endpointId: $id) ` + page + ` }`, map[string]any{"id": a["endpoint"]}},
		"Mutation.createLead":                {`mutation($s: ID!) { createLead(input: {businessName: "x", stageId: $s}) { id } }`, map[string]any{"s": a["stage"]}},
		"Mutation.updateLead":                {`mutation($id: ID!) { updateLead(id: $id, input: {industry: "x"}) { id } }`, map[string]any{"id": a["lead"]}},
		"Mutation.moveLeadToStage":           {`mutation($id: ID!, $s: ID!) { moveLeadToStage(id: $id, stageId: $s) { id } }`, map[string]any{"id": a["lead"], "s": a["stage"]}},
		"Mutation.bulkUpdateLeads":           {`mutation($id: ID!, $s: ID!) { bulkUpdateLeads(ids: [$id], input: {stageId: $s, priority: high}) { id } }`, map[string]any{"id": a["lead"], "s": a["stage"]}},
		"Mutation.assignLead":                {`mutation($id: ID!, $u: ID!) { assignLead(id: $id, advisorId: $u) { id } }`, map[string]any{"id": a["lead"], "u": a["advisor"]}},
		"Mutation.createContact":             {`mutation { createContact(input: {firstName: "x"}) { id } }`, nil},
		"Mutation.updateContact":             {`mutation($id: ID!) { updateContact(id: $id, input: {firstName: "x"}) { id } }`, map[string]any{"id": a["contact"]}},
		"Mutation.createUser":                {`mutation($t: ID!) { createUser(input: {firstName: "X", lastName: "Y", email: "xy@example.com", teamId: $t}) { id } }`, map[string]any{"t": a["team"]}},
		"Mutation.updateUser":                {`mutation($id: ID!) { updateUser(id: $id, input: {firstName: "x"}) { id } }`, map[string]any{"id": a["advisor"]}},
		"Mutation.createTeam":                {`mutation { createTeam(input: {name: "x"}) { id } }`, nil},
		"Mutation.updateTeam":                {`mutation($id: ID!) { updateTeam(id: $id, input: {name: "x"}) { id } }`, map[string]any{"id": a["team"]}},
		"Mutation.createStage":               {`mutation { createStage(input: {stageKey: "extra", stageLabel: "Extra", semanticSlot: working, position: 99}) { id } }`, nil},
		"Mutation.updateStage":               {`mutation($id: ID!) { updateStage(id: $id, input: {stageLabel: "x"}) { id } }`, map[string]any{"id": a["stage"]}},
		"Mutation.createWebhookSubscription": {`mutation { createWebhookSubscription(input: {url: "https://b.example/h", events: ["*"]}) { secret } }`, nil},
		"Mutation.updateWebhookSubscription": {`mutation($id: ID!) { updateWebhookSubscription(id: $id, input: {isActive: false}) { id } }`, map[string]any{"id": a["subscription"]}},
		"Mutation.deleteWebhookSubscription": {`mutation($id: ID!) { deleteWebhookSubscription(id: $id) }`, map[string]any{"id": a["subscription"]}},
		"Mutation.replayWebhookDelivery":     {`mutation($s: ID!, $d: ID!) { replayWebhookDelivery(subscriptionId: $s, deliveryId: $d) { status } }`, map[string]any{"s": a["subscription"], "d": a["delivery"]}},
		"Mutation.replayWebhookDeliveries":   {`mutation($s: ID!) { replayWebhookDeliveries(subscriptionId: $s) }`, map[string]any{"s": a["subscription"]}},
		"Mutation.createInboundEndpoint":     {`mutation { createInboundEndpoint(input: {name: "x"}) { secret } }`, nil},
		"Mutation.updateInboundEndpoint":     {`mutation($id: ID!) { updateInboundEndpoint(id: $id, input: {name: "x"}) { id } }`, map[string]any{"id": a["endpoint"]}},
		"Mutation.deleteInboundEndpoint":     {`mutation($id: ID!) { deleteInboundEndpoint(id: $id) }`, map[string]any{"id": a["endpoint"]}},
		"Mutation.createAutomation":          {`mutation { createAutomation(input: {name: "x", trigger: {event: "lead.created"}, actions: [{type: "add_tags", tags: ["t"]}]}) { id } }`, nil},
		"Mutation.updateAutomation":          {`mutation($id: ID!) { updateAutomation(id: $id, input: {isActive: false}) { id } }`, map[string]any{"id": a["automation"]}},
		"Mutation.deleteAutomation":          {`mutation($id: ID!) { deleteAutomation(id: $id) }`, map[string]any{"id": a["automation"]}},
		"Mutation.retryAutomationRun":        {`mutation($a: ID!, $r: ID!) { retryAutomationRun(automationId: $a, runId: $r) { status } }`, map[string]any{"a": a["automation"], "r": a["run"]}},
		"Mutation.recordCallEvent":           {`mutation($u: ID!, $l: ID) { recordCallEvent(input: {externalCallId: "g-1", userId: $u, leadId: $l, eventType: call_started, occurredAt: "2026-11-22T09:00:00Z"}) { id } }`, map[string]any{"u": a["agent"], "l": a["lead"]}},
		"Mutation.recordDisposition":         {`mutation($u: ID!) { recordDisposition(input: {externalCallId: "g-1", userId: $u, disposition: "interested", occurredAt: "2026-11-22T09:00:00Z"}) { id } }`, map[string]any{"u": a["agent"]}},
		"Mutation.updatePresence":            {`mutation($u: ID!) { updatePresence(input: {userId: $u, status: online}) { userId } }`, map[string]any{"u": a["agent"]}},
		"Mutation.attachRecording":           {`mutation { attachRecording(externalCallId: "a-call", recordingUrl: "https://rec.example/1") { id } }`, nil},
		"Mutation.markDoNotCall":             {`mutation($l: ID) { markDoNotCall(leadId: $l, reason: "asked") { leads { id } } }`, map[string]any{"l": a["lead"]}},
		// The lending half.
		"Query.lenders":                        {`{ lenders ` + conn + ` }`, nil},
		"Query.applications":                   {`{ applications ` + conn + ` }`, nil},
		"Query.fundedDeals":                    {`{ fundedDeals ` + conn + ` }`, nil},
		"Query.commissions":                    {`{ commissions ` + conn + ` }`, nil},
		"Query.lendersPage":                    {`{ lendersPage(limit: 100) { total nodes { id } } }`, nil},
		"Query.applicationsPage":               {`query($l: ID) { applicationsPage(leadId: $l, limit: 100) { total nodes { id } } }`, map[string]any{"l": a["lead"]}},
		"Query.fundedDealsPage":                {`query($r: ID) { fundedDealsPage(lenderId: $r, limit: 100) { total nodes { id } } }`, map[string]any{"r": a["lender"]}},
		"Query.leadsReadyToFund":               {`query($l: ID!) { leadsReadyToFund(leadIds: [$l]) }`, map[string]any{"l": a["lead"]}},
		"Query.commissionsPage":                {`query($d: ID) { commissionsPage(dealId: $d, limit: 100) { total nodes { id } } }`, map[string]any{"d": a["deal"]}},
		"Mutation.createLender":                {`mutation { createLender(input: {name: "Another Lender"}) { id } }`, nil},
		"Mutation.updateLender":                {`mutation($id: ID!) { updateLender(id: $id, input: {isActive: false}) { id } }`, map[string]any{"id": a["lender"]}},
		"Mutation.submitApplication":           {`mutation($l: ID!, $r: ID!) { submitApplication(input: {leadId: $l, lenderId: $r, requestedAmount: "1000"}) { id } }`, map[string]any{"l": a["lead"], "r": a["lender"]}},
		"Mutation.markApplicationUnderwriting": {`mutation($id: ID!) { markApplicationUnderwriting(id: $id) { id } }`, map[string]any{"id": a["openApplication"]}},
		"Mutation.decideApplication":           {`mutation($id: ID!) { decideApplication(id: $id, input: {decision: DECLINED, reason: "x"}) { id } }`, map[string]any{"id": a["openApplication"]}},
		"Mutation.withdrawApplication":         {`mutation($id: ID!) { withdrawApplication(id: $id) { id } }`, map[string]any{"id": a["openApplication"]}},
		"Mutation.fundDeal":                    {`mutation($id: ID!) { fundDeal(input: {applicationId: $id}) { id } }`, map[string]any{"id": a["approvedApplication"]}},
		"Mutation.recordCommissionPayment":     {`mutation($d: ID!) { recordCommissionPayment(input: {dealId: $d, amount: "1"}) { id } }`, map[string]any{"d": a["deal"]}},
		"Query.stipulations":                   {`query($a: ID) { stipulations(where: {applicationId: $a}, limit: 100) { total nodes { id text } } }`, map[string]any{"a": a["approvedApplication"]}},
		"Mutation.addStipulation":              {`mutation($a: ID!) { addStipulation(applicationId: $a, text: "x") { id } }`, map[string]any{"a": a["approvedApplication"]}},
		"Mutation.satisfyStipulation":          {`mutation($id: ID!, $d: [ID!]!) { satisfyStipulation(id: $id, documentIds: $d) { id } }`, map[string]any{"id": a["stipulation"], "d": []string{a["document"]}}},
		"Mutation.waiveStipulation":            {`mutation($id: ID!) { waiveStipulation(id: $id, reason: "x") { id } }`, map[string]any{"id": a["stipulation"]}},
		"Mutation.reopenStipulation":           {`mutation($id: ID!) { reopenStipulation(id: $id, reason: "x") { id } }`, map[string]any{"id": a["waivedStipulation"]}},
		"Mutation.recordCommissionClawback":    {`mutation($d: ID!) { recordCommissionClawback(input: {dealId: $d, amount: "1"}) { id } }`, map[string]any{"d": a["deal"]}},
		// Analytics and the organization's settings.
		"Query.analytics": {`{ analytics { timezone pipeline { stages { stageId leads } bySource { source leads fundedAmount } }
			funding { totals { deals } byLender { id name } byAdvisor { id name } } lenders { lenders { lenderId name } }
			commissions { totals { expected } byAdvisor { id name } byLender { id name } } dialer { agents { userId name } } } }`, nil},
		"Query.organization": {`{ organization { id name timezone } }`, nil},
		// Access: API keys and the audit log.
		"Query.apiKeys":         {`{ apiKeys(includeRevoked: true) { total nodes { id } } }`, nil},
		"Query.auditEvents":     {`{ auditEvents ` + conn + ` }`, nil},
		"Mutation.createApiKey": {`mutation { createApiKey(input: {name: "x", scopes: ["leads:read"]}) { secret } }`, nil},
		"Mutation.revokeApiKey": {`mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, map[string]any{"id": a["apiKey"]}},
		"Query.me":              {`{ me { credential scopes user { id } } }`, nil},
		// Notifications: another organization's person's are their own.
		"Query.notifications":            {`{ notifications(first: 100) { edges { node { id summary } } } }`, nil},
		"Query.unreadNotificationCount":  {`{ unreadNotificationCount }`, nil},
		"Mutation.markNotificationsRead": {`mutation($ids: [ID!]) { markNotificationsRead(ids: $ids) }`, map[string]any{"ids": []string{a["notification"]}}},
		"Mutation.inviteUser":            {`mutation($id: ID!) { inviteUser(userId: $id) { token } }`, map[string]any{"id": a["advisor"]}},
		"Mutation.resetUserSignIn":       {`mutation($id: ID!) { resetUserSignIn(userId: $id) { token } }`, map[string]any{"id": a["advisor"]}},
		"Mutation.deactivateUser":        {`mutation($id: ID!) { deactivateUser(userId: $id) { id } }`, map[string]any{"id": a["advisor"]}},
		"Mutation.acceptInvitation":      {`mutation { acceptInvitation(token: "svc_inv_unknown", password: "a long enough passphrase") { id } }`, nil},
		"Mutation.rotateApiKey":          {`mutation($id: ID!) { rotateApiKey(id: $id) { secret } }`, map[string]any{"id": a["apiKey"]}},
		// Apps: any organization may install an app by its id (covered by
		// TestAppInstallationsStayInTheirOrganization), so installApp is
		// aimed at no app of org A's.
		"Query.apps":             {`{ apps ` + page + ` }`, nil},
		"Query.appInstallations": {`{ appInstallations(includeUninstalled: true) { total nodes { id appId } } }`, nil},
		"Mutation.registerApp":   {`mutation { registerApp(input: {name: "x", scopes: ["leads:read"]}) { id } }`, nil},
		"Mutation.installApp":    {`mutation { installApp(appId: "` + uuid.NewString() + `", scopes: ["leads:read"]) { token } }`, nil},
		"Mutation.uninstallApp":  {`mutation($id: ID!) { uninstallApp(installationId: $id) { id } }`, map[string]any{"id": a["installation"]}},
		// Imports: importLeads creates the caller's own job, so it is aimed
		// at none of org A's.
		"Query.importJob":             {`query($id: ID!) { importJob(id: $id) { id filename } }`, map[string]any{"id": a["importJob"]}},
		"Query.importJobs":            {`{ importJobs(limit: 100) { total nodes { id filename } } }`, nil},
		"Mutation.importLeads":        {importMutation, nil},
		"Mutation.updateOrganization": {`mutation { updateOrganization(input: {timezone: "Europe/Paris"}) { id name timezone } }`, nil},
		"Query.document":              {`query($id: ID!) { document(id: $id) { id filename } }`, map[string]any{"id": a["document"]}},
		// Notes, tasks and My day.
		"Mutation.addNote":      {`mutation($l: ID!) { addNote(input: {leadId: $l, body: "x"}) { id } }`, map[string]any{"l": a["lead"]}},
		"Mutation.updateNote":   {`mutation($id: ID!) { updateNote(id: $id, body: "x") { id body } }`, map[string]any{"id": a["note"]}},
		"Mutation.deleteNote":   {`mutation($id: ID!) { deleteNote(id: $id) }`, map[string]any{"id": a["note"]}},
		"Query.tasks":           {`{ tasks(limit: 100) { total nodes { id leadId assigneeId title } } }`, nil},
		"Query.lenderMatches":   {`query($l: ID!) { lenderMatches(leadId: $l) { lenderId lenderName score } }`, map[string]any{"l": a["lead"]}},
		"Query.renewalQueue":    {`query($u: ID) { renewalQueue(where: {advisorId: $u, dueBefore: "2100-01-01T00:00:00Z"}, limit: 100) { total nodes { dealId leadId businessName lenderName } } }`, map[string]any{"u": a["advisor"]}},
		"Query.myDay":           {`query($u: ID) { myDay(userId: $u) { userId overdueTasks { total nodes { id } } tasksDueToday { total nodes { id } } } }`, map[string]any{"u": a["advisor"]}},
		"Mutation.createTask":   {`mutation($l: ID!, $u: ID) { createTask(input: {leadId: $l, title: "x", dueAt: "2026-11-23T10:00:00Z", assigneeId: $u}) { id } }`, map[string]any{"l": a["lead"], "u": a["advisor"]}},
		"Mutation.updateTask":   {`mutation($id: ID!) { updateTask(id: $id, input: {title: "x"}) { id title } }`, map[string]any{"id": a["task"]}},
		"Mutation.completeTask": {`mutation($id: ID!) { completeTask(id: $id) { id } }`, map[string]any{"id": a["task"]}},
		"Mutation.reopenTask":   {`mutation($id: ID!) { reopenTask(id: $id) { id } }`, map[string]any{"id": a["doneTask"]}},
		"Mutation.uploadDocument": {`mutation($r: ID!, $file: Upload!) { uploadDocument(recordId: $r, file: $file) { id } }`,
			map[string]any{"r": a["lead"]}},
		// Saved views: a key acting for no one is refused them; another
		// organization's person is in TestSavedViewsOverGraphQL.
		"Query.views":         {`{ views(screen: BOARD) { id name } }`, nil},
		"Mutation.saveView":   {`mutation { saveView(input: {name: "x", screen: BOARD, filters: {search: "secret"}, shared: true}) { id } }`, nil},
		"Mutation.deleteView": {`mutation($id: ID!) { deleteView(id: $id) }`, map[string]any{"id": a["view"]}},
	}
	// Readable by any key of the organization (docs/api.md, Dialer): the
	// pipeline's stages, teams and users, call events and the board; and
	// the organization itself.
	anyKey := map[string]bool{"Query.organization": true, "Query.callEvents": true, "Query.stages": true, "Query.teams": true,
		"Query.users": true, "Query.agentsBoard": true, "Query.agentsBoardPage": true,
		"Query.stagesPage": true, "Query.usersPage": true, "Query.teamsPage": true,
		// Who is calling, and accepting an invitation (its token is the
		// credential), need no scope.
		"Query.me": true, "Mutation.acceptInvitation": true}
	cells := 0
	for _, field := range graph.OperationFields() {
		c, ok := cases[field]
		if !ok {
			t.Errorf("%s has no entry in the GraphQL isolation matrix", field)
			continue
		}
		t.Run(field, func(t *testing.T) {
			raw := post(t, e, otherKey, c, multipartCases[field]...)
			for name, id := range a {
				if strings.Contains(raw, id) && !sent(c, id) {
					t.Fatalf("another organization's key saw org A's %s: %s", name, raw)
				}
			}
			if c.vars != nil && !strings.Contains(raw, `"errors"`) && !strings.HasPrefix(field, "Query.") {
				t.Fatalf("a mutation aimed at org A's ids succeeded for another organization: %s", raw)
			}
			cells++
			if anyKey[field] {
				return
			}
			if raw := post(t, e, noScopes, c, multipartCases[field]...); !strings.Contains(raw, `"FORBIDDEN"`) && !strings.Contains(raw, `"NOT_FOUND"`) {
				t.Fatalf("a key without scopes was not refused: %s", raw)
			}
			cells++
		})
	}
	t.Logf("%d GraphQL matrix cells checked", cells)
	// Another organization's updateOrganization changed its own settings
	// only, and the key without scopes changed nothing.
	if data, code := gql(t, e, e.Key, `{ organization { timezone } }`, nil); code != "" || data["organization"].(map[string]any)["timezone"] != "UTC" {
		t.Errorf("org A's organization after the matrix: %v %s, want its timezone UTC", data, code)
	}
	// Org A's key sees what another organization's did not: the matrix's
	// analytics call can fail.
	raw := post(t, e, e.Key, cases["Query.analytics"])
	for _, name := range []string{"lender", "advisor", "agent"} {
		if !strings.Contains(raw, a[name]) {
			t.Errorf("org A's analytics do not show its own %s: %s", name, raw)
		}
	}
}

// sent reports whether the request itself carried id (an error may echo it).
func sent(c gqlCase, id string) bool {
	for _, v := range c.vars {
		if v == id {
			return true
		}
	}
	return false
}

// post sends c, as a multipart request when it carries files.
func post(t *testing.T, e *resttest.Env, key string, c gqlCase, files ...resttest.File) string {
	t.Helper()
	var r *resttest.Response
	if len(files) > 0 {
		r = e.Upload(key, c.doc, maps.Clone(c.vars), files...)
	} else {
		r = e.Post("/graphql", key, map[string]any{"query": c.doc, "variables": c.vars})
	}
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, r.Raw)
	}
	return string(r.Raw)
}

// graphFixtures makes one of each of org A's resources and returns their ids.
func graphFixtures(t *testing.T, e *resttest.Env) map[string]string {
	t.Helper()
	a := map[string]string{"stage": e.Stages(e.Org.ID)[2].ID.String(), "org": e.Org.ID.String()}
	advisor := e.NewUser(e.Org.ID, "Ada", "Advisor", "advisor", "Closers")
	a["advisor"], a["team"] = advisor.ID.String(), advisor.TeamID.String()
	a["agent"] = e.NewUser(e.Org.ID, "Al", "Agent", "agent", "Floor").ID.String()
	data, code := gql(t, e, e.Key, `mutation { createContact(input: {firstName: "Carla"}) { id } }`, nil)
	if code != "" {
		t.Fatalf("contact: %s", code)
	}
	a["contact"] = data["createContact"].(map[string]any)["id"].(string)
	data, code = gql(t, e, e.Key, `mutation { createApiKey(input: {name: "Fixture", scopes: ["leads:read"]}) { apiKey { id } } }`, nil)
	if code != "" {
		t.Fatalf("API key: %s", code)
	}
	a["apiKey"] = data["createApiKey"].(map[string]any)["apiKey"].(map[string]any)["id"].(string)
	data, code = gql(t, e, e.Key, `mutation { registerApp(input: {name: "Fixture App", scopes: ["leads:read"]}) { id } }`, nil)
	if code != "" {
		t.Fatalf("app: %s", code)
	}
	a["app"] = data["registerApp"].(map[string]any)["id"].(string)
	data, code = gql(t, e, e.Key, `mutation($a: ID!) { installApp(appId: $a, scopes: ["leads:read"]) { installation { id } } }`, map[string]any{"a": a["app"]})
	if code != "" {
		t.Fatalf("app installation: %s", code)
	}
	a["installation"] = data["installApp"].(map[string]any)["installation"].(map[string]any)["id"].(string)
	recv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(recv.Close)
	a["subscription"] = e.Post("/v1/app-webhooks", e.Key, map[string]any{"url": recv.URL, "events": []string{"*"}}).Data()["id"].(string)
	a["endpoint"] = e.Post("/v1/inbound-endpoints", e.Key, map[string]any{"name": "Partner"}).Data()["id"].(string)
	a["automation"] = e.Post("/v1/automations", e.Key, map[string]any{"name": "Tag", "trigger": map[string]any{"event": "lead.created"},
		"actions": []map[string]any{{"type": "add_tags", "tags": []string{"auto"}}}}).Data()["id"].(string)
	a["lead"] = e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Secret Lead", "assignToAdvisorId": a["advisor"]}).Data()["id"].(string)
	lendingFixtures(t, e, a)
	noteAndTasks(t, e, a)
	vi := e.NewUser(e.Org.ID, "Vi", "Viewer", "advisor", "")
	data, code = gql(t, e, boundKey(t, e, vi.ID.String(), []string{"leads:read"}),
		`mutation { saveView(input: {name: "Secret view", screen: BOARD, shared: true}) { id } }`, nil)
	if code != "" {
		t.Fatalf("saved view: %s", code)
	}
	a["view"] = data["saveView"].(map[string]any)["id"].(string)
	a["document"] = uploaded(t, e, a["lead"], "secret.txt", []byte("org A's secret\n"))["id"].(string)
	a["importJob"] = mustStart(t, e, e.Key, []byte("Company\nSecret Import Co\n"), nil)
	waitJob(t, e, e.Key, a["importJob"])
	e.Post("/v1/dialer/events", e.Key, map[string]any{"externalCallId": "a-call", "userId": a["agent"], "eventType": "call_started",
		"occurredAt": "2026-11-22T08:00:00Z"})
	// A call today, in the reports' default range.
	e.Post("/v1/dialer/events", e.Key, map[string]any{"externalCallId": "a-call-today", "userId": a["agent"], "eventType": "call_answered",
		"occurredAt": time.Now().UTC().Format(time.RFC3339)})
	deadline := time.Now().Add(10 * time.Second)
	for (a["delivery"] == "" || a["run"] == "") && time.Now().Before(deadline) {
		if d := e.Get("/v1/app-webhooks/"+a["subscription"]+"/deliveries", e.Key).Items(); len(d) > 0 {
			a["delivery"] = d[0]["id"].(string)
		}
		if r := e.Get("/v1/automations/"+a["automation"]+"/runs", e.Key).Items(); len(r) > 0 {
			a["run"] = r[0]["id"].(string)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if a["delivery"] == "" || a["run"] == "" {
		t.Fatalf("no delivery or run to aim at: %v", a)
	}
	// A key bound to the lead's advisor, who is told of its decisions and
	// fundings: a person's records (notifications) are read with it.
	data, code = gql(t, e, e.Key, `mutation($u: ID!) { createApiKey(input: {name: "Ada's", scopes: ["admin"], userId: $u}) { secret } }`,
		map[string]any{"u": a["advisor"]})
	if code != "" {
		t.Fatalf("the advisor's key: %s", code)
	}
	a["personKey"] = data["createApiKey"].(map[string]any)["secret"].(string)
	data, code = gql(t, e, a["personKey"], `{ notifications(first: 1) { edges { node { id } } } }`, nil)
	if edges, _ := data["notifications"].(map[string]any)["edges"].([]any); code != "" || len(edges) == 0 {
		t.Fatalf("the advisor's notifications: %v %s", data, code)
	}
	a["notification"] = data["notifications"].(map[string]any)["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["id"].(string)
	// GraphQL ids are bare UUIDs; REST prefixes these two.
	a["subscription"] = strings.TrimPrefix(a["subscription"], "whsub_")
	a["delivery"] = strings.TrimPrefix(a["delivery"], "msg_")
	return a
}

// lendingFixtures adds org A's lending records to a: a lender, a funded
// application with its deal, commission and payment, an approved one
// and an open one.
func lendingFixtures(t *testing.T, e *resttest.Env, a map[string]string) {
	t.Helper()
	must := func(query string, vars map[string]any) map[string]any {
		t.Helper()
		data, code := gql(t, e, e.Key, query, vars)
		if code != "" {
			t.Fatalf("%s: %s", query, code)
		}
		for _, v := range data {
			return v.(map[string]any)
		}
		return nil
	}
	id := func(m map[string]any) string { return m["id"].(string) }
	a["lender"] = id(must(`mutation { createLender(input: {name: "Secret Lender", commissionRate: "0.02"}) { id } }`, nil))
	submit := func() string {
		return id(must(`mutation($l: ID!, $r: ID!) { submitApplication(input: {leadId: $l, lenderId: $r, requestedAmount: "5000"}) { id } }`,
			map[string]any{"l": a["lead"], "r": a["lender"]}))
	}
	approve := func(app string) {
		must(`mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, interestRate: "1.3", rateType: factor, termMonths: 9}) { id } }`,
			map[string]any{"id": app})
	}
	a["application"] = submit()
	approve(a["application"])
	deal := must(`mutation($id: ID!) { fundDeal(input: {applicationId: $id}) { id commissionId } }`, map[string]any{"id": a["application"]})
	a["deal"], a["commission"] = id(deal), deal["commissionId"].(string)
	payment := must(`mutation($d: ID!) { recordCommissionPayment(input: {dealId: $d, amount: "50"}) { payments { id } } }`, map[string]any{"d": a["deal"]})
	a["payment"] = payment["payments"].([]any)[0].(map[string]any)["id"].(string)
	// Funding withdrew the lead's other applications; these come after it.
	a["approvedApplication"] = submit()
	approve(a["approvedApplication"])
	// Its checklist: one outstanding, one waived.
	stip := func(text string) string {
		return id(must(`mutation($a: ID!, $t: String!) { addStipulation(applicationId: $a, text: $t) { id } }`,
			map[string]any{"a": a["approvedApplication"], "t": text}))
	}
	a["stipulation"], a["waivedStipulation"] = stip("Secret voided check"), stip("Secret lease")
	must(`mutation($id: ID!) { waiveStipulation(id: $id, reason: "secret reason") { id } }`, map[string]any{"id": a["waivedStipulation"]})
	second := id(must(`mutation { createLender(input: {name: "Second Secret Lender"}) { id } }`, nil))
	a["openApplication"] = id(must(`mutation($l: ID!, $r: ID!) { submitApplication(input: {leadId: $l, lenderId: $r, requestedAmount: "5000"}) { id } }`,
		map[string]any{"l": a["lead"], "r": second}))
}

// noteAndTasks adds a note on org A's lead and two tasks of its advisor,
// one open and one done.
func noteAndTasks(t *testing.T, e *resttest.Env, a map[string]string) {
	t.Helper()
	must := func(query string, vars map[string]any) string {
		t.Helper()
		data, code := gql(t, e, e.Key, query, vars)
		if code != "" {
			t.Fatalf("%s: %s", query, code)
		}
		for _, v := range data {
			return v.(map[string]any)["id"].(string)
		}
		return ""
	}
	a["note"] = must(`mutation($l: ID!) { addNote(input: {leadId: $l, body: "org A's secret note"}) { id } }`, map[string]any{"l": a["lead"]})
	task := `mutation($l: ID!, $u: ID) { createTask(input: {leadId: $l, title: "org A's secret task", dueAt: "2026-11-23T10:00:00Z", assigneeId: $u}) { id } }`
	a["task"] = must(task, map[string]any{"l": a["lead"], "u": a["advisor"]})
	a["doneTask"] = must(task, map[string]any{"l": a["lead"], "u": a["advisor"]})
	must(`mutation($id: ID!) { completeTask(id: $id) { id } }`, map[string]any{"id": a["doneTask"]})
}

// An id that is not a UUID is the caller's mistake, not an internal error:
// VALIDATION_ERROR, as REST answers a malformed id in a filter or an input.
func TestGraphQLMalformedID(t *testing.T) {
	e := resttest.New(t)
	for _, id := range []string{"whsub_01a20222-250a-71dd-a76a-00a0ed013e5d", "42", ""} {
		if _, code := gql(t, e, e.Key, `query($id: ID!) { lead(id: $id) { id } }`, map[string]any{"id": id}); code != "VALIDATION_ERROR" {
			t.Errorf("id %q: code %q, want VALIDATION_ERROR", id, code)
		}
	}
}
