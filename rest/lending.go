package rest

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/stipulation"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/lending"
)

// lendingHandlers translates /v1/lenders, /v1/applications,
// /v1/funded-deals and /v1/commissions (PRODUCT 1.6, GET only) onto the
// GraphQL resolvers: the offset pages behind the lists and the reads by id.
// Who may read them is the ent privacy policy's rule (lending:read); the
// writes are GraphQL mutations.
type lendingHandlers struct {
	resolver *graph.Resolver
}

func (h lendingHandlers) lenders(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, lenderResource, func(page, limit *int) (*graph.LenderPage, error) {
		isActive, err := boolParam(r, "isActive")
		if err != nil {
			return nil, err
		}
		return h.resolver.Query().LendersPage(r.Context(), isActive, page, limit)
	})
}

func (h lendingHandlers) lender(w http.ResponseWriter, r *http.Request) error {
	id, err := lendingID(r, "lender")
	if err != nil {
		return err
	}
	l, err := h.resolver.LenderByID(r.Context(), id)
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusOK, lenderResource(l))
	return nil
}

func (h lendingHandlers) applications(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, applicationResource, func(page, limit *int) (*graph.ApplicationPage, error) {
		f, err := applicationFilter(r)
		if err != nil {
			return nil, err
		}
		return h.resolver.Query().ApplicationsPage(r.Context(), f.LeadID, f.LenderID, f.Status, page, limit)
	})
}

// stipulations is GET /v1/stipulations: GraphQL's stipulations(where:).
func (h lendingHandlers) stipulations(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, stipulationResource, func(page, limit *int) (*graph.StipulationPage, error) {
		var f lending.StipulationFilter
		var err error
		if f.ApplicationID, err = uuidParam(r, "applicationId"); err != nil {
			return nil, err
		}
		if f.LeadID, err = uuidParam(r, "leadId"); err != nil {
			return nil, err
		}
		if f.Status, err = typedEnumParam[stipulation.Status](r, "status", enum.StipulationStatuses); err != nil {
			return nil, err
		}
		return h.resolver.Query().Stipulations(r.Context(), &f, page, limit)
	})
}

// exportApplications is GET /v1/exports/applications.csv: every
// application GET /v1/applications lists under the same filters.
func (h lendingHandlers) exportApplications(w http.ResponseWriter, r *http.Request) error {
	f, err := applicationFilter(r)
	if err != nil {
		return err
	}
	next, err := h.resolver.ApplicationRows(r.Context(), f)
	if err != nil {
		return err
	}
	return writeCSV(w, r, applicationExport, applicationResource, next)
}

// applicationFilter reads GET /v1/applications' filters.
func applicationFilter(r *http.Request) (f graph.ApplicationFilter, err error) {
	if f.LeadID, f.LenderID, err = leadAndLender(r); err != nil {
		return f, err
	}
	f.Status, err = typedEnumParam[application.Status](r, "status", enum.ApplicationStatuses)
	return f, err
}

func (h lendingHandlers) application(w http.ResponseWriter, r *http.Request) error {
	id, err := lendingID(r, "application")
	if err != nil {
		return err
	}
	a, err := h.resolver.ApplicationByID(r.Context(), id)
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusOK, applicationResource(a))
	return nil
}

func (h lendingHandlers) fundedDeals(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, fundedDealResource, func(page, limit *int) (*graph.FundedDealPage, error) {
		f, err := h.fundedDealFilter(r)
		if err != nil {
			return nil, err
		}
		// The resolver refuses a fundedTo not after fundedFrom (422 naming fundedTo).
		return h.resolver.Query().FundedDealsPage(r.Context(), f.LeadID, f.LenderID, f.AdvisorID, f.From, f.To, page, limit)
	})
}

// exportFundedDeals is GET /v1/exports/funded-deals.csv: every deal GET
// /v1/funded-deals lists under the same filters.
func (h lendingHandlers) exportFundedDeals(w http.ResponseWriter, r *http.Request) error {
	f, err := h.fundedDealFilter(r)
	if err != nil {
		return err
	}
	next, err := h.resolver.FundedDealRows(r.Context(), f)
	if err != nil {
		return err
	}
	return writeCSV(w, r, fundedDealExport, fundedDealResource, next)
}

// fundedDealFilter reads GET /v1/funded-deals' filters.
func (h lendingHandlers) fundedDealFilter(r *http.Request) (f graph.FundedDealFilter, err error) {
	if f.LeadID, f.LenderID, err = leadAndLender(r); err != nil {
		return f, err
	}
	if f.AdvisorID, err = uuidParam(r, "advisorId"); err != nil {
		return f, err
	}
	if f.From, err = timeParam(r, h.resolver, "fundedFrom", false); err != nil {
		return f, err
	}
	f.To, err = timeParam(r, h.resolver, "fundedTo", true)
	return f, err
}

