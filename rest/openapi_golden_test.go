package rest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/lendingpipe/svc/rest"
)

// The served document says what testdata/openapi.golden.json says: the
// same paths, operations, parameters, schemas, required members, bounds,
// enumerations, statuses and headers. Only wording (description, summary)
// and order may differ, so the way the document is built can change
// without changing what integrators read in it.
func TestOpenAPIMatchesGolden(t *testing.T) {
	want, err := os.ReadFile("testdata/openapi.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := rest.OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	diffs, err := structuralDiff(want, got)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range diffs {
		if i == 40 {
			t.Errorf("... and %d more", len(diffs)-i)
			break
		}
		t.Error(d)
	}
}

// The comparison itself tells a change of meaning from one of wording.
func TestStructuralDiff(t *testing.T) {
	base := `{"a":{"description":"x","type":"string","minLength":0,"enum":["p","q"]},"required":["a","b"]}`
	same := `{"required":["b","a"],"a":{"enum":["q","p"],"type":"string","description":"other words"}}`
	for _, changed := range []string{
		`{"a":{"type":"string","enum":["p"]},"required":["a","b"]}`,
		`{"a":{"type":"string","enum":["p","q"],"maxLength":3},"required":["a","b"]}`,
		`{"a":{"type":"string","enum":["p","q"]},"required":["a"]}`,
		`{"a":{"type":"integer","enum":["p","q"]},"required":["a","b"]}`,
	} {
		if d, err := structuralDiff([]byte(base), []byte(changed)); err != nil || len(d) == 0 {
			t.Errorf("%s: no difference found (%v)", changed, err)
		}
	}
	if d, err := structuralDiff([]byte(base), []byte(same)); err != nil || len(d) != 0 {
		t.Errorf("differences in wording and order only: %v %v", d, err)
	}
}

// structuralDiff lists where the JSON documents a and b differ in meaning.
func structuralDiff(a, b []byte) ([]string, error) {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return nil, fmt.Errorf("the golden document: %w", err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return nil, fmt.Errorf("the served document: %w", err)
	}
	var out []string
	compare("$", normalize(x), normalize(y), &out)
	return out, nil
}

// normalize drops what may change freely: prose (description and summary
// strings), order (arrays are sorted by their items' encoding) and a
// minLength of 0, which states nothing.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, item := range x {
			if _, prose := item.(string); prose && (k == "description" || k == "summary") {
				continue
			}
			if n, ok := item.(float64); ok && k == "minLength" && n == 0 {
				continue
			}
			out[k] = normalize(item)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = normalize(item)
		}
		sort.Slice(out, func(i, j int) bool { return encode(out[i]) < encode(out[j]) })
		return out
	}
	return v
}

func encode(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

func compare(path string, want, got any, out *[]string) {
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if wok && gok {
		keys := map[string]bool{}
		for k := range wm {
			keys[k] = true
		}
		for k := range gm {
			keys[k] = true
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			w, inW := wm[k]
			g, inG := gm[k]
			switch {
			case !inG:
				*out = append(*out, fmt.Sprintf("%s.%s: missing (want %s)", path, k, encode(w)))
			case !inW:
				*out = append(*out, fmt.Sprintf("%s.%s: unexpected %s", path, k, encode(g)))
			default:
				compare(path+"."+k, w, g, out)
			}
		}
		return
	}
	wa, waok := want.([]any)
	ga, gaok := got.([]any)
	if waok && gaok && len(wa) == len(ga) {
		for i := range wa {
			compare(fmt.Sprintf("%s[%d]", path, i), wa[i], ga[i], out)
		}
		return
	}
	if encode(want) != encode(got) {
		*out = append(*out, fmt.Sprintf("%s: got %s, want %s", path, encode(got), encode(want)))
	}
}
