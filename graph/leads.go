package graph

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/sqljson"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/counted"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Paging limits (SPEC 4.1 and 8), declared in bounds.
const (
	DefaultLimit = bounds.DefaultLimit
	MaxLimit     = bounds.MaxLimit
	MaxPage      = bounds.MaxPage
	// MaxSearch bounds the search string (and so the words matched).
	MaxSearch = 200
)

// pageArgs applies the defaults and bounds of offset paging (SPEC 4.1).
func pageArgs(pageArg, limitArg *int) (page, limit int, err error) {
	page, limit = 1, DefaultLimit
	if pageArg != nil {
		page = *pageArg
	}
	if limitArg != nil {
		limit = *limitArg
	}
	if err := bounds.Page.Check("page", int64(page)); err != nil {
		return 0, 0, err
	}
	if err := bounds.Limit(MaxLimit).Check("limit", int64(limit)); err != nil {
		return 0, 0, err
	}
	return page, limit, nil
}

// newestFirst is the leads connection's order when none is asked for: the
// REST list's. (entgql's default, by id, has no index within an
// organization: SQLite sorted all its leads for every page.)
var newestFirst = &ent.LeadOrder{Direction: entgql.OrderDirectionDesc, Field: ent.LeadOrderFieldCreatedAt}

// leadsConnection is the GraphQL leads connection. Its totalCount is a
// kept count when one covers the filter (the organization's, as the REST
// list's total is, or its stages'), else a count bounded by MaxCounted
// (countedFilter), rather than a COUNT of every matching lead.
func (r *Resolver) leadsConnection(ctx context.Context, after *entgql.Cursor[uuid.UUID], first *int,
	before *entgql.Cursor[uuid.UUID], last *int, orderBy *ent.LeadOrder, where *ent.LeadWhereInput) (*ent.LeadConnection, error) {
	if orderBy == nil {
		orderBy = newestFirst
	}
	if where != nil {
		if err := CheckRange(where.CreatedAtGTE, where.CreatedAtLT, "createdAtGTE", "createdAtLT"); err != nil {
			return nil, err
		}
	}
	capped := false
	conn, err := r.client(ctx).Lead.Query().Paginate(r.countedFilter(ctx, where, &capped), after, first, before, last,
		ent.WithLeadOrder(orderBy), ent.WithLeadFilter(where.Filter))
	if err != nil {
		return nil, err
	}
	if capped {
		markCapped(ctx, conn)
	}
	// Paginate loads the edges the nodes ask for; the advisor's name is
	// not one, so the page's advisors (and stages) come from the cache,
	// not a query a lead.
	nodes := make([]*ent.Lead, 0, len(conn.Edges))
	for _, e := range conn.Edges {
		nodes = append(nodes, e.Node)
	}
	return conn, r.attachRefs(ctx, nodes...)
}

// countedLeads marks ctx so that a Count of the viewer's organization's
// leads, unfiltered, reads the maintained count (store.LeadTotal) instead
// of counting rows; the privacy rules still vet the Count first.
func (r *Resolver) countedLeads(ctx context.Context) context.Context {
	v, ok := viewer.FromContext(ctx)
	if !ok || v.OrgID == uuid.Nil {
		return ctx
	}
	return counted.With(ctx, func(ctx context.Context) (int, error) { return r.db.LeadTotal(ctx, v.OrgID) })
}

// leadsPage is the offset-paged lead list behind REST GET /v1/leads.
func (r *Resolver) leadsPage(ctx context.Context, pageArg, limitArg *int, search *string, where *ent.LeadWhereInput, tags []string) (*LeadPage, error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	terms, filter, err := leadListing(search, where, tags)
	if err != nil {
		return nil, err
	}
	var (
		nodes []*ent.Lead
		total int
	)
	switch {
	case terms != "" && filter != nil:
		if filter, err = r.searchFiltered(ctx, terms, filter); err == nil {
			nodes, total, err = r.filteredLeads(ctx, ctx, filter, s.limit, s.skip)
		}
	case terms != "":
		nodes, total, err = r.searchLeads(ctx, terms, s.limit, s.skip)
	case filter != nil:
		nodes, total, err = r.filteredLeads(ctx, r.leadFilterCounted(ctx, where, tags), filter, s.limit, s.skip)
	default:
		nodes, total, err = r.newestLeads(ctx, s.limit, s.skip)
	}
	return answer[LeadPage](pageOf(s, nodes, total), err)
}

