package graph

import (
	"time"

	"github.com/lendingpipe/svc/internal/telemetry"
)

// HandlerConfig bounds what one GraphQL operation and one websocket session
// may cost. It is read once at start-up (config.go, SVC_GRAPHQL_* and
// SVC_WS_*); zero values take the defaults.
type HandlerConfig struct {
	// MaxComplexity bounds an operation's cost: each field costs 1, and a
	// connection or list multiplies what it selects by its page size.
	MaxComplexity int
	// MaxPageSize bounds first, last and limit on every connection and page,
	// and the ids of nodes(ids:); it is also the page size of a connection
	// asked for with neither first nor last.
	MaxPageSize int
	// MaxTokens bounds the lexical tokens of one query document, which bounds
	// the time parsing and validation may take before any deadline applies.
	MaxTokens int
	// Timeout is how long one operation may run, parsing included.
	Timeout time.Duration

	// Websocket sessions.
	WSInitTimeout      time.Duration // from connect to connection_init
	WSRecheckInterval  time.Duration // how often an open socket's API key is checked again
	WSMaxSubscriptions int           // concurrent subscriptions of one API key in this process
	// WSMaxMessageBytes bounds the payload of one incoming websocket
	// message, connection_init included; the HTTP root (root) sets
	// it to the HTTP body limit when unset.
	WSMaxMessageBytes int64
	// Uploads bound the files of multipart requests.
	Uploads UploadLimits
	// WSKeys is the HTTP surface's rules for a socket's API key (re-check,
	// shared rate budget). The HTTP root (root) sets it from
	// rest.Edge; it is no setting.
	WSKeys WebsocketKeys
	// Metrics is the server's registry, where each operation's latency is
	// recorded; the HTTP root sets it. No setting.
	Metrics *telemetry.Metrics
}

// Defaults of HandlerConfig.
const (
	DefaultMaxComplexity = 2000
	DefaultMaxPageSize   = 100
	DefaultMaxTokens     = 5000
	DefaultTimeout       = 15 * time.Second

	DefaultWSInitTimeout = 10 * time.Second
	// Half the key cache's lifetime: a revoked key's sockets close within
	// store.KeyCacheTTL, as its HTTP requests start failing.
	DefaultWSRecheckInterval  = 5 * time.Second
	DefaultWSMaxSubscriptions = 20
	DefaultWSMaxMessageBytes  = 1 << 20
)

// Fixed bounds, not worth a setting.
const (
	// MaxErrors is how many errors one response lists; the rest are
	// summed up in one TOO_MANY_ERRORS error.
	MaxErrors = 50
	// MaxIntrospectionDepth bounds the nesting inside __schema and __type,
	// which graphql-js's and GraphiQL's introspection queries take to 14.
	MaxIntrospectionDepth = 20
	// MaxIntrospectionFields bounds the selections inside __schema and
	// __type, fragments expanded; the standard introspection query makes
	// about 200.
	MaxIntrospectionFields = 500
	// listEstimate is what an unpaginated list of objects (an automation's
	// actions, a delivery's attempts) is assumed to hold when costing.
	listEstimate = 10
)

// WithDefaults fills in the zero (or negative) values.
func (c HandlerConfig) WithDefaults() HandlerConfig {
	c.MaxComplexity = orDefault(c.MaxComplexity, DefaultMaxComplexity)
	c.MaxPageSize = orDefault(c.MaxPageSize, DefaultMaxPageSize)
	c.MaxTokens = orDefault(c.MaxTokens, DefaultMaxTokens)
	c.Timeout = orDefault(c.Timeout, DefaultTimeout)
	c.WSInitTimeout = orDefault(c.WSInitTimeout, DefaultWSInitTimeout)
	c.WSRecheckInterval = orDefault(c.WSRecheckInterval, DefaultWSRecheckInterval)
	c.WSMaxSubscriptions = orDefault(c.WSMaxSubscriptions, DefaultWSMaxSubscriptions)
	c.WSMaxMessageBytes = orDefault(c.WSMaxMessageBytes, DefaultWSMaxMessageBytes)
	c.Uploads = c.Uploads.withDefaults()
	return c
}

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
