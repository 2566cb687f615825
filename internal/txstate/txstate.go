// Package txstate keeps state that lives exactly as long as one
// transaction (the outbox's queued events, the rollups' zone) in the
// transaction's context: it travels with the transaction and is dropped
// with it, so no process-wide map keyed by a transaction has to be cleaned
// up when the transaction ends. store.WithTx gives each transaction it
// opens a state; a context without one (no transaction, or one opened
// elsewhere) keeps nothing, and its callers do without.
//
// A leaf: it imports only the standard library.
package txstate

import (
	"context"
	"sync"
)

type ctxKey struct{}

// state is one transaction's values, by key.
type state struct {
	mu     sync.Mutex
	values map[any]any
}

// New returns ctx carrying a new, empty transaction state.
func New(ctx context.Context) context.Context {
	return context.WithValue(ctx, ctxKey{}, &state{values: map[any]any{}})
}

// LoadOrStore returns the value kept under key in ctx's transaction state,
// storing v there first when there is none (loaded reports which). ok is
// false when ctx carries no state: nothing is kept.
func LoadOrStore[T any](ctx context.Context, key any, v T) (actual T, loaded, ok bool) {
	s, _ := ctx.Value(ctxKey{}).(*state)
	if s == nil {
		return v, false, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if got, found := s.values[key]; found {
		return got.(T), true, true
	}
	s.values[key] = v
	return v, false, true
}

// Load returns the value kept under key in ctx's transaction state.
func Load[T any](ctx context.Context, key any) (T, bool) {
	var zero T
	s, _ := ctx.Value(ctxKey{}).(*state)
	if s == nil {
		return zero, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, found := s.values[key]
	if !found {
		return zero, false
	}
	return v.(T), true
}
