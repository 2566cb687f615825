package bounds

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// nested is depth objects, each holding the next under a 108-character
// name, with a repeated member "a" in the innermost one.
func nested(depth int) (body []byte, dupPath string) {
	var b strings.Builder
	keys := make([]string, depth)
	for i := range depth {
		keys[i] = strings.Repeat("k", 100) + strings.Repeat("0", 8-len(itoa(i))) + itoa(i)
		b.WriteString(`{"` + keys[i] + `":`)
	}
	b.WriteString(`{"a":1,"a":2}`)
	b.WriteString(strings.Repeat("}", depth))
	return []byte(b.String()), strings.Join(keys, ".") + ".a"
}

func itoa(i int) string {
	s, _ := json.Marshal(i)
	return string(s)
}

func TestDuplicateMemberDeepBodyAllocation(t *testing.T) {
	body, want := nested(2500)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := DuplicateMember(body)
	runtime.ReadMemStats(&after)
	if got != want {
		t.Fatalf("DuplicateMember reported %d-byte path %.40q…, want %d bytes", len(got), got, len(want))
	}
	const limit = 64 << 20
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > limit {
		t.Fatalf("scanning a %d-byte body allocated %d bytes, want at most %d", len(body), alloc, limit)
	}
}

func TestDuplicateMemberBeyondDecoderDepth(t *testing.T) {
	for _, c := range []struct {
		depth int
		found bool
	}{{maxDupDepth - 1, true}, {maxDupDepth + 1, false}} {
		body, want := nested(c.depth)
		got := DuplicateMember(body)
		if c.found && got != want {
			t.Errorf("depth %d: duplicate not reported (got %d-byte path)", c.depth, len(got))
		}
		if !c.found {
			if got != "" {
				t.Errorf("depth %d: scanned past the decoder's limit, reported %.40q…", c.depth, got)
			}
			var v any
			if err := json.Unmarshal(body, &v); err == nil {
				t.Errorf("depth %d: the decoder accepts what the scanner skips", c.depth)
			}
		}
	}
}
