package rest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3gen"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/reqbody"
	"github.com/lendingpipe/svc/webhooks"
)

// A resource is described once: its view struct is what the handler
// encodes, and its component schema is generated from that struct, so the
// two cannot drift. The json tags name the members: every member is
// required (the views render an absent value as null) but an omitempty one,
// and a pointer admits null unless it is omitempty (then it is left out
// instead). What the Go type cannot say, tags do:
//
//	description:"..."  the member's description
//	enum:"Name"        a value of the named enumeration component (its
//	                   null-admitting variant for a nullable member)
//	openapi:"kind"     a value of one of the shared shapes in valueKinds;
//	                   "-" leaves the member out of the document
//	minimum, maximum, minLength, maxLength: the value's bounds
//	example:"<JSON>"   an example of the member
//	nullable:"true"    null is accepted although the Go type is no pointer
//	bound:"name"       the bounds of the entry name of bounds.Fields, the
//	                   table the ent validators read too
//	additionalProperties:"false"  an object member refuses other members
//
// On a list or a map, enum, openapi and the bounds describe its items
// (bound gives a list its size and each item its length). Amounts, rates,
// ratios, timestamps and ids take their shape from their Go type
// (typeSchemas); a member whose type is another view refers to that view's
// component. Request bodies (openapi_requests.go) are generated the same
// way from the structs their handlers decode, a reqbody.Opt[T] member
// described as a T.

// typeSchemas are the shapes of the types the API writes in one way
// wherever they appear.
var typeSchemas = map[reflect.Type]func() m{
	reflect.TypeFor[uuid.UUID]():      uuidS,
	reflect.TypeFor[apitime.Time]():   dateTime,
	reflect.TypeFor[money.Amount]():   amountS,
	reflect.TypeFor[money.Rate]():     rateS,
	reflect.TypeFor[money.Ratio]():    ratioS,
	reflect.TypeFor[money.Days]():     daysS,
	reflect.TypeFor[map[string]any](): freeObject,
}

// valueKinds are the shared shapes a member names with openapi:"kind".
var valueKinds = map[string]func() m{
	"count":      count,
	"uuid":       uuidS,
	"hexColor":   hexColor,
	"date":       dateS,
	"object":     func() m { return m{"type": "object"} },
	"true":       func() m { return m{"type": "boolean", "enum": []bool{true}} },
	"decimal":    decimalS,
	"deliveryId": func() m { return prefixed(webhooks.DeliveryIDPrefix) },
	"eventId":    func() m { return prefixed(webhooks.EventIDPrefix) },
	"dateTime":   dateTime,
	"email":      func() m { return m{"type": "string", "format": "email"} },
	"uri":        func() m { return m{"type": "string", "format": "uri"} },
	"mapping":    inboundMapping,
	// Any JSON value, null included: each kind typed, as OpenAPI 3.0
	// admits null only beside a type.
	"anyValue": func() m {
		return m{"anyOf": []m{{"type": "string", "nullable": true}, {"type": "number"}, {"type": "boolean"},
			{"type": "array", "items": m{}}, {"type": "object"}}}
	},
	"externalIds": func() m {
		id := bounded(str(), "externalId")
		return m{"type": "object", "additionalProperties": m{"oneOf": []m{id, {"type": "number"}}}}
	},
}

// decimalS is a lead's decimal figure, as entered.
func decimalS() m {
	return m{"type": "string", "pattern": enum.DecimalPattern, "description": "A non-negative decimal kept as a string so no precision is lost."}
}

// refMarker marks a generated schema that stands for a reference; the
// reference replaces it once the schema is encoded (a customizer edits a
// schema, and cannot turn it into a reference).
const refMarker = "x-component-ref"

// viewGenerator generates the component schema of a view, referring to
// the components of the views named in components.
type viewGenerator struct {
	components map[reflect.Type]string
}

