package store

import (
	"fmt"
	"log/slog"

	"entgo.io/ent/dialect"

	"github.com/lendingpipe/svc/internal/bus"
)

// The change bus settings (Options.Bus, SVC_BUS).
const (
	BusAuto     = "auto"     // Redis when a Redis URL is set, else PostgreSQL's on PostgreSQL, else memory
	BusMemory   = "memory"   // this process only: one replica
	BusPostgres = "postgres" // LISTEN/NOTIFY on the service's database
	BusRedis    = "redis"    // Redis pub/sub (needs a Redis URL)
)

// CheckBus reports whether kind is a bus setting that databaseURL and
// redisURL allow.
func CheckBus(kind, databaseURL, redisURL string) error {
	switch kind {
	case "", BusAuto, BusMemory:
		return nil
	case BusPostgres:
		if !isPostgres(databaseURL) {
			return fmt.Errorf("%q needs a PostgreSQL database", kind)
		}
		return nil
	case BusRedis:
		if redisURL == "" {
			return fmt.Errorf("%q needs SVC_REDIS_URL", kind)
		}
		return nil
	}
	return fmt.Errorf("must be auto, memory, postgres or redis, got %q", kind)
}

// openBus chooses and opens the change bus for a database of dialect dia
// at databaseURL (its pool read).
func (s *DB) openBus(opts Options, databaseURL string) (*bus.Bus, error) {
	if err := CheckBus(opts.Bus, databaseURL, opts.RedisURL); err != nil {
		return nil, fmt.Errorf("change bus: %w", err)
	}
	logger := slog.Default()
	kind := opts.Bus
	if kind == "" || kind == BusAuto {
		switch {
		case opts.RedisURL != "":
			kind = BusRedis
		case s.Dialect == dialect.Postgres:
			kind = BusPostgres
		default:
			kind = BusMemory
		}
	}
	s.BusKind = kind
	switch kind {
	case BusRedis:
		t, err := bus.NewRedis(opts.RedisURL, opts.RedisPrefix, logger)
		if err != nil {
			return nil, err
		}
		return bus.New(t, logger), nil
	case BusPostgres:
		return bus.New(bus.NewPostgres(s.SQL, databaseURL, logger), logger), nil
	}
	return bus.Memory(), nil
}
