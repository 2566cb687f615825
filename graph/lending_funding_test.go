package graph_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/viewer"
)

const dealFields = `id applicationId leadId lenderId lenderName advisorId fundedAmount interestRate rateType termMonths
	paymentFrequency paybackAmount expectedCommission commissionId fundedAt
	application { status fundedDealId } commission { id dealId leadId lenderId advisorId expectedAmount paidAmount status }`

const fundDealDoc = `mutation($in: FundDealInput!) { fundDeal(input: $in) { ` + dealFields + ` } }`

// approved submits a new application of lead to lender and approves it
// with offer's fields over a factor 1.25, 6 months, daily offer.
func (l *lendingEnv) approved(t *testing.T, lead, lender, requested string, offer map[string]any) string {
	t.Helper()
	app := l.submit(t, lead, lender, map[string]any{"requestedAmount": requested})["id"].(string)
	in := map[string]any{"decision": "APPROVED", "interestRate": "1.25", "rateType": "factor", "termMonths": 6, "paymentFrequency": "daily"}
	for k, v := range offer {
		in[k] = v
	}
	l.must(t, `mutation($id: ID!, $in: DecideApplicationInput!) { decideApplication(id: $id, input: $in) { id } }`,
		map[string]any{"id": app, "in": in})
	return app
}

func (l *lendingEnv) fund(t *testing.T, in map[string]any) map[string]any {
	t.Helper()
	return l.must(t, fundDealDoc, map[string]any{"in": in})["fundDeal"].(map[string]any)
}

func sameTime(t *testing.T, got any, want time.Time) bool {
	t.Helper()
	s, ok := got.(string)
	if !ok {
		return false
	}
	at, err := apitime.Parse(s)
	return err == nil && at.Equal(want)
}

