package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis carries frames through Redis pub/sub, for replicas that share a
// Redis (SVC_REDIS_URL). Its client reconnects by itself; the listener
// subscribes again after a loss.
type Redis struct {
	client *redis.Client
	prefix string
	logger *slog.Logger
}

// DefaultRedisPrefix prefixes the channels when no prefix is given.
const DefaultRedisPrefix = "svc:bus:"

// NewRedis returns a transport over the Redis at url (redis://host:port/db)
// whose channels are prefix followed by the topic.
func NewRedis(url, prefix string, logger *slog.Logger) (*Redis, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("SVC_REDIS_URL is not a redis:// URL: %w", err)
	}
	// A publish is sent from the bus's own goroutine: a slow Redis delays
	// other replicas' updates, never a write.
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = time.Second, time.Second, time.Second
	if prefix == "" {
		prefix = DefaultRedisPrefix
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Redis{client: redis.NewClient(opts), prefix: prefix, logger: logger}, nil
}

func (r *Redis) channel(t Topic) string { return r.prefix + string(t) }

// Send publishes frame on topic's channel.
func (r *Redis) Send(ctx context.Context, topic Topic, frame []byte) error {
	if err := r.client.Publish(ctx, r.channel(topic), frame).Err(); err != nil {
		return fmt.Errorf("publishing to %s: %w", r.channel(topic), err)
	}
	return nil
}

// Listen subscribes to every topic's channel until ctx ends, subscribing
// again after a loss; messages published while it was away are lost.
func (r *Redis) Listen(ctx context.Context, deliver func(Topic, []byte), ready func()) {
	byChannel := map[string]Topic{}
	var channels []string
	for _, t := range topics {
		byChannel[r.channel(t)] = t
		channels = append(channels, r.channel(t))
	}
	for attempt := 0; ; attempt++ {
		err := r.listenOnce(ctx, channels, byChannel, deliver, func() { attempt = 0; ready() })
		if ctx.Err() != nil {
			return
		}
		r.logger.Warn("change bus: Redis subscription lost; subscribing again", "err", err, "wait", backoff(attempt))
		if !sleep(ctx, backoff(attempt)) {
			return
		}
	}
}

func (r *Redis) listenOnce(ctx context.Context, channels []string, byChannel map[string]Topic, deliver func(Topic, []byte), ready func()) error {
	ps := r.client.Subscribe(ctx, channels...)
	defer ps.Close()
	// Receive does not watch ctx: closing the subscription ends it.
	defer context.AfterFunc(ctx, func() { ps.Close() })()
	// The first reply confirms the subscription.
	if _, err := ps.Receive(ctx); err != nil {
		return fmt.Errorf("subscribing: %w", err)
	}
	ready()
	for {
		// A quiet subscription is checked every idleCheck, so that one
		// lost without a word (a network cut) is noticed and replaced.
		msg, err := ps.ReceiveTimeout(ctx, idleCheck)
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() && ctx.Err() == nil {
			if err := ps.Ping(ctx); err != nil {
				return fmt.Errorf("checking the quiet subscription: %w", err)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("receiving: %w", err)
		}
		switch m := msg.(type) {
		case *redis.Message:
			if t, ok := byChannel[m.Channel]; ok {
				deliver(t, []byte(m.Payload))
			}
		case *redis.Subscription:
			ready() // subscribed again after a reconnect
		}
	}
}

// Close closes the client.
func (r *Redis) Close() error { return r.client.Close() }
