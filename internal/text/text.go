// Package text holds the rule every stored string obeys, whichever surface
// it came through: no NUL characters, which PostgreSQL can store neither
// in text nor in jsonb and which no field of ours means.
//
// A leaf: it imports only internal/apperr.
package text

import (
	"context"
	"reflect"
	"strings"
	"time"

	"entgo.io/ent"

	"github.com/lendingpipe/svc/internal/apperr"
)

// RefuseNUL is an ent hook for every schema (store.Open installs it): a
// mutation carrying a NUL anywhere in a value, JSON fields included, is the
// caller's error (400 BAD_REQUEST naming the field), never a database 500.
func RefuseNUL(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		for _, name := range m.Fields() {
			if v, _ := m.Field(name); HasNUL(v) {
				return nil, NULError(apperr.FieldName(name))
			}
		}
		return next.Mutate(ctx, m)
	})
}

// NULError is the answer to text holding a NUL character; field may be "".
func NULError(field string) error {
	return &apperr.Error{Code: apperr.BadRequest, Field: field, Message: `text must not contain NUL characters (\u0000)`}
}

// HasNUL reports whether any string inside v (map keys included) holds a
// NUL character.
func HasNUL(v any) bool { return hasNUL(reflect.ValueOf(v)) }

var timeType = reflect.TypeOf(time.Time{})

func hasNUL(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return strings.ContainsRune(v.String(), 0)
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && hasNUL(v.Elem())
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return false // bytes and UUIDs, not text
		}
		for i := range v.Len() {
			if hasNUL(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if hasNUL(it.Key()) || hasNUL(it.Value()) {
				return true
			}
		}
	case reflect.Struct:
		if v.Type() == timeType {
			return false
		}
		for i := range v.NumField() {
			if hasNUL(v.Field(i)) {
				return true
			}
		}
	}
	return false
}
