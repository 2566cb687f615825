package graph_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/viewer"
)

func TestLenderRules(t *testing.T) {
	l := newLendingEnv(t)
	acme := l.lender(t, "Acme Capital", map[string]any{"minAmount": "5000", "maxAmount": "100000"})
	create := `mutation($in: CreateLenderInput!) { createLender(input: $in) { ` + lenderFields + ` } }`
	update := `mutation($id: ID!, $in: UpdateLenderInput!) { updateLender(id: $id, input: $in) { ` + lenderFields + ` } }`
	t.Run("Defaults", func(t *testing.T) {
		got := l.must(t, create, map[string]any{"in": map[string]any{"name": "Plain Funding"}})["createLender"].(map[string]any)
		if got["isActive"] != true || got["commissionRate"] != "0" || got["minAmount"] != nil ||
			len(got["products"].([]any)) != 0 || len(got["excludedIndustries"].([]any)) != 0 {
			t.Errorf("created %v", got)
		}
	})
	t.Run("NameUniqueIgnoringCase", func(t *testing.T) {
		for _, name := range []string{"Acme Capital", "ACME CAPITAL", "acme capital", " Acme Capital "} {
			ext := l.refused(t, create, map[string]any{"in": map[string]any{"name": name}})
			wantError(t, ext, "CONFLICT", "name")
		}
		other := l.lender(t, "Other Capital", nil)
		wantError(t, l.refused(t, update, map[string]any{"id": other, "in": map[string]any{"name": "aCmE cApItAl"}}), "CONFLICT", "name")
		// A lender may change the case of its own name.
		got := l.must(t, update, map[string]any{"id": acme, "in": map[string]any{"name": "ACME Capital"}})["updateLender"].(map[string]any)
		if got["name"] != "ACME Capital" {
			t.Errorf("renamed to %v", got["name"])
		}
		// Another organization's panel is its own.
		_, otherKey := l.NewOrg("Another Shop", viewer.AllScopes...)
		if _, ext := gqlExt(t, l.Env, otherKey, create, map[string]any{"in": map[string]any{"name": "Acme Capital"}}); ext != nil {
			t.Errorf("another organization could not use the name: %v", ext)
		}
	})
	t.Run("AmountRange", func(t *testing.T) {
		wantError(t, l.refused(t, create, map[string]any{"in": map[string]any{"name": "Upside Down", "minAmount": "10", "maxAmount": "9.99"}}),
			"VALIDATION_ERROR", "minAmount")
		if _, ext := gqlExt(t, l.Env, l.key, create, map[string]any{"in": map[string]any{"name": "Point", "minAmount": "10", "maxAmount": "10"}}); ext != nil {
			t.Errorf("min = max refused: %v", ext)
		}
		// An update is checked against the bound it leaves as stored.
		wantError(t, l.refused(t, update, map[string]any{"id": acme, "in": map[string]any{"minAmount": "100000.01"}}), "VALIDATION_ERROR", "minAmount")
		wantError(t, l.refused(t, update, map[string]any{"id": acme, "in": map[string]any{"maxAmount": "4999.99"}}), "VALIDATION_ERROR", "minAmount")
		wantError(t, l.refused(t, update, map[string]any{"id": acme, "in": map[string]any{"minAmount": "7", "maxAmount": "6"}}), "VALIDATION_ERROR", "minAmount")
		got := l.must(t, update, map[string]any{"id": acme, "in": map[string]any{"minAmount": "200000", "clearMaxAmount": true}})["updateLender"].(map[string]any)
		if got["minAmount"] != "200000.00" || got["maxAmount"] != nil {
			t.Errorf("clearing max with a higher min: %v", got)
		}
		got = l.must(t, update, map[string]any{"id": acme, "in": map[string]any{"maxAmount": "300000"}})["updateLender"].(map[string]any)
		if got["maxAmount"] != "300000.00" {
			t.Errorf("max above the stored min: %v", got)
		}
	})
	t.Run("Lists", func(t *testing.T) {
		wantError(t, l.refused(t, create, map[string]any{"in": map[string]any{"name": "Odd Products", "products": []string{"mca", "payday"}}}),
			"VALIDATION_ERROR", "products")
		wantError(t, l.refused(t, update, map[string]any{"id": acme, "in": map[string]any{"appendProducts": []string{"payday"}}}),
			"VALIDATION_ERROR", "products")
		wantError(t, l.refused(t, update, map[string]any{"id": acme, "in": map[string]any{"appendExcludedIndustries": []string{strings.Repeat("x", 101)}}}),
			"VALIDATION_ERROR", "excludedIndustries")
		got := l.must(t, update, map[string]any{"id": acme, "in": map[string]any{"products": []string{"mca"}, "appendProducts": []string{"sba"}}})["updateLender"].(map[string]any)
		if fmt.Sprint(got["products"]) != "[mca sba]" {
			t.Errorf("products set and appended at once = %v, want [mca sba]", got["products"])
		}
		got = l.must(t, update, map[string]any{"id": acme, "in": map[string]any{"appendProducts": []string{"equipment"},
			"appendExcludedIndustries": []string{"Gambling"}}})["updateLender"].(map[string]any)
		if fmt.Sprint(got["products"]) != "[mca sba equipment]" || fmt.Sprint(got["excludedIndustries"]) != "[Gambling]" {
			t.Errorf("appended: %v", got)
		}
		many := make([]string, 50)
		for i := range many {
			many[i] = fmt.Sprintf("industry %d", i)
		}
		wantError(t, l.refused(t, update, map[string]any{"id": acme, "in": map[string]any{"appendExcludedIndustries": many}}),
			"VALIDATION_ERROR", "excludedIndustries")
	})
	t.Run("AnotherOrganizationsLender", func(t *testing.T) {
		// Its bounds are not told by a range error: the lender is not found.
		_, otherKey := l.NewOrg("Prober", viewer.AllScopes...)
		for _, in := range []map[string]any{{"minAmount": "999999999"}, {"maxAmount": "0.01"}, {"appendProducts": []string{"sba"}},
			{"appendExcludedIndustries": []string{"x"}}, {"name": "Renamed"}} {
			_, ext := gqlExt(t, l.Env, otherKey, update, map[string]any{"id": acme, "in": in})
			if ext["code"] != "NOT_FOUND" {
				t.Errorf("another organization's update %v: %v, want NOT_FOUND", in, ext)
			}
		}
	})
	t.Run("Rates", func(t *testing.T) {
		for _, rate := range []string{"10.000001", "-1", "0.0000001", "1e-3"} {
			_, ext := gqlExt(t, l.Env, l.key, create, map[string]any{"in": map[string]any{"name": "Rate " + rate, "commissionRate": rate}})
			if ext == nil || ext["code"] != "VALIDATION_ERROR" {
				t.Errorf("commissionRate %s: %v, want VALIDATION_ERROR", rate, ext)
			}
		}
		got := l.must(t, create, map[string]any{"in": map[string]any{"name": "Normal Rate", "commissionRate": "0.0350"}})["createLender"].(map[string]any)
		if got["commissionRate"] != "0.035" {
			t.Errorf("commissionRate = %v, want 0.035", got["commissionRate"])
		}
	})
}

