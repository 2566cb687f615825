package rollup

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/decision"
	"github.com/lendingpipe/svc/analytics/dispositions"
	"github.com/lendingpipe/svc/analytics/funnel"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/callday"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/ent/decisionday"
	"github.com/lendingpipe/svc/ent/dialercall"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lenderday"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/period"
)

// rebuildBatch is how many rollup rows one INSERT writes.
const rebuildBatch = 500

// The lenders and dialer rollups are rebuilt as the others (rollupSteps):
// rebuildLenders also gives each decided application its decision seconds
// where an older version of the service left them unset.

type lenderKey struct {
	grain  lenderday.Grain
	day    int
	lender uuid.UUID
}

type lenderSums struct {
	submitted, approved, declined, withdrawn, funded int
	amount                                           money.Amount
	declines                                         map[string]int
}

type decisionKey struct {
	grain  decisionday.Grain
	day    int
	lender uuid.UUID
	octave int
}

func rebuildLenders(ctx context.Context, tx *ent.Client, org uuid.UUID, loc *time.Location) error {
	if _, err := tx.LenderDay.Delete().Where(lenderday.OrgID(org)).Exec(ctx); err != nil {
		return err
	}
	if _, err := tx.DecisionDay.Delete().Where(decisionday.OrgID(org)).Exec(ctx); err != nil {
		return err
	}
	apps, err := tx.Application.Query().Where(application.OrgID(org)).
		Select(application.FieldLenderID, application.FieldStatus, application.FieldSubmittedAt, application.FieldDecidedAt,
			application.FieldDeclineCategory, application.FieldFundedDealID, application.FieldDecisionSeconds).All(ctx)
	if err != nil {
		return fmt.Errorf("reading the applications: %w", err)
	}
	amounts, err := dealAmountsOf(ctx, tx, org)
	if err != nil {
		return err
	}
	sums := map[lenderKey]*lenderSums{}
	hist := map[decisionKey]*[decision.Buckets]int{}
	unset := map[uuid.UUID]int{}
	for _, a := range apps {
		k := lenderKey{lenderday.GrainDay, period.LocalDay(a.SubmittedAt, loc), a.LenderID}
		for _, gk := range []lenderKey{k, {lenderday.GrainMonth, period.MonthNumber(k.day), k.lender},
			{lenderday.GrainYear, period.YearNumber(k.day), k.lender}} {
			s := sums[gk]
			if s == nil {
				s = &lenderSums{declines: map[string]int{}}
				sums[gk] = s
			}
			s.add(a, amounts)
		}
		if a.DecidedAt == nil {
			continue
		}
		secs := decision.Seconds(a.SubmittedAt, *a.DecidedAt)
		if a.DecisionSeconds == nil || *a.DecisionSeconds != secs {
			unset[a.ID] = secs
		}
		octave, bucket := decision.Bucket(secs)
		for _, hk := range []decisionKey{{decisionday.GrainDay, k.day, k.lender, octave},
			{decisionday.GrainMonth, period.MonthNumber(k.day), k.lender, octave},
			{decisionday.GrainYear, period.YearNumber(k.day), k.lender, octave}} {
			if hist[hk] == nil {
				hist[hk] = &[decision.Buckets]int{}
			}
			hist[hk][bucket]++
		}
	}
	if err := setDecisionSeconds(ctx, tx, unset); err != nil {
		return err
	}
	if err := insertLenderDays(ctx, tx, org, sums); err != nil {
		return err
	}
	return insertDecisionDays(ctx, tx, org, hist)
}

func (s *lenderSums) add(a *ent.Application, amounts map[uuid.UUID]money.Amount) {
	s.submitted++
	switch a.Status {
	case application.StatusDeclined:
		s.declined++
		cat := string(application.DeclineCategoryOther)
		if a.DeclineCategory != nil {
			cat = string(*a.DeclineCategory)
		}
		s.declines[cat]++
	case application.StatusWithdrawn:
		s.withdrawn++
	case application.StatusFunded:
		s.funded++
	}
	if a.DecidedAt != nil && a.Status != application.StatusDeclined {
		s.approved++
	}
	if a.FundedDealID != nil {
		s.amount += amounts[*a.FundedDealID]
	}
}

func dealAmountsOf(ctx context.Context, tx *ent.Client, org uuid.UUID) (map[uuid.UUID]money.Amount, error) {
	deals, err := tx.FundedDeal.Query().Where(fundeddeal.OrgID(org)).Select(fundeddeal.FieldFundedAmount).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the deals: %w", err)
	}
	out := make(map[uuid.UUID]money.Amount, len(deals))
	for _, d := range deals {
		out[d.ID] = d.FundedAmount
	}
	return out, nil
}

