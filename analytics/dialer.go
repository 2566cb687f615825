package analytics

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/callevent"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/period"
)

// DialerReport is each agent's calls in the range, and the calls series.
type DialerReport struct {
	Agents []AgentCallStats `json:"agents"`
	Series []CallBucket     `json:"series"`
}

// AgentCallStats is one agent's calls.
type AgentCallStats struct {
	UserID             uuid.UUID `json:"userId" description:"The agent's user id."`
	Name               string    `json:"name" description:"The agent's first and last name."`
	Calls              int       `json:"calls" openapi:"count" description:"Distinct calls (externalCallId) of the agent with any event in the range."`
	Answered           int       `json:"answered" openapi:"count" description:"Of them, those with a call_answered event in the range."`
	TalkSeconds        int       `json:"talkSeconds" openapi:"count" description:"The sum of durationSeconds of the agent's call_ended events in the range."`
	AverageTalkSeconds int       `json:"averageTalkSeconds" openapi:"count" description:"talkSeconds / answered, rounded down; 0 without answered calls."`
	// REST writes the dispositions as an object of code to count instead.
	Dispositions []DispositionCount `json:"dispositions" openapi:"-"`
}

// DispositionCount is the dispositions of one code.
type DispositionCount struct {
	Code  string `json:"code"`
	Count int    `json:"count"`
}

// CallBucket is one period of the calls series.
type CallBucket struct {
	PeriodStart string `json:"periodStart" openapi:"date" description:"The bucket's first day in the report's time zone."`
	Calls       int    `json:"calls" openapi:"count" description:"Distinct calls whose first event in the range falls in the bucket."`
}

// Dialer computes the dialer report from the call events in the range:
// calls are distinct externalCallIds (an agent's own, for its row), a
// call is answered when it has a call_answered event in the range, talk
// time sums the durations of the call_ended events in the range, and each
// disposition record counts once under its code.
func Dialer(ctx context.Context, c *ent.Client, q *Request) (*DialerReport, error) {
	if days, ok := q.rolledUp(); ok {
		return dialerRolledUp(ctx, c, q, days)
	}
	ps := []predicate.CallEvent{callevent.OrgID(q.OrgID),
		callevent.OccurredAtGTE(q.Range.Start), callevent.OccurredAtLT(q.Range.End)}
	if q.People != nil {
		ps = append(ps, callevent.UserIDIn(q.People...))
	}
	events, err := c.CallEvent.Query().Where(ps...).
		Select(callevent.FieldUserID, callevent.FieldExternalCallID, callevent.FieldEventType,
			callevent.FieldDurationSeconds, callevent.FieldDisposition, callevent.FieldOccurredAt).
		All(sys(ctx))
	if err != nil {
		return nil, fmt.Errorf("reading the call events: %w", err)
	}
	agents := map[uuid.UUID]*agentTally{}
	first := map[string]time.Time{} // each call's first event in the range
	for _, e := range events {
		t := agents[e.UserID]
		if t == nil {
			t = &agentTally{calls: map[string]bool{}, answered: map[string]bool{}, dispositions: map[string]int{}}
			agents[e.UserID] = t
		}
		t.add(e)
		if at, seen := first[e.ExternalCallID]; !seen || e.OccurredAt.Before(at) {
			first[e.ExternalCallID] = e.OccurredAt
		}
	}
	r := &DialerReport{Series: callSeries(q, first)}
	if r.Agents, err = agentStats(ctx, c, q, agents); err != nil {
		return nil, err
	}
	return r, nil
}

type agentTally struct {
	calls, answered map[string]bool
	talk            int
	dispositions    map[string]int
}

func (t *agentTally) add(e *ent.CallEvent) {
	t.calls[e.ExternalCallID] = true
	switch e.EventType {
	case callevent.EventTypeCallAnswered:
		t.answered[e.ExternalCallID] = true
	case callevent.EventTypeCallEnded:
		if e.DurationSeconds != nil {
			t.talk += *e.DurationSeconds
		}
	case callevent.EventTypeDisposition:
		if e.Disposition != nil {
			t.dispositions[*e.Disposition]++
		}
	}
}

func agentStats(ctx context.Context, c *ent.Client, q *Request, agents map[uuid.UUID]*agentTally) ([]AgentCallStats, error) {
	ids := make([]uuid.UUID, 0, len(agents))
	for id := range agents {
		ids = append(ids, id)
	}
	names, err := q.userNames(ctx, c, ids)
	if err != nil {
		return nil, err
	}
	out := make([]AgentCallStats, 0, len(ids))
	for _, id := range ids {
		t := agents[id]
		s := AgentCallStats{UserID: id, Name: names[id], Calls: len(t.calls), Answered: len(t.answered),
			TalkSeconds: t.talk, Dispositions: []DispositionCount{}}
		if s.Answered > 0 {
			s.AverageTalkSeconds = s.TalkSeconds / s.Answered
		}
		for code, n := range t.dispositions {
			s.Dispositions = append(s.Dispositions, DispositionCount{Code: code, Count: n})
		}
		slices.SortFunc(s.Dispositions, func(a, b DispositionCount) int {
			return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Code, b.Code))
		})
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b AgentCallStats) int {
		// A UUID's bytes sort as its text does.
		return cmp.Or(cmp.Compare(a.Name, b.Name), bytes.Compare(a.UserID[:], b.UserID[:]))
	})
	return out, nil
}

func callSeries(q *Request, first map[string]time.Time) []CallBucket {
	buckets := q.Range.Buckets(string(q.Interval))
	out := make([]CallBucket, len(buckets))
	for i, b := range buckets {
		out[i].PeriodStart = b.Date()
	}
	for _, at := range first {
		if i := period.Index(buckets, at); i >= 0 {
			out[i].Calls++
		}
	}
	return out
}
