package rest_test

import (
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/rest/resttest"
)

// Two replicas on one PostgreSQL. A key revoked through replica A is
// refused by A at once. A revocation another process commits reaches a
// replica within the key cache's lifetime, however recently the replica
// last used the key: the replicas here share this process, which tells
// them of its own revocations at once, so the other process's is written
// beside the service, as only it could be. The time each took is logged:
// the revocation latency across processes.
func TestRevocationReachesEveryReplica(t *testing.T) {
	if os.Getenv(storetest.EnvURL) == "" {
		t.Skip("needs PostgreSQL (SVC_TEST_DATABASE_URL): replicas share a database server")
	}
	reps := startReplicas(t, storetest.URL(t), 2, replicaConfig(1_000_000))
	_, admin := resttest.OrgWithKey(t, reps[0].db, "Replicated Keys", viewer.AllScopes...)
	newKey := func() (key, id string) {
		code, body := send(t, "POST", reps[0].srv.URL+"/graphql", admin, nil,
			`{"query":"mutation { createApiKey(input: {name: \"Bridge\", scopes: [\"leads:read\"]}) { secret apiKey { id } } }"}`)
		if code != http.StatusOK || body["errors"] != nil {
			t.Fatalf("creating the key: %d %v", code, body)
		}
		created := body["data"].(map[string]any)["createApiKey"].(map[string]any)
		key, id = created["secret"].(string), created["apiKey"].(map[string]any)["id"].(string)
		for _, r := range reps { // both replicas hold the key in their caches
			if code, _ := send(t, "GET", r.srv.URL+"/v1/leads", key, nil, ""); code != http.StatusOK {
				t.Fatalf("the new key: %d", code)
			}
		}
		return key, id
	}

	key, id := newKey()
	code, body := send(t, "POST", reps[0].srv.URL+"/graphql", admin, nil,
		`{"query":"mutation { revokeApiKey(id: \"`+id+`\") { revokedAt } }"}`)
	if code != http.StatusOK || body["errors"] != nil {
		t.Fatalf("revoking: %d %v", code, body)
	}
	if code, _ := send(t, "GET", reps[0].srv.URL+"/v1/leads", key, nil, ""); code != http.StatusUnauthorized {
		t.Errorf("the replica that revoked answered %d; want 401 at once", code)
	}

	key, id = newKey()
	if _, err := reps[0].db.SQL.Exec(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	for i, r := range reps {
		for {
			code, _ := send(t, "GET", r.srv.URL+"/v1/leads", key, nil, "")
			if code == http.StatusUnauthorized {
				t.Logf("replica %d refused the key another process revoked after %v", i+1, time.Since(revoked).Round(time.Millisecond))
				break
			}
			if time.Since(revoked) > store.KeyCacheTTL+time.Second {
				t.Fatalf("replica %d still answers %d %v after the revocation", i+1, code, time.Since(revoked))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
