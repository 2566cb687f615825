package schema

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/fundeddealday"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/lender"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/outbox"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
)

// submitApplication fills a new application from its lead and lender:
// both must be the organization's, the lender active, no other application
// of the lead with the lender open; the amount defaults to the lead's, the
// lender's box adds warnings. It emits application.submitted and moves the
// lead to the application slot.
//
// A bulk load (viewer.WithBulkLoad: the seeding command) writes a whole
// lending book at once, each record as these hooks would have left it (the
// seed's tests hold it to every rule here), so submitApplication, fundDeal
// and recordPayment let its rows through without their per-row reads.
func submitApplication(next ent.Mutator) ent.Mutator {
	return hook.ApplicationFunc(func(ctx context.Context, m *gen.ApplicationMutation) (gen.Value, error) {
		if viewer.IsBulkLoad(ctx) {
			return next.Mutate(ctx, m) // the loader writes the book as these rules leave it
		}
		org, err := createOrg(ctx, m)
		if err != nil {
			return nil, err
		}
		sys := rule.SystemContext(ctx)
		leadID, _ := m.LeadID()
		l, err := lockLead(ctx, m.Client(), submissionRead, lead.ID(leadID), lead.OrgID(org))
		if err != nil {
			return nil, refError(notFoundAsNil(err), "leadId", "lead")
		}
		lenderID, _ := m.LenderID()
		ld, err := m.Client().Lender.Query().Where(lender.ID(lenderID), lender.OrgID(org)).Only(sys)
		if err != nil {
			return nil, refError(notFoundAsNil(err), "lenderId", "lender")
		}
		if !ld.IsActive {
			return nil, apperr.Invalid("lenderId", "the lender %s is inactive and takes no new applications", apperr.Quote(ld.Name))
		}
		first, err := checkOpenAndRef(sys, m, org)
		if err != nil {
			return nil, err
		}
		if err := fillSubmission(ctx, m, l, ld); err != nil {
			return nil, err
		}
		v, err := next.Mutate(ctx, m)
		if err != nil {
			return nil, err
		}
		a := v.(*gen.Application)
		data := map[string]any{"applicationId": a.ID, "orgId": a.OrgID, "lenderId": a.LenderID,
			"lenderName": a.LenderName, "requestedAmount": a.RequestedAmount.String(), "submittedBy": a.SubmittedBy}
		if err := outbox.Emit(ctx, m.Client(), a.OrgID, event.ApplicationSubmitted, data); err != nil {
			return nil, err
		}
		if first {
			if err := addLeadStep(ctx, m.Client(), l, leadStep{applied: 1}); err != nil {
				return nil, err
			}
		}
		return a, moveLeadToSlot(ctx, m.Client(), l, "application", nil)
	})
}

// lockLead reads the lead ps select and holds its row to the end of the
// transaction. Every lending operation that may move a lead takes the
// lead's row before any row of its applications, as funding does, so two
// operations on one lead's applications run one after the other: each
// reads the lead's stage as the other left it (a submission or an approval
// waiting for a funding must not move the funded lead back out of won),
// and neither holds an application row the other waits for while it waits
// for the lead (a deadlock on PostgreSQL). SQLite runs one writing
// transaction at a time, so the read alone is enough there.
//
// Only cols are read (the id always): the whole row, its JSON columns
// decoded, cost a lending write more than any other statement of it.
func lockLead(ctx context.Context, c *gen.Client, read leadRead, ps ...predicate.Lead) (*gen.Lead, error) {
	l, err := c.Lead.Query().Where(ps...).Select(read.cols...).Modify(func(s *sql.Selector) {
		if s.Dialect() == dialect.Postgres {
			// The lock an UPDATE of the lead takes: rows that refer to
			// the lead (a call event, a document) are still written.
			s.For(sql.LockNoKeyUpdate)
		}
		selectZone(s)
		if read.approvals {
			selectWasApproved(s)
		}
		if read.funding != uuid.Nil {
			selectOthersOpen(s, read.funding)
		}
		if read.slot != "" {
			selectSlotStages(s, read.slot)
		}
	}).Only(rule.SystemContext(ctx))
	if err != nil {
		return nil, err
	}
	return l, withZone(ctx, l.OrgID, l)
}

// leadRead is what a lending operation reads of the lead it takes.
type leadRead struct {
	cols []string
	// approvals adds whether any of the lead's applications was approved
	// (wasApproved): a decision counts the lead's first approval.
	approvals bool
	// funding, the application a funding funds, adds whether the lead has
	// another application open (othersOpen): the funding withdraws them.
	funding uuid.UUID
	// slot, the slot the operation moves the lead to, adds the lead's
	// stage and its organization's first stage of slot (slotStages).
	slot string
}