// newestLeads pages the organization's leads; the total is its maintained
// count (countedLeads).
func (r *Resolver) newestLeads(ctx context.Context, limit, offset int) ([]*ent.Lead, int, error) {
	nodes, err := r.client(ctx).Lead.Query().
		Order(lead.ByCreatedAt(sql.OrderDesc()), lead.ByID(sql.OrderDesc())).
		Limit(limit).Offset(offset).
		All(ctx)
	if err != nil {
		return nil, 0, err
	}
	if err := r.attachRefs(ctx, nodes...); err != nil {
		return nil, 0, err
	}
	total, err := r.client(ctx).Lead.Query().Count(r.countedLeads(ctx))
	return nodes, total, err
}

// leadListing checks the leads list's search and filters: the search
// (trimmed; "" when not searching), or the filter (nil when none).
func leadListing(search *string, where *ent.LeadWhereInput, tags []string) (string, predicate.Lead, error) {
	if search != nil && utf8.RuneCountInString(*search) > MaxSearch {
		return "", nil, apperr.Invalid("search", "must be at most %d characters", MaxSearch)
	}
	filter, err := leadFilter(where, tags)
	if err != nil {
		return "", nil, err
	}
	terms := ""
	if search != nil {
		terms = strings.TrimSpace(*search)
	}
	return terms, filter, nil
}

// leadFilter is where and tags as one predicate; nil when neither filters.
func leadFilter(where *ent.LeadWhereInput, tags []string) (predicate.Lead, error) {
	var preds []predicate.Lead
	if where != nil {
		if err := CheckRange(where.CreatedAtGTE, where.CreatedAtLT, "createdAtGTE", "createdAtLT"); err != nil {
			return nil, err
		}
		p, err := where.P()
		switch {
		case errors.Is(err, ent.ErrEmptyLeadWhereInput):
		case err != nil:
			return nil, apperr.Invalid("where", "%s", err)
		default:
			preds = append(preds, p)
		}
	}
	tags, err := tagFilter(tags)
	if err != nil {
		return nil, err
	}
	for _, tag := range tags {
		preds = append(preds, func(s *sql.Selector) { s.Where(sqljson.ValueContains(s.C(lead.FieldTags), tag)) })
	}
	if len(preds) == 0 {
		return nil, nil
	}
	return lead.And(preds...), nil
}

// tagFilter is the tags a filter asks for: trimmed, blanks and repeats
// dropped, and bounded as a lead's tags are (each one a condition of the
// query, so an unbounded list would be an unbounded query).
func tagFilter(tags []string) ([]string, error) {
	var out []string
	for _, tag := range tags {
		tag = strings.TrimSpace(tag)
		if tag == "" || slices.Contains(out, tag) {
			continue
		}
		if err := bounds.Text("tags", tag, bounds.MaxTagLen); err != nil {
			return nil, err
		}
		out = append(out, tag)
	}
	if len(out) > bounds.MaxTags {
		return nil, apperr.Invalid("tags", "must name at most %d tags", bounds.MaxTags)
	}
	return out, nil
}

// filteredLeads pages the leads filter matches, newest first, with their
// exact count, counted with countCtx (leadFilterCounted).
func (r *Resolver) filteredLeads(ctx, countCtx context.Context, filter predicate.Lead, limit, offset int) ([]*ent.Lead, int, error) {
	nodes, err := r.client(ctx).Lead.Query().Where(filter).
		Order(lead.ByCreatedAt(sql.OrderDesc()), lead.ByID(sql.OrderDesc())).
		Limit(limit).Offset(offset).All(ctx)
	if err != nil {
		return nil, 0, err
	}
	if err := r.attachRefs(ctx, nodes...); err != nil {
		return nil, 0, err
	}
	total, err := r.client(ctx).Lead.Query().Where(filter).Count(countCtx)
	return nodes, total, err
}

// searchFiltered is filter and the search terms as one predicate: a
// search beside filters lists newest first, as where: {search} does.
func (r *Resolver) searchFiltered(ctx context.Context, terms string, filter predicate.Lead) (predicate.Lead, error) {
	var w ent.LeadWhereInput
	if err := r.whereSearch(ctx, &w, "search", &terms); err != nil {
		return nil, err
	}
	return lead.And(append([]predicate.Lead{filter}, w.Predicates...)...), nil
}

