package store_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
)

// API keys and connector tokens are stored only as hashes: no column of
// any key or organization row holds the secret or its random part.
func TestSecretsStoredOnlyAsHashes(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t)
	org, token, err := store.CreateOrganization(ctx, db.Client, "Hashed")
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := store.CreateAPIKey(ctx, db.Client, org.ID, "live", "k", viewer.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	secretPart := key[strings.LastIndexByte(key, '_')+1:]
	var stored strings.Builder
	for _, table := range []string{"api_keys", "organizations"} {
		rows, err := db.SQL.QueryContext(ctx, "SELECT * FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				if b, ok := v.([]byte); ok {
					v = string(b)
				}
				stored.WriteString(strings.ToLower(strings.TrimSpace(toString(v))) + "\n")
			}
		}
		rows.Close()
	}
	all := stored.String()
	for name, s := range map[string]string{"API key": secretPart, "connector token": token[strings.LastIndexByte(token, '_')+1:]} {
		if strings.Contains(all, strings.ToLower(s)) {
			t.Errorf("the %s is stored in plaintext", name)
		}
	}
	if !strings.Contains(all, store.Hash(key)) || !strings.Contains(all, store.Hash(token)) {
		t.Error("the hashes are not stored; the check above proved nothing")
	}
	got, err := db.Client.APIKey.Query().Only(rule.SystemContext(ctx))
	if err != nil || got.Hash != store.Hash(key) {
		t.Fatalf("key row: %v", err)
	}
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// A key's lastUsedAt costs no write per request: presented again and
// again, it is written once, then again only a minute later (by the
// request's time), and concurrent first uses write it once.
func TestLastUsedWrittenAtMostOnceAMinute(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t)
	org, _, err := store.CreateOrganization(ctx, db.Client, "Used")
	if err != nil {
		t.Fatal(err)
	}
	key, rec, err := store.CreateAPIKey(ctx, db.Client, org.ID, "live", "used", []string{viewer.ScopeLeadsRead})
	if err != nil {
		t.Fatal(err)
	}
	lastUsed := func() *time.Time {
		k, err := db.Client.APIKey.Get(rule.SystemContext(ctx), rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		return k.LastUsedAt
	}
	waitFor := func(want time.Time) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for got := lastUsed(); got == nil || !got.Equal(want); got = lastUsed() {
			if time.Now().After(deadline) {
				t.Fatalf("lastUsedAt %v; want %v", got, want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var kc store.KeyCache
	start := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := kc.Authenticate(ctx, db.Client, key, start); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	waitFor(start)
	for _, at := range []time.Duration{time.Second, 30 * time.Second, 59 * time.Second} {
		if _, err := kc.Authenticate(ctx, db.Client, key, start.Add(at)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond) // a write would land now
	if got := lastUsed(); got == nil || !got.Equal(start) {
		t.Fatalf("lastUsedAt %v within the minute; want %v still", got, start)
	}
	if _, err := kc.Authenticate(ctx, db.Client, key, start.Add(61*time.Second)); err != nil {
		t.Fatal(err)
	}
	waitFor(start.Add(61 * time.Second))
}