// leadMoveColumns are what the lending operations use of the lead they
// take: its rollup day (created_at, source), whether it has converted,
// its advisor, and its stage with what the lead hooks compare of a stage
// move. moveLeadToSlot updates the lead from this read (UpdateOne), so the
// lead hooks' old values are its columns: a hook that compares another
// column's old value needs it added here.
var leadMoveColumns = []string{lead.FieldOrgID, lead.FieldStageID, lead.FieldPrimaryAdvisorID,
	lead.FieldCreatedAt, lead.FieldSource, lead.FieldConvertedAt}

var (
	// moveRead serves any move of one application that moves no lead.
	moveRead     = leadRead{cols: leadMoveColumns}
	fundingRead  = leadRead{cols: leadMoveColumns, slot: "won"}
	decisionRead = leadRead{cols: leadMoveColumns, approvals: true, slot: "approved"}
	// submissionRead adds what a submission compares with the lender's
	// box (fileOf) and the amount it defaults to.
	submissionRead = leadRead{cols: append(slices.Clip(leadMoveColumns),
		lead.FieldRequestedAmount, lead.FieldMonthlyRevenue, lead.FieldIndustry, lead.FieldCustomFields),
		slot: "application"}
)

// leadOfApplication selects the lead of the organization's application id
// through a subquery, so that lockLead finds and takes the lead's row in
// one statement (a subquery's rows are read, not locked). Not the edge
// predicate (lead.HasApplicationsWith): SQLite would evaluate its
// correlated EXISTS for every lead of the table.
func leadOfApplication(id, org uuid.UUID) predicate.Lead {
	return func(s *sql.Selector) {
		apps := sql.Dialect(s.Dialect()).Select(application.FieldLeadID).From(sql.Table(application.Table))
		application.ID(id)(apps)
		application.OrgID(org)(apps)
		s.Where(sql.In(s.C(lead.FieldID), apps))
	}
}

// createOrg is the organization a new row is created in.
func createOrg(ctx context.Context, m orgMutation) (uuid.UUID, error) {
	org, ok := mutationOrgOf(ctx, m)
	if !ok {
		return uuid.Nil, errors.New("creating a lending record without an organization")
	}
	return org, nil
}

// notFoundAsNil turns not-found into nil, which refError reports as the
// caller's mistake; other errors stay failures.
func notFoundAsNil(err error) error {
	if gen.IsNotFound(err) {
		return nil
	}
	return err
}

// checkOpenAndRef refuses a second open application of the lead with the
// lender and a reference the lender already uses (the unique indexes hold
// when two submissions race; these say which rule was hit). It reports
// whether the submission is the lead's first (the lead rollup counts the
// lead as applied then), from the same read of the lead's applications.
func checkOpenAndRef(ctx context.Context, m *gen.ApplicationMutation, org uuid.UUID) (first bool, err error) {
	leadID, _ := m.LeadID()
	lenderID, _ := m.LenderID()
	apps, err := m.Client().Application.Query().Where(application.LeadID(leadID)).
		Select(application.FieldLenderID, application.FieldStatus).All(ctx)
	if err != nil {
		return false, fmt.Errorf("checking open applications: %w", err)
	}
	for _, a := range apps {
		if a.LenderID == lenderID && slices.Contains(lendingrules.Open, string(a.Status)) {
			return false, &apperr.Error{Code: apperr.Conflict, Field: "lenderId",
				Message: "the lead already has an open application with this lender",
				Detail:  map[string]any{"applicationId": a.ID.String(), "status": string(a.Status)}}
		}
	}
	ref, ok := m.ExternalRef()
	if !ok {
		return len(apps) == 0, nil
	}
	taken, err := m.Client().Application.Query().
		Where(application.LenderID(lenderID), application.ExternalRef(ref), application.OrgID(org)).Exist(ctx)
	if err != nil {
		return false, fmt.Errorf("checking the external reference: %w", err)
	}
	if taken {
		return false, &apperr.Error{Code: apperr.Conflict, Field: "externalRef",
			Message: fmt.Sprintf("the lender already has an application with externalRef %s", apperr.Quote(ref))}
	}
	return len(apps) == 0, nil
}