// setDecisionSeconds writes the decision seconds of applications, many in
// one UPDATE (a CASE on the id): the rows are records, and their
// updatedAt stays as it was.
func setDecisionSeconds(ctx context.Context, tx *ent.Client, secs map[uuid.UUID]int) error {
	if len(secs) == 0 {
		return nil
	}
	dialectName, err := dialectOf(ctx, tx)
	if err != nil {
		return err
	}
	ids := make([]uuid.UUID, 0, len(secs))
	for id := range secs {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	for chunk := range slices.Chunk(ids, rebuildBatch) {
		in := make([]any, len(chunk))
		for i, id := range chunk {
			in[i] = id
		}
		// The builder numbers the arguments as the dialect wants them
		// ($1... on PostgreSQL).
		cases := sql.ExprFunc(func(b *sql.Builder) {
			b.WriteString("CASE ").Ident(application.FieldID)
			for _, id := range chunk {
				b.WriteString(" WHEN ").Arg(id).WriteString(" THEN CAST(").Arg(secs[id]).WriteString(" AS INTEGER)")
			}
			b.WriteString(" END")
		})
		q, qargs := sql.Dialect(dialectName).Update(application.Table).
			Set(application.FieldDecisionSeconds, cases).
			Where(sql.In(application.FieldID, in...)).Query()
		if _, err := tx.ExecContext(ctx, q, qargs...); err != nil {
			return fmt.Errorf("setting decision seconds: %w", err)
		}
	}
	return nil
}

func insertLenderDays(ctx context.Context, tx *ent.Client, org uuid.UUID, sums map[lenderKey]*lenderSums) error {
	builders := make([]*ent.LenderDayCreate, 0, len(sums))
	for k, s := range sums {
		b := tx.LenderDay.Create().SetOrgID(org).SetGrain(k.grain).SetDay(k.day).SetLenderID(k.lender).SetSlot(0).
			SetSubmitted(s.submitted).SetApproved(s.approved).SetDeclined(s.declined).SetWithdrawn(s.withdrawn).
			SetFunded(s.funded).SetFundedAmount(s.amount)
		for cat, n := range s.declines {
			if err := b.Mutation().SetField(funnel.DeclineColumn(cat), n); err != nil {
				return err
			}
		}
		builders = append(builders, b)
	}
	for chunk := range slices.Chunk(builders, rebuildBatch/20) {
		if err := tx.LenderDay.CreateBulk(chunk...).Exec(ctx); err != nil {
			return fmt.Errorf("writing the lender rollup: %w", err)
		}
	}
	return nil
}

func insertDecisionDays(ctx context.Context, tx *ent.Client, org uuid.UUID, hist map[decisionKey]*[decision.Buckets]int) error {
	builders := make([]*ent.DecisionDayCreate, 0, len(hist))
	for k, counts := range hist {
		b := tx.DecisionDay.Create().SetOrgID(org).SetGrain(k.grain).SetDay(k.day).SetLenderID(k.lender).SetOctave(k.octave)
		for i, n := range counts {
			if n == 0 {
				continue
			}
			if err := b.Mutation().SetField(decision.Column(i), n); err != nil {
				return err
			}
		}
		builders = append(builders, b)
	}
	// 36 columns a row: SQLite takes at most 32,766 parameters.
	for chunk := range slices.Chunk(builders, rebuildBatch/20) {
		if err := tx.DecisionDay.CreateBulk(chunk...).Exec(ctx); err != nil {
			return fmt.Errorf("writing the decision histogram: %w", err)
		}
	}
	return nil
}

// callTally is one call's events as the rebuild groups them.
type callTally struct {
	first, last int
	agents      map[uuid.UUID]bool // the agents with an event, true when one answered
}

type callKey struct {
	span callday.Span
	day  int
	user uuid.UUID
}

type callSums struct {
	calls, answered, talk int
	dispositions          map[string]int
}

func rebuildDialer(ctx context.Context, tx *ent.Client, org uuid.UUID, loc *time.Location) error {
	if _, err := tx.CallDay.Delete().Where(callday.OrgID(org)).Exec(ctx); err != nil {
		return err
	}
	if _, err := tx.DialerCall.Delete().Where(dialercall.OrgID(org)).Exec(ctx); err != nil {
		return err
	}
	events, err := tx.CallEvent.Query().Where(callevent.OrgID(org)).
		Select(callevent.FieldUserID, callevent.FieldExternalCallID, callevent.FieldEventType,
			callevent.FieldDurationSeconds, callevent.FieldDisposition, callevent.FieldOccurredAt).All(ctx)
	if err != nil {
		return fmt.Errorf("reading the call events: %w", err)
	}
	calls := map[string]*callTally{}
	sums := map[callKey]*callSums{}
	for _, e := range events {
		day := period.LocalDay(e.OccurredAt, loc)
		t := calls[e.ExternalCallID]
		if t == nil {
			t = &callTally{first: day, last: day, agents: map[uuid.UUID]bool{}}
			calls[e.ExternalCallID] = t
		}
		t.first, t.last = min(t.first, day), max(t.last, day)
		t.agents[e.UserID] = t.agents[e.UserID] || e.EventType == callevent.EventTypeCallAnswered
		for _, span := range callSpans {
			d := rollupSpanDay(span, day)
			if e.EventType == callevent.EventTypeCallEnded && e.DurationSeconds != nil {
				sumsAt(sums, callKey{span, d, e.UserID}).talk += *e.DurationSeconds
			}
			if e.EventType == callevent.EventTypeDisposition && e.Disposition != nil {
				s := sumsAt(sums, callKey{span, d, e.UserID})
				if s.dispositions == nil {
					s.dispositions = map[string]int{}
				}
				s.dispositions[*e.Disposition]++
			}
		}
	}
	for _, t := range calls {
		if t.first != t.last {
			continue // counted by the report from its events
		}
		sumsAt(sums, callKey{callday.SpanDay, t.first, uuid.Nil}).calls++
		for agent, answered := range t.agents {
			for _, span := range callSpans {
				s := sumsAt(sums, callKey{span, rollupSpanDay(span, t.first), agent})
				s.calls++
				if answered {
					s.answered++
				}
			}
		}
	}
	if err := insertCallDays(ctx, tx, org, sums); err != nil {
		return err
	}
	return insertDialerCalls(ctx, tx, org, calls)
}

func sumsAt(m map[callKey]*callSums, k callKey) *callSums {
	s := m[k]
	if s == nil {
		s = &callSums{}
		m[k] = s
	}
	return s
}

// callSpans are the spans of an agent's dialer rows.
var callSpans = []callday.Span{callday.SpanDay, callday.SpanMonth, callday.SpanYear}

// rollupSpanDay is the day keying span's row of day (as the hooks key it):
// the first day of the span.
func rollupSpanDay(span callday.Span, day int) int { return callGrains[span].Start(day) }

var callGrains = map[callday.Span]period.Grain{
	callday.SpanDay: period.DayGrain, callday.SpanMonth: period.MonthGrain, callday.SpanYear: period.YearGrain}

func insertCallDays(ctx context.Context, tx *ent.Client, org uuid.UUID, sums map[callKey]*callSums) error {
	builders := make([]*ent.CallDayCreate, 0, len(sums))
	for k, s := range sums {
		builders = append(builders, tx.CallDay.Create().SetOrgID(org).SetSpan(k.span).SetDay(k.day).SetUserID(k.user).
			SetSlot(0).SetCalls(s.calls).SetAnswered(s.answered).SetTalkSeconds(s.talk).
			SetDispositions(dispositions.Pack(s.dispositions)))
	}
	for chunk := range slices.Chunk(builders, rebuildBatch) {
		if err := tx.CallDay.CreateBulk(chunk...).Exec(ctx); err != nil {
			return fmt.Errorf("writing the call rollup: %w", err)
		}
	}
	return nil
}

func insertDialerCalls(ctx context.Context, tx *ent.Client, org uuid.UUID, calls map[string]*callTally) error {
	builders := make([]*ent.DialerCallCreate, 0, len(calls))
	for id, t := range calls {
		builders = append(builders, tx.DialerCall.Create().SetOrgID(org).SetExternalCallID(id).
			SetFirstDay(t.first).SetLastDay(t.last).SetMultiDay(t.first != t.last))
	}
	for chunk := range slices.Chunk(builders, rebuildBatch) {
		if err := tx.DialerCall.CreateBulk(chunk...).Exec(ctx); err != nil {
			return fmt.Errorf("writing the calls: %w", err)
		}
	}
	return nil
}

// dialectOf is the SQL dialect tx speaks, as its query builder sees it.
func dialectOf(ctx context.Context, tx *ent.Client) (string, error) {
	var name string
	_, err := tx.Organization.Query().Limit(1).Modify(func(s *sql.Selector) { name = s.Dialect() }).IDs(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the dialect: %w", err)
	}
	return name, nil
}
