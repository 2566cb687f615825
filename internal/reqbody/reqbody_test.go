package reqbody

import (
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/bounds"
)

// A member is described by the type it holds, not by its wrapper.
func TestValueType(t *testing.T) {
	for typ, want := range map[reflect.Type]reflect.Type{
		reflect.TypeFor[Opt[string]]():         reflect.TypeFor[string](),
		reflect.TypeFor[Opt[[]string]]():       reflect.TypeFor[[]string](),
		reflect.TypeFor[Opt[uuid.UUID]]():      reflect.TypeFor[uuid.UUID](),
		reflect.TypeFor[Opt[map[string]any]](): reflect.TypeFor[map[string]any](),
	} {
		if got, ok := ValueType(typ); !ok || got != want {
			t.Errorf("ValueType(%v) = %v, %v; want %v", typ, got, ok, want)
		}
	}
	if _, ok := ValueType(reflect.TypeFor[string]()); ok {
		t.Error("a string is no Opt")
	}
}

// Each bound tag of the lead bodies names an entry of bounds.Fields.
func TestBoundTagsNameTheTable(t *testing.T) {
	for _, f := range reflect.VisibleFields(reflect.TypeFor[CreateLead]()) {
		if name := f.Tag.Get("bound"); name != "" {
			if _, ok := bounds.Fields[name]; !ok {
				t.Errorf("%s: bound %q is not in bounds.Fields", f.Name, name)
			}
		}
	}
}