// fillSubmission sets what the service records of a submission.
func fillSubmission(ctx context.Context, m *gen.ApplicationMutation, l *gen.Lead, ld *gen.Lender) error {
	if _, ok := m.RequestedAmount(); !ok {
		if l.RequestedAmount == nil {
			return apperr.Invalid("requestedAmount", "is required: the lead has no requestedAmount")
		}
		amt, err := money.RoundDecimal(*l.RequestedAmount)
		if err != nil {
			return apperr.Invalid("requestedAmount", "the lead's requestedAmount %s", err)
		}
		m.SetRequestedAmount(amt)
	}
	requested, _ := m.RequestedAmount()
	if requested <= 0 {
		return apperr.Invalid("requestedAmount", "must be more than 0")
	}
	m.SetStatus(application.StatusSubmitted)
	m.SetLenderName(ld.Name)
	m.SetSubmittedAt(apitime.Now(ctx))
	m.SetSubmittedBy(*outbox.Actor(ctx))
	m.SetWarnings(boxOf(ld).Warnings(fileOf(l, requested, m)))
	return nil
}

func boxOf(ld *gen.Lender) lendingrules.Box {
	return lendingrules.Box{MinAmount: ld.MinAmount, MaxAmount: ld.MaxAmount, MinMonthlyRevenue: ld.MinMonthlyRevenue,
		MinMonthsInBusiness: ld.MinMonthsInBusiness, ExcludedIndustries: ld.ExcludedIndustries, Products: ld.Products}
}

// fileOf is what the lead says of the deal. A revenue or a months count the
// lead records in a form the box cannot compare is unknown, not a miss.
func fileOf(l *gen.Lead, requested money.Amount, m *gen.ApplicationMutation) lendingrules.File {
	f := lendingrules.File{Amount: requested, Industry: l.Industry}
	if l.MonthlyRevenue != nil {
		if rev, err := money.RoundDecimal(*l.MonthlyRevenue); err == nil {
			f.MonthlyRevenue = &rev
		}
	}
	if v, ok := l.CustomFields["monthsInBusiness"]; ok {
		if months, ok := wholeNumber(v); ok {
			f.MonthsInBusiness = &months
		}
	}
	if p, ok := m.Product(); ok {
		s := string(p)
		f.Product = &s
	}
	return f
}

// wholeNumber reads a custom field's value as a whole number: a string of
// digits, or a JSON number whose JSON text is digits alone. The number is
// read back through that text rather than converted, so no value passes
// through binary floating point here; 6.5, or a number too large to be
// written without an exponent, is not a whole number and stays unknown.
func wholeNumber(v any) (int, bool) {
	text, ok := v.(string)
	if !ok {
		raw, err := json.Marshal(v)
		if err != nil {
			return 0, false
		}
		text = string(raw)
	}
	n, err := strconv.Atoi(text)
	return n, err == nil
}

// afterMove emits the decision's event and moves the lead (l, read under
// the lock) on approval.
func afterMove(ctx context.Context, c *gen.Client, a *gen.Application, l *gen.Lead) error {
	switch a.Status {
	case application.StatusApproved:
		data := map[string]any{"applicationId": a.ID, "orgId": a.OrgID, "lenderId": a.LenderID,
			"approvedAmount": a.ApprovedAmount.String(), "interestRate": a.InterestRate.String(), "termMonths": *a.TermMonths}
		if err := outbox.Emit(ctx, c, a.OrgID, event.ApplicationApproved, data); err != nil {
			return err
		}
		if err := rollupApproval(ctx, c, l, a); err != nil {
			return err
		}
		return moveLeadToSlot(ctx, c, l, "approved", nil)
	case application.StatusDeclined:
		data := map[string]any{"applicationId": a.ID, "orgId": a.OrgID, "lenderId": a.LenderID, "reason": *a.DeclineReason}
		return outbox.Emit(ctx, c, a.OrgID, event.ApplicationDeclined, data)
	}
	return nil
}

// moveLeadToSlot moves the lead to its organization's first stage of slot
// when the lead's stage is in an earlier slot, and records the lead's
// conversion when convertedAt is given (a funding), in the same UPDATE when
// the lead moves. The move is an ordinary stage change: the lead hooks emit
// lead.status_changed and lead.stage_changed with the same actor as a
// manual move. The conversion is the funding's news (deal.funded), not a
// lead.updated of its own (emitLeadChanges counts it as bookkeeping).
//
// l, read in the same transaction, is the lead before the update that the
// lead hooks compare with.
func moveLeadToSlot(ctx context.Context, c *gen.Client, l *gen.Lead, slot string, convertedAt *time.Time) error {
	sys := rule.SystemContext(ctx)
	current, target, err := slotStages(sys, c, l, slot)
	if err != nil {
		return err
	}
	if !lendingrules.Advances(string(current.SemanticSlot), slot) || target == nil {
		// Not earlier, or the organization has no stage for the slot.
		if convertedAt == nil {
			return nil
		}
		if err := c.Lead.Update().Where(lead.ID(l.ID)).SetConvertedAt(*convertedAt).Exec(sys); err != nil {
			return fmt.Errorf("recording the lead's conversion: %w", err)
		}
		return nil
	}
	// The hooks take the stages from here rather than reading them again,
	// and the lead ent reads back after the UPDATE, which only they use, is
	// narrowed to what they use of a stage move (emitLeadChanges): the
	// whole row, its JSON columns decoded, cost more than the UPDATE.
	err = c.Lead.UpdateOne(l).SetStageID(target.ID).SetNillableConvertedAt(convertedAt).
		Select(lead.FieldOrgID, lead.FieldStageID, lead.FieldPrimaryAdvisorID).
		Exec(withStagesRead(sys, current, target))
	if err != nil {
		return fmt.Errorf("moving the lead to the %s stage: %w", slot, err)
	}
	return nil
}

