package analytics

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/dispositions"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/callday"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/ent/dialercall"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/period"
)

var callSpanOf = map[period.Grain]callday.Span{
	period.DayGrain: callday.SpanDay, period.MonthGrain: callday.SpanMonth, period.YearGrain: callday.SpanYear}

// dialerRolledUp is the dialer report from the rollups for w's whole days
// and the records for its edges and for the calls with events on more
// than one day (which the rollups leave out of the distinct counts).
func dialerRolledUp(ctx context.Context, c *ent.Client, q *Request, w wholeDays) (*DialerReport, error) {
	agents := map[uuid.UUID]*agentTally{}
	at := func(id uuid.UUID) *agentTally {
		t := agents[id]
		if t == nil {
			t = &agentTally{calls: map[string]bool{}, answered: map[string]bool{}, dispositions: map[string]int{}}
			agents[id] = t
		}
		return t
	}
	counts := map[uuid.UUID][2]int{} // the one-day calls and answers of each agent
	if err := agentCallSums(ctx, c, q, w, at, counts); err != nil {
		return nil, err
	}
	buckets := q.Range.Buckets(string(q.Interval))
	series := make([]CallBucket, len(buckets))
	for i, b := range buckets {
		series[i].PeriodStart = b.Date()
	}
	if err := orgCallSeries(ctx, c, q, w, buckets, series); err != nil {
		return nil, err
	}
	multi, err := multiDayCalls(ctx, c, q)
	if err != nil {
		return nil, err
	}
	first := map[string]time.Time{}
	if err := dialerRecords(ctx, c, q, w, multi, at, first); err != nil {
		return nil, err
	}
	for _, t := range first {
		if i := period.Index(buckets, t); i >= 0 {
			series[i].Calls++
		}
	}
	r := &DialerReport{Series: series}
	if r.Agents, err = agentStats(ctx, c, q, agents); err != nil {
		return nil, err
	}
	for i := range r.Agents {
		s := &r.Agents[i]
		n := counts[s.UserID]
		s.Calls += n[0]
		s.Answered += n[1]
		s.AverageTalkSeconds = 0
		if s.Answered > 0 {
			s.AverageTalkSeconds = s.TalkSeconds / s.Answered
		}
	}
	return r, nil
}

// agentCallSums adds each agent's one-day calls and answers (counts),
// talk time and dispositions over the whole days, run by run: each run is
// one index range of a few rows per agent (one per slot written), which
// carry the agent's dispositions of every code, summed here. The rows
// come packed (packedRows), being hundreds.
func agentCallSums(ctx context.Context, c *ent.Client, q *Request, w wholeDays, at func(uuid.UUID) *agentTally, counts map[uuid.UUID][2]int) error {
	type sums struct {
		calls, answered, talk int
		dispositions          map[string]int
	}
	agents := map[uuid.UUID]*sums{}
	t := sql.Table(callday.Table)
	var codes dispositions.Reader
	// A year's and a month's rows are keyed by their first day.
	for _, run := range w.spans(period.YearGrain) {
		query, args := sql.Dialect(q.Dialect).Select().
			SelectExpr(packedRows(t.C(callday.FieldUserID), t.C(callday.FieldCalls), t.C(callday.FieldAnswered),
				t.C(callday.FieldTalkSeconds), t.C(callday.FieldDispositions))...).
			From(t).Where(sql.And(sql.EQ(t.C(callday.FieldOrgID), q.OrgID), sql.EQ(t.C(callday.FieldSpan), string(callSpanOf[run.grain])),
			sql.GTE(t.C(callday.FieldDay), run.firstDay(run.lo)), sql.LT(t.C(callday.FieldDay), run.firstDay(run.hi)),
			sql.NEQ(t.C(callday.FieldUserID), uuid.Nil))).
			Query()
		err := eachPacked(sys(ctx), c, query, args, 5, func(v []string) error {
			user, err := uuid.Parse(v[0])
			if err != nil {
				return err
			}
			var counted [3]int // calls, answered, talk seconds
			for i := range counted {
				if counted[i], err = strconv.Atoi(v[1+i]); err != nil {
					return err
				}
			}
			a := agents[user]
			if a == nil {
				a = &sums{dispositions: map[string]int{}}
				agents[user] = a
			}
			a.calls += run.sign * counted[0]
			a.answered += run.sign * counted[1]
			a.talk += run.sign * counted[2]
			if v[4] == dispositions.Empty {
				return nil
			}
			return codes.Each(v[4], func(code string, n int) { a.dispositions[code] += run.sign * n })
		})
		if err != nil {
			return fmt.Errorf("summing the call rollup: %w", err)
		}
	}
	for id, a := range agents {
		for code, n := range a.dispositions {
			if n != 0 {
				at(id).dispositions[code] += n
			}
		}
		if a.calls == 0 && a.answered == 0 && a.talk == 0 {
			continue
		}
		at(id).talk += a.talk
		counts[id] = [2]int{a.calls, a.answered}
	}
	return nil
}

