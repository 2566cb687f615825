// Package rollup keeps the analytics rollups and the maintained counts:
// each write adds to them in its own transaction (the lead, lending and
// dialer flows call the functions here), so a report sees a change exactly
// when the records do; Rebuild computes them again from the records. The reports
// read them (analytics).
//
// It imports ent, the privacy rules, the store's read expressions, the
// transaction's state and the leaves.
package rollup

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/ent/dealday"
	"github.com/lendingpipe/svc/ent/fundeddealday"
	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/ent/leadday"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/ent/paymentday"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store/readexpr"
	"github.com/lendingpipe/svc/internal/txstate"
)

// rollupLocation is the zone org's rollups are cut in, read in the
// writing transaction; nil when they have not been built (the rebuild
// will count the change). On PostgreSQL the read shares the
// organization's row: a rebuild, which first updates the row, waits for
// the writers in flight, and writers arriving during it wait for it, so no
// change is counted in a zone the rows are no longer cut in. A transaction
// reads it once (rememberZone): the shared row cannot change under it.
func rollupLocation(ctx context.Context, c *gen.Client, org uuid.UUID) (*time.Location, error) {
	z, err := rollupZone(ctx, c, org)
	return z.loc, err
}

// rollupZone is the zone and, for the rollup upserts, the SQL dialect of
// the writing transaction.
func rollupZone(ctx context.Context, c *gen.Client, org uuid.UUID) (zoneRead, error) {
	if z, ok := txstate.Load[zoneRead](ctx, zoneKey{org}); ok {
		return z, nil
	}
	z, err := readRollupZone(ctx, c, org)
	if err != nil {
		return zoneRead{}, err
	}
	rememberZone(ctx, org, z)
	return z, nil
}

// rememberZone keeps the zone read in the transaction's state (txstate),
// which ends with it.
func rememberZone(ctx context.Context, org uuid.UUID, z zoneRead) {
	txstate.LoadOrStore(ctx, zoneKey{org}, z)
}

// zoneKey keeps an organization's rollup zone in a transaction's state.
type zoneKey struct{ org uuid.UUID }

// orgColumn is the organization's column of every organization's row.
const orgColumn = "org_id"

// zoneAlias names the organization's rollup zone read beside a row.
const zoneAlias = "svc_rollup_zone"

// SelectZone adds, on SQLite, the rollup zone of the row's organization
// (an OrgMixin row) to a read of a row the lending writes read anyway
// (KeepZone then keeps it), saving them a statement of its own. SQLite runs one writing transaction
// at a time, so the value cannot change under the writer; PostgreSQL reads
// it apart, sharing the organization's row (readRollupZone).
func SelectZone(s *sql.Selector) {
	if s.Dialect() != dialect.SQLite {
		return
	}
	readexpr.Append(s, zoneAlias, func(s *sql.Selector, _ ...any) sql.Querier {
		orgs := sql.Table(organization.Table)
		return sql.Select(orgs.C(organization.FieldRollupZone)).From(orgs).
			Where(sql.ColumnsEQ(orgs.C(organization.FieldID), s.C(orgColumn)))
	})
}

// KeepZone keeps the zone a read with SelectZone carried, if it did (on
// PostgreSQL it does not: rollupLocation reads it).
func KeepZone(ctx context.Context, org uuid.UUID, row readexpr.Row) error {
	v, err := row.Value(zoneAlias)
	if err != nil {
		return nil
	}
	var loc *time.Location
	switch name, text := readexpr.Text(v); {
	case v == nil:
	case text:
		loc, err = period.Location(name)
	default:
		err = fmt.Errorf("unexpected rollup zone %T", v)
	}
	if err != nil {
		return fmt.Errorf("reading the rollups' zone: %w", err)
	}
	rememberZone(ctx, org, zoneRead{loc, dialect.SQLite})
	return nil
}

