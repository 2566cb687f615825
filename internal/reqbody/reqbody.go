// Package reqbody decodes /v1 request bodies strictly: one JSON object,
// every member known and of the right type, with absent, null and set told
// apart. The lead bodies live here too, so that automations build a lead
// from mapped data exactly as POST /v1/leads builds one from a request.
//
// It sits below every surface (REST and the automation runner both decode
// with it) and imports only ent and the packages under internal.
package reqbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/text"
)

// Opt is a request field that may be absent, null or set. PATCH needs all
// three: absent leaves a value alone, null clears it.
type Opt[T any] struct {
	Set   bool // the field was present (null included)
	Null  bool
	Value T
}

func (o *Opt[T]) setNull() { o.Set, o.Null = true, true }

func (o *Opt[T]) valueType() reflect.Type { return reflect.TypeFor[T]() }

func (o *Opt[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	return json.Unmarshal(b, &o.Value)
}

// Ptr is the value, or nil when absent or null.
func (o Opt[T]) Ptr() *T {
	if !o.Set || o.Null {
		return nil
	}
	return &o.Value
}

type nuller interface{ setNull() }

// ValueType is T when t is Opt[T]: the type a member of type t holds, for
// the OpenAPI generator, which describes the value and not its wrapper.
func ValueType(t reflect.Type) (reflect.Type, bool) {
	w, ok := reflect.New(t).Interface().(interface{ valueType() reflect.Type })
	if !ok {
		return nil, false
	}
	return w.valueType(), true
}

// ParseObject parses body as one JSON object of raw members. Anything else
// (malformed JSON, another type, trailing data, an object anywhere inside
// that repeats a member name) is 400 BAD_REQUEST.
func ParseObject(body []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return nil, apperr.New(apperr.BadRequest, "the request body must be a JSON object: %s", jsonProblem(err))
	}
	if obj == nil {
		return nil, apperr.New(apperr.BadRequest, "the request body must be a JSON object, not null")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, apperr.New(apperr.BadRequest, "the request body has data after the JSON object")
	}
	if path := bounds.DuplicateMember(body); path != "" {
		return nil, bounds.DuplicateError(path)
	}
	if err := CheckText(body); err != nil {
		return nil, err
	}
	return obj, nil
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "the body is empty"
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return "found a JSON " + te.Value
	}
	return "malformed JSON"
}

// Decode fills the fields of dst (a pointer to a struct with json tags)
// from obj. A member dst has no field for is 422 naming it, unless refused
// holds a specific message for it; a member of the wrong type is 422 naming it.
func Decode(obj map[string]json.RawMessage, dst any, refused map[string]string) error {
	return decode(obj, dst, refused, false)
}

// DecodeMapped fills dst from data that a JSONPath mapping produced: members
// dst has no field for are left to the caller (it reads them itself), and a
// number where a string is expected is taken as its decimal text, because
// partners send amounts either way. It reports how many members it set.
func DecodeMapped(data map[string]any, dst any) (int, error) {
	obj := make(map[string]json.RawMessage, len(data))
	fields := jsonFields(dst)
	for k, v := range data {
		if _, ok := fields[k]; !ok {
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return 0, apperr.Invalid(k, "is not JSON: %s", err)
		}
		obj[k] = raw
	}
	return len(obj), decode(obj, dst, nil, true)
}

func decode(obj map[string]json.RawMessage, dst any, refused map[string]string, numbersAsText bool) error {
	fields := jsonFields(dst)
	for _, name := range SortedKeys(obj) {
		if msg, ok := refused[name]; ok {
			return apperr.Invalid(name, "%s", msg)
		}
		f, ok := fields[name]
		if !ok {
			return apperr.Invalid(name, "unknown field")
		}
		raw := bytes.TrimSpace(obj[name])
		if string(raw) == "null" {
			if n, ok := f.Addr().Interface().(nuller); ok {
				n.setNull()
			}
			continue
		}
		err := json.Unmarshal(raw, f.Addr().Interface())
		var te *json.UnmarshalTypeError
		if err != nil && numbersAsText && errors.As(err, &te) && te.Value == "number" {
			err = json.Unmarshal(strconv.AppendQuote(nil, string(raw)), f.Addr().Interface())
		}
		if err != nil {
			return apperr.Invalid(memberPath(name, raw, f.Type()), "%s", TypeProblem(err))
		}
	}
	return nil
}

