// Package rest is the /v1 adapter: it decodes each endpoint's body (names,
// aliases, strictness), calls the domains' flows (or a GraphQL resolver for
// a read), and encodes the SPEC 2.1 envelopes. Business rules live below
// it, in the flows and ent.
//
// It also holds the edge every request to the HTTP root meets (middleware,
// the API-key rules GraphQL's websockets follow), the probes and the /v1
// route table, which the HTTP root (root) mounts.
//
// It imports graph (the operations), the domains, the reports, the store
// and the leaves, never the HTTP root;
// nothing but package main, the HTTP root and the test harness imports it.
package rest

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/store"
)

// Resource is one {id, type, attributes} object (SPEC 2.1).
type Resource struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	Attributes any    `json:"attributes"`
}

// Meta is the envelope's meta. Collection fields are omitted on single
// resources and errors, where SPEC 2.1 shows only requestId.
type Meta struct {
	Total     *int   `json:"total,omitempty"`
	Page      *int   `json:"page,omitempty"`
	Limit     *int   `json:"limit,omitempty"`
	HasMore   *bool  `json:"hasMore,omitempty"`
	RequestID string `json:"requestId"`
}

type single struct {
	Data any  `json:"data"`
	Meta Meta `json:"meta"`
}

type collection struct {
	Data []Resource `json:"data"`
	Meta Meta       `json:"meta"`
}

// ErrorBody is one entry of the error envelope.
type ErrorBody struct {
	Code    string         `json:"code" enum:"ErrorCode"`
	Message string         `json:"message"`
	Detail  map[string]any `json:"detail" description:"Machine-readable context; field names the offending field of a validation error."`
}

type errorEnvelope struct {
	Errors []ErrorBody `json:"errors"`
	Meta   Meta        `json:"meta"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client went away; nothing left to tell it
}

func writeResource(w http.ResponseWriter, r *http.Request, status int, res any) {
	writeJSON(w, status, single{Data: res, Meta: Meta{RequestID: RequestID(r.Context())}})
}

func writeCollection[T any](w http.ResponseWriter, r *http.Request, items []Resource, p graph.Page[T]) {
	if items == nil {
		items = []Resource{}
	}
	writeJSON(w, http.StatusOK, collection{Data: items, Meta: Meta{
		Total: &p.Total, Page: &p.Page, Limit: &p.Limit, HasMore: &p.HasMore,
		RequestID: RequestID(r.Context()),
	}})
}

// statusOf maps each error code to its one HTTP status.
var statusOf = map[string]int{
	apperr.BadRequest:           http.StatusBadRequest,
	apperr.Unauthorized:         http.StatusUnauthorized,
	apperr.Forbidden:            http.StatusForbidden,
	apperr.NotFound:             http.StatusNotFound,
	apperr.MethodNotAllowed:     http.StatusMethodNotAllowed,
	apperr.Conflict:             http.StatusConflict,
	apperr.IdempotencyKeyInUse:  http.StatusConflict,
	apperr.PayloadTooLarge:      http.StatusRequestEntityTooLarge,
	apperr.UnsupportedMediaType: http.StatusUnsupportedMediaType,
	apperr.Validation:           http.StatusUnprocessableEntity,
	apperr.IdempotencyKeyReused: http.StatusUnprocessableEntity,
	apperr.RateLimited:          http.StatusTooManyRequests,
	apperr.Internal:             http.StatusInternalServerError,
	apperr.Unavailable:          http.StatusServiceUnavailable,
}

// writeError renders err in the error envelope. Errors of unknown kind are
// logged and answered as a bare 500, never with their text.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	e, status := errorStatus(w, r, err)
	detail := map[string]any{}
	for k, v := range e.Detail {
		detail[k] = v
	}
	if e.Field != "" {
		detail["field"] = e.Field
	}
	writeJSON(w, status, errorEnvelope{
		Errors: []ErrorBody{{Code: e.Code, Message: e.Message, Detail: detail}},
		Meta:   Meta{RequestID: RequestID(r.Context())},
	})
}

// errorStatus is what every surface does before it renders err, in its own
// shape: the error's code and its one status, the bearer challenge on a
// 401, and a log line for a 5xx (whose cause the client is not told).
func errorStatus(w http.ResponseWriter, r *http.Request, err error) (*apperr.Error, int) {
	e := graph.AppError(err)
	status, ok := statusOf[e.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	if status == http.StatusUnauthorized {
		challenge(w, r)
	}
	// A refusal that knows how long to wait (a sign-in lockout) says so,
	// as the rate limiter's own refusals do.
	if secs, ok := e.Detail["retryAfterSeconds"].(int); ok && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	if status >= 500 {
		logger(r.Context()).ErrorContext(r.Context(), "request failed", "err", err, "method", r.Method, "path", logPath(r))
	}
	return e, status
}

// errorHandler adapts an error-returning handler, so handlers end with
// `return err` and errors are rendered in one place.
type errorHandler func(w http.ResponseWriter, r *http.Request) error

func (h errorHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	err := checkQuery(r)
	if err == nil {
		err = h(w, r)
	}
	if err != nil {
		writeError(w, r, tooLarge(err))
	}
}

// tooLarge turns a body read past withBodyLimit's cap into the 413 it is.
func tooLarge(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return apperr.New(apperr.PayloadTooLarge, "request body exceeds %d bytes", mbe.Limit)
	}
	return err
}

type loggerKey struct{}

func logger(ctx interface{ Value(any) any }) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// writeList renders one page of a list (a GraphQL page type, or a
// graph.Page) as a collection.
func writeList[P graph.PageType[T], T any](w http.ResponseWriter, r *http.Request, p *P, render func(T) Resource) {
	page := graph.Page[T](*p)
	writeCollection(w, r, renderAll(page.Nodes, render), page)
}

// writeAll renders an unpaged collection, whose meta has only the total
// (SPEC 4.3: GET /v1/app-webhooks answers meta = {total}).
func writeAll[T any](w http.ResponseWriter, r *http.Request, nodes []T, render func(T) Resource) {
	total := len(nodes)
	writeJSON(w, http.StatusOK, collection{Data: renderAll(nodes, render), Meta: Meta{Total: &total, RequestID: RequestID(r.Context())}})
}

func renderAll[T any](nodes []T, render func(T) Resource) []Resource {
	items := make([]Resource, len(nodes))
	for i, n := range nodes {
		items[i] = render(n)
	}
	return items
}

// deleteByID answers 204 once del has deleted, in one transaction, the
// resource the path's id names (parse turns the id into a UUID, or a 404).
func deleteByID(w http.ResponseWriter, r *http.Request, c *ent.Client, parse func(*http.Request) (uuid.UUID, error),
	del func(context.Context, uuid.UUID) (uuid.UUID, error)) error {
	id, err := parse(r)
	if err != nil {
		return err
	}
	err = store.WithTx(r.Context(), c, func(ctx context.Context, _ *ent.Client) error {
		_, err := del(ctx, id)
		return err
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// queryParam is an optional query parameter; nil when absent or empty.
func queryParam(r *http.Request, name string) *string {
	if v := r.URL.Query().Get(name); v != "" {
		return &v
	}
	return nil
}

// list serves one REST list: the page and limit parameters, then read's
// page of nodes (read parses the list's own filters and calls its *Page
// resolver), rendered.
func list[P graph.PageType[T], T any](w http.ResponseWriter, r *http.Request, render func(T) Resource, read func(page, limit *int) (*P, error)) error {
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	p, err := read(page, limit)
	if err != nil {
		return err
	}
	writeList(w, r, p, render)
	return nil
}
