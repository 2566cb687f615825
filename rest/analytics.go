package rest

import (
	"context"
	"net/http"

	"github.com/lendingpipe/svc/analytics"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/period"
)

// analyticsHandlers translates GET /v1/analytics/{report} (PRODUCT 2) onto
// the GraphQL operations: graph's ReportRequest checks analytics:read and
// resolves the shared parameters exactly as the analytics field does, and
// the Analytics resolver computes the report. The answer is the
// single-resource envelope: id the report's name, type analytics, and the
// report's figures with the range they cover.
type analyticsHandlers struct {
	resolver *graph.Resolver
}

// report is one of the reports: its name, routed at /v1/analytics/<name>
// (any other name is 404), and how its attributes are computed through
// the Analytics resolver.
type report struct {
	name    string
	compute func(ctx context.Context, a graph.AnalyticsResolver, q *analytics.Request) (any, error)
}

// reports are the five, in the order the docs present them.
var reports = []report{
	{"pipeline", func(ctx context.Context, a graph.AnalyticsResolver, q *analytics.Request) (any, error) {
		r, err := a.Pipeline(ctx, q)
		return pipelineAttributes{r, rangeOf(q)}, err
	}},
	{"funding", func(ctx context.Context, a graph.AnalyticsResolver, q *analytics.Request) (any, error) {
		r, err := a.Funding(ctx, q)
		return fundingAttributes{r, rangeOf(q)}, err
	}},
	{"lenders", func(ctx context.Context, a graph.AnalyticsResolver, q *analytics.Request) (any, error) {
		r, err := a.Lenders(ctx, q)
		return lendersAttributes{r, rangeOf(q)}, err
	}},
	{"commissions", func(ctx context.Context, a graph.AnalyticsResolver, q *analytics.Request) (any, error) {
		r, err := a.Commissions(ctx, q)
		return commissionsAttributes{r, rangeOf(q)}, err
	}},
	{"dialer", func(ctx context.Context, a graph.AnalyticsResolver, q *analytics.Request) (any, error) {
		r, err := a.Dialer(ctx, q)
		if err != nil {
			return nil, err
		}
		return dialerAttributes(r, rangeOf(q)), nil
	}},
}

// reportNamed is the report routed at /v1/analytics/<name>.
func reportNamed(name string) report {
	for _, rep := range reports {
		if rep.name == name {
			return rep
		}
	}
	panic("no report " + name)
}

// serve answers GET /v1/analytics/<rep.name>.
func (h analyticsHandlers) serve(rep report) errorHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := reportParams(r)
		if err != nil {
			return err
		}
		q, err := h.resolver.ReportRequest(r.Context(), p)
		if err != nil {
			return err
		}
		attrs, err := rep.compute(r.Context(), h.resolver.Analytics(), q)
		if err != nil {
			return err
		}
		writeResource(w, r, http.StatusOK, Resource{ID: rep.name, Type: "analytics", Attributes: attrs})
		return nil
	}
}

// reportParams reads the shared query parameters. The range and the time
// zone are the resolver's to check (422 naming from, to or timezone); the
// interval and the people filter are typed here, 422 naming them. An empty
// value is the same as an absent one.
func reportParams(r *http.Request) (graph.ReportParams, error) {
	p := graph.ReportParams{From: queryParam(r, "from"), To: queryParam(r, "to"), Timezone: queryParam(r, "timezone")}
	if s := queryParam(r, "interval"); s != nil {
		v, err := period.CheckInterval(*s, period.Day)
		if err != nil {
			return p, err
		}
		interval := analytics.Interval(v)
		p.Interval = &interval
	}
	var err error
	if p.AdvisorID, err = uuidParam(r, "advisorId"); err != nil {
		return p, err
	}
	p.TeamID, err = uuidParam(r, "teamId")
	return p, err
}

// reportRange is the range a report covers, beside its figures: from and
// to as instants (to just after the range), the zone its days are cut in,
// and the series' interval.
type reportRange struct {
	From     apitime.Time `json:"from" description:"The range's first instant."`
	To       apitime.Time `json:"to" description:"The instant just after the range."`
	Timezone string       `json:"timezone" description:"The IANA time zone the range's days and the series' buckets are cut in."`
	Interval string       `json:"interval" enum:"AnalyticsInterval"`
}

func rangeOf(q *analytics.Request) reportRange {
	return reportRange{From: apitime.Of(q.From()), To: apitime.Of(q.To()), Timezone: q.Timezone(), Interval: string(q.Interval)}
}

// The reports' attributes: the report's own members (their json names are
// the REST attribute names) and the range's.
type (
	pipelineAttributes struct {
		*analytics.PipelineReport
		reportRange
	}
	fundingAttributes struct {
		*analytics.FundingReport
		reportRange
	}
	lendersAttributes struct {
		*analytics.LendersReport
		reportRange
	}
	commissionsAttributes struct {
		*analytics.CommissionsReport
		reportRange
	}
	dialerReport struct {
		Agents []agentCalls           `json:"agents" description:"Every agent with a call event in the range, by name, then id."`
		Series []analytics.CallBucket `json:"series" description:"Calls by the bucket of their first event in the range: every bucket, empty ones with zeros."`
		reportRange
	}
	// agentCalls is an agent's row with its dispositions as PRODUCT 2
	// writes them, an object of code to count ({"interested": 2}); GraphQL,
	// without maps, lists them as {code, count}.
	agentCalls struct {
		analytics.AgentCallStats
		Dispositions map[string]int `json:"dispositions" openapi:"count" example:"{\"interested\": 3, \"callback\": 1}" description:"The agent's disposition records in the range: disposition code → count."`
	}
)

func dialerAttributes(r *analytics.DialerReport, rng reportRange) dialerReport {
	out := dialerReport{Agents: make([]agentCalls, len(r.Agents)), Series: r.Series, reportRange: rng}
	for i, a := range r.Agents {
		out.Agents[i] = agentCalls{AgentCallStats: a, Dispositions: make(map[string]int, len(a.Dispositions))}
		for _, d := range a.Dispositions {
			out.Agents[i].Dispositions[d.Code] = d.Count
		}
	}
	return out
}
