package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// maxGroup bounds how many transactions share one SQLite commit, so a
// steady stream of writers still commits (and answers) every so often.
// The benchmark that shows what sharing saves sets it to 1
// (BenchmarkWriteTricks).
var maxGroup = 64

// groupCommit runs SQLite transactions as savepoints of one shared
// transaction and commits them together. SQLite has one writer; what a
// transaction costs beyond its statements is mostly its commit: the WAL
// frames of every page it dirtied, and the full-text index flushing its
// pending terms as a new segment. Transactions that queue behind one another
// share that cost instead of paying it each.
//
// Each caller still sees a transaction of its own: its statements run in a
// savepoint, a rollback undoes only its savepoint, and Commit returns only
// once the shared transaction has committed, so nothing (a response, an
// ent commit hook) reports a change before it is durable. Statements run
// one transaction at a time, in the order the transactions began, exactly
// as they did on the single writer connection.
type groupCommit struct {
	drv *entsql.Driver // the pool of the one writer connection
	// turn is held by the one transaction running statements; a buffered
	// channel rather than a mutex so waiting for it heeds the context.
	turn    chan struct{}
	waiting atomic.Int32 // transactions queued for the turn
	members atomic.Int64 // transactions committed, for GroupCommitStats
	commits atomic.Int64 // shared transactions committed

	// Guarded by turn.
	tx      *entsql.Tx // the shared transaction, nil between groups
	pending *group     // its members that have committed their savepoints
}

// group is the outcome of one shared transaction for its members.
type group struct {
	size int
	done chan struct{}
	err  error
}

func newGroupCommit(drv *entsql.Driver) *groupCommit {
	return &groupCommit{drv: drv, turn: make(chan struct{}, 1)}
}

// begin waits for the turn, opens the shared transaction if none is open,
// and starts the caller's savepoint.
func (g *groupCommit) begin(ctx context.Context) (dialect.Tx, error) {
	g.waiting.Add(1)
	select {
	case g.turn <- struct{}{}:
		g.waiting.Add(-1)
	case <-ctx.Done():
		// Still counted as queued: a member may have left its group open
		// for this transaction, so the turn is taken anyway, in the
		// background, to settle the group.
		go g.settle()
		return nil, ctx.Err()
	}
	if g.tx == nil {
		// Not ctx: the shared transaction outlives the request that opens
		// it, and database/sql rolls a transaction back when its context ends.
		tx, err := g.drv.Tx(context.Background())
		if err != nil {
			<-g.turn
			return nil, err
		}
		g.tx, g.pending = tx.(*entsql.Tx), &group{done: make(chan struct{})}
	}
	if err := g.exec("SAVEPOINT member"); err != nil {
		g.abort(err)
		<-g.turn
		return nil, err
	}
	return &memberTx{Tx: g.tx, g: g}, nil
}

func (g *groupCommit) exec(stmt string) error {
	_, err := g.tx.ExecContext(context.Background(), stmt)
	return err
}

// end closes the caller's savepoint, commits the shared transaction when no
// other transaction is queued to join it, hands the turn on, and (for a
// commit) waits for the group's outcome.
func (g *groupCommit) end(commit bool) error {
	var err error
	if commit {
		err = g.exec("RELEASE member")
	} else if err = g.exec("ROLLBACK TO member"); err == nil {
		err = g.exec("RELEASE member")
	}
	group := g.pending
	switch {
	case err != nil:
		// SQLite ended the whole transaction (an I/O error, a full disk):
		// the group's earlier members are lost with it.
		g.abort(fmt.Errorf("group commit: the shared transaction failed: %w", err))
	case commit:
		group.size++
		fallthrough
	default:
		if g.waiting.Load() == 0 || group.size >= maxGroup {
			g.finish()
		}
	}
	<-g.turn
	if !commit {
		return err
	}
	<-group.done
	return group.err
}

// settle takes the turn for a queued transaction that gave up, and commits
// the open group if no other transaction is queued to end it. Every
// transaction counted as queued takes the turn in the end, so a group left
// open for the queue is always finished by its last.
func (g *groupCommit) settle() {
	g.turn <- struct{}{}
	g.waiting.Add(-1)
	if g.tx != nil && g.waiting.Load() == 0 {
		g.finish()
	}
	<-g.turn
}

// finish commits the shared transaction and releases its members.
func (g *groupCommit) finish() {
	err := g.tx.Commit()
	if err != nil {
		err = fmt.Errorf("committing transaction: %w", err)
	} else {
		g.commits.Add(1)
		g.members.Add(int64(g.pending.size))
	}
	g.close(err)
}

// abort rolls the shared transaction back and fails its members.
func (g *groupCommit) abort(err error) {
	if rerr := g.tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
		err = fmt.Errorf("%w (rolling back: %v)", err, rerr)
	}
	g.close(err)
}

func (g *groupCommit) close(err error) {
	g.pending.err = err
	close(g.pending.done)
	g.tx, g.pending = nil, nil
}

// memberTx is one caller's transaction: a savepoint of the shared one.
// Its statements run without the caller's cancellation: SQLite answers an
// interrupted write inside a transaction by rolling back the whole
// transaction, which here would take the other members' work with it.
type memberTx struct {
	*entsql.Tx
	g     *groupCommit
	ended bool
}

func (m *memberTx) Exec(ctx context.Context, query string, args, v any) error {
	return m.Tx.Exec(context.WithoutCancel(ctx), query, args, v)
}

func (m *memberTx) Query(ctx context.Context, query string, args, v any) error {
	return m.Tx.Query(context.WithoutCancel(ctx), query, args, v)
}

func (m *memberTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return m.Tx.ExecContext(context.WithoutCancel(ctx), query, args...)
}

func (m *memberTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return m.Tx.QueryContext(context.WithoutCancel(ctx), query, args...)
}

func (m *memberTx) Commit() error   { return m.finish(true) }
func (m *memberTx) Rollback() error { return m.finish(false) }

func (m *memberTx) finish(commit bool) error {
	if m.ended {
		return sql.ErrTxDone
	}
	m.ended = true
	return m.g.end(commit)
}
