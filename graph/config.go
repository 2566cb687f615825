package graph

import "time"

// HandlerConfig bounds what GraphQL requests and websocket sessions may
// cost. It is read once at start-up; a zero field takes its default
// (DefaultHandlerConfig).
type HandlerConfig struct {
	// Request bounds: page sizes, cost, parser and validation, time.
	MaxComplexity int // the cost one operation may have

	// Websocket sessions.
	WSInitTimeout      time.Duration // from connect to connection_init
	WSRecheckInterval  time.Duration // how often an open socket's API key is checked again
	WSMaxSubscriptions int           // concurrent subscriptions of one API key in this process
	// WSKeys is the HTTP surface's rules for a socket's API key (re-check,
	// shared rate budget). rest.NewServer sets it; it is no setting.
	WSKeys WebsocketKeys
}

// DefaultHandlerConfig is the configuration of a server started without
// settings.
func DefaultHandlerConfig() HandlerConfig {
	return HandlerConfig{
		MaxComplexity: 2000,

		WSInitTimeout: 10 * time.Second,
		// Half the key cache's lifetime: a revoked key's sockets close
		// within store.KeyCacheTTL, as its HTTP requests start failing.
		WSRecheckInterval:  5 * time.Second,
		WSMaxSubscriptions: 20,
	}
}

// withDefaults fills every zero field from DefaultHandlerConfig.
func (c HandlerConfig) withDefaults() HandlerConfig {
	d := DefaultHandlerConfig()
	if c.MaxComplexity <= 0 {
		c.MaxComplexity = d.MaxComplexity
	}
	if c.WSInitTimeout <= 0 {
		c.WSInitTimeout = d.WSInitTimeout
	}
	if c.WSRecheckInterval <= 0 {
		c.WSRecheckInterval = d.WSRecheckInterval
	}
	if c.WSMaxSubscriptions <= 0 {
		c.WSMaxSubscriptions = d.WSMaxSubscriptions
	}
	return c
}