func TestFundDeal(t *testing.T) {
	l := newLendingEnv(t)
	advisor := l.NewUser(l.Org.ID, "Ada", "Advisor", "advisor", "")
	lender := l.lender(t, "Funding Circle Capital", map[string]any{"commissionRate": "0.01"})
	lead := l.lead(t, map[string]any{"assignToAdvisorId": advisor.ID})
	app := l.approved(t, lead, lender, "10000.02", nil)
	// The lead's other applications: open ones are withdrawn, closed ones stay.
	submitted := l.submit(t, lead, l.lender(t, "Second Lender", nil), nil)["id"].(string)
	underwriting := l.submit(t, lead, l.lender(t, "Third Lender", nil), nil)["id"].(string)
	l.do(t, underwriteDoc, underwriting)
	approvedToo := l.approved(t, lead, l.lender(t, "Fourth Lender", nil), "9000", nil)
	declined := l.submit(t, lead, l.lender(t, "Fifth Lender", nil), nil)["id"].(string)
	l.do(t, declineDoc, declined)
	// Another lead's open application is not touched.
	bystander := l.submit(t, l.lead(t, nil), lender, nil)["id"].(string)

	fundedAt := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	d := l.fund(t, map[string]any{"applicationId": app, "fundedAt": fundedAt.Format(time.RFC3339)})
	for field, want := range map[string]any{
		"applicationId": app, "leadId": lead, "lenderId": lender, "lenderName": "Funding Circle Capital",
		"advisorId":    advisor.ID.String(), // the lead's advisor
		"fundedAmount": "10000.02",          // the approved amount
		"interestRate": "1.25", "rateType": "factor", "termMonths": 6.0, "paymentFrequency": "daily",
		"paybackAmount":      "12500.02", // 12500.025, half-even
		"expectedCommission": "100.00",   // 100.0002
	} {
		if d[field] != want {
			t.Errorf("%s = %v, want %v", field, d[field], want)
		}
	}
	if !sameTime(t, d["fundedAt"], fundedAt) {
		t.Errorf("fundedAt = %v, want %s", d["fundedAt"], fundedAt)
	}
	if a := d["application"].(map[string]any); a["status"] != "funded" || a["fundedDealId"] != d["id"] {
		t.Errorf("application = %v", a)
	}
	c := d["commission"].(map[string]any)
	if c["id"] != d["commissionId"] || c["dealId"] != d["id"] || c["leadId"] != lead || c["lenderId"] != lender ||
		c["advisorId"] != advisor.ID.String() || c["expectedAmount"] != "100.00" || c["paidAmount"] != "0.00" || c["status"] != "pending" {
		t.Errorf("commission = %v", c)
	}
	for id, want := range map[string][2]any{
		submitted: {"withdrawn", "funded_elsewhere"}, underwriting: {"withdrawn", "funded_elsewhere"},
		approvedToo: {"withdrawn", "funded_elsewhere"}, declined: {"declined", nil}, bystander: {"submitted", nil},
	} {
		if a := l.application(t, id); a["status"] != want[0] || a["withdrawnReason"] != want[1] {
			t.Errorf("the lead's other application is %v (%v), want %v", a["status"], a["withdrawnReason"], want)
		}
	}
	st := l.leadState(t, lead)
	if slotOf(st) != "won" || !sameTime(t, st["convertedAt"], fundedAt) {
		t.Errorf("the lead is %v, convertedAt %v; want won, %s", slotOf(st), st["convertedAt"], fundedAt)
	}
	t.Run("OneDealPerApplication", func(t *testing.T) {
		ext := l.refused(t, fundDealDoc, map[string]any{"in": map[string]any{"applicationId": app}})
		if ext["code"] != "CONFLICT" || ext["from"] != "funded" || ext["to"] != "funded" {
			t.Errorf("funding again: %v", ext)
		}
	})
	t.Run("GivenAmountCommissionAndAdvisor", func(t *testing.T) {
		other := l.NewUser(l.Org.ID, "Bo", "Broker", "advisor", "")
		app := l.approved(t, l.lead(t, nil), lender, "20000", map[string]any{"interestRate": "1.5"})
		d := l.fund(t, map[string]any{"applicationId": app, "fundedAmount": "12344.50", "advisorId": other.ID})
		if d["fundedAmount"] != "12344.50" || d["paybackAmount"] != "18516.75" || d["expectedCommission"] != "123.44" ||
			d["advisorId"] != other.ID.String() {
			t.Errorf("deal = %v; want commission 123.44 (123.445 half-even), payback 18516.75", d)
		}
		app = l.approved(t, l.lead(t, nil), lender, "20000", nil)
		d = l.fund(t, map[string]any{"applicationId": app, "commission": "777.70"})
		if d["expectedCommission"] != "777.70" || d["commission"].(map[string]any)["expectedAmount"] != "777.70" {
			t.Errorf("a given commission: %v", d)
		}
	})
	t.Run("AprHasNoPayback", func(t *testing.T) {
		app := l.approved(t, l.lead(t, nil), lender, "5000", map[string]any{"interestRate": "0.189", "rateType": "apr", "termMonths": 24})
		d := l.fund(t, map[string]any{"applicationId": app})
		if d["paybackAmount"] != nil || d["rateType"] != "apr" || d["interestRate"] != "0.189" || d["termMonths"] != 24.0 {
			t.Errorf("deal = %v", d)
		}
	})
	t.Run("NoAdvisor", func(t *testing.T) {
		d := l.fund(t, map[string]any{"applicationId": l.approved(t, l.lead(t, nil), lender, "5000", nil)})
		if d["advisorId"] != nil || d["commission"].(map[string]any)["advisorId"] != nil {
			t.Errorf("deal of a lead without an advisor: %v", d)
		}
	})
	t.Run("Refusals", func(t *testing.T) {
		app := l.approved(t, l.lead(t, nil), lender, "5000", nil)
		other, _ := l.NewOrg("Not Ours", viewer.AllScopes...)
		stranger := l.NewUser(other.ID, "Stan", "Stranger", "advisor", "")
		for name, c := range map[string]struct {
			in    map[string]any
			code  string
			field string
		}{
			"FundedAtInTheFuture":   {map[string]any{"fundedAt": time.Now().Add(time.Hour).Format(time.RFC3339)}, "VALIDATION_ERROR", "fundedAt"},
			"FundedAmountZero":      {map[string]any{"fundedAmount": "0"}, "VALIDATION_ERROR", "fundedAmount"},
			"AdvisorOfAnotherOrg":   {map[string]any{"advisorId": stranger.ID}, "VALIDATION_ERROR", "advisorId"},
			"FundedAmountMalformed": {map[string]any{"fundedAmount": "10.001"}, "VALIDATION_ERROR", "fundedAmount"},
		} {
			t.Run(name, func(t *testing.T) {
				c.in["applicationId"] = app
				wantError(t, l.refused(t, fundDealDoc, map[string]any{"in": c.in}), c.code, c.field)
			})
		}
		if a := l.application(t, app); a["status"] != "approved" {
			t.Errorf("refused fundings left the application %v", a["status"])
		}
	})
}

const commissionFields = `id expectedAmount paidAmount status payments { amount kind paidAt reference }`

