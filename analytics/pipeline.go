package analytics

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/funnel"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/money"
)

// PipelineReport is the pipeline now and the funnel of the range's leads.
type PipelineReport struct {
	Stages   []PipelineStageCount `json:"stages" description:"Every stage of the pipeline, in order, with the leads in it now."`
	Funnel   Funnel               `json:"funnel"`
	BySource []SourceCount        `json:"bySource" description:"Every lead source, in the order of the LeadSource enumeration, with the funnel's leads of it."`
}

// PipelineStageCount is a stage and the leads in it now.
type PipelineStageCount struct {
	StageID      uuid.UUID                  `json:"stageId"`
	Label        string                     `json:"label" description:"The stage's label."`
	SemanticSlot pipelinestage.SemanticSlot `json:"semanticSlot" enum:"SemanticSlot"`
	Leads        int                        `json:"leads" openapi:"count" description:"The leads in the stage now."`
}

// Funnel counts the leads created in the range and the steps they reached.
type Funnel struct {
	Leads      int              `json:"leads" openapi:"count" description:"The leads created in the range."`
	Applied    int              `json:"applied" openapi:"count" description:"Of them, those with at least one application."`
	Approved   int              `json:"approved" openapi:"count" description:"Of them, those with at least one application a lender approved (now approved, funded, or withdrawn after approval)."`
	Funded     int              `json:"funded" openapi:"count" description:"Of them, those with a funded deal."`
	Conversion FunnelConversion `json:"conversion"`
}

// FunnelConversion holds the ratios between the funnel's steps.
type FunnelConversion struct {
	Applied  money.Ratio `json:"applied" description:"applied / leads."`
	Approved money.Ratio `json:"approved" description:"approved / applied."`
	Funded   money.Ratio `json:"funded" description:"funded / approved."`
	Overall  money.Ratio `json:"overall" description:"funded / leads."`
}

// SourceCount is the funnel's leads of one source.
type SourceCount struct {
	Source       lead.Source  `json:"source" enum:"LeadSource"`
	Leads        int          `json:"leads" openapi:"count" description:"The funnel's leads of the source."`
	Funded       int          `json:"funded" openapi:"count" description:"Of them, those with a funded deal."`
	FundedAmount money.Amount `json:"fundedAmount" description:"The sum of those leads' funded deals."`
}

// Pipeline computes the pipeline report.
func Pipeline(ctx context.Context, c *ent.Client, q *Request) (*PipelineReport, error) {
	stages, err := stageCounts(ctx, c, q)
	if err != nil {
		return nil, err
	}
	if days, ok := q.rolledUp(); ok {
		return pipelineRolledUp(ctx, c, q, stages, days)
	}
	funnel, err := funnelOf(ctx, c, q)
	if err != nil {
		return nil, err
	}
	bySource, err := sources(ctx, c, q)
	if err != nil {
		return nil, err
	}
	return &PipelineReport{Stages: stages, Funnel: funnel, BySource: bySource}, nil
}

// leadsOf are the organization's leads the people filter admits.
func leadsOf(q *Request) []predicate.Lead {
	ps := []predicate.Lead{lead.OrgID(q.OrgID)}
	if q.People != nil {
		ps = append(ps, lead.PrimaryAdvisorIDIn(q.People...))
	}
	return ps
}

// createdIn are the funnel's leads: created in the range.
func createdIn(q *Request) []predicate.Lead {
	return append(leadsOf(q), lead.CreatedAtGTE(q.Range.Start), lead.CreatedAtLT(q.Range.End))
}

func stageCounts(ctx context.Context, c *ent.Client, q *Request) ([]PipelineStageCount, error) {
	stages, err := c.PipelineStage.Query().Where(pipelinestage.OrgID(q.OrgID)).
		Order(pipelinestage.ByPosition(), pipelinestage.ByID()).All(sys(ctx))
	if err != nil {
		return nil, fmt.Errorf("reading the stages: %w", err)
	}
	var rows []struct {
		StageID uuid.UUID `json:"stage_id"`
		N       int       `json:"n"`
	}
	if q.People == nil && q.RollupZone != "" {
		// The counts kept as leads are created and move, by stage since
		// the rollups were built, whatever the report's zone.
		err = c.LeadCount.Query().Where(leadcount.OrgID(q.OrgID), leadcount.StageIDNotNil()).
			GroupBy(leadcount.FieldStageID).Aggregate(sumOf(leadcount.FieldN, "n")).Scan(sys(ctx), &rows)
	} else {
		err = c.Lead.Query().Where(leadsOf(q)...).GroupBy(lead.FieldStageID).Aggregate(countAs("n")).Scan(sys(ctx), &rows)
	}
	if err != nil {
		return nil, fmt.Errorf("counting leads by stage: %w", err)
	}
	n := map[uuid.UUID]int{}
	for _, r := range rows {
		n[r.StageID] = r.N
	}
	out := make([]PipelineStageCount, len(stages))
	for i, s := range stages {
		out[i] = PipelineStageCount{StageID: s.ID, Label: s.StageLabel, SemanticSlot: s.SemanticSlot, Leads: n[s.ID]}
	}
	return out, nil
}

