package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/funnel"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/lender"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store/readexpr"
)

// The lending flows' reads and locks. Each answers the same on both
// databases; how it is asked differs. On SQLite, which runs one writing
// transaction at a time, what a flow would ask in statements of their own
// (the rollups' zone, whether the lead was approved, whether it has other
// open applications, the stages of its move) is read beside the lead as it
// is taken (readexpr), and holds to the end of the flow. On PostgreSQL the
// lead's row is locked, and what the read sees of other rows is as it was
// before it waited for that lock, so those are asked after it.

// LeadRead is what a lending flow reads of the lead it takes.
type LeadRead struct {
	Cols []string
	// Approvals adds whether any of the lead's applications was approved
	// (WasApproved): a decision counts the lead's first approval.
	Approvals bool
	// Funding, the application a funding funds, adds whether the lead has
	// another application open (MayHaveOthersOpen): the funding withdraws
	// them.
	Funding uuid.UUID
	// Slot, the slot the flow moves the lead to, adds the lead's stage and
	// its organization's first stage of slot (SlotStages).
	Slot string
	// Beside adds the caller's own expressions to the read, which it
	// reads from the lead returned (the rollups' zone, on SQLite: the
	// lending flows' lockLead).
	Beside func(*sql.Selector)
}

// leadMoveColumns are what the lending flows use of the lead they take:
// its rollup day (created_at, source), whether it has converted, its
// advisor, its stage with what the lead hooks compare of a stage move, and
// the amount it asks for, which moves with it between the stages' sums.
// A move updates the lead from this read (UpdateOne), so the lead hooks'
// old values are its columns: a hook that compares another column's old
// value needs it added here.
var leadMoveColumns = []string{lead.FieldOrgID, lead.FieldStageID, lead.FieldPrimaryAdvisorID,
	lead.FieldCreatedAt, lead.FieldSource, lead.FieldConvertedAt, lead.FieldRequestedAmount}

var (
	// MoveRead serves any move of one application that moves no lead.
	MoveRead    = LeadRead{Cols: leadMoveColumns}
	FundingRead = LeadRead{Cols: leadMoveColumns, Slot: lendingrules.SlotWon}
	// DecisionRead serves a decision: an approval counts the lead's first
	// and moves it to the approved slot.
	DecisionRead = LeadRead{Cols: leadMoveColumns, Approvals: true, Slot: lendingrules.SlotApproved}
	// SubmissionRead adds what a submission compares with the lender's
	// box and the amount it defaults to.
	SubmissionRead = LeadRead{Cols: append(slices.Clip(leadMoveColumns),
		lead.FieldMonthlyRevenue, lead.FieldIndustry, lead.FieldCustomFields),
		Slot: lendingrules.SlotApplication}
)

// LockLead reads the lead ps select, as read says, and holds its row to
// the end of the transaction. Every lending flow that may move a lead
// takes the lead's row before any row of its applications, so two flows on
// one lead's applications run one after the other: each reads the lead's
// stage as the other left it (a submission or an approval waiting for a
// funding must not move the funded lead back out of won), and neither
// holds an application row the other waits for while it waits for the lead
// (a deadlock on PostgreSQL). SQLite runs one writing transaction at a
// time, so the read alone is enough there.
//
// Only read.Cols are read (the id always): the whole row, its JSON columns
// decoded, cost a lending write more than any other statement of it.
func LockLead(ctx context.Context, c *ent.Client, read LeadRead, ps ...predicate.Lead) (*ent.Lead, error) {
	l, err := c.Lead.Query().Where(ps...).Select(read.Cols...).Modify(func(s *sql.Selector) {
		if s.Dialect() == dialect.Postgres {
			// The lock an UPDATE of the lead takes: rows that refer to
			// the lead (a call event, a document) are still written.
			s.For(sql.LockNoKeyUpdate)
		}
		if read.Beside != nil {
			read.Beside(s)
		}
		if read.Approvals {
			selectWasApproved(s)
		}
		if read.Funding != uuid.Nil {
			selectOthersOpen(s, read.Funding)
		}
		if read.Slot != "" {
			selectSlotStages(s, read.Slot)
		}
	}).Only(rule.SystemContext(ctx))
	if err != nil {
		return nil, err
	}
	return l, nil
}

