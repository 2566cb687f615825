package rollup

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/dispositions"
	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/callday"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/ent/dialercall"
	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/rule"
)

// CallRecorded adds ev, a call event just recorded, to the dialer
// rollups (dialer.RecordCall).
func CallRecorded(ctx context.Context, c *gen.Client, ev *gen.CallEvent) error {
	return rollupCall(ctx, c, ev)
}

// callRow is a CallDay row and what a change adds to it: counts, and a
// disposition record of code when code is not empty.
type callRow struct {
	span                  callday.Span
	day                   int
	user                  uuid.UUID
	calls, answered, talk int
	code                  string
}

// rollupCall counts ev. Distinct calls are counted on the day of a call
// whose events all fall on one day; when an event of another day comes,
// the call is taken out of that day's counts and marked multi-day, and
// the report counts it from its events.
func rollupCall(ctx context.Context, c *gen.Client, ev *gen.CallEvent) error {
	loc, err := rollupLocation(ctx, c, ev.OrgID)
	if err != nil || loc == nil {
		return err // nil: not built, the rebuild counts ev
	}
	day := period.LocalDay(ev.OccurredAt, loc)
	if err := takeCall(ctx, c, ev, day); err != nil {
		return err
	}
	others, err := c.CallEvent.Query().
		Where(callevent.OrgID(ev.OrgID), callevent.ExternalCallID(ev.ExternalCallID), callevent.IDNEQ(ev.ID)).
		Select(callevent.FieldUserID, callevent.FieldEventType, callevent.FieldOccurredAt).All(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("reading the call's events: %w", err)
	}
	rows, err := callRows(ctx, c, ev, day, loc, others)
	if err != nil {
		return err
	}
	return addCallDays(ctx, c, ev.OrgID, rows, rollupSlot(ctx))
}

// takeCall takes the call's DialerCall row, creating it for the call's
// first event: on PostgreSQL the conflict's update holds the row, so the
// call's events are counted one after the other.
func takeCall(ctx context.Context, c *gen.Client, ev *gen.CallEvent, day int) error {
	err := c.DialerCall.Create().SetOrgID(ev.OrgID).SetExternalCallID(ev.ExternalCallID).SetFirstDay(day).SetLastDay(day).
		OnConflict(sql.ConflictColumns(dialercall.FieldOrgID, dialercall.FieldExternalCallID),
			sql.ResolveWith(func(u *sql.UpdateSet) { u.SetIgnore(dialercall.FieldLastDay) })).
		Exec(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("taking the call's row: %w", err)
	}
	return nil
}