// memberPath names the value of member name that failed to decode as the
// GraphQL surface names an input: a member of an object by its path
// (trigger.event), an item of a list by its index when something within it
// failed (actions[0].tags), and a list of values by the list's name. The
// decoder says neither (a UUID's parse error carries no path), so the
// failing part is found by decoding the parts one by one.
func memberPath(name string, raw []byte, typ reflect.Type) string {
	path := name + failingPart(raw, typ, 0)
	if strings.HasSuffix(path, "]") { // an item of a list of values
		path = path[:strings.LastIndex(path, "[")]
	}
	return path
}

// failingPart is the path below a value of type typ, raw, to the innermost
// part that does not decode: ".event", "[1].tags", or "" when raw fails as
// a whole (or decodes).
func failingPart(raw []byte, typ reflect.Type, depth int) string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if w, ok := reflect.New(typ).Interface().(interface{ valueType() reflect.Type }); ok {
		typ = w.valueType() // Opt[T]: T
	}
	if depth > 8 {
		return ""
	}
	raw = bytes.TrimSpace(raw)
	fails := func(part []byte, t reflect.Type) bool { return json.Unmarshal(part, reflect.New(t).Interface()) != nil }
	switch {
	case typ.Kind() == reflect.Slice && len(raw) > 0 && raw[0] == '[':
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return ""
		}
		for i, item := range items {
			if fails(item, typ.Elem()) {
				return fmt.Sprintf("[%d]", i) + failingPart(item, typ.Elem(), depth+1)
			}
		}
	case typ.Kind() == reflect.Struct && len(raw) > 0 && raw[0] == '{':
		var members map[string]json.RawMessage
		if json.Unmarshal(raw, &members) != nil {
			return ""
		}
		fields := map[string]reflect.Type{}
		for name, f := range jsonFields(reflect.New(typ).Interface()) {
			fields[name] = f.Type()
		}
		for _, k := range SortedKeys(members) {
			if t, ok := fields[k]; ok && fails(members[k], t) {
				return "." + k + failingPart(members[k], t, depth+1)
			}
		}
	}
	return ""
}

// jsonFields maps each json name of dst's struct fields, embedded structs'
// included, to the field.
func jsonFields(dst any) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	collectFields(reflect.ValueOf(dst).Elem(), out)
	return out
}

func collectFields(v reflect.Value, out map[string]reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			collectFields(v.Field(i), out)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = v.Field(i)
		}
	}
}

// TypeProblem says in API terms what a member should have been.
func TypeProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "must be " + jsonKind(te.Type)
	}
	// Text unmarshalers (UUIDs, times) report their own parse errors.
	msg := err.Error()
	if strings.Contains(msg, "UUID") || strings.Contains(msg, "uuid") {
		return "must be a UUID"
	}
	return "is not valid: " + msg
}

func jsonKind(t reflect.Type) string {
	if t.Kind() == reflect.Array && t.Len() == 16 { // uuid.UUID
		return "a UUID"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(jsonKind(t.Elem()), "a "), "an ") + "s"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "of another type"
}

// SortedKeys orders members so the field an error names does not depend on
// map iteration order.
func SortedKeys(m map[string]json.RawMessage) []string {
	return slices.Sorted(maps.Keys(m))
}

// CheckText refuses JSON whose strings (members' names or values) hold a
// NUL character, before any field is decoded or checked (the ent hook
// text.RefuseNUL refuses them again at the database's door).
func CheckText(body []byte) error {
	var v any
	if json.Unmarshal(body, &v) == nil && text.HasNUL(v) {
		return text.NULError("")
	}
	return nil // malformed JSON is reported by the decoder proper
}
