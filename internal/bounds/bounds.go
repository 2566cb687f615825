// Package bounds holds the limits on free-form values (custom fields,
// metadata, tags, notes, durations) that every write obeys whichever
// surface it came through, and the rule for the JSON text they arrive in:
// no object may repeat a member name.
//
// A leaf: it imports only internal/apperr.
package bounds

import (
	"encoding/json"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/lendingpipe/svc/internal/apperr"
)

// Limits on lead fields and call events (documented in docs/api.md).
const (
	MaxTags            = 50
	MaxTagLen          = 50
	MaxCustomFields    = 50
	MaxKeyLen          = 100 // a member name inside custom fields or metadata
	MaxExternalIDs     = 20
	MaxNotes           = 5000
	MaxDurationSeconds = 24 * 60 * 60
	MaxJSONPath        = 500 // an automation condition's or mapping's expression
	MaxCallID          = 255 // a dialer's id of a call
	MaxDisposition     = 100 // a disposition code
	MaxCampaign        = 255 // a dialer campaign's name
	MaxName            = 100 // an automation's or inbound endpoint's name
	MaxAppDescription  = 500 // an app's description
)

// JSON bounds a free-form JSON object: members per object, nesting depth
// (the object itself is level 1), items per array, characters per string
// and the size of the whole, serialized.
type JSON struct {
	Keys, Depth, Items, Text, Bytes int
}

// CustomFields bounds a lead's customFields; Metadata a call event's or a
// presence's metadata; ConditionValue the value an automation condition
// compares with.
var (
	CustomFields   = JSON{Keys: MaxCustomFields, Depth: 4, Items: 100, Text: 2000, Bytes: 64 << 10}
	Metadata       = JSON{Keys: 50, Depth: 4, Items: 100, Text: 2000, Bytes: 16 << 10}
	ConditionValue = JSON{Keys: 50, Depth: 2, Items: 100, Text: 2000, Bytes: 16 << 10}
	// ViewFilters bounds a saved view's filters: a screen's arguments,
	// nested as deep as a lead filter's not, and, or and has...With go.
	ViewFilters = JSON{Keys: 50, Depth: 8, Items: 100, Text: 2000, Bytes: 8 << 10}
)

// Check returns a 422 naming field (and the member path inside it) when the
// object v exceeds the bounds.
func (b JSON) Check(field string, v map[string]any) error { return b.CheckValue(field, v) }

// CheckValue is Check for any JSON value (an object is level 1).
func (b JSON) CheckValue(field string, v any) error {
	if err := b.walk(field, v, 1); err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return apperr.Invalid(field, "is not JSON: %s", err)
	}
	if len(raw) > b.Bytes {
		return apperr.Invalid(field, "must be at most %d bytes as JSON (is %d)", b.Bytes, len(raw))
	}
	return nil
}

func (b JSON) walk(path string, v any, depth int) error {
	switch v := v.(type) {
	case string:
		if n := utf8.RuneCountInString(v); n > b.Text {
			return apperr.Invalid(path, "must be at most %d characters (is %d)", b.Text, n)
		}
	case map[string]any:
		if depth > b.Depth {
			return apperr.Invalid(path, "nests too deep: at most %d levels of objects and arrays", b.Depth)
		}
		if len(v) > b.Keys {
			return apperr.Invalid(path, "must have at most %d members", b.Keys)
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the member an error names does not depend on map order
		for _, k := range keys {
			if utf8.RuneCountInString(k) > MaxKeyLen {
				return apperr.Invalid(path, "member names must be at most %d characters", MaxKeyLen)
			}
			if err := b.walk(path+"."+k, v[k], depth+1); err != nil {
				return err
			}
		}
	case []any:
		if depth > b.Depth {
			return apperr.Invalid(path, "nests too deep: at most %d levels of objects and arrays", b.Depth)
		}
		if len(v) > b.Items {
			return apperr.Invalid(path, "must have at most %d items", b.Items)
		}
		for i, item := range v {
			if err := b.walk(path+"["+strconv.Itoa(i)+"]", item, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// Text refuses a string longer than max characters, naming field.
func Text(field, s string, max int) error {
	if n := utf8.RuneCountInString(s); n > max {
		return apperr.Invalid(field, "must be at most %d characters (is %d)", max, n)
	}
	return nil
}
