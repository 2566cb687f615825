package dispositions_test

import (
	"maps"
	"testing"

	"github.com/lendingpipe/svc/analytics/dispositions"
)

func read(t *testing.T, s string) (map[string]int, error) {
	t.Helper()
	var r dispositions.Reader
	out := map[string]int{}
	err := r.Each(s, func(code string, n int) { out[code] += n })
	return out, err
}

func TestPackReadsBack(t *testing.T) {
	for _, counts := range []map[string]int{
		{},
		{"interested": 3},
		{"interested": 3, "callback": 1, `left "VM" – rappel`: 2, "a.b[0]": -1, "$": 7},
	} {
		packed := dispositions.Pack(counts)
		got, err := read(t, packed)
		if err != nil {
			t.Fatalf("%s: %v", packed, err)
		}
		if !maps.Equal(got, counts) {
			t.Fatalf("%s read back as %v, want %v", packed, got, counts)
		}
	}
	if got := dispositions.Pack(map[string]int{"gone": 0}); got != dispositions.Empty {
		t.Fatalf("zero counts packed as %s, want %s", got, dispositions.Empty)
	}
}

// PostgreSQL writes jsonb as text with spaces; SQLite without.
func TestReadsEitherDatabasesText(t *testing.T) {
	want := map[string]int{"ab": 2, "cd": 10}
	for _, s := range []string{`{"6162":2,"6364":10}`, `{"6162": 2, "6364": 10}`, ` { "6162" : 2 , "6364" : 10 } `} {
		got, err := read(t, s)
		if err != nil || !maps.Equal(got, want) {
			t.Fatalf("%s: %v, %v; want %v", s, got, err, want)
		}
	}
}

func TestRefusesMalformed(t *testing.T) {
	for _, s := range []string{``, `{`, `{"6162"}`, `{"6162":}`, `{"6162":1`, `{"6162":1,}`, `{"zz":1}`, `{"6162":1} x`, `[]`, `{"6162":1.5}`} {
		if got, err := read(t, s); err == nil {
			t.Errorf("%q read as %v, want an error", s, got)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add(`{"6162":2,"6364":10}`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := read(t, s)
		if err != nil {
			return
		}
		again, err := read(t, dispositions.Pack(got))
		if err != nil {
			t.Fatalf("%q: repacked: %v", s, err)
		}
		for code, n := range got {
			if n != 0 && again[code] != n {
				t.Fatalf("%q: %s read %d, repacked %d", s, code, n, again[code])
			}
		}
	})
}