func TestCommissionPayments(t *testing.T) {
	l := newLendingEnv(t)
	lender := l.lender(t, "Paying Lender", nil)
	deal := l.fund(t, map[string]any{"applicationId": l.approved(t, l.lead(t, nil), lender, "50000", nil), "commission": "1000"})["id"].(string)
	pay := `mutation($in: CommissionPaymentInput!) { recordCommissionPayment(input: $in) { ` + commissionFields + ` } }`
	claw := `mutation($in: CommissionPaymentInput!) { recordCommissionClawback(input: $in) { ` + commissionFields + ` } }`
	record := func(t *testing.T, doc, amount string, at time.Time) map[string]any {
		t.Helper()
		data := l.must(t, doc, map[string]any{"in": map[string]any{"dealId": deal, "amount": amount, "paidAt": at.Format(time.RFC3339), "reference": "r-" + amount}})
		for _, v := range data {
			return v.(map[string]any)
		}
		return nil
	}
	day := func(n int) time.Time { return time.Date(2024, 4, n, 9, 0, 0, 0, time.UTC) }
	steps := []struct {
		doc, amount   string
		paid, status  string
		paymentsSoFar int
		lastKind      string
	}{
		{pay, "400", "400.00", "partially_paid", 1, "payment"},
		{pay, "600.00", "1000.00", "paid", 2, "payment"},
		{claw, "250", "750.00", "clawed_back", 3, "clawback"},
		// Once clawed back, it stays so: the history says the lender took money back.
		{pay, "250", "1000.00", "clawed_back", 4, "payment"},
	}
	for i, s := range steps {
		c := record(t, s.doc, s.amount, day(i+1))
		payments := c["payments"].([]any)
		if c["paidAmount"] != s.paid || c["status"] != s.status || c["expectedAmount"] != "1000.00" || len(payments) != s.paymentsSoFar {
			t.Fatalf("after %s %s: %v; want paid %s, %s, %d payments", s.lastKind, s.amount, c, s.paid, s.status, s.paymentsSoFar)
		}
		last := payments[len(payments)-1].(map[string]any)
		if last["kind"] != s.lastKind || !sameTime(t, last["paidAt"], day(i+1)) || last["reference"] != "r-"+s.amount {
			t.Errorf("the last payment is %v", last)
		}
	}
	t.Run("Refusals", func(t *testing.T) {
		for name, c := range map[string]struct {
			doc   string
			in    map[string]any
			code  string
			field string
		}{
			"ClawbackLargerThanPaid": {claw, map[string]any{"amount": "1000.01"}, "VALIDATION_ERROR", "amount"},
			"ZeroPayment":            {pay, map[string]any{"amount": "0"}, "VALIDATION_ERROR", "amount"},
			"ZeroClawback":           {claw, map[string]any{"amount": "0.00"}, "VALIDATION_ERROR", "amount"},
			"PaidInTheFuture":        {pay, map[string]any{"amount": "1", "paidAt": time.Now().Add(time.Hour).Format(time.RFC3339)}, "VALIDATION_ERROR", "paidAt"},
			"ClawedInTheFuture":      {claw, map[string]any{"amount": "1", "paidAt": time.Now().Add(time.Hour).Format(time.RFC3339)}, "VALIDATION_ERROR", "paidAt"},
			"UnknownDeal":            {pay, map[string]any{"amount": "1", "dealId": "01a20222-250a-71dd-a76a-00a0ed013e5d"}, "NOT_FOUND", ""},
		} {
			t.Run(name, func(t *testing.T) {
				if _, ok := c.in["dealId"]; !ok {
					c.in["dealId"] = deal
				}
				wantError(t, l.refused(t, c.doc, map[string]any{"in": c.in}), c.code, c.field)
			})
		}
		c := l.must(t, `query($d: ID) { commissionsPage(dealId: $d) { nodes { `+commissionFields+` } } }`, map[string]any{"d": deal})
		got := c["commissionsPage"].(map[string]any)["nodes"].([]any)[0].(map[string]any)
		if got["paidAmount"] != "1000.00" || len(got["payments"].([]any)) != 4 {
			t.Errorf("refused payments changed the commission: %v", got)
		}
	})
	t.Run("OverpaidIsPaid", func(t *testing.T) {
		deal := l.fund(t, map[string]any{"applicationId": l.approved(t, l.lead(t, nil), lender, "5000", nil), "commission": "100"})["id"].(string)
		c := l.must(t, pay, map[string]any{"in": map[string]any{"dealId": deal, "amount": "150"}})["recordCommissionPayment"].(map[string]any)
		if c["paidAmount"] != "150.00" || c["status"] != "paid" {
			t.Errorf("overpaid: %v", c)
		}
		// The whole of it may be clawed back, no more.
		c = l.must(t, claw, map[string]any{"in": map[string]any{"dealId": deal, "amount": "150"}})["recordCommissionClawback"].(map[string]any)
		if c["paidAmount"] != "0.00" || c["status"] != "clawed_back" {
			t.Errorf("clawed back in full: %v", c)
		}
		wantError(t, l.refused(t, claw, map[string]any{"in": map[string]any{"dealId": deal, "amount": "0.01"}}), "VALIDATION_ERROR", "amount")
	})
}

