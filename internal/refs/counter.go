package refs

import "sync/atomic"

type versionCounter struct{ n atomic.Int64 }

func (c *versionCounter) load() int64 { return c.n.Load() }
func (c *versionCounter) bump()       { c.n.Add(1) }