// slotStages reads the lead's stage and its organization's first stage of
// slot (nil when it has none) in one query, with only the columns the move
// and the lead hooks use: the whole pipeline, every column, cost more than
// the rest of the move. On SQLite the lead's read under the lock read them
// already (selectSlotStages).
func slotStages(ctx context.Context, c *gen.Client, l *gen.Lead, slot string) (current, target *gen.PipelineStage, err error) {
	if current, target, read, err := slotStagesRead(l, slot); read || err != nil {
		return current, target, err
	}
	stages, err := c.PipelineStage.Query().
		Where(pipelinestage.OrgID(l.OrgID),
			pipelinestage.Or(pipelinestage.ID(l.StageID), pipelinestage.SemanticSlotEQ(pipelinestage.SemanticSlot(slot)))).
		Order(pipelinestage.ByPosition(), pipelinestage.ByID()).
		Select(pipelinestage.FieldOrgID, pipelinestage.FieldSemanticSlot, pipelinestage.FieldStageLabel).
		All(ctx)
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

// errNoStage is a lead's stage missing from its organization's pipeline.
func errNoStage() error { return fmt.Errorf("reading the lead's stage: %w", &gen.NotFoundError{}) }

func (FundedDeal) Hooks() []ent.Hook {
	return []ent.Hook{hook.On(fundDeal, ent.OpCreate)}
}

// A Count of a lender's deals is answered from the day counts
// (FundedDealDay) when the caller marks the context (counted.With).
func (FundedDeal) Interceptors() []ent.Interceptor {
	return []ent.Interceptor{countFromTotal}
}

// fundDeal turns an approved application into a deal. The lead's row is
// taken first (lockLead), by the statement that finds it through the
// application, so fundings of one lead's applications run one
// after the other: the second finds its application withdrawn and is
// refused. The application then moves to funded (the transition rule
// refuses any other status), the lead's other open applications are
// withdrawn, the commission is created, the lead moves to won and records
// its conversion, and deal.funded is emitted.
func fundDeal(next ent.Mutator) ent.Mutator {
	return hook.FundedDealFunc(func(ctx context.Context, m *gen.FundedDealMutation) (gen.Value, error) {
		if viewer.IsBulkLoad(ctx) {
			return next.Mutate(ctx, m) // the loader writes the deal, its commission and the moves itself
		}
		org, err := createOrg(ctx, m)
		if err != nil {
			return nil, err
		}
		c := m.Client()
		appID, _ := m.ApplicationID()
		read := fundingRead
		read.funding = appID
		l, err := lockLead(ctx, c, read, leadOfApplication(appID, org))
		if gen.IsNotFound(err) {
			return nil, apperr.New(apperr.NotFound, "no application with id %s exists in your organization", appID)
		}
		if err != nil {
			return nil, fmt.Errorf("locking the application's lead: %w", err)
		}
		fundedAt, err := pastOrNow(ctx, m.FundedAt, "fundedAt")
		if err != nil {
			return nil, err
		}
		m.SetFundedAt(fundedAt)
		// Read under the lock: a funding of another of the lead's
		// applications may have withdrawn this one meanwhile.
		a, rate, err := fundedApplication(ctx, c, appID)
		if err != nil {
			return nil, err
		}
		if a.Status != application.StatusApproved {
			return nil, lendingrules.Conflict(string(a.Status), lendingrules.Funded)
		}
		if err := fillDeal(ctx, m, a, l, rate); err != nil {
			return nil, err
		}
		v, err := next.Mutate(ctx, m)
		if err != nil {
			return nil, err
		}
		d := v.(*gen.FundedDeal)
		return d, afterFunding(ctx, c, a, d, l)
	})
}

// fundedColumns are what a funding uses of its application: what the deal
// copies (fillDeal), what it checks, and what its move to funded adds to
// the lenders report (changeWith, through withFunding).
var fundedColumns = []string{application.FieldOrgID, application.FieldLeadID, application.FieldLenderID,
	application.FieldLenderName, application.FieldStatus, application.FieldApprovedAmount, application.FieldInterestRate,
	application.FieldRateType, application.FieldTermMonths, application.FieldPaymentFrequency,
	application.FieldSubmittedAt, application.FieldDeclineCategory}

// commissionRateAlias names the lender's commission rate read beside the
// application it funds.
const commissionRateAlias = "svc_commission_rate"

// fundedApplication reads the application a funding funds, only the
// columns the funding uses (the whole row, its JSON columns decoded, cost
// more than the read), with its lender's commission rate in the same
// statement: the deal's commission defaults to it (fillDeal).
func fundedApplication(ctx context.Context, c *gen.Client, id uuid.UUID) (*gen.Application, money.Rate, error) {
	a, err := c.Application.Query().Where(application.ID(id)).Select(fundedColumns...).Modify(func(s *sql.Selector) {
		lenders := sql.Table(lender.Table)
		s.AppendSelectExprAs(sql.Select(lenders.C(lender.FieldCommissionRate)).From(lenders).
			Where(sql.ColumnsEQ(lenders.C(lender.FieldID), s.C(application.FieldLenderID))), commissionRateAlias)
	}).Only(rule.SystemContext(ctx))
	if err != nil {
		return nil, 0, fmt.Errorf("reading the application: %w", err)
	}
	rate, err := mustInt64Read(a, commissionRateAlias, "the lender's commission rate")
	if err != nil {
		return nil, 0, err
	}
	return a, money.Rate(rate), nil
}

// The aliases of what selectSlotStages reads beside a lead.
const (
	slotAlias        = "svc_slot"
	stageSlotAlias   = "svc_stage_slot"
	stageLabelAlias  = "svc_stage_label"
	targetIDAlias    = "svc_target_id"
	targetLabelAlias = "svc_target_label"
)

// selectSlotStages adds, on SQLite, to a read of leads what slotStages
// reads of the pipeline for a move to slot: the slot and label of the
// lead's stage, and the id and label of its organization's first stage of
// slot. A lending operation moves its lead at its end; read with the lead
// they save the move a statement of its own, and SQLite runs one writing
// transaction at a time, so they hold to the move. Not on PostgreSQL,
// where what the read sees of other rows is as it was before it waited
// for the lead's row (selectWasApproved): slotStages reads them there.
func selectSlotStages(s *sql.Selector, slot string) {
	if s.Dialect() != dialect.SQLite {
		return
	}
	stage := func(col string) func(*sql.Selector, ...any) sql.Querier {
		return func(s *sql.Selector, _ ...any) sql.Querier {
			st := sql.Table(pipelinestage.Table)
			return sql.Select(st.C(col)).From(st).Where(sql.And(
				sql.ColumnsEQ(st.C(pipelinestage.FieldID), s.C(lead.FieldStageID)),
				sql.ColumnsEQ(st.C(pipelinestage.FieldOrgID), s.C(lead.FieldOrgID))))
		}
	}
	first := func(col string) func(*sql.Selector, ...any) sql.Querier {
		return func(s *sql.Selector, slot ...any) sql.Querier {
			st := sql.Table(pipelinestage.Table)
			return sql.Select(st.C(col)).From(st).Where(sql.And(
				sql.ColumnsEQ(st.C(pipelinestage.FieldOrgID), s.C(lead.FieldOrgID)),
				sql.EQ(st.C(pipelinestage.FieldSemanticSlot), slot[0]))).
				OrderBy(st.C(pipelinestage.FieldPosition), st.C(pipelinestage.FieldID)).Limit(1)
		}
	}
	s.AppendSelectExprAs(sql.Expr("?", slot), slotAlias)
	appendReadExpr(s, stageSlotAlias, stage(pipelinestage.FieldSemanticSlot))
	appendReadExpr(s, stageLabelAlias, stage(pipelinestage.FieldStageLabel))
	appendReadExpr(s, targetIDAlias, first(pipelinestage.FieldID), slot)
	appendReadExpr(s, targetLabelAlias, first(pipelinestage.FieldStageLabel), slot)
}

// slotStagesRead is what selectSlotStages read of l for a move to slot,
// as slotStages answers it, if it read it.
func slotStagesRead(l *gen.Lead, slot string) (current, target *gen.PipelineStage, read bool, err error) {
	text := func(alias string) (string, bool) {
		v, _ := l.Value(alias)
		return sqlText(v)
	}
	if read, _ := text(slotAlias); read != slot {
		return nil, nil, false, nil // not selected (PostgreSQL), or for another move
	}
	currentSlot, ok := text(stageSlotAlias)
	if !ok {
		return nil, nil, true, errNoStage()
	}
	currentLabel, _ := text(stageLabelAlias)
	current = &gen.PipelineStage{ID: l.StageID, OrgID: l.OrgID,
		SemanticSlot: pipelinestage.SemanticSlot(currentSlot), StageLabel: currentLabel}
	if id, ok := text(targetIDAlias); ok {
		var targetID uuid.UUID
		if err := targetID.Scan(id); err != nil {
			return nil, nil, true, fmt.Errorf("reading the pipeline: %w", err)
		}
		targetLabel, _ := text(targetLabelAlias)
		target = &gen.PipelineStage{ID: targetID, OrgID: l.OrgID,
			SemanticSlot: pipelinestage.SemanticSlot(slot), StageLabel: targetLabel}
	}
	return current, target, true, nil
}

// sqlText is a text value as the SQLite driver scans it into an any, and
// whether v is text at all.
func sqlText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	}
	return "", false
}

