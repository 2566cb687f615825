package rest

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
)

// Every view's members, as encoding/json writes them, are its component's
// properties in the served document, and the members it always writes are
// the component's required ones: a member added to a view, or to the
// document alone, fails here.
func TestOpenAPIViewsMatchTheirComponents(t *testing.T) {
	raw, err := OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]viewComponent `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	all := views()
	if len(all) < 20 {
		t.Fatalf("only %d views registered", len(all))
	}
	for _, name := range slices.Sorted(maps.Keys(all)) {
		c, ok := doc.Components.Schemas[name]
		if !ok {
			t.Errorf("%s: no component", name)
			continue
		}
		for _, p := range viewDrift(all[name], c) {
			t.Errorf("%s: %s", name, p)
		}
	}
	// The check itself sees a member the component lacks, and one it
	// requires that the view may leave out.
	type view struct {
		A string  `json:"a"`
		B *string `json:"b,omitempty"`
	}
	got := viewDrift(view{}, viewComponent{Properties: map[string]any{"a": nil}, Required: []string{"a", "b"}})
	if len(got) != 2 {
		t.Fatalf("the check found %d differences where there are 2: %v", len(got), got)
	}
}

type viewComponent struct {
	Properties map[string]any `json:"properties"`
	Required   []string       `json:"required"`
}

// viewDrift lists where the view v and its component c differ.
func viewDrift(v any, c viewComponent) []string {
	var out []string
	members := jsonMembers(v, true)
	if want := slices.Sorted(maps.Keys(c.Properties)); !slices.Equal(members, want) {
		out = append(out, fmt.Sprintf("the view writes %v, the component has %v", members, want))
	}
	always := jsonMembers(v, false)
	if want := slices.Sorted(slices.Values(c.Required)); !slices.Equal(always, want) {
		out = append(out, fmt.Sprintf("the view always writes %v, the component requires %v", always, want))
	}
	return out
}

// jsonMembers are the member names of v encoded with every value set
// (full) or with none but the embedded structs.
func jsonMembers(v any, full bool) []string {
	p := reflect.New(reflect.TypeOf(v))
	fill(p.Elem(), full)
	raw, err := json.Marshal(p.Interface())
	if err != nil {
		panic(err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		panic(err)
	}
	return slices.Sorted(maps.Keys(obj))
}

// fill sets v's exported members to a value that is not empty (when full)
// and allocates its embedded structs; a member the document leaves out
// (openapi:"-") stays empty, as the handlers leave it.
func fill(v reflect.Value, full bool) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), full)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() && !f.Anonymous || f.Tag.Get("openapi") == "-" {
				continue
			}
			if f.Anonymous || full {
				fill(v.Field(i), full)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), full)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		item := reflect.New(v.Type().Elem()).Elem()
		fill(item, full)
		v.SetMapIndex(reflect.ValueOf("k").Convert(v.Type().Key()), item)
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Interface:
		v.Set(reflect.ValueOf("x"))
	}
}
