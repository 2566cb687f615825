package store

import (
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent"
)

// A read that began before a revocation and ended after it must not answer
// for a request whose read began after it: the newer read is used and
// kept. A read as new as this one is shared, so requests reading together
// claim one lastUsedAt write.
func TestKeyCacheKeepsTheNewerRead(t *testing.T) {
	start := time.Now()
	revoked := time.Now()
	// older's read began before the revocation (and may end after it).
	older := &cachedKey{rec: &ent.APIKey{}, version: 2, fetched: start.Add(-time.Millisecond)}
	newer := &cachedKey{rec: &ent.APIKey{RevokedAt: &revoked}, version: 2, fetched: start}

	var kc KeyCache
	kc.entries.Store("h", older)
	if got := kc.keep("h", newer); got != newer {
		t.Fatal("a read from before the revocation answered for a read from after it")
	}
	if e, _ := kc.entries.Load("h"); e != newer {
		t.Fatal("the older read stayed cached")
	}

	// An entry of an older keys version is replaced even if read later.
	stale := &cachedKey{rec: &ent.APIKey{}, version: 1, fetched: start.Add(time.Second)}
	kc.entries.Store("h", stale)
	if got := kc.keep("h", newer); got != newer {
		t.Fatal("an entry of an older keys version was kept")
	}

	// A companion read that began no later than the kept one, at the same
	// version, shares it.
	companion := &cachedKey{rec: &ent.APIKey{}, version: 2, fetched: start.Add(-time.Millisecond)}
	if got := kc.keep("h", companion); got != newer {
		t.Fatal("a companion read of the same version was not shared")
	}
}