// fillDeal copies the offer and computes what the caller left out: the
// funded amount, the advisor (l's), the payback and the commission (at
// rate, the lender's).
func fillDeal(ctx context.Context, m *gen.FundedDealMutation, a *gen.Application, l *gen.Lead, rate money.Rate) error {
	sys := rule.SystemContext(ctx)
	c := m.Client()
	if _, ok := m.FundedAmount(); !ok {
		m.SetFundedAmount(*a.ApprovedAmount)
	}
	funded, _ := m.FundedAmount()
	if funded <= 0 {
		return apperr.Invalid("fundedAmount", "must be more than 0")
	}
	m.SetLeadID(a.LeadID)
	m.SetLenderID(a.LenderID)
	m.SetLenderName(a.LenderName)
	m.SetInterestRate(*a.InterestRate)
	m.SetRateType(fundeddeal.RateType(*a.RateType))
	m.SetTermMonths(*a.TermMonths)
	m.SetCommissionID(newID())
	if a.PaymentFrequency != nil {
		m.SetPaymentFrequency(fundeddeal.PaymentFrequency(*a.PaymentFrequency))
	}
	payback, ok, err := lendingrules.Payback(funded, string(*a.RateType), *a.InterestRate)
	if err != nil {
		return apperr.Invalid("fundedAmount", "%s", err)
	}
	if ok {
		m.SetPaybackAmount(payback)
	}
	if approved := *a.ApprovedAmount; funded > approved {
		return apperr.Invalid("fundedAmount", "must not exceed the approved amount %s", approved)
	}
	if id, ok := m.AdvisorID(); ok {
		u, err := c.User.Query().Where(user.ID(id), user.OrgID(a.OrgID)).Only(sys)
		if gen.IsNotFound(err) {
			return refError(nil, "advisorId", "user")
		}
		if err != nil {
			return refError(err, "advisorId", "user")
		}
		if !credited(u) {
			return apperr.Invalid("advisorId", "must name an advisor or an admin; this user is a dialer %s", u.Role)
		}
	} else if l.PrimaryAdvisorID != nil {
		// The lead's primary advisor, when one who can be credited: a lead
		// assigned to a dialer agent funds a deal credited to no one.
		u, err := c.User.Query().Where(user.ID(*l.PrimaryAdvisorID)).Only(sys)
		if err != nil {
			return fmt.Errorf("reading the lead's primary advisor: %w", err)
		}
		if credited(u) {
			m.SetAdvisorID(u.ID)
		}
	}
	if _, ok := m.ExpectedCommission(); !ok {
		due, err := lendingrules.ExpectedCommission(funded, rate)
		if err != nil {
			return apperr.Invalid("fundedAmount", "%s", err)
		}
		m.SetExpectedCommission(due)
	}
	return nil
}