// LeadOfApplication selects the lead of the organization's application id
// through a subquery, so that LockLead finds and takes the lead's row in
// one statement (a subquery's rows are read, not locked). Not the edge
// predicate (lead.HasApplicationsWith): SQLite would evaluate its
// correlated EXISTS for every lead of the table.
func LeadOfApplication(id, org uuid.UUID) predicate.Lead {
	return func(s *sql.Selector) {
		apps := sql.Dialect(s.Dialect()).Select(application.FieldLeadID).From(sql.Table(application.Table))
		application.ID(id)(apps)
		application.OrgID(org)(apps)
		s.Where(sql.In(s.C(lead.FieldID), apps))
	}
}

// approvedAlias names whether a lead had an approved application when
// its decision took it (selectWasApproved).
const approvedAlias = "svc_was_approved"

// selectWasApproved adds, on SQLite, to a read of leads whether any of the
// lead's applications was approved.
func selectWasApproved(s *sql.Selector) {
	if s.Dialect() != dialect.SQLite {
		return
	}
	readexpr.Append(s, approvedAlias, func(s *sql.Selector, _ ...any) sql.Querier {
		apps := sql.Table(application.Table)
		approved := sql.Select(apps.C(application.FieldID)).From(apps).
			Where(sql.ColumnsEQ(apps.C(application.FieldLeadID), s.C(lead.FieldID)))
		funnel.WasApproved(approved)
		return sql.Exists(approved)
	})
}

// WasApproved reports whether an application of l other than app was
// approved before: l's read under the lock (DecisionRead) says so on
// SQLite; PostgreSQL asks after the lock.
func WasApproved(ctx context.Context, c *ent.Client, l *ent.Lead, app uuid.UUID) (bool, error) {
	earlier, read, err := readexpr.Exists(l, approvedAlias, "whether the lead was approved")
	if err != nil || read {
		return earlier, err
	}
	return c.Application.Query().Where(application.LeadID(l.ID), application.IDNEQ(app), funnel.WasApproved).
		Exist(rule.SystemContext(ctx))
}

// othersOpenAlias names whether a lead had an open application other than
// the one funded when the funding took it (selectOthersOpen).
const othersOpenAlias = "svc_others_open"

// selectOthersOpen adds, on SQLite, to the funding's read of the lead
// whether any of the lead's applications other than funded is open.
func selectOthersOpen(s *sql.Selector, funded uuid.UUID) {
	if s.Dialect() != dialect.SQLite {
		return
	}
	readexpr.Append(s, othersOpenAlias, func(s *sql.Selector, funded ...any) sql.Querier {
		apps := sql.Table(application.Table)
		open := sql.Select(apps.C(application.FieldID)).From(apps).
			Where(sql.And(sql.ColumnsEQ(apps.C(application.FieldLeadID), s.C(lead.FieldID)),
				sql.NEQ(apps.C(application.FieldID), funded[0])))
		sql.FieldIn(application.FieldStatus, lendingrules.Open...)(open)
		return sql.Exists(open)
	}, funded)
}

// MayHaveOthersOpen reports whether l, read under the lock for a funding
// (FundingRead), may have open applications besides the one funded: false
// only when the read saw none, so the funding skips the statement that
// would withdraw them.
func MayHaveOthersOpen(l *ent.Lead) (bool, error) {
	open, read, err := readexpr.Exists(l, othersOpenAlias, "whether the lead has other open applications")
	return open || !read, err
}

// The aliases of what selectSlotStages reads beside a lead.
const (
	slotAlias        = "svc_slot"
	stageSlotAlias   = "svc_stage_slot"
	stageLabelAlias  = "svc_stage_label"
	targetIDAlias    = "svc_target_id"
	targetLabelAlias = "svc_target_label"
)

