package console_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// At 1280 px every analytics table shows all its columns without a
// sideways scroll, even with long lender names and nine-digit amounts; the
// money axes read "$400M", not "400,000,000". At a phone's width a table
// that must scroll is a labelled region the keyboard can reach.
func TestAnalyticsTablesFitAndTicksAreShort(t *testing.T) {
	env := serve(t)
	lead := func(name string) string {
		r := env.Post("/v1/leads", env.Key, map[string]any{"businessName": name, "requestedAmount": "400000000"})
		if r.Status != http.StatusCreated {
			t.Fatalf("creating a lead: %d %s", r.Status, r.Raw)
		}
		return r.Data()["id"].(string)
	}
	for i, name := range []string{"Northwestern Commercial Equipment Finance Partners", "Consolidated Regional Small Business Lending Group"} {
		lender := adminField(adminGQL(t, env, env.Key, `mutation($n: String!) { createLender(input: {name: $n, commissionRate: "0.03"}) { id } }`,
			map[string]any{"n": name}), "createLender", "id")
		app := adminField(adminGQL(t, env, env.Key, `mutation($l: ID!, $r: ID!) { submitApplication(input: {leadId: $l, lenderId: $r}) { id } }`,
			map[string]any{"l": lead(name + " client"), "r": lender}), "submitApplication", "id")
		if i == 1 {
			continue
		}
		adminGQL(t, env, env.Key, `mutation($id: ID!) { decideApplication(id: $id, input: {decision: APPROVED, approvedAmount: "400000000.00", interestRate: "1.3", rateType: factor, termMonths: 6}) { id } }`,
			map[string]any{"id": app})
		deal := adminField(adminGQL(t, env, env.Key, `mutation($id: ID!) { fundDeal(input: {applicationId: $id, fundedAmount: "400000000.00"}) { id } }`,
			map[string]any{"id": app}), "fundDeal", "id")
		adminGQL(t, env, env.Key, `mutation($id: ID!) { recordCommissionPayment(input: {dealId: $id, amount: "3000000.00"}) { id } }`, map[string]any{"id": deal})
	}

	ctx := newBrowser(t)
	run(t, ctx, chromedp.EmulateViewport(1280, 800))
	signIn(t, ctx, env, env.Key)
	openScreen(t, ctx, "#/analytics", "Analytics")
	waitFor(t, ctx, `document.querySelectorAll('figure.chart').length === 5`)

	wide := eval[[]string](t, ctx, `[...document.querySelectorAll('figure.chart .table-wrap')]
		.filter((w) => w.scrollWidth > w.clientWidth)
		.map((w) => w.closest('figure').dataset.chart + ' ' + w.scrollWidth + '>' + w.clientWidth)`)
	if len(wide) > 0 {
		t.Errorf("at 1280 px these tables scroll sideways: %v", wide)
	}
	ticks := eval[[]string](t, ctx, `['funding', 'commissions'].map((name) => {
		const chart = Chart.getChart(document.querySelector('figure[data-chart="' + name + '"] canvas'));
		return name + ': ' + chart.scales.y.ticks.map((tk) => tk.label).join(' ');
	})`)
	for _, line := range ticks {
		if strings.Contains(line, ",000") || !strings.Contains(line, "$") || !strings.Contains(line, "M") {
			t.Errorf("the money axis reads %q, want short amounts such as $400M", line)
		}
	}
	if got := eval[string](t, ctx, `document.querySelector('figure[data-chart="commissions"] tfoot').textContent`); !strings.Contains(got, "$12,000,000.00") {
		t.Errorf("the commissions total reads %q", got)
	}

	phone(t, ctx)
	openScreen(t, ctx, "#/analytics", "Analytics")
	waitFor(t, ctx, `document.querySelectorAll('figure.chart').length === 5`)
	// The regions are marked when the page's resize observer runs, just
	// after the layout at the new width.
	unmarked := `[...document.querySelectorAll('.table-wrap')]
		.filter((w) => w.scrollWidth > w.clientWidth)
		.filter((w) => !(w.tabIndex === 0 && w.getAttribute('role') === 'region' && w.getAttribute('aria-label')))
		.map((w) => w.closest('figure')?.dataset.chart || w.outerHTML.slice(0, 80))`
	waitFor(t, ctx, unmarked+`.length === 0 && [...document.querySelectorAll('.table-wrap')].some((w) => w.scrollWidth > w.clientWidth)`)
}