// afterFunding moves the application, withdraws the rest, opens the
// commission, and moves the lead (l, read under the lock) recording its
// conversion.
func afterFunding(ctx context.Context, c *gen.Client, a *gen.Application, d *gen.FundedDeal, l *gen.Lead) error {
	sys := rule.SystemContext(withFunding(ctx, a, d))
	// The transition rule (moveApplication) makes the update conditional
	// on approved; a row moved since it was read is refused as it refuses
	// one (refusedMove).
	n, err := c.Application.Update().Where(application.ID(a.ID)).
		SetStatus(application.StatusFunded).SetFundedDealID(d.ID).Save(sys)
	if err != nil {
		return err
	}
	if n == 0 {
		now, err := c.Application.Get(sys, a.ID)
		if err != nil {
			return err
		}
		return lendingrules.Conflict(string(now.Status), lendingrules.Funded)
	}
	if err := withdrawOthers(sys, c, a, l); err != nil {
		return err
	}
	err = c.Commission.Create().SetID(d.CommissionID).SetOrgID(d.OrgID).SetDealID(d.ID).SetLeadID(d.LeadID).
		SetLenderID(d.LenderID).SetNillableAdvisorID(d.AdvisorID).SetExpectedAmount(d.ExpectedCommission).Exec(sys)
	if err != nil {
		return fmt.Errorf("creating the commission: %w", err)
	}
	if err := countDeal(ctx, c, d); err != nil {
		return err
	}
	if err := rollupFunding(ctx, c, l, d); err != nil {
		return err
	}
	data := map[string]any{"dealId": d.ID, "orgId": d.OrgID, "applicationId": d.ApplicationID, "lenderId": d.LenderID,
		"fundedAmount": d.FundedAmount.String(), "commission": d.ExpectedCommission.String(), "advisorId": d.AdvisorID}
	if err := outbox.Emit(ctx, c, d.OrgID, event.DealFunded, data); err != nil {
		return err
	}
	return moveLeadToSlot(ctx, c, l, "won", &d.FundedAt)
}