// orgCallSeries adds the one-day calls of the whole days to the series:
// a row per day and slot, added up here, packed (packedRows).
func orgCallSeries(ctx context.Context, c *ent.Client, q *Request, w wholeDays, buckets []period.Bucket, series []CallBucket) error {
	t := sql.Table(callday.Table)
	query, args := sql.Dialect(q.Dialect).Select().
		SelectExpr(packedRows(t.C(callday.FieldDay), t.C(callday.FieldCalls))...).From(t).
		Where(sql.And(sql.EQ(t.C(callday.FieldOrgID), q.OrgID), sql.EQ(t.C(callday.FieldUserID), uuid.Nil),
			sql.EQ(t.C(callday.FieldSpan), string(callday.SpanDay)),
			sql.GTE(t.C(callday.FieldDay), w.first), sql.LT(t.C(callday.FieldDay), w.last))).
		Query()
	lastDay, i := "", -1
	err := eachPacked(sys(ctx), c, query, args, 2, func(v []string) error {
		// The index gives a day's slots together: one lookup each (given
		// apart, as the aggregate does not promise, only more lookups).
		if v[0] != lastDay {
			day, err := strconv.Atoi(v[0])
			if err != nil {
				return err
			}
			lastDay, i = v[0], q.bucketOf(buckets, day)
		}
		calls, err := strconv.Atoi(v[1])
		if err != nil {
			return err
		}
		if i >= 0 {
			series[i].Calls += calls
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("summing the calls by day: %w", err)
	}
	return nil
}

// multiDayCalls are the calls with events on more than one day that has
// a part in q's range.
func multiDayCalls(ctx context.Context, c *ent.Client, q *Request) (map[string]bool, error) {
	loc := q.Range.Loc
	first, last := period.LocalDay(q.Range.Start, loc), period.LocalDay(q.Range.End.Add(-time.Millisecond), loc)
	ids, err := c.DialerCall.Query().
		Where(dialercall.OrgID(q.OrgID), multiDay, dialercall.LastDayGTE(first), dialercall.FirstDayLTE(last)).
		Select(dialercall.FieldExternalCallID).Strings(sys(ctx))
	if err != nil {
		return nil, fmt.Errorf("reading the multi-day calls: %w", err)
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// multiDay is multi_day = true. ent writes a boolean's equality as the bare
// column, which SQLite does not match to the index's multi_day: it would
// skip-scan every call of the range's days for the few multi-day ones.
var multiDay = predicate.DialerCall(func(s *sql.Selector) {
	s.Where(sql.P(func(b *sql.Builder) { b.Ident(s.C(dialercall.FieldMultiDay)).WriteOp(sql.OpEQ).Arg(true) }))
})

// dialerRecords tallies what the rollups leave to the records: the edges'
// events (all of them for talk time and dispositions, the one-day calls'
// for the distinct counts) and the multi-day calls' events in the range
// (for the distinct counts alone, their talk time and dispositions being
// in the rollups for the whole days).
func dialerRecords(ctx context.Context, c *ent.Client, q *Request, w wholeDays, multi map[string]bool,
	at func(uuid.UUID) *agentTally, first map[string]time.Time) error {
	seen := func(e *ent.CallEvent) {
		if t, ok := first[e.ExternalCallID]; !ok || e.OccurredAt.Before(t) {
			first[e.ExternalCallID] = e.OccurredAt
		}
	}
	distinct := func(e *ent.CallEvent) {
		t := at(e.UserID)
		t.calls[e.ExternalCallID] = true
		if e.EventType == callevent.EventTypeCallAnswered {
			t.answered[e.ExternalCallID] = true
		}
		seen(e)
	}
	for _, edge := range w.edges {
		events, err := callEvents(ctx, c, edge, nil)
		if err != nil {
			return err
		}
		for _, e := range events {
			if !multi[e.ExternalCallID] {
				at(e.UserID).add(e)
				seen(e)
				continue
			}
			addSums(at(e.UserID), e) // its distinct counts come with the multi-day calls'
		}
	}
	if len(multi) == 0 {
		return nil
	}
	ids := make([]string, 0, len(multi))
	for id := range multi {
		ids = append(ids, id)
	}
	events, err := callEvents(ctx, c, q, ids)
	if err != nil {
		return err
	}
	for _, e := range events {
		distinct(e)
	}
	return nil
}

// callEvents reads the events of q's range, of the calls ids when given.
func callEvents(ctx context.Context, c *ent.Client, q *Request, ids []string) ([]*ent.CallEvent, error) {
	ps := []predicate.CallEvent{callevent.OrgID(q.OrgID),
		callevent.OccurredAtGTE(q.Range.Start), callevent.OccurredAtLT(q.Range.End)}
	if ids != nil {
		ps = append(ps, callevent.ExternalCallIDIn(ids...))
	}
	events, err := c.CallEvent.Query().Where(ps...).
		Select(callevent.FieldUserID, callevent.FieldExternalCallID, callevent.FieldEventType,
			callevent.FieldDurationSeconds, callevent.FieldDisposition, callevent.FieldOccurredAt).
		All(sys(ctx))
	if err != nil {
		return nil, fmt.Errorf("reading the call events: %w", err)
	}
	return events, nil
}

// addSums adds e's talk time and disposition, not its call.
func addSums(t *agentTally, e *ent.CallEvent) {
	switch {
	case e.EventType == callevent.EventTypeCallEnded && e.DurationSeconds != nil:
		t.talk += *e.DurationSeconds
	case e.EventType == callevent.EventTypeDisposition && e.Disposition != nil:
		t.dispositions[*e.Disposition]++
	}
}