// zoneRead is a transaction's rollup zone (nil: not built) and dialect.
type zoneRead struct {
	loc     *time.Location
	dialect string
}

func readRollupZone(ctx context.Context, c *gen.Client, org uuid.UUID) (zoneRead, error) {
	var rows []struct {
		Zone *string `json:"rollup_zone"`
	}
	var z zoneRead
	err := c.Organization.Query().Where(organization.ID(org)).Select(organization.FieldRollupZone).
		Modify(func(s *sql.Selector) {
			z.dialect = s.Dialect()
			if s.Dialect() == dialect.Postgres {
				s.For(sql.LockShare)
			}
		}).Scan(rule.SystemContext(ctx), &rows)
	if err != nil {
		return zoneRead{}, fmt.Errorf("reading the rollups' zone: %w", err)
	}
	if len(rows) != 1 {
		return z, nil
	}
	if err := z.read(rows[0].Zone); err != nil {
		return zoneRead{}, err
	}
	return z, nil
}

// read sets the zone from its stored name (nil: not built).
func (z *zoneRead) read(name *string) error {
	if name == nil {
		z.loc = nil
		return nil
	}
	loc, err := period.Location(*name)
	if err != nil {
		return fmt.Errorf("reading the rollups' zone: %w", err)
	}
	z.loc = loc
	return nil
}

// How many rows a hot count is spread over, each transaction adding to
// one slot of them: concurrent writers on PostgreSQL rarely wait on the
// same row, and the sum is always exact. A writer holds its slot's row
// until its commit has flushed, so a row serves one writer per flush:
// with fewer slots than the transactions that write at once (the pool,
// eight connections on two cores), writers queue on the rows, and on
// PostgreSQL creates waited there more than anywhere else.
const (
	// Slots spread a rollup's hot day (LeadDay, LenderDay, CallDay).
	Slots = 16
	// LeadCountSlots spread an organization's count of a stage's leads.
	LeadCountSlots = 16
	// DealCountSlots spread a lender's count of a day's deals.
	DealCountSlots = 4
)

// slotSeed hashes a transaction to its slot when it keeps no state.
var slotSeed = maphash.MakeSeed()

// slotTurn is a transaction's turn among its store's (signals.Set.Turn),
// kept in its state.
type slotTurn struct {
	tx   *gen.Tx
	turn uint64
}

type slotKey struct{}

// txSlot is the slot, of n, a transaction adds to a hot count in: one per
// transaction, so two transactions never take a count's rows in opposite
// orders; outside one, any. Transactions take turns (round robin) rather
// than a slot by chance: the transactions writing at once started one
// after another, so they land on different slots until more of them
// than n are open, where chance puts two of eight on one of sixteen
// slots more often than not.
func txSlot(ctx context.Context, n int) int {
	tx := gen.TxFromContext(ctx)
	if tx == nil {
		return rand.IntN(n)
	}
	t, ok := txstate.Load[slotTurn](ctx, slotKey{})
	if !ok {
		t, _, ok = txstate.LoadOrStore(ctx, slotKey{}, slotTurn{tx: tx, turn: tx.Signals.Turn()})
	}
	if !ok || t.tx != tx {
		return int(maphash.Comparable(slotSeed, tx) % uint64(n))
	}
	return int(t.turn % uint64(n))
}

// rollupSlot is the slot a transaction adds to in the rollups.
func rollupSlot(ctx context.Context) int { return txSlot(ctx, Slots) }

// leadStep is what a change adds to the day a lead was created.
type leadStep struct {
	leads, applied, approved, funded int
	amount                           money.Amount
}

// leadDays adds to LeadDay rows.
var leadDays = rollupUpsert{table: leadday.Table,
	keys: []string{leadday.FieldOrgID, leadday.FieldDay, leadday.FieldSource, leadday.FieldSlot},
	adds: []string{leadday.FieldLeads, leadday.FieldApplied, leadday.FieldApproved, leadday.FieldFunded, leadday.FieldFundedAmount}}

