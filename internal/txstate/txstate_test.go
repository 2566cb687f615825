package txstate_test

import (
	"context"
	"testing"

	"github.com/lendingpipe/svc/internal/txstate"
)

type key struct{}

func TestStateLivesInItsContext(t *testing.T) {
	if _, _, ok := txstate.LoadOrStore(context.Background(), key{}, 1); ok {
		t.Fatal("a context without a transaction state kept a value")
	}
	ctx := txstate.New(context.Background())
	if v, loaded, ok := txstate.LoadOrStore(ctx, key{}, 1); !ok || loaded || v != 1 {
		t.Fatalf("first store: %v %v %v", v, loaded, ok)
	}
	if v, loaded, ok := txstate.LoadOrStore(ctx, key{}, 2); !ok || !loaded || v != 1 {
		t.Fatalf("second store: %v %v %v, want the first value kept", v, loaded, ok)
	}
	if v, ok := txstate.Load[int](ctx, key{}); !ok || v != 1 {
		t.Fatalf("load: %v %v", v, ok)
	}
	other := txstate.New(context.Background())
	if _, ok := txstate.Load[int](other, key{}); ok {
		t.Fatal("another transaction's state holds the value")
	}
}
