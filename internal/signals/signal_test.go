package signals

import "testing"

func TestSignal(t *testing.T) {
	s := NewSignal()
	s.Notify()
	s.Notify() // collapses into the first
	select {
	case <-s.C():
	default:
		t.Fatal("a notified signal did not fire")
	}
	select {
	case <-s.C():
		t.Fatal("two notifications fired twice")
	default:
	}
	var none *Signal
	none.Notify()
	if none.C() != nil {
		t.Fatal("a nil signal has a channel")
	}
}
