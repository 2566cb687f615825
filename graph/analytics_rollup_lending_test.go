package graph_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/analytics/dispositions"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/callday"
	"github.com/lendingpipe/svc/ent/decisionday"
	"github.com/lendingpipe/svc/ent/dialercall"
	"github.com/lendingpipe/svc/ent/lenderday"
	"github.com/lendingpipe/svc/internal/rule"

	"github.com/google/uuid"
)

// lendingRollupRows adds the lenders and dialer rollups of org to out,
// slots summed and empty sums left out, as rollupRows does.
func lendingRollupRows(t *testing.T, c *ent.Client, org uuid.UUID, out map[string]string) {
	t.Helper()
	ctx := rule.SystemContext(context.Background())
	add := func(key string, zero bool, value string) {
		if zero {
			return
		}
		out[key] = value
	}
	lenders, err := c.LenderDay.Query().Where(lenderday.OrgID(org)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type lenderSum struct{ counts [13]int64 }
	sums := map[string]*lenderSum{}
	for _, r := range lenders {
		k := fmt.Sprintf("lender %s %d %s", r.Grain, r.Day, r.LenderID)
		if sums[k] == nil {
			sums[k] = &lenderSum{}
		}
		for i, n := range []int64{int64(r.Submitted), int64(r.Approved), int64(r.Declined), int64(r.Withdrawn), int64(r.Funded),
			int64(r.FundedAmount), int64(r.DeclinedCredit), int64(r.DeclinedRevenue), int64(r.DeclinedTimeInBusiness),
			int64(r.DeclinedIndustry), int64(r.DeclinedExistingPositions), int64(r.DeclinedIncompleteFile), int64(r.DeclinedOther)} {
			sums[k].counts[i] += n
		}
	}
	for k, s := range sums {
		add(k, s.counts == [13]int64{}, fmt.Sprint(s.counts))
	}
	hist, err := c.DecisionDay.Query().Where(decisionday.OrgID(org)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range hist {
		v := fmt.Sprint(r.B00, r.B01, r.B02, r.B03, r.B04, r.B05, r.B06, r.B07, r.B08, r.B09, r.B10, r.B11, r.B12, r.B13, r.B14,
			r.B15, r.B16, r.B17, r.B18, r.B19, r.B20, r.B21, r.B22, r.B23, r.B24, r.B25, r.B26, r.B27, r.B28, r.B29, r.B30, r.B31)
		add(fmt.Sprintf("decisions %s %d %s %d", r.Grain, r.Day, r.LenderID, r.Octave), v == strings.TrimSpace(strings.Repeat("0 ", 32)), v)
	}
	calls, err := c.CallDay.Query().Where(callday.OrgID(org)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	callSums := map[string]*[3]int{}
	codes := map[string]int{}
	var packed dispositions.Reader
	for _, r := range calls {
		err := packed.Each(r.Dispositions, func(code string, n int) {
			codes[fmt.Sprintf("disposition %s %d %s %s", r.Span, r.Day, r.UserID, code)] += n
		})
		if err != nil {
			t.Fatal(err)
		}
		k := fmt.Sprintf("calls %s %d %s", r.Span, r.Day, r.UserID)
		if callSums[k] == nil {
			callSums[k] = &[3]int{}
		}
		callSums[k][0] += r.Calls
		callSums[k][1] += r.Answered
		callSums[k][2] += r.TalkSeconds
	}
	for k, s := range callSums {
		add(k, *s == [3]int{}, fmt.Sprint(*s))
	}
	for k, n := range codes {
		add(k, n == 0, fmt.Sprint(n))
	}
	dialed, err := c.DialerCall.Query().Where(dialercall.OrgID(org)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range dialed {
		out["call "+r.ExternalCallID] = fmt.Sprint(r.FirstDay, r.LastDay, r.MultiDay)
	}
}
