package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/lendingpipe/svc/ent/apperr"
)

// Opt is a request field that may be absent, null or set. PATCH needs all
// three: absent leaves a value alone, null clears it.
type Opt[T any] struct {
	Set   bool // the field was present (null included)
	Null  bool
	Value T
}

func (o *Opt[T]) setNull() { o.Set, o.Null = true, true }

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

// readObject reads the body as one JSON object of raw members. Anything else
// (malformed JSON, another type, trailing data) is 400 BAD_REQUEST.
func readObject(r *http.Request) (map[string]json.RawMessage, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err // *http.MaxBytesError becomes 413 in errorHandler
	}
	return parseObject(body)
}

func parseObject(body []byte) (map[string]json.RawMessage, error) {
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

// decodeFields fills the fields of dst (a pointer to a struct with json tags)
// from obj. A member dst has no field for is 422 naming it, unless refused
// holds a specific message for it; a member of the wrong type is 422 naming it.
func decodeFields(obj map[string]json.RawMessage, dst any, refused map[string]string) error {
	fields := jsonFields(dst)
	for _, name := range sortedKeys(obj) {
		if msg, ok := refused[name]; ok {
			return apperr.Invalid(name, "%s", msg)
		}
		f, ok := fields[name]
		if !ok {
			return apperr.Invalid(name, "unknown field")
		}
		raw := obj[name]
		if string(bytes.TrimSpace(raw)) == "null" {
			if n, ok := f.Addr().Interface().(nuller); ok {
				n.setNull()
			}
			continue
		}
		if err := json.Unmarshal(raw, f.Addr().Interface()); err != nil {
			return apperr.Invalid(name, "%s", typeProblem(err))
		}
	}
	return nil
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

// typeProblem says in API terms what a member should have been.
func typeProblem(err error) string {
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

// sortedKeys orders members so the field an error names does not depend on
// map iteration order.
func sortedKeys(m map[string]json.RawMessage) []string {
	return slices.Sorted(maps.Keys(m))
}
