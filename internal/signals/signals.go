// Package signals holds what the clients of one store tell each other in
// this process: that outbox events have committed (the delivery worker's
// wake), that cached rows changed (the version counters of the stages and
// users, and of the API keys), and the turns transactions take at the hot
// counts' slots. A store makes one Set when it opens its client, and every
// client and transaction of it carries the Set (ent's Signals dependency):
// two stores in one process, as tests open, never hear each other.
//
// Other replicas learn of these changes otherwise (polling, the bus, a
// cache's time limit). It imports nothing of this service.
package signals

import (
	"math/rand/v2"
	"sync/atomic"
)

// Set is one store's signals. The zero of *Set (nil) signals nothing: a
// version reads 0, a wake is dropped, Woken never fires.
type Set struct {
	wake *Signal
	// cached moves on after every committed change to a stage or a user.
	cached atomic.Int64
	// keys moves on after every committed change to what decides whether
	// an API key works.
	keys atomic.Int64
	// turns numbers the transactions that add to a hot count.
	turns atomic.Uint64
}

// New returns the signals of a store just opened.
func New() *Set {
	s := &Set{wake: NewSignal()}
	s.turns.Store(rand.Uint64()) // replicas begin apart
	return s
}

// Woken is signalled when events or deliveries due now have committed;
// the store's delivery worker waits on it.
func (s *Set) Woken() <-chan struct{} {
	if s == nil {
		return nil
	}
	return s.wake.C()
}

// Wake nudges the worker without blocking.
func (s *Set) Wake() {
	if s == nil {
		return
	}
	s.wake.Notify()
}

// Version changes after every committed change to a stage or a user.
func (s *Set) Version() int64 {
	if s == nil {
		return 0
	}
	return s.cached.Load()
}

// BumpVersion moves Version on.
func (s *Set) BumpVersion() {
	if s != nil {
		s.cached.Add(1)
	}
}

// KeysVersion changes after every committed change to an API key that
// decides whether it works: a revocation, a rotation, a new expiry or new
// scopes.
func (s *Set) KeysVersion() int64 {
	if s == nil {
		return 0
	}
	return s.keys.Load()
}

// BumpKeysVersion moves KeysVersion on.
func (s *Set) BumpKeysVersion() {
	if s != nil {
		s.keys.Add(1)
	}
}

// Turn is the next turn at the hot counts' slots (a transaction's, which
// keeps it): the transactions writing at once take consecutive turns, so
// they land on different slots. A nil Set draws one by chance.
func (s *Set) Turn() uint64 {
	if s == nil {
		return rand.Uint64()
	}
	return s.turns.Add(1)
}