func TestSubmitApplicationRules(t *testing.T) {
	l := newLendingEnv(t)
	lender := l.lender(t, "Open Door Funding", nil)
	t.Run("Recorded", func(t *testing.T) {
		lead := l.lead(t, nil)
		a := l.submit(t, lead, lender, map[string]any{"requestedAmount": "25000", "product": "mca", "externalRef": "OD-1", "notes": "first file"})
		if a["status"] != "submitted" || a["leadId"] != lead || a["lenderId"] != lender || a["lenderName"] != "Open Door Funding" ||
			a["requestedAmount"] != "25000.00" || a["product"] != "mca" || a["externalRef"] != "OD-1" || a["submittedBy"] != l.actor ||
			a["decidedAt"] != nil || a["approvedAmount"] != nil || len(a["warnings"].([]any)) != 0 || len(a["conditions"].([]any)) != 0 {
			t.Errorf("submitted %v", a)
		}
	})
	t.Run("OneOpenApplicationPerLeadAndLender", func(t *testing.T) {
		lead := l.lead(t, nil)
		first := l.submit(t, lead, lender, nil)["id"].(string)
		for _, status := range []string{"submitted", "underwriting", "approved"} {
			switch status {
			case "underwriting":
				l.do(t, underwriteDoc, first)
			case "approved":
				l.do(t, approveDoc, first)
			}
			ext := l.refused(t, submitDoc, submitInput(lead, lender, map[string]any{"requestedAmount": "1000"}))
			wantError(t, ext, "CONFLICT", "lenderId")
			if ext["applicationId"] != first || ext["status"] != status {
				t.Errorf("%s: the conflict names %v, want %s in %s", status, ext, first, status)
			}
		}
		// Another lender takes the lead, and a closed application frees the lender.
		l.submit(t, lead, l.lender(t, "Second Look Capital", nil), nil)
		l.do(t, withdrawDoc, first)
		second := l.submit(t, lead, lender, nil)["id"].(string)
		l.do(t, declineDoc, second)
		l.submit(t, lead, lender, nil)
		apps := l.must(t, `query($l: ID, $r: ID) { applicationsPage(leadId: $l, lenderId: $r) { total } }`, map[string]any{"l": lead, "r": lender})
		if got := apps["applicationsPage"].(map[string]any)["total"]; got != 3.0 {
			t.Errorf("%v applications of the lead with the lender, want 3", got)
		}
	})
	t.Run("ExternalRefUniquePerLender", func(t *testing.T) {
		first := l.submit(t, l.lead(t, nil), lender, map[string]any{"requestedAmount": "1000", "externalRef": "REF-7"})
		wantError(t, l.refused(t, submitDoc, submitInput(l.lead(t, nil), lender, map[string]any{"requestedAmount": "1000", "externalRef": "REF-7"})),
			"CONFLICT", "externalRef")
		// Still taken once the first is closed: the reference names the file for good.
		l.do(t, declineDoc, first["id"].(string))
		wantError(t, l.refused(t, submitDoc, submitInput(l.lead(t, nil), lender, map[string]any{"requestedAmount": "1000", "externalRef": "REF-7"})),
			"CONFLICT", "externalRef")
		l.submit(t, l.lead(t, nil), l.lender(t, "Ref Elsewhere", nil), map[string]any{"requestedAmount": "1000", "externalRef": "REF-7"})
	})
	t.Run("InactiveLender", func(t *testing.T) {
		idle := l.lender(t, "Idle Funding", map[string]any{"isActive": false})
		wantError(t, l.refused(t, submitDoc, submitInput(l.lead(t, nil), idle, map[string]any{"requestedAmount": "1000"})), "VALIDATION_ERROR", "lenderId")
	})
	t.Run("OtherOrganizationsRecords", func(t *testing.T) {
		other, otherKey := l.NewOrg("Poacher", viewer.AllScopes...)
		_ = other
		data, ext := gqlExt(t, l.Env, otherKey, `mutation { createLender(input: {name: "Their Lender"}) { id } }`, nil)
		if ext != nil {
			t.Fatal(ext)
		}
		theirs := data["createLender"].(map[string]any)["id"].(string)
		wantError(t, l.refused(t, submitDoc, submitInput(l.lead(t, nil), theirs, map[string]any{"requestedAmount": "1000"})), "VALIDATION_ERROR", "lenderId")
		_, ext = gqlExt(t, l.Env, otherKey, submitDoc, submitInput(l.lead(t, nil), theirs, map[string]any{"requestedAmount": "1000"}))
		wantError(t, ext, "VALIDATION_ERROR", "leadId")
	})
	t.Run("RequestedAmountFromTheLead", func(t *testing.T) {
		for leadAmount, want := range map[string]string{
			"25000": "25000.00", "25000.5": "25000.50", "25000.125": "25000.12", "25000.135": "25000.14",
			"25000.1250": "25000.12", "25000.1251": "25000.13", "0.005": "0.00",
		} {
			lead := l.lead(t, map[string]any{"requestedAmount": leadAmount})
			_, ext := gqlExt(t, l.Env, l.key, submitDoc, submitInput(lead, lender, nil))
			if want == "0.00" {
				wantError(t, ext, "VALIDATION_ERROR", "requestedAmount")
				continue
			}
			if ext != nil {
				t.Fatalf("lead amount %s: %v", leadAmount, ext)
			}
			apps := l.must(t, `query($l: ID) { applicationsPage(leadId: $l) { nodes { requestedAmount } } }`, map[string]any{"l": lead})
			if got := apps["applicationsPage"].(map[string]any)["nodes"].([]any)[0].(map[string]any)["requestedAmount"]; got != want {
				t.Errorf("lead amount %s: requestedAmount %v, want %s (half-even)", leadAmount, got, want)
			}
		}
		wantError(t, l.refused(t, submitDoc, submitInput(l.lead(t, nil), lender, nil)), "VALIDATION_ERROR", "requestedAmount")
		// A given amount wins over the lead's.
		a := l.submit(t, l.lead(t, map[string]any{"requestedAmount": "9000"}), lender, map[string]any{"requestedAmount": "8000.10"})
		if a["requestedAmount"] != "8000.10" {
			t.Errorf("requestedAmount = %v, want the given 8000.10", a["requestedAmount"])
		}
		wantError(t, l.refused(t, submitDoc, submitInput(l.lead(t, nil), lender, map[string]any{"requestedAmount": "0"})), "VALIDATION_ERROR", "requestedAmount")
	})
	t.Run("Warnings", func(t *testing.T) {
		boxed := l.lender(t, "Boxed In Capital", map[string]any{"minAmount": "10000", "maxAmount": "50000", "minMonthlyRevenue": "20000",
			"minMonthsInBusiness": 12, "excludedIndustries": []string{"Cannabis"}, "products": []string{"term_loan"}})
		cases := []struct {
			name    string
			lead    map[string]any
			product string
			want    []string
		}{
			{"Fits", map[string]any{"requestedAmount": "20000", "monthlyRevenue": "30000", "industry": "Trucking",
				"customFields": map[string]any{"monthsInBusiness": 24}}, "term_loan", nil},
			{"MissesEverything", map[string]any{"requestedAmount": "60000", "monthlyRevenue": "100", "industry": "CANNABIS",
				"customFields": map[string]any{"monthsInBusiness": 3}}, "mca",
				[]string{"maxAmount", "minMonthlyRevenue", "excluded", "product mca", "minMonthsInBusiness"}},
			{"MonthsAsText", map[string]any{"requestedAmount": "5000", "customFields": map[string]any{"monthsInBusiness": "6"}}, "",
				[]string{"minAmount", "minMonthsInBusiness"}},
			{"UnknownsMissNothing", map[string]any{"requestedAmount": "20000", "customFields": map[string]any{"monthsInBusiness": "a while"}}, "", nil},
			{"FractionalMonthsAreUnknown", map[string]any{"requestedAmount": "20000", "customFields": map[string]any{"monthsInBusiness": 6.5}}, "", nil},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				extra := map[string]any{}
				if c.product != "" {
					extra["product"] = c.product
				}
				a := l.must(t, submitDoc, submitInput(l.lead(t, c.lead), boxed, extra))["submitApplication"].(map[string]any)
				got := a["warnings"].([]any)
				if len(got) != len(c.want) {
					t.Fatalf("warnings %q, want %d naming %q", got, len(c.want), c.want)
				}
				for i, w := range c.want {
					if !strings.Contains(got[i].(string), w) {
						t.Errorf("warning %d = %q, want it to say %q", i, got[i], w)
					}
				}
			})
		}
	})
}

