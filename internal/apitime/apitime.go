// Package apitime is the service's one timestamp format: RFC 3339 in UTC
// with exactly three fractional digits, 2026-11-23T10:17:27.120Z, on every
// surface (REST, GraphQL, webhook envelopes and payloads). Timestamps are
// stored to the millisecond too, so what is read back, compared or put in a
// cursor is exactly what the API showed. Input is read at any precision.
//
// A leaf: it imports only internal/apperr, for the time domain's errors.
package apitime

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"entgo.io/ent"

	"github.com/lendingpipe/svc/internal/apperr"
)

// The time domain (PRODUCT 8.1): every timestamp a client sends lies
// between Earliest and Skew past now, unless its own rule is narrower.
// Nothing before 1970 is a real event of this service's records; a little
// past now allows for clocks that disagree.
var Earliest = time.Unix(0, 0).UTC()

// Skew is how far past now a client's timestamp may lie.
const Skew = 5 * time.Minute

// Within refuses t, a timestamp a client gave for field, outside the time
// domain: before Earliest or after latest (now plus Skew, or now where the
// field's rule is narrower).
func Within(field string, t, latest time.Time) error {
	switch {
	case t.Before(Earliest):
		return apperr.Invalid(field, "must not be before %s", Format(Earliest))
	case t.After(latest):
		return apperr.Invalid(field, "must not be later than %s", Format(latest))
	}
	return nil
}

// PastOrNow is the time a client gave for field, or now when it gave
// none: when something happened (a funding, a payment), which may not lie
// in the future or before the domain.
func PastOrNow(ctx context.Context, given *time.Time, field string) (time.Time, error) {
	now := Now(ctx)
	if given == nil {
		return now, nil
	}
	// Compared as stored: to the millisecond, as now is.
	at := Truncate(*given)
	if at.After(now) {
		return time.Time{}, apperr.Invalid(field, "must not be in the future")
	}
	if err := Within(field, at, now); err != nil {
		return time.Time{}, err
	}
	return at, nil
}

// Layout formats a UTC time; Format converts to UTC first.
const Layout = "2006-01-02T15:04:05.000Z"

// Example is a timestamp as the API writes it, for documentation.
const Example = "2026-11-23T10:17:27.120Z"

// Format writes t as the API does. Go's RFC3339Nano would trim trailing
// zeros and write anything from no fraction to nanoseconds.
func Format(t time.Time) string { return t.UTC().Format(Layout) }

// Parse reads an RFC 3339 timestamp with any fraction, or none.
func Parse(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }

// Truncate is t as the service stores it: UTC, to the millisecond.
func Truncate(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// Day is the UTC day t falls on, as days since 1970-01-01: the key of
// counts kept per day. DayStart is that day's first instant.
func Day(t time.Time) int {
	s := t.Unix()
	d := s / secondsPerDay
	if s%secondsPerDay < 0 {
		d-- // floor, for times before 1970
	}
	return int(d)
}

// DayStart is midnight UTC of day d (as Day numbers it).
func DayStart(d int) time.Time { return time.Unix(int64(d)*secondsPerDay, 0).UTC() }

const secondsPerDay = 24 * 60 * 60

// Time is a time.Time that encodes as Format does, for response bodies.
type Time time.Time

// Of converts t; OfPtr keeps nil as nil (JSON null).
func Of(t time.Time) Time { return Time(t) }

func OfPtr(t *time.Time) *Time {
	if t == nil {
		return nil
	}
	v := Time(*t)
	return &v
}

// MarshalJSON writes Format's string, quoted: it holds nothing JSON
// escapes, so it is appended as it is, without an encoder of its own (a
// lead has up to six of these, and each was an encoder's run).
func (t Time) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(Layout)+2)
	b = append(b, '"')
	b = time.Time(t).UTC().AppendFormat(b, Layout)
	return append(b, '"'), nil
}

func (t *Time) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a timestamp must be a string: %w", err)
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*t = Time(v)
	return nil
}

func (t Time) String() string { return Format(time.Time(t)) }

type clockKey struct{}

// WithClock makes now the clock of everything done with ctx: the times
// rows are stamped with (created, updated, an event's occurrence).
func WithClock(ctx context.Context, now func() time.Time) context.Context {
	return context.WithValue(ctx, clockKey{}, now)
}

// Now is the time by ctx's clock (time.Now without one), as stored.
func Now(ctx context.Context) time.Time {
	if now, ok := ctx.Value(clockKey{}).(func() time.Time); ok {
		return Truncate(now())
	}
	return Truncate(time.Now())
}

// HasClock reports whether ctx carries a clock.
func HasClock(ctx context.Context) bool {
	_, ok := ctx.Value(clockKey{}).(func() time.Time)
	return ok
}

// StoreMillis is an ent hook for every schema (store.Open installs it):
// every timestamp a mutation writes is stored in UTC to the millisecond,
// whichever way it came (a default, the clock, a client's RFC 3339 input).
func StoreMillis(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		for _, name := range m.Fields() {
			v, _ := m.Field(name)
			if t, ok := v.(time.Time); ok {
				if err := m.SetField(name, Truncate(t)); err != nil {
					return nil, fmt.Errorf("storing %s to the millisecond: %w", name, err)
				}
			}
		}
		return next.Mutate(ctx, m)
	})
}
