package password

import (
	"context"
	"fmt"
)

// Hasher hashes and verifies passwords with one set of parameters, at most
// a fixed number at once: each hash holds Params.MemoryKiB while it runs,
// so a burst of sign-ins waits for a slot rather than exhausting memory.
// One Hasher is shared by every request of a server.
type Hasher struct {
	p     Params
	slots chan struct{}
}

// NewHasher returns a Hasher making hashes with p, at most maxConcurrent at
// once (at least one).
func NewHasher(p Params, maxConcurrent int) *Hasher {
	return &Hasher{p: p, slots: make(chan struct{}, max(maxConcurrent, 1))}
}

// Params are the parameters of the Hasher's new hashes.
func (h *Hasher) Params() Params { return h.p }

// acquire waits for a slot, or for ctx to end. A context already ended
// gets no slot even when one is free, so an abandoned request never starts
// a hash.
func (h *Hasher) acquire(ctx context.Context) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("waiting to hash a password: %w", err)
	}
	select {
	case h.slots <- struct{}{}:
		return func() { <-h.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting to hash a password: %w", ctx.Err())
	}
}

// Hash hashes password with the Hasher's parameters (Hash).
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return Hash(password, h.p)
}

// Verify checks password against encoded; rehash reports that encoded was
// made with parameters weaker than the Hasher's (Verify).
func (h *Hasher) Verify(ctx context.Context, password, encoded string) (ok, rehash bool, err error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return false, false, err
	}
	defer release()
	return Verify(password, encoded, h.p)
}

// VerifyDummy does a verify's work against no stored hash (VerifyDummy),
// for a sign-in that has none to check.
func (h *Hasher) VerifyDummy(ctx context.Context, password string) error {
	release, err := h.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	return VerifyDummy(password, h.p)
}