// TestLendingMovesTheLeadForwardOnly: submitting, approving and funding
// move the lead to the application, approved and won slots when it is in
// an earlier one, never back and never out of lost; each move emits
// lead.status_changed and lead.stage_changed as a manual move does, with
// the caller as changedBy. The conversion a funding records is its news
// (deal.funded): no operation emits a lead.updated, moving or not.
func TestLendingMovesTheLeadForwardOnly(t *testing.T) {
	l := newLendingEnv(t)
	lender := l.lender(t, "Forward Funding", nil)
	second := l.lender(t, "Backup Funding", nil)
	stageOfSlot, labelOf := map[string]string{}, map[string]string{}
	for _, s := range l.Stages(l.Org.ID) {
		if _, ok := stageOfSlot[string(s.SemanticSlot)]; !ok {
			stageOfSlot[string(s.SemanticSlot)] = s.ID.String()
		}
		labelOf[s.ID.String()] = s.StageLabel
	}
	cases := []struct {
		start string
		after [3]string // the slot after submit, approve, fund
	}{
		{"new", [3]string{"application", "approved", "won"}},
		{"working", [3]string{"application", "approved", "won"}},
		{"qualified", [3]string{"application", "approved", "won"}},
		{"application", [3]string{"application", "approved", "won"}},
		{"approved", [3]string{"approved", "approved", "won"}},
		{"won", [3]string{"won", "won", "won"}},
		{"lost", [3]string{"lost", "lost", "lost"}},
	}
	for _, c := range cases {
		t.Run(c.start, func(t *testing.T) {
			lead := l.lead(t, nil)
			if c.start != "new" {
				l.moveLead(t, lead, c.start)
			}
			manual := len(l.leadEvents(t, lead, event.LeadStatusChanged))
			app := l.submit(t, lead, lender, nil)["id"].(string)
			// A second application does not move the lead again.
			l.submit(t, lead, second, nil)
			slots := [3]string{slotOf(l.leadState(t, lead))}
			l.do(t, approveDoc, app)
			slots[1] = slotOf(l.leadState(t, lead))
			fundedAt := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
			l.fund(t, map[string]any{"applicationId": app, "fundedAt": fundedAt.Format(time.RFC3339)})
			st := l.leadState(t, lead)
			slots[2] = slotOf(st)
			if slots != c.after {
				t.Errorf("slots after submit, approve, fund: %v, want %v", slots, c.after)
			}
			if !sameTime(t, st["convertedAt"], fundedAt) {
				t.Errorf("convertedAt = %v, want %s", st["convertedAt"], fundedAt)
			}
			// One event of each type per move, naming the caller.
			var wantMoves []string
			prev := c.start
			for _, slot := range c.after {
				if slot != prev {
					wantMoves = append(wantMoves, stageOfSlot[prev]+">"+stageOfSlot[slot])
				}
				prev = slot
			}
			for _, ty := range []string{event.LeadStatusChanged, event.LeadStageChanged} {
				evs := l.leadEvents(t, lead, ty)
				evs = evs[min(manual, len(evs)):] // the set-up's manual move emitted one of each
				var moves []string
				for _, ev := range evs {
					moves = append(moves, fmt.Sprint(ev["previousStageId"], ">", ev["newStageId"]))
					if ev["changedBy"] != l.actor {
						t.Errorf("%s changedBy = %v, want the key %s", ty, ev["changedBy"], l.actor)
					}
					for _, end := range []string{"previous", "new"} {
						if id, _ := ev[end+"StageId"].(string); ev[end+"StageLabel"] != labelOf[id] {
							t.Errorf("%s %sStageLabel = %v, want %q", ty, end, ev[end+"StageLabel"], labelOf[id])
						}
					}
				}
				if fmt.Sprint(moves) != fmt.Sprint(wantMoves) {
					t.Errorf("%s: moves %v, want %v", ty, moves, wantMoves)
				}
			}
			if evs := l.leadEvents(t, lead, event.LeadUpdated); len(evs) != 0 {
				t.Errorf("lead.updated events %v, want none", evs)
			}
		})
	}
}

// leadEvents lists the outbox's events of type about lead, oldest first.
func (l *lendingEnv) leadEvents(t *testing.T, lead, eventType string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, d := range l.outbox(t, eventType) {
		if d["leadId"] == lead {
			out = append(out, d)
		}
	}
	return out
}
