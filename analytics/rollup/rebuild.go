package rollup

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/funnel"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/ent/dealday"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/ent/leadday"
	"github.com/lendingpipe/svc/ent/paymentday"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/period"
)

// Rebuild computes org's analytics rollups again from its records, cut in
// the organization's time zone, and makes that zone theirs, in tx. It
// first updates the organization's row: on PostgreSQL the writers of the
// organization, which share that row while they add to the rollups
// (rollupZone), wait for it, and it waits for those in flight, so the
// rollups it commits miss no change and count none twice. On SQLite,
// writes wait for its transaction as for any. ctx is the system's.
func Rebuild(ctx context.Context, tx *ent.Client, org uuid.UUID) error {
	o, err := tx.Organization.Get(ctx, org)
	if err != nil {
		return fmt.Errorf("reading the organization: %w", err)
	}
	if err := tx.Organization.UpdateOne(o).SetRollupZone(o.Timezone).Exec(ctx); err != nil {
		return fmt.Errorf("setting the rollups' zone: %w", err)
	}
	loc, err := period.Location(o.Timezone)
	if err != nil {
		return err
	}
	for _, step := range rebuildSteps {
		if err := step(ctx, tx, org, loc); err != nil {
			return err
		}
	}
	return nil
}

// rebuildSteps each empty one rollup of an organization and compute it again.
var rebuildSteps = []func(ctx context.Context, tx *ent.Client, org uuid.UUID, loc *time.Location) error{
	rebuildLeadDays, rebuildStageCounts, rebuildDealDays, rebuildPaymentDays,
	rebuildLenders, rebuildDialer,
}

// leadIDs reads the ids of org's leads that have an application matching ps.
func leadIDs(ctx context.Context, tx *ent.Client, org uuid.UUID, ps ...func(*ent.ApplicationQuery) *ent.ApplicationQuery) (map[uuid.UUID]bool, error) {
	q := tx.Application.Query().Where(application.OrgID(org))
	for _, p := range ps {
		q = p(q)
	}
	ids, err := q.GroupBy(application.FieldLeadID).Strings(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the leads with applications: %w", err)
	}
	out := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		u, err := uuid.Parse(id)
		if err != nil {
			return nil, fmt.Errorf("reading a lead id: %w", err)
		}
		out[u] = true
	}
	return out, nil
}

// rollupChunk bounds the rows read or written per statement.
const rollupChunk = 20_000

func rebuildLeadDays(ctx context.Context, tx *ent.Client, org uuid.UUID, loc *time.Location) error {
	if _, err := tx.LeadDay.Delete().Where(leadday.OrgID(org)).Exec(ctx); err != nil {
		return fmt.Errorf("emptying the lead rollup: %w", err)
	}
	applied, err := leadIDs(ctx, tx, org)
	if err != nil {
		return err
	}
	approved, err := leadIDs(ctx, tx, org, func(q *ent.ApplicationQuery) *ent.ApplicationQuery { return q.Where(funnel.WasApproved) })
	if err != nil {
		return err
	}
	var deals []struct {
		LeadID uuid.UUID    `json:"lead_id"`
		Sum    money.Amount `json:"sum"`
	}
	err = tx.FundedDeal.Query().Where(fundeddeal.OrgID(org)).GroupBy(fundeddeal.FieldLeadID).
		Aggregate(ent.As(ent.Sum(fundeddeal.FieldFundedAmount), "sum")).Scan(ctx, &deals)
	if err != nil {
		return fmt.Errorf("summing the leads' deals: %w", err)
	}
	funded := make(map[uuid.UUID]money.Amount, len(deals))
	for _, d := range deals {
		funded[d.LeadID] = d.Sum
	}
	type key struct {
		day    int
		source lead.Source
	}
	days := map[key]*ent.LeadDay{}
	err = eachLead(ctx, tx, org, func(l *ent.Lead) {
		k := key{period.LocalDay(l.CreatedAt, loc), l.Source}
		d := days[k]
		if d == nil {
			d = &ent.LeadDay{Day: k.day, Source: leadday.Source(k.source)}
			days[k] = d
		}
		d.Leads++
		if applied[l.ID] {
			d.Applied++
		}
		if approved[l.ID] {
			d.Approved++
		}
		if amount, ok := funded[l.ID]; ok {
			d.Funded++
			d.FundedAmount += amount
		}
	})
	if err != nil {
		return err
	}
	builders := make([]*ent.LeadDayCreate, 0, len(days))
	for _, d := range days {
		builders = append(builders, tx.LeadDay.Create().SetOrgID(org).SetDay(d.Day).SetSource(d.Source).SetSlot(0).
			SetLeads(d.Leads).SetApplied(d.Applied).SetApproved(d.Approved).SetFunded(d.Funded).SetFundedAmount(d.FundedAmount))
	}
	return createInChunks(builders, func(b []*ent.LeadDayCreate) error { return tx.LeadDay.CreateBulk(b...).Exec(ctx) })
}

