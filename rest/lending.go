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
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/enum"
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
		leadID, lenderID, err := leadAndLender(r)
		if err != nil {
			return nil, err
		}
		status, err := typedEnumParam[application.Status](r, "status", enum.ApplicationStatuses)
		if err != nil {
			return nil, err
		}
		return h.resolver.Query().ApplicationsPage(r.Context(), leadID, lenderID, status, page, limit)
	})
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
		leadID, lenderID, err := leadAndLender(r)
		if err != nil {
			return nil, err
		}
		advisorID, err := uuidParam(r, "advisorId")
		if err != nil {
			return nil, err
		}
		from, err := timeParam(r, h.resolver, "fundedFrom", false)
		if err != nil {
			return nil, err
		}
		to, err := timeParam(r, h.resolver, "fundedTo", true)
		if err != nil {
			return nil, err
		}
		// The resolver refuses a fundedTo not after fundedFrom (422 naming fundedTo).
		return h.resolver.Query().FundedDealsPage(r.Context(), leadID, lenderID, advisorID, from, to, page, limit)
	})
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
		dealID, err := uuidParam(r, "dealId")
		if err != nil {
			return nil, err
		}
		lenderID, err := uuidParam(r, "lenderId")
		if err != nil {
			return nil, err
		}
		advisorID, err := uuidParam(r, "advisorId")
		if err != nil {
			return nil, err
		}
		status, err := typedEnumParam[commission.Status](r, "status", enum.CommissionStatuses)
		if err != nil {
			return nil, err
		}
		return h.resolver.Query().CommissionsPage(r.Context(), dealID, lenderID, advisorID, status, page, limit)
	})
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