// selectSlotStages adds, on SQLite, to a read of leads what SlotStages
// reads of the pipeline for a move to slot: the slot and label of the
// lead's stage, and the id and label of its organization's first stage of
// slot.
func selectSlotStages(s *sql.Selector, slot string) {
	if s.Dialect() != dialect.SQLite {
		return
	}
	stage := func(col string) readexpr.Builder {
		return func(s *sql.Selector, _ ...any) sql.Querier {
			st := sql.Table(pipelinestage.Table)
			return sql.Select(st.C(col)).From(st).Where(sql.And(
				sql.ColumnsEQ(st.C(pipelinestage.FieldID), s.C(lead.FieldStageID)),
				sql.ColumnsEQ(st.C(pipelinestage.FieldOrgID), s.C(lead.FieldOrgID))))
		}
	}
	first := func(col string) readexpr.Builder {
		return func(s *sql.Selector, slot ...any) sql.Querier {
			st := sql.Table(pipelinestage.Table)
			return sql.Select(st.C(col)).From(st).Where(sql.And(
				sql.ColumnsEQ(st.C(pipelinestage.FieldOrgID), s.C(lead.FieldOrgID)),
				sql.EQ(st.C(pipelinestage.FieldSemanticSlot), slot[0]))).
				OrderBy(st.C(pipelinestage.FieldPosition), st.C(pipelinestage.FieldID)).Limit(1)
		}
	}
	s.AppendSelectExprAs(sql.Expr("?", slot), slotAlias)
	readexpr.Append(s, stageSlotAlias, stage(pipelinestage.FieldSemanticSlot))
	readexpr.Append(s, stageLabelAlias, stage(pipelinestage.FieldStageLabel))
	readexpr.Append(s, targetIDAlias, first(pipelinestage.FieldID), slot)
	readexpr.Append(s, targetLabelAlias, first(pipelinestage.FieldStageLabel), slot)
}

// SlotStages are l's stage and its organization's first stage of slot
// (nil when it has none), with only the columns a move and the lead hooks
// use: the whole pipeline, every column, cost more than the rest of the
// move. l's read under the lock read them already on SQLite (LeadRead's
// Slot); PostgreSQL reads them here.
func SlotStages(ctx context.Context, c *ent.Client, l *ent.Lead, slot string) (current, target *ent.PipelineStage, err error) {
	if current, target, read, err := slotStagesRead(l, slot); read || err != nil {
		return current, target, err
	}
	stages, err := c.PipelineStage.Query().
		Where(pipelinestage.OrgID(l.OrgID),
			pipelinestage.Or(pipelinestage.ID(l.StageID), pipelinestage.SemanticSlotEQ(pipelinestage.SemanticSlot(slot)))).
		Order(pipelinestage.ByPosition(), pipelinestage.ByID()).
		Select(pipelinestage.FieldOrgID, pipelinestage.FieldSemanticSlot, pipelinestage.FieldStageLabel).
		All(rule.SystemContext(ctx))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the pipeline: %w", err)
	}
	for _, st := range stages {
		if st.ID == l.StageID {
			current = st
		}
		if target == nil && string(st.SemanticSlot) == slot {
			target = st
		}
	}
	if current == nil {
		return nil, nil, errNoStage()
	}
	return current, target, nil
}

// slotStagesRead is what selectSlotStages read of l for a move to slot,
// as SlotStages answers it, if it read it.
func slotStagesRead(l *ent.Lead, slot string) (current, target *ent.PipelineStage, read bool, err error) {
	text := func(alias string) (string, bool) {
		v, _ := l.Value(alias)
		return readexpr.Text(v)
	}
	if read, _ := text(slotAlias); read != slot {
		return nil, nil, false, nil // not selected (PostgreSQL), or for another move
	}
	currentSlot, ok := text(stageSlotAlias)
	if !ok {
		return nil, nil, true, errNoStage()
	}
	currentLabel, _ := text(stageLabelAlias)
	current = &ent.PipelineStage{ID: l.StageID, OrgID: l.OrgID,
		SemanticSlot: pipelinestage.SemanticSlot(currentSlot), StageLabel: currentLabel}
	if id, ok := text(targetIDAlias); ok {
		var targetID uuid.UUID
		if err := targetID.Scan(id); err != nil {
			return nil, nil, true, fmt.Errorf("reading the pipeline: %w", err)
		}
		targetLabel, _ := text(targetLabelAlias)
		target = &ent.PipelineStage{ID: targetID, OrgID: l.OrgID,
			SemanticSlot: pipelinestage.SemanticSlot(slot), StageLabel: targetLabel}
	}
	return current, target, true, nil
}

