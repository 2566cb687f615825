package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/period"
)

// CommissionsReport covers the commissions of the deals funded in the
// range, and the payments made in it.
type CommissionsReport struct {
	Totals    CommissionTotals   `json:"totals"`
	Renewal   RenewalCommissions `json:"renewal" description:"Of the totals, the commissions of renewal deals (isRenewal)."`
	Series    []CommissionBucket `json:"series" description:"Every payment and clawback dated in the range, by the bucket of its paidAt: every bucket, empty ones with zeros."`
	ByAdvisor []CommissionGroup  `json:"byAdvisor" description:"The totals by advisor: most expected first, then by name and id; commissions without an advisor are left out."`
	ByLender  []CommissionGroup  `json:"byLender" description:"The totals by lender, as byAdvisor."`
}

// CommissionTotals sums commissions.
type CommissionTotals struct {
	Expected    money.Amount `json:"expected" description:"The expected amounts' sum."`
	Paid        money.Amount `json:"paid" description:"The payments' sum, gross of clawbacks, whenever paid."`
	Outstanding money.Amount `json:"outstanding" description:"The sum of what is still owed on each: max(expectedAmount - paidAmount, 0)."`
	ClawedBack  money.Amount `json:"clawedBack" description:"The clawbacks' sum, whenever recorded."`
}

// RenewalCommissions sums the commissions of the renewal deals funded in
// the range, as the totals sum all of them.
type RenewalCommissions struct {
	Expected money.Amount `json:"expected" description:"Their expected amounts' sum."`
	Paid     money.Amount `json:"paid" description:"Their payments' sum, gross of clawbacks, whenever paid."`
}

func (r *RenewalCommissions) add(o RenewalCommissions) {
	r.Expected += o.Expected
	r.Paid += o.Paid
}

// CommissionBucket is one period of payments and clawbacks.
type CommissionBucket struct {
	PeriodStart string       `json:"periodStart" openapi:"date" description:"The bucket's first day in the report's time zone."`
	Paid        money.Amount `json:"paid" description:"Payments dated (paidAt) in the bucket, of any deal."`
	ClawedBack  money.Amount `json:"clawedBack" description:"Clawbacks dated in the bucket, of any deal."`
}

// CommissionGroup is the totals of one advisor or lender. It lists the
// totals' members rather than embedding CommissionTotals because REST
// describes them for a group, all of its commissions' figures, where the
// report's totals say when payments and clawbacks count.
type CommissionGroup struct {
	ID          uuid.UUID    `json:"id" description:"The advisor's or the lender's id."`
	Name        string       `json:"name" description:"The advisor's first and last name, or the lender's name."`
	Expected    money.Amount `json:"expected" description:"The expected amounts' sum."`
	Paid        money.Amount `json:"paid" description:"The payments' sum, gross of clawbacks."`
	Outstanding money.Amount `json:"outstanding" description:"The sum of max(expectedAmount - paidAmount, 0)."`
	ClawedBack  money.Amount `json:"clawedBack" description:"The clawbacks' sum."`
}

func groupOf(id uuid.UUID, name string, t CommissionTotals) CommissionGroup {
	return CommissionGroup{ID: id, Name: name, Expected: t.Expected, Paid: t.Paid, Outstanding: t.Outstanding, ClawedBack: t.ClawedBack}
}

// Totals are the group's figures.
func (g CommissionGroup) Totals() CommissionTotals {
	return CommissionTotals{Expected: g.Expected, Paid: g.Paid, Outstanding: g.Outstanding, ClawedBack: g.ClawedBack}
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
		Select(commission.FieldLenderID, commission.FieldAdvisorID, commission.FieldExpectedAmount, commission.FieldPaidAmount,
			commission.FieldIsRenewal).
		All(sys(ctx))
	if err != nil {
		return nil, fmt.Errorf("reading the commissions: %w", err)
	}
	gross, err := rollup.GrossPayments(sys(ctx), c, q.OrgID, commissionsIn(q)...)
	if err != nil {
		return nil, err
	}
	var totals CommissionTotals
	var renewal RenewalCommissions
	advisors, lenders := map[uuid.UUID]*CommissionTotals{}, map[uuid.UUID]*CommissionTotals{}
	for _, cm := range cms {
		g := gross[cm.ID]
		row := CommissionTotals{Expected: cm.ExpectedAmount, Paid: g.Paid, ClawedBack: g.ClawedBack,
			Outstanding: max(cm.ExpectedAmount-cm.PaidAmount, 0)}
		totals.add(row)
		if cm.IsRenewal {
			renewal.add(RenewalCommissions{Expected: row.Expected, Paid: row.Paid})
		}
		tally(lenders, cm.LenderID, row)
		if cm.AdvisorID != nil {
			tally(advisors, *cm.AdvisorID, row)
		}
	}
	r := &CommissionsReport{Totals: totals, Renewal: renewal}
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
		out = append(out, groupOf(id, name[id], *m[id]))
	}
	slices.SortFunc(out, func(a, b CommissionGroup) int {
		return cmp.Or(cmp.Compare(b.Expected, a.Expected), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID.String(), b.ID.String()))
	})
	return out, nil
}