// addLeadDay adds step to l's creation day and source.
func addLeadDay(ctx context.Context, c *gen.Client, z zoneRead, l *gen.Lead, s leadStep) error {
	if z.loc == nil {
		return nil // not built: the rebuild counts l
	}
	if addDayLater(ctx, z, l, s) {
		return nil
	}
	return leadDays.exec(ctx, c, z.dialect, []any{l.OrgID, dayOf(l, z), string(l.Source), rollupSlot(ctx),
		s.leads, s.applied, s.approved, s.funded, int64(s.amount)})
}

// dayOf is the day l was created, in the rollups' zone.
func dayOf(l *gen.Lead, z zoneRead) int { return period.LocalDay(l.CreatedAt, z.loc) }

// addLeadStep reads the zone and adds step to l's day.
func addLeadStep(ctx context.Context, c *gen.Client, l *gen.Lead, s leadStep) error {
	z, err := rollupZone(ctx, c, l.OrgID)
	if err != nil {
		return err
	}
	return addLeadDay(ctx, c, z, l, s)
}

// addStage adds step to a stage's count (LeadCount), in the slot the
// transaction adds to: a transaction adds all its leads to one slot, as
// two bulk creations touching slots in different orders would deadlock.
func addStage(ctx context.Context, c *gen.Client, org, stage uuid.UUID, step stageStep) error {
	if addStageLater(ctx, org, stage, step) {
		return nil
	}
	return writeStage(ctx, c, org, stage, step)
}

// writeStage adds step to a stage's count now.
func writeStage(ctx context.Context, c *gen.Client, org, stage uuid.UUID, step stageStep) error {
	err := c.LeadCount.Create().SetOrgID(org).SetStageID(stage).SetSlot(stageSlot(ctx)).
		SetN(step.n).SetRequested(step.requested).SetOutsized(step.outsized).
		OnConflictColumns(leadcount.FieldOrgID, leadcount.FieldStageID, leadcount.FieldSlot).
		AddN(step.n).AddRequested(step.requested).AddOutsized(step.outsized).
		Exec(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("counting the stage's leads: %w", err)
	}
	return nil
}

// moveStage moves a lead (step: one lead and its requested amount) from
// one stage's count to the other's, both rows in one statement (a stage
// move is the commonest lead write). The rows go in the order of their
// stages' ids, so two moves between the same stages in opposite
// directions take them in the same order.
func moveStage(ctx context.Context, c *gen.Client, org, from, to uuid.UUID, step stageStep) error {
	slot := stageSlot(ctx)
	out, in := step.neg(), step
	rows := []*gen.LeadCountCreate{
		c.LeadCount.Create().SetOrgID(org).SetStageID(from).SetSlot(slot).SetN(out.n).SetRequested(out.requested).SetOutsized(out.outsized),
		c.LeadCount.Create().SetOrgID(org).SetStageID(to).SetSlot(slot).SetN(in.n).SetRequested(in.requested).SetOutsized(in.outsized),
	}
	if bytes.Compare(to[:], from[:]) < 0 {
		rows[0], rows[1] = rows[1], rows[0]
	}
	err := c.LeadCount.CreateBulk(rows...).
		OnConflict(sql.ConflictColumns(leadcount.FieldOrgID, leadcount.FieldStageID, leadcount.FieldSlot),
			sql.ResolveWith(func(u *sql.UpdateSet) {
				// Each row adds its own values: excluded's, those it would
				// have inserted.
				excluded := sql.Dialect(u.Dialect()).Table("excluded")
				for _, f := range []string{leadcount.FieldN, leadcount.FieldRequested, leadcount.FieldOutsized} {
					u.Add(f, sql.Expr(excluded.C(f)))
				}
			})).
		Exec(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("moving the lead between its stages' counts: %w", err)
	}
	return nil
}

