package graph

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/store"
)

// The exports' reads (PRODUCT 10.8): every row a list's filters select,
// in the list's order, a page at a time. Each starts from the same filter
// as its list (one function builds both), and checks it before anything
// is read, so a bad filter is refused as the list refuses it. A read
// returns the function that reads the next page (empty at the end); the
// export writes each page before it reads the next, so what it holds is
// one page whatever the size of the whole.

// ApplicationFilter is what the applications list (GraphQL
// applicationsPage, REST GET /v1/applications) and its export select by.
type ApplicationFilter struct {
	LeadID, LenderID *uuid.UUID
	Status           *application.Status
}

func (f ApplicationFilter) query(c *ent.Client) *ent.ApplicationQuery {
	q := c.Application.Query()
	if f.LeadID != nil {
		q = q.Where(application.LeadID(*f.LeadID))
	}
	if f.LenderID != nil {
		q = q.Where(application.LenderID(*f.LenderID))
	}
	if f.Status != nil {
		q = q.Where(application.StatusEQ(*f.Status))
	}
	return q
}

// FundedDealFilter is what the funded deals list and its export select
// by; To must be after From.
type FundedDealFilter struct {
	LeadID, LenderID, AdvisorID *uuid.UUID
	From, To                    *time.Time
}

func (f FundedDealFilter) query(c *ent.Client) (*ent.FundedDealQuery, error) {
	if err := CheckRange(f.From, f.To, "fundedFrom", "fundedTo"); err != nil {
		return nil, err
	}
	q := c.FundedDeal.Query()
	if f.LeadID != nil {
		q = q.Where(fundeddeal.LeadID(*f.LeadID))
	}
	if f.LenderID != nil {
		q = q.Where(fundeddeal.LenderID(*f.LenderID))
	}
	if f.AdvisorID != nil {
		q = q.Where(fundeddeal.AdvisorID(*f.AdvisorID))
	}
	if f.From != nil {
		q = q.Where(fundeddeal.FundedAtGTE(*f.From))
	}
	if f.To != nil {
		q = q.Where(fundeddeal.FundedAtLT(*f.To))
	}
	return q, nil
}

// CommissionFilter is what the commissions list and its export select by.
type CommissionFilter struct {
	DealID, LenderID, AdvisorID *uuid.UUID
	Status                      *commission.Status
}

// query selects the commissions with their payments and clawbacks, oldest
// paidAt first.
func (f CommissionFilter) query(c *ent.Client) *ent.CommissionQuery {
	q := c.Commission.Query()
	if f.DealID != nil {
		q = q.Where(commission.DealID(*f.DealID))
	}
	if f.LenderID != nil {
		q = q.Where(commission.LenderID(*f.LenderID))
	}
	if f.AdvisorID != nil {
		q = q.Where(commission.AdvisorID(*f.AdvisorID))
	}
	if f.Status != nil {
		q = q.Where(commission.StatusEQ(*f.Status))
	}
	return q.WithPayments(func(p *ent.CommissionPaymentQuery) {
		p.Order(commissionpayment.ByPaidAt(), commissionpayment.ByID())
	})
}

// LeadRows reads the leads GET /v1/leads lists under the same search and
// filters, each with its stage and advisor: newest first through the
// keyset, or, when searching, in the search's order, page after page of
// it.
func (r *Resolver) LeadRows(ctx context.Context, search *string, where *ent.LeadWhereInput, tags []string) (func() ([]*ent.Lead, error), error) {
	terms, filter, err := leadListing(search, where, tags)
	if err != nil {
		return nil, err
	}
	if terms != "" && filter != nil {
		if filter, err = r.searchFiltered(ctx, terms, filter); err != nil {
			return nil, err
		}
		terms = ""
	}
	if terms != "" {
		offset, done := 0, false
		return func() ([]*ent.Lead, error) {
			if done {
				return nil, nil
			}
			nodes, _, err := r.searchLeads(ctx, terms, store.ExportPage, offset)
			offset += len(nodes)
			done = err != nil || len(nodes) < store.ExportPage
			return nodes, err
		}, nil
	}
	return store.Keyset(lead.FieldCreatedAt, store.ExportPage, func(after func(*sql.Selector), limit int) ([]*ent.Lead, error) {
		q := r.client(ctx).Lead.Query()
		if filter != nil {
			q = q.Where(filter)
		}
		if after != nil {
			q = q.Where(predicate.Lead(after))
		}
		nodes, err := q.Order(lead.ByCreatedAt(sql.OrderDesc()), lead.ByID(sql.OrderDesc())).Limit(limit).All(ctx)
		if err != nil {
			return nil, err
		}
		return nodes, r.attachRefs(ctx, nodes...)
	}, func(l *ent.Lead) store.Key { return store.Key{At: l.CreatedAt, ID: l.ID} }), nil
}

// ApplicationRows reads the applications f selects, newest first.
func (r *Resolver) ApplicationRows(ctx context.Context, f ApplicationFilter) (func() ([]*ent.Application, error), error) {
	q := f.query(r.client(ctx))
	return store.Keyset(application.FieldCreatedAt, store.ExportPage, func(after func(*sql.Selector), limit int) ([]*ent.Application, error) {
		q := q.Clone()
		if after != nil {
			q = q.Where(predicate.Application(after))
		}
		return q.Order(application.ByCreatedAt(sql.OrderDesc()), application.ByID(sql.OrderDesc())).Limit(limit).All(ctx)
	}, func(a *ent.Application) store.Key { return store.Key{At: a.CreatedAt, ID: a.ID} }), nil
}

// FundedDealRows reads the deals f selects, newest fundedAt first.
func (r *Resolver) FundedDealRows(ctx context.Context, f FundedDealFilter) (func() ([]*ent.FundedDeal, error), error) {
	q, err := f.query(r.client(ctx))
	if err != nil {
		return nil, err
	}
	return store.Keyset(fundeddeal.FieldFundedAt, store.ExportPage, func(after func(*sql.Selector), limit int) ([]*ent.FundedDeal, error) {
		q := q.Clone()
		if after != nil {
			q = q.Where(predicate.FundedDeal(after))
		}
		return q.Order(fundeddeal.ByFundedAt(sql.OrderDesc()), fundeddeal.ByID(sql.OrderDesc())).Limit(limit).All(ctx)
	}, func(d *ent.FundedDeal) store.Key { return store.Key{At: d.FundedAt, ID: d.ID} }), nil
}

// CommissionRows reads the commissions f selects, newest first, each with
// its payments.
func (r *Resolver) CommissionRows(ctx context.Context, f CommissionFilter) (func() ([]*ent.Commission, error), error) {
	q := f.query(r.client(ctx))
	return store.Keyset(commission.FieldCreatedAt, store.ExportPage, func(after func(*sql.Selector), limit int) ([]*ent.Commission, error) {
		q := q.Clone()
		if after != nil {
			q = q.Where(predicate.Commission(after))
		}
		return q.Order(commission.ByCreatedAt(sql.OrderDesc()), commission.ByID(sql.OrderDesc())).Limit(limit).All(ctx)
	}, func(c *ent.Commission) store.Key { return store.Key{At: c.CreatedAt, ID: c.ID} }), nil
}
