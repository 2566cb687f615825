package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/callday"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/ent/dialercall"
	"github.com/lendingpipe/svc/ent/dispositionday"
	"github.com/lendingpipe/svc/ent/period"
	"github.com/lendingpipe/svc/ent/predicate"
)

// callSpans are the CallDay rows of w's whole days: the calendar months
// wholly inside, and the other days one by one.
func callSpans(w wholeDays) (months []int, days [][2]int) {
	for d := w.first; d < w.last; {
		y, m, dd := period.DayDate(d)
		next := period.DayNumber(y, m+1, 1)
		if dd == 1 && next <= w.last {
			months = append(months, d)
			d = next
			continue
		}
		end := min(next, w.last)
		days = append(days, [2]int{d, end})
		d = end
	}
	return months, days
}

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
	if r.Agents, err = agentStats(ctx, c, agents); err != nil {
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

// spanWhere selects the rows of the spans: months by their first day,
// days by ranges.
func spanWhere(months []int, days [][2]int) []predicate.CallDay {
	var or []predicate.CallDay
	if len(months) > 0 {
		or = append(or, callday.And(callday.SpanEQ(callday.SpanMonth), callday.DayIn(months...)))
	}
	for _, d := range days {
		or = append(or, callday.And(callday.SpanEQ(callday.SpanDay), callday.DayGTE(d[0]), callday.DayLT(d[1])))
	}
	return or
}

func agentCallSums(ctx context.Context, c *ent.Client, q *Request, w wholeDays, at func(uuid.UUID) *agentTally, counts map[uuid.UUID][2]int) error {
	months, days := callSpans(w)
	var rows []struct {
		UserID   uuid.UUID `json:"user_id"`
		Calls    int       `json:"calls"`
		Answered int       `json:"answered"`
		Talk     int       `json:"talk"`
	}
	err := c.CallDay.Query().
		Where(callday.OrgID(q.OrgID), callday.UserIDNEQ(uuid.Nil), callday.Or(spanWhere(months, days)...)).
		GroupBy(callday.FieldUserID).
		Aggregate(sumOf(callday.FieldCalls, "calls"), sumOf(callday.FieldAnswered, "answered"),
			sumOf(callday.FieldTalkSeconds, "talk")).Scan(sys(ctx), &rows)
	if err != nil {
		return fmt.Errorf("summing the call rollup: %w", err)
	}
	for _, r := range rows {
		if r.Calls == 0 && r.Answered == 0 && r.Talk == 0 {
			continue
		}
		at(r.UserID).talk += r.Talk
		counts[r.UserID] = [2]int{r.Calls, r.Answered}
	}
	var or []predicate.DispositionDay
	if len(months) > 0 {
		or = append(or, dispositionday.And(dispositionday.SpanEQ(dispositionday.SpanMonth), dispositionday.DayIn(months...)))
	}
	for _, d := range days {
		or = append(or, dispositionday.And(dispositionday.SpanEQ(dispositionday.SpanDay),
			dispositionday.DayGTE(d[0]), dispositionday.DayLT(d[1])))
	}
	var codes []struct {
		UserID uuid.UUID `json:"user_id"`
		Code   string    `json:"code"`
		N      int       `json:"n"`
	}
	err = c.DispositionDay.Query().Where(dispositionday.OrgID(q.OrgID), dispositionday.Or(or...)).
		GroupBy(dispositionday.FieldUserID, dispositionday.FieldCode).Aggregate(sumOf(dispositionday.FieldN, "n")).
		Scan(sys(ctx), &codes)
	if err != nil {
		return fmt.Errorf("summing the disposition rollup: %w", err)
	}
	for _, r := range codes {
		if r.N != 0 {
			at(r.UserID).dispositions[r.Code] += r.N
		}
	}
	return nil
}

// orgCallSeries adds the one-day calls of the whole days to the series.
func orgCallSeries(ctx context.Context, c *ent.Client, q *Request, w wholeDays, buckets []period.Bucket, series []CallBucket) error {
	var days []struct {
		Day   int `json:"day"`
		Calls int `json:"calls"`
	}
	err := c.CallDay.Query().
		Where(callday.OrgID(q.OrgID), callday.UserID(uuid.Nil), callday.SpanEQ(callday.SpanDay),
			callday.DayGTE(w.first), callday.DayLT(w.last)).
		GroupBy(callday.FieldDay).Aggregate(sumOf(callday.FieldCalls, "calls")).Scan(sys(ctx), &days)
	if err != nil {
		return fmt.Errorf("summing the calls by day: %w", err)
	}
	for _, d := range days {
		if i := q.bucketOf(buckets, d.Day); i >= 0 {
			series[i].Calls += d.Calls
		}
	}
	return nil
}

// multiDayCalls are the calls with events on more than one day that has
// a part in q's range.
func multiDayCalls(ctx context.Context, c *ent.Client, q *Request) (map[string]bool, error) {
	loc := q.Range.Loc
	first, last := period.LocalDay(q.Range.Start, loc), period.LocalDay(q.Range.End.Add(-time.Millisecond), loc)
	ids, err := c.DialerCall.Query().
		Where(dialercall.OrgID(q.OrgID), dialercall.MultiDay(true), dialercall.LastDayGTE(first), dialercall.FirstDayLTE(last)).
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