// whereSearch adds search to where's predicates: the leads the full-text
// index matches, as one condition of the query beside the others. field
// names the search in an error (LeadWhereInput.search is "where.search").
func (r *Resolver) whereSearch(ctx context.Context, where *ent.LeadWhereInput, field string, search *string) error {
	if search != nil && utf8.RuneCountInString(*search) > MaxSearch {
		return apperr.Invalid(field, "must be at most %d characters", MaxSearch)
	}
	if search == nil || strings.TrimSpace(*search) == "" {
		return nil
	}
	org, err := rule.RequireOrg(ctx, viewer.ScopeLeadsRead, "searching leads")
	if err != nil {
		return err
	}
	match, ok, err := r.db.SearchMatches(ctx, org, store.SearchTerms(*search))
	switch {
	case err != nil:
		return err
	case !ok:
		match = func(s *sql.Selector) { s.Where(sql.False()) }
	}
	where.AddPredicates(predicate.Lead(match))
	return nil
}

// searchLeads ranks with the database's full-text index, then loads the
// page's leads through ent, so privacy rules still apply to what is returned.
func (r *Resolver) searchLeads(ctx context.Context, search string, limit, offset int) ([]*ent.Lead, int, error) {
	v, ok := viewer.FromContext(ctx)
	if !ok || !v.Can(viewer.ScopeLeadsRead) {
		return nil, 0, apperr.New(apperr.Forbidden, "API key lacks the %s scope", viewer.ScopeLeadsRead)
	}
	ids, total, err := r.db.SearchLeads(ctx, v.OrgID, store.SearchTerms(search), limit, offset)
	if err != nil || len(ids) == 0 {
		return []*ent.Lead{}, total, err
	}
	found, err := r.client(ctx).Lead.Query().Where(lead.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, 0, err
	}
	if err := r.attachRefs(ctx, found...); err != nil {
		return nil, 0, err
	}
	byID := make(map[uuid.UUID]*ent.Lead, len(found))
	for _, l := range found {
		byID[l.ID] = l
	}
	nodes := make([]*ent.Lead, 0, len(ids))
	for _, id := range ids {
		if l, ok := byID[id]; ok {
			nodes = append(nodes, l)
		}
	}
	return nodes, total, nil
}

// advisorName is "First Last" of the lead's primary advisor, or nil.
func advisorName(ctx context.Context, l *ent.Lead) (*string, error) {
	if l.PrimaryAdvisorID == nil {
		return nil, nil
	}
	u, err := l.Edges.PrimaryAdvisorOrErr()
	if err != nil {
		if u, err = l.QueryPrimaryAdvisor().Only(ctx); err != nil {
			return nil, fmt.Errorf("loading the primary advisor: %w", err)
		}
	}
	name := FullName(u)
	return &name, nil
}

// FullName is how an advisor's name reads on a lead (primaryAdvisorName).
func FullName(u *ent.User) string {
	return strings.TrimSpace(u.FirstName + " " + u.LastName)
}

// LeadWithRefs reads one lead with its stage and advisor, and nothing
// else: the lead as the REST surface renders it. The row is read by
// store.ReadLead, one prepared statement under the same privacy rules as
// the lead query; inside a transaction (whose reads must see its writes)
// it is read as lead(id) reads it.
func (r *Resolver) LeadWithRefs(ctx context.Context, id uuid.UUID) (*ent.Lead, error) {
	if ent.FromContext(ctx) != nil {
		return r.leadByID(ctx, id)
	}
	l, err := r.db.ReadLead(ctx, id)
	if err != nil {
		return nil, err
	}
	return l, r.attachRefs(ctx, l)
}

// leadByID reads one lead with its stage and advisor, and in GraphQL with
// the edges the operation asks for (CollectFields): a lead page's
// applications, deals and calls, with their lenders, are a query an edge
// rather than a query a row.
func (r *Resolver) leadByID(ctx context.Context, id uuid.UUID) (*ent.Lead, error) {
	q, err := r.client(ctx).Lead.Query().Where(lead.ID(id)).CollectFields(ctx)
	if err != nil {
		return nil, err
	}
	l, err := q.Only(ctx)
	if err != nil {
		return nil, err
	}
	return l, r.attachRefs(ctx, l)
}
