package bounds

import (
	"strings"
	"testing"

	"github.com/lendingpipe/svc/internal/apperr"
)

func TestDuplicateMember(t *testing.T) {
	for body, want := range map[string]string{
		`{"a":1,"b":2}`:                          "",
		`{"a":1,"a":2}`:                          "a",
		`{"a":{"x":1,"y":{"z":1}},"b":{"x":2}}`:  "",
		`{"a":{"x":1,"x":2}}`:                    "a.x",
		`{"a":[{"k":1},{"k":1,"k":2}]}`:          "a[1].k",
		`[{"k":1},[{"j":1,"j":1}]]`:              "[1][0].j",
		`{"a":"a","b":["a","a"],"c":{"a":"a"}}`:  "",
		`{"a\u0062":1,"ab":2}`:                   "ab",
		`{"x":[1,2,{"y":[],"y":{}}]}`:            "x[2].y",
		`{"a":1,`:                                "",
		`not json`:                               "",
		`{"outer":{"inner":1},"outer":{"o":2}}`:  "outer",
		`{"s":"{\"a\":1,\"a\":2}"}`:              "",
		`{"first":{},"second":[],"first2":null}`: "",
	} {
		if got := DuplicateMember([]byte(body)); got != want {
			t.Errorf("DuplicateMember(%s) = %q, want %q", body, got, want)
		}
	}
}

func TestJSONBounds(t *testing.T) {
	deep := map[string]any{"l2": map[string]any{"l3": map[string]any{"l4": map[string]any{"l5": []any{1}}}}}
	many := map[string]any{}
	for i := range 51 {
		many[strings.Repeat("k", i+1)] = i
	}
	for name, c := range map[string]struct {
		v     map[string]any
		field string // "" when within bounds
	}{
		"Small":     {map[string]any{"a": "b", "n": 1.5, "list": []any{1, "x"}}, ""},
		"LongValue": {map[string]any{"purpose": strings.Repeat("é", 2001)}, "metadata.purpose"},
		"MaxValue":  {map[string]any{"purpose": strings.Repeat("é", 2000)}, ""},
		"Nested":    {map[string]any{"a": map[string]any{"b": []any{strings.Repeat("x", 2001)}}}, "metadata.a.b[0]"},
		"TooDeep":   {deep, "metadata.l2.l3.l4.l5"},
		"TooMany":   {many, "metadata"},
		"LongKey":   {map[string]any{strings.Repeat("k", 101): 1}, "metadata"},
		"LongArray": {map[string]any{"a": make([]any, 101)}, "metadata.a"},
		"TooLarge":  {map[string]any{"a": strings.Repeat("x", 2000), "b": strings.Repeat("x", 2000), "c": strings.Repeat("x", 2000), "d": strings.Repeat("x", 2000), "e": strings.Repeat("x", 2000), "f": strings.Repeat("x", 2000), "g": strings.Repeat("x", 2000), "h": strings.Repeat("x", 2000), "i": strings.Repeat("x", 2000)}, "metadata"},
	} {
		t.Run(name, func(t *testing.T) {
			err := Metadata.Check("metadata", c.v)
			if c.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.Validation || e.Field != c.field {
				t.Fatalf("err = %v, want a validation error naming %s", err, c.field)
			}
		})
	}
}

// Every entry of the table is a range a value can meet.
func TestFieldsAreRanges(t *testing.T) {
	for name, f := range Fields {
		if f.Length.Max > 0 && f.Length.Min > f.Length.Max {
			t.Errorf("%s: length %d..%d", name, f.Length.Min, f.Length.Max)
		}
		if f.Items > 0 && f.MinItems > f.Items {
			t.Errorf("%s: items %d..%d", name, f.MinItems, f.Items)
		}
		if f.Range != nil && f.Range.Min > f.Range.Max {
			t.Errorf("%s: range %d..%d", name, f.Range.Min, f.Range.Max)
		}
	}
}
