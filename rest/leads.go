package rest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/reqbody"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/leads"
)

// leadHandlers translates /v1/leads onto the GraphQL resolvers (reads)
// and the lead flows (writes).
type leadHandlers struct {
	resolver *graph.Resolver
	client   *ent.Client
}

func (h leadHandlers) list(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, leadResource, func(page, limit *int) (*graph.LeadPage, error) {
		search, where, tags, err := leadListing(r, h.resolver)
		if err != nil {
			return nil, err
		}
		return h.resolver.Query().LeadsPage(r.Context(), page, limit, search, where, tags)
	})
}

// export is GET /v1/exports/leads.csv: the leads GET /v1/leads lists
// under the same search and filters, all of them.
func (h leadHandlers) export(w http.ResponseWriter, r *http.Request) error {
	search, where, tags, err := leadListing(r, h.resolver)
	if err != nil {
		return err
	}
	next, err := h.resolver.LeadRows(r.Context(), search, where, tags)
	if err != nil {
		return err
	}
	return writeCSV(w, r, leadExport, leadResource, next)
}

// leadListing reads GET /v1/leads' search and filters (leadFilters).
func leadListing(r *http.Request, resolver *graph.Resolver) (search *string, where *ent.LeadWhereInput, tags []string, err error) {
	if s, ok := r.URL.Query()["search"]; ok {
		search = &s[0]
	}
	where, tags, err = leadFilters(r, resolver)
	return search, where, tags, err
}

// leadFilters reads GET /v1/leads' filters into GraphQL's where (the
// same filter leads(where:) applies) and its tags; nil when none is given.
func leadFilters(r *http.Request, resolver *graph.Resolver) (*ent.LeadWhereInput, []string, error) {
	var w ent.LeadWhereInput
	var err error
	if w.StageID, err = uuidParam(r, "stageId"); err != nil {
		return nil, nil, err
	}
	if w.PrimaryAdvisorID, err = uuidParam(r, "primaryAdvisorId"); err != nil {
		return nil, nil, err
	}
	if w.Priority, err = typedEnumParam[lead.Priority](r, "priority", enum.LeadPriorities); err != nil {
		return nil, nil, err
	}
	if w.Source, err = typedEnumParam[lead.Source](r, "source", enum.LeadSources); err != nil {
		return nil, nil, err
	}
	if w.CreatedAtGTE, err = timeParam(r, resolver, "createdFrom", false); err != nil {
		return nil, nil, err
	}
	if w.CreatedAtLT, err = timeParam(r, resolver, "createdTo", true); err != nil {
		return nil, nil, err
	}
	if err := graph.CheckRange(w.CreatedAtGTE, w.CreatedAtLT, "createdFrom", "createdTo"); err != nil {
		return nil, nil, err
	}
	var tags []string // trimmed, deduplicated and bounded by the resolver
	if s := queryParam(r, "tags"); s != nil {
		tags = strings.Split(*s, ",")
	}
	if _, err := w.P(); errors.Is(err, ent.ErrEmptyLeadWhereInput) {
		return nil, tags, nil
	}
	return &w, tags, nil
}

// pageParams reads the optional page and limit query parameters; the
// resolvers apply their defaults and bounds.
func pageParams(r *http.Request) (page, limit *int, err error) {
	if page, err = intParam(r, "page"); err != nil {
		return nil, nil, err
	}
	limit, err = intParam(r, "limit")
	return page, limit, err
}

// intParam reads an optional integer query parameter; nil when absent.
func intParam(r *http.Request, name string) (*int, error) {
	s, ok := r.URL.Query()[name]
	if !ok {
		return nil, nil
	}
	n, err := strconv.ParseInt(s[0], 10, 32)
	if err != nil {
		return nil, apperr.Invalid(name, "must be an integer")
	}
	v := int(n)
	return &v, nil
}

func (h leadHandlers) get(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	l, err := h.resolver.LeadWithRefs(r.Context(), id)
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusOK, leadResource(l))
	return nil
}