// stageSlot is the LeadCount slot the transaction adds to.
func stageSlot(ctx context.Context) int { return txSlot(ctx, LeadCountSlots) }

// LeadCreated counts a created lead on its day and in its stage (within
// a CreateBatch, once the batch flushes).
func LeadCreated(ctx context.Context, c *gen.Client, l *gen.Lead) error {
	return countCreated(ctx, c, l)
}

// LeadMoved moves a lead of org, asking for requested, from one stage's
// count and sum to the other's; a lead that stays in its stage is not
// counted again.
func LeadMoved(ctx context.Context, c *gen.Client, org, from, to uuid.UUID, requested *string) error {
	if from == to {
		return nil
	}
	return moveStage(ctx, c, org, from, to, requestStep(requested))
}

// Submission counts l as applied: its first application was submitted.
func Submission(ctx context.Context, c *gen.Client, l *gen.Lead) error {
	return addLeadStep(ctx, c, l, leadStep{applied: 1})
}

// Approval counts l as approved: its first approval was decided.
func Approval(ctx context.Context, c *gen.Client, l *gen.Lead) error {
	return addLeadStep(ctx, c, l, leadStep{approved: 1})
}

// Funding counts the deal: l (read before the funding) as funded on
// its day, the first time only (funding alone sets convertedAt), the
// deal's amount there in every case, and the deal on the day it was
// funded, by its lender and by its advisor.
func Funding(ctx context.Context, c *gen.Client, l *gen.Lead, d *gen.FundedDeal) error {
	z, err := rollupZone(ctx, c, d.OrgID)
	if err != nil {
		return err
	}
	step := leadStep{funded: 1, amount: d.FundedAmount}
	if l.ConvertedAt != nil {
		step.funded = 0
	}
	if z.loc == nil {
		return nil // not built: the rebuild counts the deal
	}
	if err := addLeadDay(ctx, c, z, l, step); err != nil {
		return err
	}
	day := period.LocalDay(d.FundedAt, z.loc)
	sums := dealSums{deals: 1, funded: d.FundedAmount, expected: d.ExpectedCommission, outstanding: d.ExpectedCommission}
	if d.IsRenewal {
		sums.renewal = renewalSums{deals: 1, funded: d.FundedAmount, expected: d.ExpectedCommission}
	}
	return addDealDays(ctx, c, z.dialect, d.OrgID, day, d.LenderID, d.AdvisorID, sums)
}

// dealSums is what a change adds to a DealDay row.
type dealSums struct {
	deals                                           int
	funded, expected, paid, clawedBack, outstanding money.Amount
	renewal                                         renewalSums
}

// renewalSums is what a change of a renewal deal adds to its row's renewal
// figures: the deal, its funded amount, its commission's expected amount,
// and its payments (gross: a clawback takes nothing from paid).
type renewalSums struct {
	deals                  int
	funded, expected, paid money.Amount
}

// dealDays adds to DealDay rows.
var dealDays = rollupUpsert{table: dealday.Table,
	keys: []string{dealday.FieldOrgID, dealday.FieldGrain, dealday.FieldDay, dealday.FieldDimension, dealday.FieldSubjectID},
	adds: []string{dealday.FieldDeals, dealday.FieldFundedAmount, dealday.FieldExpectedCommission, dealday.FieldPaid,
		dealday.FieldClawedBack, dealday.FieldOutstanding,
		dealday.FieldRenewalDeals, dealday.FieldRenewalAmount, dealday.FieldRenewalExpected, dealday.FieldRenewalPaid}}