// withdrawOthers withdraws the lead's open applications other than a,
// which l (read under the lock) may say it has none of (othersOpen).
func withdrawOthers(ctx context.Context, c *gen.Client, a *gen.Application, l *gen.Lead) error {
	open, read, err := othersOpen(l)
	if err != nil || (read && !open) {
		return err
	}
	err = c.Application.Update().
		Where(application.LeadID(a.LeadID), application.IDNEQ(a.ID), application.StatusIn(statuses(lendingrules.Open)...)).
		SetStatus(application.StatusWithdrawn).SetWithdrawnReason(lendingrules.FundedElsewhere).Exec(context.WithValue(ctx, fundingWithdrawal{}, true))
	if err != nil {
		return fmt.Errorf("withdrawing the lead's other applications: %w", err)
	}
	return nil
}

// credited reports whether a deal may be credited to u in the funding
// report: an advisor or an admin, never a dialer agent.
func credited(u *gen.User) bool { return u.Role == user.RoleAdvisor || u.Role == user.RoleAdmin }

// fundingWithdrawal marks the context of withdrawOthers: the one writer
// that may give lendingrules.FundedElsewhere as a reason.
type fundingWithdrawal struct{}

// othersOpenAlias names whether a lead had an open application other than
// the one funded when the funding took it (selectOthersOpen).
const othersOpenAlias = "svc_others_open"

// selectOthersOpen adds, on SQLite, to the funding's read of the lead
// whether any of the lead's applications other than funded is open: when
// none is, the funding has none to withdraw and skips the statement that
// looks for them. SQLite runs one writing transaction at a time, so the
// read holds to the withdrawal; not on PostgreSQL, where the read's view
// of other rows is as it was before it waited for the lead's row
// (selectWasApproved).
func selectOthersOpen(s *sql.Selector, funded uuid.UUID) {
	if s.Dialect() != dialect.SQLite {
		return
	}
	appendReadExpr(s, othersOpenAlias, func(s *sql.Selector, funded ...any) sql.Querier {
		apps := sql.Table(application.Table)
		open := sql.Select(apps.C(application.FieldID)).From(apps).
			Where(sql.And(sql.ColumnsEQ(apps.C(application.FieldLeadID), s.C(lead.FieldID)),
				sql.NEQ(apps.C(application.FieldID), funded[0])))
		application.StatusIn(statuses(lendingrules.Open)...)(open)
		return sql.Exists(open)
	}, funded)
}

// othersOpen is what selectOthersOpen read of l, if it did.
func othersOpen(l *gen.Lead) (open, read bool, err error) {
	return existsRead(l, othersOpenAlias, "whether the lead has other open applications")
}

// fundedDealDays adds to FundedDealDay rows.
var fundedDealDays = rollupUpsert{table: fundeddealday.Table,
	keys: []string{fundeddealday.FieldOrgID, fundeddealday.FieldLenderID, fundeddealday.FieldDay, fundeddealday.FieldSlot},
	adds: []string{fundeddealday.FieldN}}

// countDeal adds the deal to its lender's count of the day it was funded,
// in a slot chosen by the transaction as countLead chooses one. The count
// is kept whether or not the rollups are built; the transaction's zone
// read (already made by the funding's move of its application) gives the
// upsert its dialect.
func countDeal(ctx context.Context, c *gen.Client, d *gen.FundedDeal) error {
	z, err := rollupZone(ctx, c, d.OrgID)
	if err != nil {
		return err
	}
	slot := txSlot(ctx, FundedDealDaySlots)
	if err := fundedDealDays.exec(ctx, c, z.dialect, []any{d.OrgID, d.LenderID, apitime.Day(d.FundedAt), slot, 1}); err != nil {
		return fmt.Errorf("counting the deal: %w", err)
	}
	return nil
}

