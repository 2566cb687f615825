package signals

// A Signal lets code that queues work wake this process's worker for it at
// once rather than at its next poll; workers on other replicas still poll.
// Signals sent while the worker is busy collapse into one, and sending
// never blocks. A nil *Signal takes sends and never fires.
type Signal struct{ c chan struct{} }

// NewSignal returns a Signal nobody has sent yet.
func NewSignal() *Signal { return &Signal{c: make(chan struct{}, 1)} }

// Notify wakes the worker waiting on C, or the next one to wait.
func (s *Signal) Notify() {
	if s == nil {
		return
	}
	select {
	case s.c <- struct{}{}:
	default:
	}
}

// C fires once after one or more Notify calls.
func (s *Signal) C() <-chan struct{} {
	if s == nil {
		return nil
	}
	return s.c
}