func (h lendingHandlers) fundedDeal(w http.ResponseWriter, r *http.Request) error {
	id, err := lendingID(r, "funded deal")
	if err != nil {
		return err
	}
	d, err := h.resolver.FundedDealByID(r.Context(), id)
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusOK, fundedDealResource(d))
	return nil
}

func (h lendingHandlers) commissions(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, commissionResource, func(page, limit *int) (*graph.CommissionPage, error) {
		f, err := commissionFilter(r)
		if err != nil {
			return nil, err
		}
		return h.resolver.Query().CommissionsPage(r.Context(), f.DealID, f.LenderID, f.AdvisorID, f.Status, page, limit)
	})
}

// exportCommissions is GET /v1/exports/commissions.csv: every commission
// GET /v1/commissions lists under the same filters.
func (h lendingHandlers) exportCommissions(w http.ResponseWriter, r *http.Request) error {
	f, err := commissionFilter(r)
	if err != nil {
		return err
	}
	next, err := h.resolver.CommissionRows(r.Context(), f)
	if err != nil {
		return err
	}
	return writeCSV(w, r, commissionExport, commissionResource, next)
}

// commissionFilter reads GET /v1/commissions' filters.
func commissionFilter(r *http.Request) (f graph.CommissionFilter, err error) {
	if f.DealID, err = uuidParam(r, "dealId"); err != nil {
		return f, err
	}
	if f.LenderID, err = uuidParam(r, "lenderId"); err != nil {
		return f, err
	}
	if f.AdvisorID, err = uuidParam(r, "advisorId"); err != nil {
		return f, err
	}
	f.Status, err = typedEnumParam[commission.Status](r, "status", enum.CommissionStatuses)
	return f, err
}

func (h lendingHandlers) commission(w http.ResponseWriter, r *http.Request) error {
	id, err := lendingID(r, "commission")
	if err != nil {
		return err
	}
	c, err := h.resolver.CommissionByID(r.Context(), id)
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusOK, commissionResource(c))
	return nil
}

// leadAndLender reads the leadId and lenderId filters.
func leadAndLender(r *http.Request) (leadID, lenderID *uuid.UUID, err error) {
	if leadID, err = uuidParam(r, "leadId"); err != nil {
		return nil, nil, err
	}
	lenderID, err = uuidParam(r, "lenderId")
	return leadID, lenderID, err
}

// lendingID parses the {id} path parameter of a record of kind what. An id
// that is not a UUID names no record, so it is 404 like an unknown one.
func lendingID(r *http.Request, what string) (uuid.UUID, error) {
	id, err := uuid.Parse(chi.URLParam(r, "id"))
	if err != nil {
		return uuid.Nil, apperr.New(apperr.NotFound, "%s not found", what)
	}
	return id, nil
}

// boolParam reads an optional boolean query parameter, true or false; nil
// when absent or empty, 422 naming it otherwise.
func boolParam(r *http.Request, name string) (*bool, error) {
	s := queryParam(r, name)
	if s == nil {
		return nil, nil
	}
	switch *s {
	case "true":
		v := true
		return &v, nil
	case "false":
		v := false
		return &v, nil
	}
	return nil, apperr.Invalid(name, "must be true or false")
}

// timeParam reads an optional range bound: an RFC 3339 timestamp (any
// precision and offset) or a date, a whole day in the organization's time
// zone (an end: the day after it begins), as the reports read their range
// (graph.Resolver.RangeBound). It is UTC, as GraphQL's Time scalar reads
// one: SQLite compares stored timestamps as text, so a bound in another
// offset would match the wrong rows. nil when absent or empty, 422 naming
// it otherwise.
func timeParam(r *http.Request, resolver *graph.Resolver, name string, end bool) (*time.Time, error) {
	s := queryParam(r, name)
	if s == nil {
		return nil, nil
	}
	t, err := resolver.RangeBound(r.Context(), name, *s, end)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// typedEnumParam is enumParam as the ent enum type T a filter takes.
func typedEnumParam[T ~string](r *http.Request, name string, values []string) (*T, error) {
	s, err := enumParam(r, name, values)
	if s == nil || err != nil {
		return nil, err
	}
	v := T(*s)
	return &v, nil
}

// enumParam reads an optional query parameter that must be one of values
// (the schema's list); nil when absent or empty, 422 naming it otherwise.
func enumParam(r *http.Request, name string, values []string) (*string, error) {
	s := queryParam(r, name)
	if s == nil || slices.Contains(values, *s) {
		return s, nil
	}
	return nil, apperr.Invalid(name, "must be one of %s", strings.Join(values, ", "))
}