// schema is the component schema of the view v (a struct value).
func (g viewGenerator) schema(v any) m {
	ref, err := openapi3gen.NewSchemaRefForValue(v, nil, openapi3gen.SchemaCustomizer(g.customize))
	if err != nil {
		panic(fmt.Sprintf("the schema of %T: %v", v, err))
	}
	raw, err := json.Marshal(ref.Value)
	if err != nil {
		panic(fmt.Sprintf("encoding the schema of %T: %v", v, err))
	}
	var out m
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(err)
	}
	return resolveRefs(out).(m)
}

// resolveRefs replaces each marked schema in v with its reference.
func resolveRefs(v any) any {
	switch x := v.(type) {
	case m:
		if ref, ok := x[refMarker].(string); ok {
			return m{"$ref": ref}
		}
		for k, item := range x {
			x[k] = resolveRefs(item)
		}
	case []any:
		for i, item := range x {
			x[i] = resolveRefs(item)
		}
	}
	return v
}

// customize shapes the schema openapi3gen generated for a member (name
// and tag are the member's; t is its type, without pointers, or the type
// of its items) or for the view itself (name "_root", no tag).
func (g viewGenerator) customize(name string, t reflect.Type, tag reflect.StructTag, s *openapi3.Schema) error {
	if tag.Get("openapi") == "-" {
		return &openapi3gen.ExcludeSchemaSentinel{}
	}
	if inner, ok := reqbody.ValueType(t); ok {
		return g.unwrap(inner, tag, s)
	}
	nullable := s.Nullable && !hasOption(tag, "omitempty") || tag.Get("nullable") == "true"
	if ref := g.ref(name, t, tag, nullable); ref != nil {
		*s = openapi3.Schema{Extensions: map[string]any{refMarker: ref["$ref"]}}
		return nil
	}
	if base := leafSchema(t, tag); base != nil {
		if err := remarshal(base, s); err != nil {
			return err
		}
	}
	switch {
	case isContainer(t):
		// The member's own tags went to its items too; they describe the list.
		for _, item := range []*openapi3.SchemaRef{s.Items, s.AdditionalProperties.Schema} {
			if item != nil && item.Value != nil {
				item.Value.Description, item.Value.Example = "", nil
				if tag.Get("nullable") == "true" { // null stands for the list, not an item
					item.Value.Nullable = false
				}
			}
		}
		applyBound(t, tag, s)
	case t.Kind() == reflect.Struct && len(s.Properties) > 0:
		s.Required = members(t, s)
		if tag.Get("additionalProperties") == "false" {
			s.AdditionalProperties = openapi3.AdditionalProperties{Has: new(bool)}
		}
	default:
		if err := applyBounds(tag, s); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		applyBound(t, tag, s)
	}
	s.Nullable = nullable
	if d := tag.Get("description"); d != "" {
		s.Description = d
	}
	if e := tag.Get("example"); e != "" {
		if err := json.Unmarshal([]byte(e), &s.Example); err != nil {
			return fmt.Errorf("%s: example: %w", name, err)
		}
	}
	return nil
}

// ref is the reference a member's value is written as: an enumeration's
// component, or another view's; nil for a value described in place.
func (g viewGenerator) ref(name string, t reflect.Type, tag reflect.StructTag, nullable bool) m {
	if isContainer(t) {
		return nil
	}
	if e := tag.Get("enum"); e != "" {
		if _, ok := baseEnumSchemas()[e]; !ok {
			panic(fmt.Sprintf("%s: no enumeration %q", name, e))
		}
		if nullable {
			return nullEnumRef(e)
		}
		return enumRef(e)
	}
	if c := g.components[t]; c != "" && name != "_root" {
		return sRef(c)
	}
	return nil
}

// leafSchema is the shared shape of a value of type t, if it has one.
func leafSchema(t reflect.Type, tag reflect.StructTag) m {
	if isContainer(t) {
		return nil
	}
	if kind := tag.Get("openapi"); kind != "" {
		f := valueKinds[kind]
		if f == nil {
			panic(fmt.Sprintf("no value kind %q", kind))
		}
		return f()
	}
	if f := typeSchemas[t]; f != nil {
		return f()
	}
	return nil
}