func funnelOf(ctx context.Context, c *ent.Client, q *Request) (Funnel, error) {
	var f Funnel
	steps := []struct {
		n    *int
		more []predicate.Lead
	}{
		{&f.Leads, nil},
		{&f.Applied, []predicate.Lead{lead.HasApplications()}},
		{&f.Approved, []predicate.Lead{lead.HasApplicationsWith(funnel.WasApproved)}},
		{&f.Funded, []predicate.Lead{lead.HasFundedDeals()}},
	}
	for _, s := range steps {
		n, err := c.Lead.Query().Where(append(createdIn(q), s.more...)...).Count(sys(ctx))
		if err != nil {
			return Funnel{}, fmt.Errorf("counting the funnel: %w", err)
		}
		*s.n = n
	}
	f.convert()
	return f, nil
}

// convert computes the ratios between the funnel's steps.
func (f *Funnel) convert() {
	f.Conversion = FunnelConversion{
		Applied:  money.RatioOf(int64(f.Applied), int64(f.Leads)),
		Approved: money.RatioOf(int64(f.Approved), int64(f.Applied)),
		Funded:   money.RatioOf(int64(f.Funded), int64(f.Approved)),
		Overall:  money.RatioOf(int64(f.Funded), int64(f.Leads)),
	}
}

// sources lists every lead source, in the catalog's order, with the
// funnel's leads of it, those funded, and the sum of their deals.
func sources(ctx context.Context, c *ent.Client, q *Request) ([]SourceCount, error) {
	type count struct {
		Source lead.Source `json:"source"`
		N      int         `json:"n"`
	}
	var leads, funded []count
	if err := c.Lead.Query().Where(createdIn(q)...).GroupBy(lead.FieldSource).
		Aggregate(countAs("n")).Scan(sys(ctx), &leads); err != nil {
		return nil, fmt.Errorf("counting leads by source: %w", err)
	}
	if err := c.Lead.Query().Where(append(createdIn(q), lead.HasFundedDeals())...).GroupBy(lead.FieldSource).
		Aggregate(countAs("n")).Scan(sys(ctx), &funded); err != nil {
		return nil, fmt.Errorf("counting funded leads by source: %w", err)
	}
	amounts, err := fundedBySource(ctx, c, q)
	if err != nil {
		return nil, err
	}
	out := make([]SourceCount, len(enum.LeadSources))
	for i, s := range enum.LeadSources {
		out[i] = SourceCount{Source: lead.Source(s), FundedAmount: amounts[lead.Source(s)]}
	}
	for _, r := range leads {
		out[sourceIndex(r.Source)].Leads = r.N
	}
	for _, r := range funded {
		out[sourceIndex(r.Source)].Funded = r.N
	}
	return out, nil
}

func sourceIndex(s lead.Source) int {
	for i, v := range enum.LeadSources {
		if v == string(s) {
			return i
		}
	}
	return 0
}

// fundedBySource sums the deals of the funnel's leads by the leads' source.
func fundedBySource(ctx context.Context, c *ent.Client, q *Request) (map[lead.Source]money.Amount, error) {
	var rows []struct {
		Source lead.Source  `json:"source"`
		Sum    money.Amount `json:"sum"`
	}
	err := c.FundedDeal.Query().
		Where(fundeddeal.OrgID(q.OrgID), fundeddeal.HasLeadWith(createdIn(q)...)).
		Modify(func(s *sql.Selector) {
			l := sql.Table(lead.Table)
			s.Join(l).On(s.C(fundeddeal.FieldLeadID), l.C(lead.FieldID))
			s.Select(sql.As(l.C(lead.FieldSource), "source"), sql.As("COALESCE(SUM("+s.C(fundeddeal.FieldFundedAmount)+"), 0)", "sum")).
				GroupBy(l.C(lead.FieldSource))
		}).Scan(sys(ctx), &rows)
	if err != nil {
		return nil, fmt.Errorf("summing deals by source: %w", err)
	}
	out := map[lead.Source]money.Amount{}
	for _, r := range rows {
		out[r.Source] = r.Sum
	}
	return out, nil
}
