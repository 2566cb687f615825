package store_test

import (
	"context"
	"strings"
	"testing"

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
