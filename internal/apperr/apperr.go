// Package apperr is the service's one error type. Errors are created where a
// problem is found, carry one of the codes of SPEC 7, and are mapped to an
// HTTP status (REST) or an extensions.code (GraphQL) only at the edge.
//
// A leaf: it imports nothing of this service, so every layer may use it.
package apperr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Codes, as the REST envelope and GraphQL extensions spell them.
const (
	BadRequest           = "BAD_REQUEST"
	Unauthorized         = "UNAUTHORIZED"
	Forbidden            = "FORBIDDEN"
	NotFound             = "NOT_FOUND"
	Conflict             = "CONFLICT"
	Validation           = "VALIDATION_ERROR"
	IdempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"
	IdempotencyKeyInUse  = "IDEMPOTENCY_KEY_IN_USE"
	PayloadTooLarge      = "PAYLOAD_TOO_LARGE"
	UnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
	RateLimited          = "RATE_LIMITED"
	Internal             = "INTERNAL_ERROR"
	Unavailable          = "SERVICE_UNAVAILABLE"
	MethodNotAllowed     = "METHOD_NOT_ALLOWED"
)

// Error is an error a caller can act on.
type Error struct {
	Code    string
	Message string
	// Field names the offending request field (API spelling) for validation errors.
	Field string
	// Detail holds any further machine-readable context.
	Detail map[string]any
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s: %s (field %s)", e.Code, e.Message, e.Field)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// New returns an error with code and a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a VALIDATION_ERROR naming field.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Code: Validation, Field: field, Message: fmt.Sprintf(format, args...)}
}

// MaxQuoted is the most characters of a refused value an error message
// quotes (PRODUCT 8.3): a 100,000-character value is not echoed back whole.
const MaxQuoted = 100

// Quote quotes a refused value for an error message, cut to MaxQuoted
// characters with "..." when longer.
func Quote(v string) string { return strconv.Quote(Cut(v)) }

// Cut is v cut to MaxQuoted characters with "..." when longer: a name the
// caller chose, echoed where it is not quoted (an error's field).
func Cut(v string) string {
	if r := []rune(v); len(r) > MaxQuoted {
		return string(r[:MaxQuoted-3]) + "..."
	}
	return v
}

// Transient reports whether an error of code may clear by itself (the
// service or its database unavailable or overloaded, an internal failure
// such as a lost connection or a timeout), so trying again later can help.
// Every other code says the request itself cannot succeed as it stands.
func Transient(code string) bool {
	return code == Unavailable || code == Internal || code == RateLimited
}

// As returns the *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// FieldName spells an ent field as the API does: business_name →
// businessName, stage_id → stageId.
func FieldName(field string) string {
	var b strings.Builder
	upper := false
	for _, r := range field {
		switch {
		case r == '_':
			upper = true
		case upper:
			b.WriteRune(unicode.ToUpper(r))
			upper = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// RefError is the error of a reference to a row: a failure to read it
// (err), or the caller's mistake when the row does not exist (err nil, or
// an error missing recognizes as not-found, ent.IsNotFound).
func RefError(err error, missing func(error) bool, field, what string) error {
	if err != nil && (missing == nil || !missing(err)) {
		return fmt.Errorf("checking %s: %w", field, err)
	}
	return Invalid(field, "no %s with this id exists in your organization", what)
}