// eachLead calls fn with each of org's leads (id, creation time and
// source), a chunk at a time in id order.
func eachLead(ctx context.Context, tx *ent.Client, org uuid.UUID, fn func(*ent.Lead)) error {
	var after *uuid.UUID
	for {
		q := tx.Lead.Query().Where(lead.OrgID(org)).Order(lead.ByID()).Limit(rollupChunk)
		if after != nil {
			q = q.Where(lead.IDGT(*after))
		}
		leads, err := q.Select(lead.FieldID, lead.FieldCreatedAt, lead.FieldSource).All(ctx)
		if err != nil {
			return fmt.Errorf("reading the leads: %w", err)
		}
		for _, l := range leads {
			fn(l)
		}
		if len(leads) < rollupChunk {
			return nil
		}
		after = &leads[len(leads)-1].ID
	}
}

func createInChunks[T any](builders []T, create func([]T) error) error {
	for len(builders) > 0 {
		n := min(len(builders), 500)
		if err := create(builders[:n]); err != nil {
			return fmt.Errorf("writing the rollup: %w", err)
		}
		builders = builders[n:]
	}
	return nil
}

// rebuildStageCounts counts org's leads by stage again (LeadCount), with
// the sums of the amounts they ask for, which also replaces counts kept
// before they were kept by stage.
func rebuildStageCounts(ctx context.Context, tx *ent.Client, org uuid.UUID, _ *time.Location) error {
	if _, err := tx.LeadCount.Delete().Where(leadcount.OrgID(org)).Exec(ctx); err != nil {
		return fmt.Errorf("emptying the lead counts: %w", err)
	}
	sums, err := SumStages(ctx, tx.Lead.Query().Where(lead.OrgID(org)))
	if err != nil {
		return fmt.Errorf("counting the leads by stage: %w", err)
	}
	builders := make([]*ent.LeadCountCreate, 0, len(sums))
	for stage, s := range sums {
		builders = append(builders, tx.LeadCount.Create().SetOrgID(org).SetStageID(stage).SetSlot(0).
			SetN(s.kept.n).SetRequested(s.kept.requested).SetOutsized(s.kept.outsized))
	}
	return createInChunks(builders, func(b []*ent.LeadCountCreate) error { return tx.LeadCount.CreateBulk(b...).Exec(ctx) })
}

// commissionSums are a commission's figures as the rollups add them.
type commissionSums struct {
	paid, clawedBack, outstanding money.Amount
	renewal                       bool // the commission's is_renewal
}

// commissionsOf reads org's commissions with their gross payments and
// clawbacks, by deal.
func commissionsOf(ctx context.Context, tx *ent.Client, org uuid.UUID) (map[uuid.UUID]commissionSums, error) {
	cms, err := tx.Commission.Query().Where(commission.OrgID(org)).
		Select(commission.FieldDealID, commission.FieldExpectedAmount, commission.FieldPaidAmount, commission.FieldIsRenewal).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the commissions: %w", err)
	}
	gross, err := GrossPayments(ctx, tx, org)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]commissionSums, len(cms))
	for _, cm := range cms {
		g := gross[cm.ID]
		s := commissionSums{paid: g.Paid, clawedBack: g.ClawedBack, renewal: cm.IsRenewal}
		s.outstanding = max(cm.ExpectedAmount-cm.PaidAmount, 0)
		out[cm.DealID] = s
	}
	return out, nil
}

