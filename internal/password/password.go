// Package password hashes and checks the passwords people sign in with
// (PRODUCT 9.1). Hashes are argon2id (golang.org/x/crypto/argon2), each with
// its own random salt, written in the PHC string format so that a stored
// hash carries the parameters it was made with; Verify reports when those
// are weaker than the current ones, so the caller can upgrade the hash at
// the next successful sign-in. A Hasher bounds how many hashes run at once,
// since each holds Params.MemoryKiB of memory.
//
// Check applies the rules a new password must meet: 12 to 128 characters,
// not the person's email, not in the list of common passwords embedded
// in the binary (common.txt, taken from Dropbox's zxcvbn through its Go
// port by Trustelem, MIT licence; see COMMON-LICENSE.txt).
//
// A leaf: it imports nothing of this module.
package password

import "fmt"

// Params are argon2id's parameters: passes over memory, memory in KiB,
// lanes, and the lengths in bytes of the salt and of the derived key.
type Params struct {
	Time, MemoryKiB uint32
	Threads         uint8
	SaltLen, KeyLen uint32
}

// DefaultParams are the parameters of new hashes; never written.
//
// 64 MiB and two passes on one lane: one hash took about 100 ms on the
// two-core machine BenchmarkHash ran on (one pass, about 65 ms, left too
// little margin over the 50 ms floor that keeps guessing a stolen hash's
// password slow), while four hashes at once, the sign-in flows' default
// bound, hold 256 MiB. One lane rather than two because a lane per core
// shortens the wait but not an attacker's work, and sign-ins arriving
// together use the cores anyway. This is RFC 9106's second recommended
// setting (64 MiB) with fewer passes and lanes, well above OWASP's
// minimum for argon2id (19 MiB, 2 passes); salt 16 bytes and key 32, as
// RFC 9106 recommends. Hashes made with weaker parameters are upgraded at
// their next sign-in (Verify's rehash), so raising these is safe.
var DefaultParams = Params{Time: 2, MemoryKiB: 64 * 1024, Threads: 1, SaltLen: 16, KeyLen: 32}

// Bounds on the parameters Hash accepts and Verify reads from a stored
// hash: a corrupt or hostile row must not make a sign-in allocate or run
// without bound, nor reach argon2's panics (no passes, no lanes).
const (
	maxMemoryKiB = 1 << 20 // 1 GiB
	maxTime      = 20
	minSaltLen   = 8 // RFC 9106's minimum salt
	maxSaltLen   = 64
	minKeyLen    = 16
	maxKeyLen    = 64
	// maxEncodedLen is longer than any hash within the bounds above, so a
	// longer string is refused before it is split or decoded.
	maxEncodedLen = 256
)

// check reports why p is outside the bounds, or nil.
func (p Params) check() error {
	switch {
	case p.Time < 1 || p.Time > maxTime:
		return fmt.Errorf("time %d is outside 1 to %d", p.Time, maxTime)
	case p.Threads < 1:
		return fmt.Errorf("threads %d is below 1", p.Threads)
	case p.MemoryKiB < 8*uint32(p.Threads) || p.MemoryKiB > maxMemoryKiB:
		// RFC 9106: at least 8 KiB a lane.
		return fmt.Errorf("memory %d KiB is outside %d to %d", p.MemoryKiB, 8*uint32(p.Threads), maxMemoryKiB)
	case p.SaltLen < minSaltLen || p.SaltLen > maxSaltLen:
		return fmt.Errorf("salt length %d is outside %d to %d", p.SaltLen, minSaltLen, maxSaltLen)
	case p.KeyLen < minKeyLen || p.KeyLen > maxKeyLen:
		return fmt.Errorf("key length %d is outside %d to %d", p.KeyLen, minKeyLen, maxKeyLen)
	}
	return nil
}

// weakerThan reports whether a hash made with p costs less to guess, or
// is shorter, than one made with current. Lanes are left out: they change
// how long a hash takes, not how much work it is.
func (p Params) weakerThan(current Params) bool {
	return p.Time < current.Time || p.MemoryKiB < current.MemoryKiB ||
		p.SaltLen < current.SaltLen || p.KeyLen < current.KeyLen
}