func (CommissionPayment) Hooks() []ent.Hook {
	return []ent.Hook{hook.On(recordPayment, ent.OpCreate)}
}

// recordPayment adds a payment or a clawback to its commission's paid
// amount and sets the commission's status, in the same transaction; the
// UPDATE of the commission's row also queues concurrent payments of one
// commission on PostgreSQL. A payment emits deal.commission_paid.
func recordPayment(next ent.Mutator) ent.Mutator {
	return hook.CommissionPaymentFunc(func(ctx context.Context, m *gen.CommissionPaymentMutation) (gen.Value, error) {
		if viewer.IsBulkLoad(ctx) {
			return next.Mutate(ctx, m) // the loader writes the commission's paid amount and status itself
		}
		org, err := createOrg(ctx, m)
		if err != nil {
			return nil, err
		}
		amt, _ := m.Amount()
		if amt <= 0 {
			return nil, apperr.Invalid("amount", "must be more than 0")
		}
		paidAt, err := pastOrNow(ctx, m.PaidAt, "paidAt")
		if err != nil {
			return nil, err
		}
		m.SetPaidAt(paidAt)
		cm, err := applyPayment(ctx, m, org, amt)
		if err != nil {
			return nil, err
		}
		v, err := next.Mutate(ctx, m)
		if err != nil {
			return nil, err
		}
		p := v.(*gen.CommissionPayment)
		// The commission as this payment left it, for the caller to answer
		// with rather than read again.
		p.Edges.Commission = cm
		paidBefore := cm.PaidAmount - amt
		if p.Kind == commissionpayment.KindClawback {
			paidBefore = cm.PaidAmount + amt
		}
		if err := rollupPayment(ctx, m.Client(), cm, paidBefore, p); err != nil {
			return nil, err
		}
		if p.Kind != commissionpayment.KindPayment {
			return p, nil // the catalog has no clawback event
		}
		data := map[string]any{"commissionId": cm.ID, "dealId": cm.DealID, "orgId": cm.OrgID, "lenderId": cm.LenderID,
			"advisorId": cm.AdvisorID, "amount": p.Amount.String(), "paidAt": apitime.Format(p.PaidAt),
			"paidAmount": cm.PaidAmount.String(), "expectedAmount": cm.ExpectedAmount.String(), "status": string(cm.Status)}
		return p, outbox.Emit(ctx, m.Client(), cm.OrgID, event.DealCommissionPaid, data)
	})
}

// applyPayment updates the commission's paid amount and status.
func applyPayment(ctx context.Context, m *gen.CommissionPaymentMutation, org uuid.UUID, amt money.Amount) (*gen.Commission, error) {
	sys := rule.SystemContext(ctx)
	id, _ := m.CommissionID()
	kind, _ := m.Kind()
	delta := amt
	if kind == commissionpayment.KindClawback {
		delta = -amt
	}
	n, err := m.Client().Commission.Update().Where(commission.ID(id), commission.OrgID(org)).AddPaidAmount(delta).Save(sys)
	if err != nil {
		return nil, fmt.Errorf("adding the payment to the commission: %w", err)
	}
	if n == 0 {
		return nil, apperr.New(apperr.NotFound, "no commission with id %s exists in your organization", id)
	}
	cm, err := m.Client().Commission.Query().Where(commission.ID(id)).Modify(selectZone, selectDealFunded).Only(sys)
	if err == nil {
		err = withZone(ctx, cm.OrgID, cm)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the commission: %w", err)
	}
	if cm.PaidAmount < 0 {
		return nil, apperr.Invalid("amount", "is more than the commission's paid amount (%s before the clawback)",
			cm.PaidAmount+amt)
	}
	clawedBack := kind == commissionpayment.KindClawback || cm.Status == commission.StatusClawedBack
	status := commission.Status(lendingrules.CommissionStatus(cm.PaidAmount, cm.ExpectedAmount, clawedBack))
	if status == cm.Status {
		return cm, nil
	}
	// Read back only the stamp the update sets beside the status, so cm
	// is the row as stored.
	after, err := m.Client().Commission.UpdateOne(cm).SetStatus(status).Select(commission.FieldUpdatedAt).Save(sys)
	if err != nil {
		return nil, fmt.Errorf("setting the commission's status: %w", err)
	}
	cm.Status, cm.UpdatedAt = status, after.UpdatedAt
	return cm, nil
}
