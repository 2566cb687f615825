package graph

// HandlerConfig bounds what GraphQL requests and websocket sessions may
// cost. It is read once at start-up; a zero field takes its default
// (DefaultHandlerConfig).
type HandlerConfig struct {
	// Request bounds: page sizes, cost, parser and validation, time.
	MaxComplexity int // the cost one operation may have

	// Websocket sessions.
}

// DefaultHandlerConfig is the configuration of a server started without
// settings.
func DefaultHandlerConfig() HandlerConfig {
	return HandlerConfig{
		MaxComplexity: 2000,
	}
}

// withDefaults fills every zero field from DefaultHandlerConfig.
func (c HandlerConfig) withDefaults() HandlerConfig {
	d := DefaultHandlerConfig()
	if c.MaxComplexity <= 0 {
		c.MaxComplexity = d.MaxComplexity
	}
	return c
}