// callRows are the CallDay rows ev changes, given the call's other events.
func callRows(ctx context.Context, c *gen.Client, ev *gen.CallEvent, day int, loc *time.Location, others []*gen.CallEvent) ([]callRow, error) {
	first, last := day, day
	for _, o := range others {
		d := period.LocalDay(o.OccurredAt, loc)
		first, last = min(first, d), max(last, d)
	}
	var rows []callRow
	agent := callRow{user: ev.UserID, day: day}
	if ev.EventType == callevent.EventTypeCallEnded && ev.DurationSeconds != nil {
		agent.talk = *ev.DurationSeconds
	}
	if ev.EventType == callevent.EventTypeDisposition && ev.Disposition != nil {
		agent.code = *ev.Disposition
	}
	switch {
	case len(others) == 0: // a new call
		rows = append(rows, callRow{span: callday.SpanDay, day: day, calls: 1})
		agent.calls = 1
		agent.answered = boolInt(ev.EventType == callevent.EventTypeCallAnswered)
	case first == last: // more of a one-day call
		had, answered := agentOn(others, ev.UserID)
		agent.calls = boolInt(!had)
		agent.answered = boolInt(ev.EventType == callevent.EventTypeCallAnswered && !answered)
	default:
		before, _ := spanOf(others, loc)
		if before[0] == before[1] {
			rows = append(rows, uncount(before[0], others)...) // the call now spans days
		}
		if before == [2]int{first, last} {
			break
		}
		if err := c.DialerCall.Update().
			Where(dialercall.OrgID(ev.OrgID), dialercall.ExternalCallID(ev.ExternalCallID)).
			SetFirstDay(first).SetLastDay(last).SetMultiDay(true).Exec(rule.SystemContext(ctx)); err != nil {
			return nil, fmt.Errorf("marking the call multi-day: %w", err)
		}
	}
	rows = append(rows, spans(agent)...)
	slices.SortFunc(rows, func(a, b callRow) int {
		return cmp.Or(cmp.Compare(a.span, b.span), cmp.Compare(a.day, b.day), slices.Compare(a.user[:], b.user[:]))
	})
	// One statement adds them all, and it may change a row once only:
	// a call leaving a day of the month (or year) the new event is in
	// changes the agent's row of that month twice.
	var out []callRow
	for _, r := range rows {
		if k := len(out) - 1; k >= 0 && out[k].span == r.span && out[k].day == r.day && out[k].user == r.user {
			out[k].calls += r.calls
			out[k].answered += r.answered
			out[k].talk += r.talk
			out[k].code = cmp.Or(out[k].code, r.code)
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// spanOf is the first and last day of events.
func spanOf(events []*gen.CallEvent, loc *time.Location) ([2]int, bool) {
	if len(events) == 0 {
		return [2]int{}, false
	}
	d := period.LocalDay(events[0].OccurredAt, loc)
	out := [2]int{d, d}
	for _, e := range events[1:] {
		d := period.LocalDay(e.OccurredAt, loc)
		out[0], out[1] = min(out[0], d), max(out[1], d)
	}
	return out, true
}

// uncount takes a one-day call of day, with events, out of its counts.
func uncount(day int, events []*gen.CallEvent) []callRow {
	rows := []callRow{{span: callday.SpanDay, day: day, calls: -1}}
	seen := map[uuid.UUID]bool{}
	for _, e := range events {
		if seen[e.UserID] {
			continue
		}
		seen[e.UserID] = true
		_, answered := agentOn(events, e.UserID)
		rows = append(rows, spans(callRow{day: day, user: e.UserID, calls: -1, answered: -boolInt(answered)})...)
	}
	return rows
}

// agentOn reports whether the agent has an event among events, and an
// answered one.
func agentOn(events []*gen.CallEvent, agent uuid.UUID) (had, answered bool) {
	for _, e := range events {
		if e.UserID == agent {
			had = true
			answered = answered || e.EventType == callevent.EventTypeCallAnswered
		}
	}
	return had, answered
}

// agentSpans are the spans an agent's rows are kept by.
var agentSpans = []callday.Span{callday.SpanDay, callday.SpanMonth, callday.SpanYear}

// spans are an agent's change r (of r.day) on its day's row, its month's
// and its year's; none when it changes nothing.
func spans(r callRow) []callRow {
	if r.calls == 0 && r.answered == 0 && r.talk == 0 && r.code == "" {
		return nil
	}
	out := make([]callRow, len(agentSpans))
	for i, span := range agentSpans {
		out[i] = r
		out[i].span, out[i].day = span, spanDay(span, r.day)
	}
	return out
}

// spanGrains are the calendar periods of the call rollup's spans.
var spanGrains = map[callday.Span]period.Grain{
	callday.SpanDay: period.DayGrain, callday.SpanMonth: period.MonthGrain, callday.SpanYear: period.YearGrain}

// spanDay is the day keying span's row of day: the day itself, or its
// month's or year's first day.
func spanDay(span callday.Span, day int) int { return spanGrains[span].Start(day) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// addCallDays adds rows, in their order, in one multi-row upsert: each
// row adds its own counts (excluded's, the values it would have inserted)
// and, for an event's disposition (the one code a statement may add), its
// record to the row's packed dispositions.
func addCallDays(ctx context.Context, c *gen.Client, org uuid.UUID, rows []callRow, slot int) error {
	if len(rows) == 0 {
		return nil
	}
	code := ""
	creates := make([]*gen.CallDayCreate, len(rows))
	for i, r := range rows {
		packed := dispositions.Empty
		if r.code != "" {
			code, packed = r.code, dispositions.Pack(map[string]int{r.code: 1})
		}
		creates[i] = c.CallDay.Create().SetOrgID(org).SetSpan(r.span).SetDay(r.day).SetUserID(r.user).SetSlot(slot).
			SetCalls(r.calls).SetAnswered(r.answered).SetTalkSeconds(r.talk).SetDispositions(packed)
	}
	err := c.CallDay.CreateBulk(creates...).OnConflict(
		sql.ConflictColumns(callday.FieldOrgID, callday.FieldSpan, callday.FieldDay, callday.FieldUserID, callday.FieldSlot),
		sql.ResolveWith(func(u *sql.UpdateSet) {
			excluded := sql.Dialect(u.Dialect()).Table("excluded")
			for _, col := range []string{callday.FieldCalls, callday.FieldAnswered, callday.FieldTalkSeconds} {
				u.Add(col, sql.Expr(excluded.C(col)))
			}
			if code != "" {
				u.Set(callday.FieldDispositions, addDisposition(u.Dialect(), code))
			}
		})).Exec(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("adding to the call rollup: %w", err)
	}
	return nil
}

// addDisposition is the upsert's new packed dispositions of a row: the
// row's own plus one record of code when the row inserted (excluded)
// carries it, the row's own unchanged when it carries none.
func addDisposition(d, code string) sql.Querier {
	key := dispositions.Key(code)
	return sql.ExprFunc(func(b *sql.Builder) {
		current := callday.Table + "." + callday.FieldDispositions
		b.WriteString("CASE WHEN excluded." + callday.FieldDispositions + " = ").Arg(dispositions.Empty).
			WriteString(" THEN " + current + " ELSE ")
		if d == dialect.Postgres {
			// jsonb_build_object takes any types: the key's is told.
			b.WriteString("(" + current + "::jsonb || jsonb_build_object(CAST(").Arg(key).
				WriteString(" AS text), COALESCE((" + current + "::jsonb ->> CAST(").Arg(key).WriteString(" AS text))::bigint, 0) + 1))::text")
		} else {
			path := `$."` + key + `"`
			b.WriteString("json_set(" + current + ", ").Arg(path).
				WriteString(", COALESCE(json_extract(" + current + ", ").Arg(path).WriteString("), 0) + 1)")
		}
		b.WriteString(" END")
	})
}
