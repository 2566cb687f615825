package bus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/url"

	"github.com/jackc/pgx/v5"
)

// Postgres carries frames through PostgreSQL's LISTEN/NOTIFY: it sends
// with pg_notify on the service's own pool, after the change's commit, and
// listens on a connection of its own, reconnecting with backoff and
// listening again after a loss.
//
// It notifies after the commit rather than inside the transaction:
// a NOTIFY in the transaction would cost every write a round trip while
// it holds its locks, and PostgreSQL serializes the commits of notifying
// transactions; sent afterwards, a burst of commits shares a few frames.
// The price is that a process that dies between commit and send loses the
// message, which a live view tolerates (its next update is whole).
type Postgres struct {
	db     *sql.DB
	dsn    string
	prefix string // channel prefix: one per schema the DSN names
	logger *slog.Logger
}

// NewPostgres returns a transport that sends through db and listens on its
// own connection to dsn (a postgres:// URL). Replicas on one database but
// different schemas (search_path) use different channels.
func NewPostgres(db *sql.DB, dsn string, logger *slog.Logger) *Postgres {
	prefix := "svc_"
	if u, err := url.Parse(dsn); err == nil && u.Query().Get("search_path") != "" {
		h := fnv.New32a()
		h.Write([]byte(u.Query().Get("search_path")))
		prefix = fmt.Sprintf("svc_%08x_", h.Sum32())
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Postgres{db: db, dsn: dsn, prefix: prefix, logger: logger}
}

func (p *Postgres) channel(t Topic) string { return p.prefix + string(t) }

// Send notifies topic's channel.
func (p *Postgres) Send(ctx context.Context, topic Topic, frame []byte) error {
	if _, err := p.db.ExecContext(ctx, "SELECT pg_notify($1, $2)", p.channel(topic), string(frame)); err != nil {
		return fmt.Errorf("notifying %s: %w", p.channel(topic), err)
	}
	return nil
}

// Listen holds a connection listening to every topic's channel until ctx
// ends, reconnecting after a loss; notifications sent while it was away
// are lost.
func (p *Postgres) Listen(ctx context.Context, deliver func(Topic, []byte), ready func()) {
	byChannel := map[string]Topic{}
	for _, t := range topics {
		byChannel[p.channel(t)] = t
	}
	for attempt := 0; ; attempt++ {
		err := p.listenOnce(ctx, byChannel, deliver, func() { attempt = 0; ready() })
		if ctx.Err() != nil {
			return
		}
		p.logger.Warn("change bus: PostgreSQL listener lost; reconnecting", "err", err, "wait", backoff(attempt))
		if !sleep(ctx, backoff(attempt)) {
			return
		}
	}
}

func (p *Postgres) listenOnce(ctx context.Context, byChannel map[string]Topic, deliver func(Topic, []byte), ready func()) error {
	conn, err := pgx.Connect(ctx, p.dsn)
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for ch := range byChannel {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return fmt.Errorf("listening on %s: %w", ch, err)
		}
	}
	ready()
	for {
		// A quiet connection is checked every idleCheck, so that one lost
		// without a word (a network cut) is noticed and replaced.
		wait, cancel := context.WithTimeout(ctx, idleCheck)
		n, err := conn.WaitForNotification(wait)
		cancel()
		if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			if err := conn.Ping(ctx); err != nil {
				return fmt.Errorf("checking the quiet connection: %w", err)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("waiting for notifications: %w", err)
		}
		if t, ok := byChannel[n.Channel]; ok {
			deliver(t, []byte(n.Payload))
		}
	}
}

// Close has nothing to release: the pool is the store's, and the
// listening connection closes when its context ends.
func (p *Postgres) Close() error { return nil }