func TestDecideApplicationRules(t *testing.T) {
	l := newLendingEnv(t)
	lender := l.lender(t, "Decisive Capital", nil)
	decide := `mutation($id: ID!, $in: DecideApplicationInput!) { decideApplication(id: $id, input: $in) { ` + appFields + ` } }`
	offer := func(extra map[string]any) map[string]any {
		in := map[string]any{"decision": "APPROVED", "interestRate": "1.35", "rateType": "factor", "termMonths": 12}
		for k, v := range extra {
			if v == nil {
				delete(in, k)
			} else {
				in[k] = v
			}
		}
		return in
	}
	decline := func(extra map[string]any) map[string]any {
		in := map[string]any{"decision": "DECLINED", "reason": "Too many positions"}
		for k, v := range extra {
			if v == nil {
				delete(in, k)
			} else {
				in[k] = v
			}
		}
		return in
	}
	app := l.submit(t, l.lead(t, nil), lender, nil)["id"].(string)
	refusals := []struct {
		name  string
		in    map[string]any
		field string
	}{
		{"ApprovalWithoutInterestRate", offer(map[string]any{"interestRate": nil}), "interestRate"},
		{"ApprovalWithoutRateType", offer(map[string]any{"rateType": nil}), "rateType"},
		{"ApprovalWithoutTermMonths", offer(map[string]any{"termMonths": nil}), "termMonths"},
		{"TermOfZeroMonths", offer(map[string]any{"termMonths": 0}), "termMonths"},
		{"TermOver600Months", offer(map[string]any{"termMonths": 601}), "termMonths"},
		{"ApprovedAmountZero", offer(map[string]any{"approvedAmount": "0"}), "approvedAmount"},
		{"RateOverTen", offer(map[string]any{"interestRate": "10.5"}), "interestRate"},
		{"ApprovalWithAReason", offer(map[string]any{"reason": "no"}), "reason"},
		{"ApprovalWithADeclineCategory", offer(map[string]any{"declineCategory": "credit"}), "declineCategory"},
		{"DeclineWithoutReason", decline(map[string]any{"reason": nil}), "reason"},
		{"DeclineWithABlankReason", decline(map[string]any{"reason": "   "}), "reason"},
		{"DeclineWithALongReason", decline(map[string]any{"reason": strings.Repeat("r", 501)}), "reason"},
		{"DeclineWithAnApprovedAmount", decline(map[string]any{"approvedAmount": "100"}), "approvedAmount"},
		{"DeclineWithAnInterestRate", decline(map[string]any{"interestRate": "1.2"}), "interestRate"},
		{"DeclineWithARateType", decline(map[string]any{"rateType": "apr"}), "rateType"},
		{"DeclineWithATerm", decline(map[string]any{"termMonths": 6}), "termMonths"},
		{"DeclineWithAPaymentFrequency", decline(map[string]any{"paymentFrequency": "daily"}), "paymentFrequency"},
		{"DeclineWithConditions", decline(map[string]any{"conditions": []string{"bank statements"}}), "conditions"},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, l.refused(t, decide, map[string]any{"id": app, "in": c.in}), "VALIDATION_ERROR", c.field)
		})
	}
	if got := l.application(t, app); got["status"] != "submitted" || got["decidedAt"] != nil {
		t.Fatalf("refused decisions changed the application: %v", got)
	}
	t.Run("Approved", func(t *testing.T) {
		before := time.Now().Add(-time.Second)
		a := l.must(t, decide, map[string]any{"id": app, "in": offer(map[string]any{"paymentFrequency": "weekly",
			"conditions": []string{"voided check", "two bank statements"}})})["decideApplication"].(map[string]any)
		if a["status"] != "approved" || a["approvedAmount"] != "25000.00" || a["interestRate"] != "1.35" || a["rateType"] != "factor" ||
			a["termMonths"] != 12.0 || a["paymentFrequency"] != "weekly" || len(a["conditions"].([]any)) != 2 || a["declineReason"] != nil {
			t.Errorf("approved %v", a)
		}
		if at, err := apitime.Parse(a["decidedAt"].(string)); err != nil || at.Before(before) {
			t.Errorf("decidedAt = %v", a["decidedAt"])
		}
	})
	t.Run("Declined", func(t *testing.T) {
		other := l.submit(t, l.lead(t, nil), lender, nil)["id"].(string)
		a := l.must(t, decide, map[string]any{"id": other, "in": decline(map[string]any{"declineCategory": "existing_positions"})})["decideApplication"].(map[string]any)
		if a["status"] != "declined" || a["declineReason"] != "Too many positions" || a["declineCategory"] != "existing_positions" ||
			a["decidedAt"] == nil || a["approvedAmount"] != nil || a["interestRate"] != nil {
			t.Errorf("declined %v", a)
		}
	})
	t.Run("WithdrawnReason", func(t *testing.T) {
		other := l.submit(t, l.lead(t, nil), lender, nil)["id"].(string)
		wantError(t, l.refused(t, `mutation($id: ID!) { withdrawApplication(id: $id, reason: "") { id } }`, map[string]any{"id": other}),
			"VALIDATION_ERROR", "reason")
		a := l.do(t, withdrawDoc, other)
		if got := l.application(t, a["id"].(string)); got["withdrawnReason"] != "the merchant changed its mind" {
			t.Errorf("withdrawnReason = %v", got["withdrawnReason"])
		}
	})
}