func isContainer(t reflect.Type) bool {
	_, shared := typeSchemas[t]
	return !shared && (t.Kind() == reflect.Slice || t.Kind() == reflect.Map)
}

// members settles the members of the view t: a member tagged
// openapi:"-" is left out even where it hides an embedded member of the
// same name, which openapi3gen would still list. It returns the members
// that are always present: all but the omitempty ones, in name order.
func members(t reflect.Type, s *openapi3.Schema) []string {
	var required []string
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if _, ok := s.Properties[name]; !ok || !f.IsExported() {
			continue
		}
		switch {
		case f.Tag.Get("openapi") == "-":
			delete(s.Properties, name)
		case !hasOption(f.Tag, "omitempty"):
			required = append(required, name)
		}
	}
	slices.Sort(required)
	return slices.Compact(required)
}

func hasOption(tag reflect.StructTag, option string) bool {
	_, opts, _ := strings.Cut(tag.Get("json"), ",")
	return slices.Contains(strings.Split(opts, ","), option)
}

// applyBounds sets the bounds the tags give.
func applyBounds(tag reflect.StructTag, s *openapi3.Schema) error {
	for _, b := range []struct {
		key string
		set func(n uint64)
	}{
		{"minimum", func(n uint64) { f := float64(n); s.Min = &f }},
		{"maximum", func(n uint64) { f := float64(n); s.Max = &f }},
		{"minLength", func(n uint64) { s.MinLength = n }},
		{"maxLength", func(n uint64) { s.MaxLength = &n }},
	} {
		if v := tag.Get(b.key); v != "" {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return fmt.Errorf("%s: %w", b.key, err)
			}
			b.set(n)
		}
	}
	return nil
}

// unwrap describes a request member of type reqbody.Opt[inner] as a
// member of type inner with the same tags: the wrapper only tells absent
// from null, which the document says with required and nullable.
func (g viewGenerator) unwrap(inner reflect.Type, tag reflect.StructTag, s *openapi3.Schema) error {
	holder := reflect.StructOf([]reflect.StructField{{Name: "V", Type: inner, Tag: tag}})
	ref, err := openapi3gen.NewSchemaRefForValue(reflect.New(holder).Elem().Interface(), nil, openapi3gen.SchemaCustomizer(g.customize))
	if err != nil {
		return err
	}
	for _, p := range ref.Value.Properties {
		*s = *p.Value
	}
	return nil
}

// applyBound sets the bounds that the entry of bounds.Fields named by the
// member's bound tag gives: a text's length (of each item, for a list), a
// list's or an object's size, an integer's range.
func applyBound(t reflect.Type, tag reflect.StructTag, s *openapi3.Schema) {
	name := tag.Get("bound")
	if name == "" {
		return
	}
	b, ok := bounds.Fields[name]
	if !ok {
		panic(fmt.Sprintf("no bounds.Fields entry %q", name))
	}
	switch t.Kind() {
	case reflect.String:
		s.MinLength = uint64(b.Length.Min)
		if b.Length.Max > 0 {
			s.MaxLength = ptr(uint64(b.Length.Max))
		}
	case reflect.Slice:
		s.MinItems = uint64(b.MinItems)
		if b.Items > 0 {
			s.MaxItems = ptr(uint64(b.Items))
		}
	case reflect.Map:
		if b.Items > 0 {
			s.MaxProps = ptr(uint64(b.Items))
		}
	case reflect.Int, reflect.Int32, reflect.Int64:
		if b.Range != nil {
			s.Min, s.Max = ptr(float64(b.Range.Min)), ptr(float64(b.Range.Max))
		}
	}
}

func ptr[T any](v T) *T { return &v }

// remarshal reads the JSON schema from into to.
func remarshal(from m, to *openapi3.Schema) error {
	raw, err := json.Marshal(from)
	if err != nil {
		return err
	}
	*to = openapi3.Schema{}
	return json.Unmarshal(raw, to)
}