func (h leadHandlers) create(w http.ResponseWriter, r *http.Request) error {
	var body reqbody.CreateLead
	if err := decodeBody(r, &body, nil); err != nil {
		return err
	}
	l, err := h.mutate(r.Context(), func(ctx context.Context, c *ent.Client) (*ent.Lead, error) {
		return leads.Create(ctx, c, body.Input())
	})
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusCreated, leadResource(l))
	return nil
}

func (h leadHandlers) patch(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	var body reqbody.LeadFields
	if err := decodeBody(r, &body, reqbody.PatchRefused); err != nil {
		return err
	}
	return h.respond(w, r, func(ctx context.Context, c *ent.Client) (*ent.Lead, error) {
		return leads.Update(ctx, c, id, body.UpdateInput())
	})
}

func (h leadHandlers) moveStage(w http.ResponseWriter, r *http.Request) error {
	id, stageID, err := pathAndBodyID(r, "stageId")
	if err != nil {
		return err
	}
	return h.respond(w, r, func(ctx context.Context, c *ent.Client) (*ent.Lead, error) {
		return leads.MoveStage(ctx, c, id, stageID)
	})
}

func (h leadHandlers) assign(w http.ResponseWriter, r *http.Request) error {
	id, advisorID, err := pathAndBodyID(r, "advisorId")
	if err != nil {
		return err
	}
	err = h.respond(w, r, func(ctx context.Context, c *ent.Client) (*ent.Lead, error) {
		return leads.Assign(ctx, c, id, advisorID)
	})
	// The rule names the create field; this endpoint's body calls it advisorId.
	if e := graph.AppError(err); err != nil && e.Field == "assignToAdvisorId" {
		e.Field = "advisorId"
		return e
	}
	return err
}

// pathAndBodyID reads the {id} path parameter and a body holding exactly
// one member, name, a required UUID.
func pathAndBodyID(r *http.Request, name string) (id, value uuid.UUID, err error) {
	if id, err = pathID(r); err != nil {
		return id, value, err
	}
	obj, err := readObject(r)
	if err != nil {
		return id, value, err
	}
	for _, k := range reqbody.SortedKeys(obj) {
		if k != name {
			return id, value, apperr.Invalid(k, "unknown field")
		}
	}
	raw, ok := obj[name]
	if !ok || string(raw) == "null" {
		return id, value, apperr.Invalid(name, "is required")
	}
	if err := json.Unmarshal(raw, &value); err != nil {
		return id, value, apperr.Invalid(name, "%s", reqbody.TypeProblem(err))
	}
	return id, value, nil
}

// respond runs a lead mutation and answers 200 with the lead.
func (h leadHandlers) respond(w http.ResponseWriter, r *http.Request, fn func(context.Context, *ent.Client) (*ent.Lead, error)) error {
	l, err := h.mutate(r.Context(), fn)
	if err != nil {
		return err
	}
	writeResource(w, r, http.StatusOK, leadResource(l))
	return nil
}

// mutate runs fn, a lead flow, in a transaction (as GraphQL mutations
// run) and answers with the lead it returned, its stage and advisor
// attached.
func (h leadHandlers) mutate(ctx context.Context, fn func(context.Context, *ent.Client) (*ent.Lead, error)) (*ent.Lead, error) {
	l, err := store.WithTxValue(ctx, h.client, fn)
	if err != nil {
		return nil, err
	}
	// The mutation returns the lead as written; its stage and advisor names
	// come after the commit, from the cache, so SQLite's one writer does
	// not wait on them.
	return l, h.resolver.AttachRefs(ctx, l)
}

// pathID parses the {id} path parameter. An id that is not a UUID names no
// lead, so it is 404 like any other unknown id.
func pathID(r *http.Request) (uuid.UUID, error) {
	id, err := uuid.Parse(chi.URLParam(r, "id"))
	if err != nil {
		return uuid.Nil, apperr.New(apperr.NotFound, "lead not found")
	}
	return id, nil
}

// decodeBody reads the JSON object body into dst (see decodeFields).
func decodeBody(r *http.Request, dst any, refused map[string]string) error {
	obj, err := readObject(r)
	if err != nil {
		return err
	}
	return reqbody.Decode(obj, dst, refused)
}