// An approval missing a part of its offer says which, in its message as
// well as in extensions.field: a reader may see the message alone.
func TestApprovalMessageNamesTheField(t *testing.T) {
	l := newLendingEnv(t)
	app := l.submit(t, l.lead(t, nil), l.lender(t, "Plain Words Capital", nil), nil)["id"].(string)
	decide := `mutation($id: ID!, $in: DecideApplicationInput!) { decideApplication(id: $id, input: $in) { id } }`
	for field, in := range map[string]map[string]any{
		"interestRate": {"decision": "APPROVED", "approvedAmount": "30000.00"},
		"rateType":     {"decision": "APPROVED", "interestRate": "1.35", "termMonths": 12},
		"termMonths":   {"decision": "APPROVED", "interestRate": "1.35", "rateType": "factor"},
	} {
		r := l.Post("/graphql", l.key, map[string]any{"query": decide, "variables": map[string]any{"id": app, "in": in}})
		errs, _ := r.Body["errors"].([]any)
		if len(errs) == 0 {
			t.Fatalf("%s: the approval succeeded: %s", field, r.Raw)
		}
		first := errs[0].(map[string]any)
		if want := field + " is required to approve an application"; first["message"] != want {
			t.Errorf("%s: message %q, want %q", field, first["message"], want)
		}
		wantError(t, first["extensions"].(map[string]any), "VALIDATION_ERROR", field)
	}
}
