package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
)

var errRefused = errors.New("refused on purpose")

// Transactions queued behind one another on SQLite share a commit, yet each
// behaves as its own: a failed or panicking one leaves no trace and does not
// take the others with it, a successful one is visible to other connections
// by the time Commit returns, and commit hooks run only after the shared
// commit.
func TestGroupCommit(t *testing.T) {
	db, ctx := openSQLite(t, store.Options{})
	visible := func(name string) bool {
		n, err := db.Client.Organization.Query().Where(organization.Name(name)).Count(ctx)
		if err != nil {
			t.Error(err)
		}
		return n == 1
	}

	// The first transaction holds the writer until the others have queued.
	held := make(chan struct{})
	release := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		err := store.WithTx(ctx, db.Client, func(ctx context.Context, tx *ent.Client) error {
			close(held)
			<-release
			return createOrg(ctx, tx, "first")
		})
		if err != nil {
			t.Error(err)
		}
	})
	<-held

	const n = 30
	hookSaw := make([]bool, n)
	for i := range n {
		wg.Go(func() {
			name := fmt.Sprintf("org-%d", i)
			defer func() {
				if p := recover(); p != nil && i%10 != 9 {
					t.Errorf("%s: unexpected panic %v", name, p)
				}
			}()
			err := store.WithTx(ctx, db.Client, func(ctx context.Context, tx *ent.Client) error {
				if err := createOrg(ctx, tx, name); err != nil {
					return err
				}
				events.AfterCommit(ctx, func() { hookSaw[i] = visible(name) })
				switch i % 10 {
				case 3:
					return errRefused
				case 9:
					panic("a resolver bug")
				}
				return nil
			})
			switch {
			case i%10 == 3 && !errors.Is(err, errRefused):
				t.Errorf("%s: got %v, want the refusal", name, err)
			case i%10 != 3 && err != nil:
				t.Errorf("%s: %v", name, err)
			case err == nil && !visible(name):
				t.Errorf("%s: committed but not visible to another connection", name)
			}
		})
	}
	time.Sleep(200 * time.Millisecond) // let them queue behind "first"
	close(release)
	wg.Wait()

	names, err := db.Client.Organization.Query().Select(organization.FieldName).Strings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, name := range names {
		got[name] = true
	}
	for i := range n {
		name := fmt.Sprintf("org-%d", i)
		failed := i%10 == 3 || i%10 == 9
		if got[name] == failed {
			t.Errorf("%s: stored %v, failed %v", name, got[name], failed)
		}
		if hookSaw[i] == failed {
			t.Errorf("%s: commit hook saw it committed: %v, failed %v", name, hookSaw[i], failed)
		}
	}
	txs, commits := db.GroupCommitStats()
	// 25 succeed (and migrations commit a few of their own); queued
	// behind "first", they need only a few commits.
	if txs < 25 || commits > txs/4 {
		t.Fatalf("%d transactions in %d commits: queued transactions did not share commits", txs, commits)
	}
	t.Logf("%d transactions in %d commits", txs, commits)
}

// A transaction whose context ends while it waits for the writer gives up
// with the context's error and holds nothing up.
func TestGroupCommitWaitHeedsContext(t *testing.T) {
	db, ctx := openSQLite(t, store.Options{})
	held := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- store.WithTx(ctx, db.Client, func(ctx context.Context, tx *ent.Client) error {
			close(held)
			<-release
			return createOrg(ctx, tx, "holder")
		})
	}()
	<-held
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	err := store.WithTx(short, db.Client, func(ctx context.Context, tx *ent.Client) error {
		return createOrg(ctx, tx, "late")
	})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "starting transaction") {
		t.Fatalf("waiting past the deadline: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The writer is free again.
	if err := createOrg(ctx, db.Client, "after"); err != nil {
		t.Fatal(err)
	}
	if n, _ := db.Client.Organization.Query().Count(ctx); n != 2 {
		t.Fatalf("%d organizations, want holder and after", n)
	}
}

// openSQLite opens a database file of the test's own, closed when it ends,
// and a system context to use it with.
func openSQLite(t *testing.T, opts store.Options) (*store.DB, context.Context) {
	t.Helper()
	ctx := rule.SystemContext(context.Background())
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "test.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, ctx
}

func createOrg(ctx context.Context, c *ent.Client, name string) error {
	return c.Organization.Create().SetName(name).SetConnectorTokenHash("hash of " + name).Exec(ctx)
}

// A queued transaction that gives up at the moment the writer is handed to
// it does not strand the group the previous one left open for it: that
// one's commit still returns.
func TestGroupCommitQueuedGivesUp(t *testing.T) {
	db, ctx := openSQLite(t, store.Options{})
	for i := range 300 {
		held := make(chan struct{})
		release := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- store.WithTx(ctx, db.Client, func(ctx context.Context, tx *ent.Client) error {
				close(held)
				<-release
				return createOrg(ctx, tx, fmt.Sprintf("held %d", i))
			})
		}()
		<-held
		queued, cancel := context.WithCancel(ctx)
		gaveUp := make(chan struct{})
		go func() {
			defer close(gaveUp)
			_ = store.WithTx(queued, db.Client, func(ctx context.Context, tx *ent.Client) error {
				return createOrg(ctx, tx, fmt.Sprintf("queued %d", i))
			})
		}()
		time.Sleep(time.Millisecond) // let it queue
		go cancel()
		close(release)
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: the held transaction's commit never returned", i)
		}
		<-gaveUp
	}
}