// addDealDays adds s to the rows of the day, of its month and of its
// year, by the lender and by the advisor (when there is one). The rows
// all take the same sums, so one multi-row upsert adds to them all, always
// in the same order: two fundings never take the rows in opposite orders.
func addDealDays(ctx context.Context, c *gen.Client, dialect string, org uuid.UUID, day int, lender uuid.UUID, advisor *uuid.UUID, s dealSums) error {
	subjects := []struct {
		dim dealday.Dimension
		id  uuid.UUID
	}{{dealday.DimensionLender, lender}}
	if advisor != nil {
		subjects = append(subjects, struct {
			dim dealday.Dimension
			id  uuid.UUID
		}{dealday.DimensionAdvisor, *advisor})
	}
	var rows [][]any
	for _, sub := range subjects {
		for _, g := range []struct {
			grain dealday.Grain
			n     int
		}{{dealday.GrainDay, day}, {dealday.GrainMonth, period.MonthNumber(day)}, {dealday.GrainYear, period.YearNumber(day)}} {
			rows = append(rows, []any{org, string(g.grain), g.n, string(sub.dim), sub.id,
				s.deals, int64(s.funded), int64(s.expected), int64(s.paid), int64(s.clawedBack), int64(s.outstanding),
				s.renewal.deals, int64(s.renewal.funded), int64(s.renewal.expected), int64(s.renewal.paid)})
		}
	}
	return dealDays.exec(ctx, c, dialect, rows...)
}

// paymentDays adds to PaymentDay rows.
var paymentDays = rollupUpsert{table: paymentday.Table,
	keys: []string{paymentday.FieldOrgID, paymentday.FieldDay},
	adds: []string{paymentday.FieldPaid, paymentday.FieldClawedBack}}

// Payment adds a payment or clawback p of cm to the day its deal was
// funded (gross, and the change in what is outstanding: paidBefore is the
// commission's paid amount before p) and to the day it was paid. fundedAt
// is the time its deal was funded (store.PaidCommission reads it).
func Payment(ctx context.Context, c *gen.Client, cm *gen.Commission, fundedAt time.Time, paidBefore money.Amount, p *gen.CommissionPayment) error {
	z, err := rollupZone(ctx, c, cm.OrgID)
	if err != nil || z.loc == nil {
		return err // nil: not built, the rebuild counts the payment
	}
	s := dealSums{outstanding: max(cm.ExpectedAmount-cm.PaidAmount, 0) - max(cm.ExpectedAmount-paidBefore, 0)}
	if p.Kind == commissionpayment.KindClawback {
		s.clawedBack = p.Amount
	} else {
		s.paid = p.Amount
	}
	if cm.IsRenewal {
		s.renewal.paid = s.paid
	}
	day := period.LocalDay(fundedAt, z.loc)
	if err := addDealDays(ctx, c, z.dialect, cm.OrgID, day, cm.LenderID, cm.AdvisorID, s); err != nil {
		return err
	}
	return paymentDays.exec(ctx, c, z.dialect, []any{cm.OrgID, period.LocalDay(p.PaidAt, z.loc), int64(s.paid), int64(s.clawedBack)})
}

// fundedDealDays adds to FundedDealDay rows.
var fundedDealDays = rollupUpsert{table: fundeddealday.Table,
	keys: []string{fundeddealday.FieldOrgID, fundeddealday.FieldLenderID, fundeddealday.FieldDay, fundeddealday.FieldSlot},
	adds: []string{fundeddealday.FieldN}}

// CountDeal adds the deal to its lender's count of the day it was funded,
// in a slot chosen by the transaction as addStage chooses one. The count
// is kept whether or not the rollups are built; the transaction's zone
// read (already made by the funding's move of its application) gives the
// upsert its dialect.
func CountDeal(ctx context.Context, c *gen.Client, d *gen.FundedDeal) error {
	z, err := rollupZone(ctx, c, d.OrgID)
	if err != nil {
		return err
	}
	slot := txSlot(ctx, DealCountSlots)
	if err := fundedDealDays.exec(ctx, c, z.dialect, []any{d.OrgID, d.LenderID, apitime.Day(d.FundedAt), slot, 1}); err != nil {
		return fmt.Errorf("counting the deal: %w", err)
	}
	return nil
}
