package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/rollup"
)

// CommissionsReport covers the commissions of the deals funded in the
// range, and the payments made in it.
type CommissionsReport struct {
	Totals    CommissionTotals   `json:"totals"`
	Series    []CommissionBucket `json:"series"`
	ByAdvisor []CommissionGroup  `json:"byAdvisor"`
	ByLender  []CommissionGroup  `json:"byLender"`
}

// CommissionTotals sums commissions.
type CommissionTotals struct {
	Expected    money.Amount `json:"expected"`
	Paid        money.Amount `json:"paid"`
	Outstanding money.Amount `json:"outstanding"`
	ClawedBack  money.Amount `json:"clawedBack"`
}

// CommissionBucket is one period of payments and clawbacks.
type CommissionBucket struct {
	PeriodStart string       `json:"periodStart"`
	Paid        money.Amount `json:"paid"`
	ClawedBack  money.Amount `json:"clawedBack"`
}

// CommissionGroup is the totals of one advisor or lender.
type CommissionGroup struct {
	ID   uuid.UUID `json:"id"`
	Name string    `json:"name"`
	CommissionTotals
}

// commissionsIn are the organization's commissions of deals funded in the
// range that the people filter admits (by the commission's advisor).
func commissionsIn(q *Request) []predicate.Commission {
	ps := []predicate.Commission{commission.OrgID(q.OrgID),
		commission.HasDealWith(fundeddeal.FundedAtGTE(q.Range.Start), fundeddeal.FundedAtLT(q.Range.End))}
	if q.People != nil {
		ps = append(ps, commission.AdvisorIDIn(q.People...))
	}
	return ps
}

// Commissions computes the commissions report.
func Commissions(ctx context.Context, c *ent.Client, q *Request) (*CommissionsReport, error) {
	if days, ok := q.rolledUp(); ok {
		return commissionsRolledUp(ctx, c, q, days)
	}
	cms, err := c.Commission.Query().Where(commissionsIn(q)...).
		Select(commission.FieldLenderID, commission.FieldAdvisorID, commission.FieldExpectedAmount, commission.FieldPaidAmount).
		All(sys(ctx))
	if err != nil {
		return nil, fmt.Errorf("reading the commissions: %w", err)
	}
	gross, err := rollup.GrossPayments(sys(ctx), c, q.OrgID, commissionsIn(q)...)
	if err != nil {
		return nil, err
	}
	var totals CommissionTotals
	advisors, lenders := map[uuid.UUID]*CommissionTotals{}, map[uuid.UUID]*CommissionTotals{}
	for _, cm := range cms {
		g := gross[cm.ID]
		row := CommissionTotals{Expected: cm.ExpectedAmount, Paid: g.Paid, ClawedBack: g.ClawedBack,
			Outstanding: max(cm.ExpectedAmount-cm.PaidAmount, 0)}
		totals.add(row)
		tally(lenders, cm.LenderID, row)
		if cm.AdvisorID != nil {
			tally(advisors, *cm.AdvisorID, row)
		}
	}
	r := &CommissionsReport{Totals: totals}
	if r.Series, err = paymentSeries(ctx, c, q); err != nil {
		return nil, err
	}
	if r.ByAdvisor, err = commissionGroups(ctx, c, advisors, q.userNames); err != nil {
		return nil, err
	}
	if r.ByLender, err = commissionGroups(ctx, c, lenders, q.lenderNames); err != nil {
		return nil, err
	}
	return r, nil
}

func (t *CommissionTotals) add(o CommissionTotals) {
	t.Expected += o.Expected
	t.Paid += o.Paid
	t.ClawedBack += o.ClawedBack
	t.Outstanding += o.Outstanding
}

func tally(m map[uuid.UUID]*CommissionTotals, id uuid.UUID, row CommissionTotals) {
	t := m[id]
	if t == nil {
		t = &CommissionTotals{}
		m[id] = t
	}
	t.add(row)
}

// paymentSeries buckets every payment and clawback made in the range, of
// any deal, by paidAt.
func paymentSeries(ctx context.Context, c *ent.Client, q *Request) ([]CommissionBucket, error) {
	ps := []predicate.CommissionPayment{commissionpayment.OrgID(q.OrgID),
		commissionpayment.PaidAtGTE(q.Range.Start), commissionpayment.PaidAtLT(q.Range.End)}
	if q.People != nil {
		ps = append(ps, commissionpayment.HasCommissionWith(commission.AdvisorIDIn(q.People...)))
	}
	var rows []struct {
		PaidAt time.Time              `json:"paid_at"`
		Amount money.Amount           `json:"amount"`
		Kind   commissionpayment.Kind `json:"kind"`
	}
	err := c.CommissionPayment.Query().Where(ps...).
		Select(commissionpayment.FieldPaidAt, commissionpayment.FieldAmount, commissionpayment.FieldKind).
		Scan(sys(ctx), &rows)
	if err != nil {
		return nil, fmt.Errorf("reading the payments: %w", err)
	}
	buckets := q.Range.Buckets(string(q.Interval))
	out := make([]CommissionBucket, len(buckets))
	for i, b := range buckets {
		out[i].PeriodStart = b.Date()
	}
	for _, r := range rows {
		i := period.Index(buckets, r.PaidAt)
		switch {
		case i < 0:
		case r.Kind == commissionpayment.KindClawback:
			out[i].ClawedBack += r.Amount
		default:
			out[i].Paid += r.Amount
		}
	}
	return out, nil
}

// commissionGroups names and orders the groups: most expected first.
func commissionGroups(ctx context.Context, c *ent.Client, m map[uuid.UUID]*CommissionTotals, names namer) ([]CommissionGroup, error) {
	ids := make([]uuid.UUID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	name, err := names(ctx, c, ids)
	if err != nil {
		return nil, err
	}
	out := make([]CommissionGroup, 0, len(ids))
	for _, id := range ids {
		out = append(out, CommissionGroup{ID: id, Name: name[id], CommissionTotals: *m[id]})
	}
	slices.SortFunc(out, func(a, b CommissionGroup) int {
		return cmp.Or(cmp.Compare(b.Expected, a.Expected), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID.String(), b.ID.String()))
	})
	return out, nil
}
