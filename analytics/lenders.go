package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/money"
)

// LendersReport is each lender's applications submitted in the range.
type LendersReport struct {
	Lenders []LenderStats `json:"lenders" description:"Every lender with an application submitted in the range, by name, then id."`
}

// LenderStats is one lender's figures.
type LenderStats struct {
	LenderID                uuid.UUID              `json:"lenderId" description:"The lender's id."`
	Name                    string                 `json:"name" description:"The lender's name."`
	Submitted               int                    `json:"submitted" openapi:"count" description:"Applications submitted to the lender in the range."`
	Approved                int                    `json:"approved" openapi:"count" description:"Of them, those the lender approved (now approved, funded, or withdrawn after approval)."`
	Declined                int                    `json:"declined" openapi:"count" description:"Of them, those declined."`
	Withdrawn               int                    `json:"withdrawn" openapi:"count" description:"Of them, those withdrawn, after approval or not."`
	Funded                  int                    `json:"funded" openapi:"count" description:"Of them, those funded."`
	ApprovalRate            money.Ratio            `json:"approvalRate" description:"approved / (approved + declined)."`
	FundedAmount            money.Amount           `json:"fundedAmount" description:"The sum of the funded ones' deals."`
	MedianSecondsToDecision *int                   `json:"medianSecondsToDecision" openapi:"count" description:"The lower median of the whole seconds (rounded down) from submission to decision, over the decided ones; null when none is decided."`
	DeclineCategories       []DeclineCategoryCount `json:"declineCategories" description:"The declined ones by declineCategory (other when none was given), most first, then by category."`
	// middle is the middle one or two of the decision seconds, in order
	// (the lender matches' median is their mean).
	middle []int
}

// DeclineCategoryCount is the declines of one category.
type DeclineCategoryCount struct {
	Category application.DeclineCategory `json:"category" enum:"DeclineCategory"`
	Count    int                         `json:"count" openapi:"count" description:"Declines of the category."`
}

// submittedIn are the organization's applications submitted in the range
// whose lead the people filter admits (by its primary advisor).
func submittedIn(q *Request) []predicate.Application {
	ps := []predicate.Application{application.OrgID(q.OrgID),
		application.SubmittedAtGTE(q.Range.Start), application.SubmittedAtLT(q.Range.End)}
	if q.People != nil {
		ps = append(ps, application.HasLeadWith(lead.PrimaryAdvisorIDIn(q.People...)))
	}
	if q.lenders != nil {
		ps = append(ps, application.LenderIDIn(q.lenders...))
	}
	return ps
}

// Lenders computes the lenders report: every lender with an application
// submitted in the range, by name.
func Lenders(ctx context.Context, c *ent.Client, q *Request) (*LendersReport, error) {
	if days, ok := q.rolledUp(); ok {
		return lendersRolledUp(ctx, c, q, days)
	}
	apps, err := c.Application.Query().Where(submittedIn(q)...).
		Select(application.FieldLenderID, application.FieldStatus, application.FieldSubmittedAt,
			application.FieldDecidedAt, application.FieldDeclineCategory, application.FieldFundedDealID).
		All(sys(ctx))
	if err != nil {
		return nil, fmt.Errorf("reading the applications: %w", err)
	}
	byLender := map[uuid.UUID]*lenderTally{}
	var deals []uuid.UUID
	for _, a := range apps {
		t := byLender[a.LenderID]
		if t == nil {
			t = &lenderTally{declines: map[application.DeclineCategory]int{}}
			byLender[a.LenderID] = t
		}
		t.add(a)
		if a.FundedDealID != nil {
			deals = append(deals, *a.FundedDealID)
		}
	}
	funded, err := dealAmounts(ctx, c, deals)
	if err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, 0, len(byLender))
	for id := range byLender {
		ids = append(ids, id)
	}
	names, err := q.lenderNames(ctx, c, ids)
	if err != nil {
		return nil, err
	}
	out := make([]LenderStats, 0, len(ids))
	for _, id := range ids {
		out = append(out, byLender[id].stats(id, names[id], funded[id]))
	}
	slices.SortFunc(out, func(a, b LenderStats) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.LenderID.String(), b.LenderID.String()))
	})
	return &LendersReport{Lenders: out}, nil
}

// dealAmounts sums the deals by lender.
func dealAmounts(ctx context.Context, c *ent.Client, deals []uuid.UUID) (map[uuid.UUID]money.Amount, error) {
	out := map[uuid.UUID]money.Amount{}
	for chunk := range slices.Chunk(deals, 500) {
		var rows []struct {
			LenderID uuid.UUID    `json:"lender_id"`
			Sum      money.Amount `json:"sum"`
		}
		err := c.FundedDeal.Query().Where(fundeddeal.IDIn(chunk...)).GroupBy(fundeddeal.FieldLenderID).
			Aggregate(sumOf(fundeddeal.FieldFundedAmount, "sum")).Scan(sys(ctx), &rows)
		if err != nil {
			return nil, fmt.Errorf("summing the funded applications' deals: %w", err)
		}
		for _, r := range rows {
			out[r.LenderID] += r.Sum
		}
	}
	return out, nil
}

// lenderTally accumulates one lender's applications.
type lenderTally struct {
	submitted, approved, declined, withdrawn, funded int
	seconds                                          []int
	declines                                         map[application.DeclineCategory]int
}

func (t *lenderTally) add(a *ent.Application) {
	t.submitted++
	switch a.Status {
	case application.StatusDeclined:
		t.declined++
		cat := application.DeclineCategoryOther
		if a.DeclineCategory != nil {
			cat = *a.DeclineCategory
		}
		t.declines[cat]++
	case application.StatusWithdrawn:
		t.withdrawn++
	case application.StatusFunded:
		t.funded++
	}
	if a.DecidedAt != nil {
		if a.Status != application.StatusDeclined {
			t.approved++ // decided and not declined: approved, then maybe funded or withdrawn
		}
		t.seconds = append(t.seconds, secondsBetween(a.SubmittedAt, *a.DecidedAt))
	}
}

// secondsBetween is the whole seconds from a to b, rounded down.
func secondsBetween(a, b time.Time) int { return int(b.Sub(a) / time.Second) }

func (t *lenderTally) stats(id uuid.UUID, name string, funded money.Amount) LenderStats {
	s := LenderStats{LenderID: id, Name: name, Submitted: t.submitted, Approved: t.approved,
		Declined: t.declined, Withdrawn: t.withdrawn, Funded: t.funded, FundedAmount: funded,
		ApprovalRate:      money.RatioOf(int64(t.approved), int64(t.approved+t.declined)),
		DeclineCategories: []DeclineCategoryCount{}}
	if len(t.seconds) > 0 {
		slices.Sort(t.seconds)
		n := len(t.seconds)
		s.middle = t.seconds[(n-1)/2 : n/2+1]
		s.MedianSecondsToDecision = &s.middle[0] // the lower median
	}
	for cat, n := range t.declines {
		s.DeclineCategories = append(s.DeclineCategories, DeclineCategoryCount{Category: cat, Count: n})
	}
	slices.SortFunc(s.DeclineCategories, func(a, b DeclineCategoryCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Category, b.Category))
	})
	return s
}