// errNoStage is a lead's stage missing from its organization's pipeline.
func errNoStage() error { return fmt.Errorf("reading the lead's stage: %w", &ent.NotFoundError{}) }

// fundedColumns are what a funding uses of its application: what the deal
// copies, what it checks, and what its move to funded adds to the lenders
// report (lending.countFunded).
var fundedColumns = []string{application.FieldOrgID, application.FieldLeadID, application.FieldLenderID,
	application.FieldLenderName, application.FieldStatus, application.FieldApprovedAmount, application.FieldInterestRate,
	application.FieldRateType, application.FieldTermMonths, application.FieldPaymentFrequency,
	application.FieldSubmittedAt, application.FieldDeclineCategory, application.FieldRenewalOfDealID,
	application.FieldIsRenewal, application.FieldStipulationsOutstanding}

// commissionRateAlias names the lender's commission rate read beside the
// application it funds.
const commissionRateAlias = "svc_commission_rate"

// FundedApplication reads the application a funding funds, only the
// columns the funding uses (the whole row, its JSON columns decoded, cost
// more than the read), with its lender's commission rate in the same
// statement: the deal's commission defaults to it.
func FundedApplication(ctx context.Context, c *ent.Client, id uuid.UUID) (*ent.Application, money.Rate, error) {
	a, err := c.Application.Query().Where(application.ID(id)).Select(fundedColumns...).Modify(func(s *sql.Selector) {
		lenders := sql.Table(lender.Table)
		s.AppendSelectExprAs(sql.Select(lenders.C(lender.FieldCommissionRate)).From(lenders).
			Where(sql.ColumnsEQ(lenders.C(lender.FieldID), s.C(application.FieldLenderID))), commissionRateAlias)
	}).Only(rule.SystemContext(ctx))
	if err != nil {
		return nil, 0, fmt.Errorf("reading the application: %w", err)
	}
	rate, err := readexpr.MustInt64(a, commissionRateAlias, "the lender's commission rate")
	if err != nil {
		return nil, 0, err
	}
	return a, money.Rate(rate), nil
}

// dealFundedAlias names the commission's deal's funding time read beside
// the commission (selectDealFunded).
const dealFundedAlias = "svc_deal_funded_at"

// selectDealFunded adds to a read of commissions the second their deal was
// funded, which a payment's rollups count it by: a deal's funding time
// does not change, so on either database the read sees it as any other.
// Whole seconds lose no day: zones' midnights fall on whole seconds.
func selectDealFunded(s *sql.Selector) {
	b := sql.Dialect(s.Dialect())
	deals := b.Table(fundeddeal.Table)
	seconds := "CAST(strftime('%s', " + deals.C(fundeddeal.FieldFundedAt) + ") AS INTEGER)"
	if s.Dialect() == dialect.Postgres {
		seconds = "FLOOR(EXTRACT(EPOCH FROM " + deals.C(fundeddeal.FieldFundedAt) + "))::bigint"
	}
	s.AppendSelectExprAs(b.Select(seconds).From(deals).
		Where(sql.ColumnsEQ(deals.C(fundeddeal.FieldID), s.C(commission.FieldDealID))), dealFundedAlias)
}

// PaidCommission reads the commission id, just updated by a payment (so
// its row is held on PostgreSQL), with the time its deal was funded, which
// the payment's rollups count it by, and what beside adds (the rollups'
// zone, which the caller reads from the commission returned).
func PaidCommission(ctx context.Context, c *ent.Client, id uuid.UUID, beside ...func(*sql.Selector)) (*ent.Commission, time.Time, error) {
	cm, err := c.Commission.Query().Where(commission.ID(id)).Modify(append(slices.Clip(beside), selectDealFunded)...).
		Only(rule.SystemContext(ctx))
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("reading the commission: %w", err)
	}
	seconds, err := readexpr.MustInt64(cm, dealFundedAlias, "the commission's deal's funding time")
	return cm, time.Unix(seconds, 0).UTC(), err
}