func rebuildDealDays(ctx context.Context, tx *ent.Client, org uuid.UUID, loc *time.Location) error {
	if _, err := tx.DealDay.Delete().Where(dealday.OrgID(org)).Exec(ctx); err != nil {
		return fmt.Errorf("emptying the deal rollup: %w", err)
	}
	commissions, err := commissionsOf(ctx, tx, org)
	if err != nil {
		return err
	}
	deals, err := tx.FundedDeal.Query().Where(fundeddeal.OrgID(org)).
		Select(fundeddeal.FieldFundedAt, fundeddeal.FieldLenderID, fundeddeal.FieldAdvisorID,
			fundeddeal.FieldFundedAmount, fundeddeal.FieldExpectedCommission, fundeddeal.FieldIsRenewal).All(ctx)
	if err != nil {
		return fmt.Errorf("reading the deals: %w", err)
	}
	type key struct {
		grain   dealday.Grain
		day     int
		dim     dealday.Dimension
		subject uuid.UUID
	}
	days := map[key]*ent.DealDay{}
	add1 := func(k key, d *ent.FundedDeal, cm commissionSums) {
		r := days[k]
		if r == nil {
			r = &ent.DealDay{Grain: k.grain, Day: k.day, Dimension: k.dim, SubjectID: k.subject}
			days[k] = r
		}
		r.Deals++
		r.FundedAmount += d.FundedAmount
		r.ExpectedCommission += d.ExpectedCommission
		r.Paid += cm.paid
		r.ClawedBack += cm.clawedBack
		r.Outstanding += cm.outstanding
		// The deal's flag counts it and its expected commission, the
		// commission's its payments, as the hooks add them (Funding,
		// Payment); the funding carries the one to the other.
		if d.IsRenewal {
			r.RenewalDeals++
			r.RenewalAmount += d.FundedAmount
			r.RenewalExpected += d.ExpectedCommission
		}
		if cm.renewal {
			r.RenewalPaid += cm.paid
		}
	}
	add := func(k key, d *ent.FundedDeal, cm commissionSums) {
		day := k.day
		add1(k, d, cm)
		k.grain, k.day = dealday.GrainMonth, period.MonthNumber(day)
		add1(k, d, cm)
		k.grain, k.day = dealday.GrainYear, period.YearNumber(day)
		add1(k, d, cm)
	}
	for _, d := range deals {
		day := period.LocalDay(d.FundedAt, loc)
		cm := commissions[d.ID]
		add(key{dealday.GrainDay, day, dealday.DimensionLender, d.LenderID}, d, cm)
		if d.AdvisorID != nil {
			add(key{dealday.GrainDay, day, dealday.DimensionAdvisor, *d.AdvisorID}, d, cm)
		}
	}
	builders := make([]*ent.DealDayCreate, 0, len(days))
	for _, r := range days {
		builders = append(builders, tx.DealDay.Create().SetOrgID(org).SetGrain(r.Grain).SetDay(r.Day).SetDimension(r.Dimension).
			SetSubjectID(r.SubjectID).SetDeals(r.Deals).SetFundedAmount(r.FundedAmount).
			SetExpectedCommission(r.ExpectedCommission).SetPaid(r.Paid).SetClawedBack(r.ClawedBack).SetOutstanding(r.Outstanding).
			SetRenewalDeals(r.RenewalDeals).SetRenewalAmount(r.RenewalAmount).SetRenewalExpected(r.RenewalExpected).
			SetRenewalPaid(r.RenewalPaid))
	}
	return createInChunks(builders, func(b []*ent.DealDayCreate) error { return tx.DealDay.CreateBulk(b...).Exec(ctx) })
}

func rebuildPaymentDays(ctx context.Context, tx *ent.Client, org uuid.UUID, loc *time.Location) error {
	if _, err := tx.PaymentDay.Delete().Where(paymentday.OrgID(org)).Exec(ctx); err != nil {
		return fmt.Errorf("emptying the payment rollup: %w", err)
	}
	payments, err := tx.CommissionPayment.Query().Where(commissionpayment.OrgID(org)).
		Select(commissionpayment.FieldPaidAt, commissionpayment.FieldKind, commissionpayment.FieldAmount).All(ctx)
	if err != nil {
		return fmt.Errorf("reading the payments: %w", err)
	}
	days := map[int]*ent.PaymentDay{}
	for _, p := range payments {
		day := period.LocalDay(p.PaidAt, loc)
		r := days[day]
		if r == nil {
			r = &ent.PaymentDay{Day: day}
			days[day] = r
		}
		if p.Kind == commissionpayment.KindClawback {
			r.ClawedBack += p.Amount
		} else {
			r.Paid += p.Amount
		}
	}
	builders := make([]*ent.PaymentDayCreate, 0, len(days))
	for _, r := range days {
		builders = append(builders, tx.PaymentDay.Create().SetOrgID(org).SetDay(r.Day).SetPaid(r.Paid).SetClawedBack(r.ClawedBack))
	}
	return createInChunks(builders, func(b []*ent.PaymentDayCreate) error { return tx.PaymentDay.CreateBulk(b...).Exec(ctx) })
}

// PaymentTotals are a commission's payments and its clawbacks, each summed.
type PaymentTotals struct{ Paid, ClawedBack money.Amount }

// GrossPayments sums, whenever made, the payments and the clawbacks of
// each of org's commissions that commissions select (every one when none
// is given): the rollups' rebuild and the commissions report read them
// alike.
func GrossPayments(ctx context.Context, c *ent.Client, org uuid.UUID, commissions ...predicate.Commission) (map[uuid.UUID]PaymentTotals, error) {
	q := c.CommissionPayment.Query().Where(commissionpayment.OrgID(org))
	if len(commissions) > 0 {
		q = q.Where(commissionpayment.HasCommissionWith(commissions...))
	}
	var rows []struct {
		CommissionID uuid.UUID              `json:"commission_id"`
		Kind         commissionpayment.Kind `json:"kind"`
		Sum          money.Amount           `json:"sum"`
	}
	err := q.GroupBy(commissionpayment.FieldCommissionID, commissionpayment.FieldKind).
		Aggregate(ent.As(ent.Sum(commissionpayment.FieldAmount), "sum")).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("summing the payments: %w", err)
	}
	out := map[uuid.UUID]PaymentTotals{}
	for _, r := range rows {
		t := out[r.CommissionID]
		if r.Kind == commissionpayment.KindClawback {
			t.ClawedBack += r.Sum
		} else {
			t.Paid += r.Sum
		}
		out[r.CommissionID] = t
	}
	return out, nil
}
