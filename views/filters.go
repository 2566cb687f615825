package views

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/savedview"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/text"
	"github.com/lendingpipe/svc/tasks"
)

// MaxSearch bounds the board's search words, as leadsPage bounds its
// search argument.
const MaxSearch = 200

// The filters of each screen: its own arguments, as GraphQL names them.
// A view's filters decode into its screen's struct strictly: every key a
// field of the struct, every value of the field's type as GraphQL would
// take it (a UUID in its canonical form, an RFC 3339 time, an enum's
// value), so a view that saves is one the screen can apply.
type (
	// BoardFilters are the pipeline board's: its leads' where (the
	// LeadWhereInput of leads(where:)) and its search words.
	BoardFilters struct {
		Where  *ent.LeadWhereInput `json:"where"`
		Search *string             `json:"search"`
	}
	// ApplicationFilters are applicationsPage's filters.
	ApplicationFilters struct {
		LeadID   *uuid.UUID          `json:"leadId"`
		LenderID *uuid.UUID          `json:"lenderId"`
		Status   *application.Status `json:"status"`
	}
	// RenewalFilters are renewalQueue(where:)'s (PRODUCT 12.2).
	RenewalFilters struct {
		AdvisorID *uuid.UUID `json:"advisorId"`
		DueBefore *time.Time `json:"dueBefore"`
	}
)

// screens maps each screen to its filters' type and the checks the
// screen's query makes beyond the types.
var screens = map[savedview.Screen]struct {
	filters reflect.Type
	check   func(any) error
}{
	savedview.ScreenBOARD:        {reflect.TypeFor[BoardFilters](), checkBoard},
	savedview.ScreenAPPLICATIONS: {reflect.TypeFor[ApplicationFilters](), nil},
	savedview.ScreenTASKS:        {reflect.TypeFor[tasks.Filter](), nil}, // tasks(where:)'s TaskWhere
	savedview.ScreenRENEWALS:     {reflect.TypeFor[RenewalFilters](), nil},
}

// Check answers filters as the JSON object a view of screen stores, or a
// VALIDATION_ERROR naming filters.<key> when it is not the screen's
// arguments: an unknown key, a value of the wrong type, more than
// bounds.ViewFilters allows (8 KB of JSON).
func Check(screen savedview.Screen, filters any) (map[string]any, error) {
	s, ok := screens[screen]
	if !ok {
		return nil, apperr.Invalid("screen", "must be one of BOARD, APPLICATIONS, TASKS, RENEWALS")
	}
	raw, err := json.Marshal(filters)
	if err != nil {
		return nil, apperr.Invalid("filters", "is not JSON: %s", err)
	}
	if string(raw) == "null" { // omitted: no filter
		return map[string]any{}, nil
	}
	// One form of every number, as the JSON text says it: the bounds and
	// the decoder read the same object the database stores.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, apperr.Invalid("filters", "must be a JSON object")
	}
	if text.HasNUL(obj) {
		return nil, text.NULError("filters")
	}
	if err := bounds.ViewFilters.Check("filters", obj); err != nil {
		return nil, err
	}
	dst := reflect.New(s.filters)
	if err := strict("filters", raw, dst.Elem(), 0); err != nil {
		return nil, err
	}
	if s.check != nil {
		if err := s.check(dst.Interface()); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// checkBoard makes the checks the board's queries make of their arguments:
// the search's length, a where that builds, and a creation range that ends
// after it starts.
func checkBoard(v any) error {
	f := v.(*BoardFilters)
	if f.Search != nil && utf8.RuneCountInString(*f.Search) > MaxSearch {
		return apperr.Invalid("filters.search", "must be at most %d characters", MaxSearch)
	}
	if f.Where == nil {
		return nil
	}
	if from, to := f.Where.CreatedAtGTE, f.Where.CreatedAtLT; from != nil && to != nil && !to.After(*from) {
		return apperr.Invalid("filters.where.createdAtLT", "must be after createdAtGTE")
	}
	if _, err := f.Where.P(); err != nil && !errors.Is(err, ent.ErrEmptyLeadWhereInput) {
		return apperr.Invalid("filters.where", "%s", err)
	}
	return nil
}

// gqlName is the GraphQL spelling of a Go json name: the generated where
// inputs spell an id as Go does (stageIDNEQ), GraphQL as the API's
// attributes do (stageIdNEQ); ent/entc_gql.go renames them by the same
// rule.
var idAcronym = regexp.MustCompile(`([a-z0-9])ID(s?)([A-Z]|$)`)

func gqlName(name string) string { return idAcronym.ReplaceAllString(name, "${1}Id${2}${3}") }

// gqlEnum is an enum of the generated client, which checks its own values.
type gqlEnum interface{ UnmarshalGQL(any) error }

var (
	timeType = reflect.TypeFor[time.Time]()
	uuidType = reflect.TypeFor[uuid.UUID]()
)

// strict decodes raw into v as GraphQL would decode an argument of v's
// type, naming the failing part by its path (filters.where.or[1].source).
// Keys must be spelled exactly; null leaves a value unset, as an omitted
// argument.
func strict(path string, raw json.RawMessage, v reflect.Value, depth int) error {
	raw = bytes.TrimSpace(raw)
	if depth > bounds.ViewFilters.Depth {
		return apperr.Invalid(path, "nests too deep")
	}
	if string(raw) == "null" {
		return nil
	}
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		v.Set(reflect.New(t.Elem()))
		return strict(path, raw, v.Elem(), depth)
	}
	switch {
	case t == timeType:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return apperr.Invalid(path, "must be an RFC 3339 timestamp string")
		}
		at, err := apitime.Parse(s)
		if err != nil {
			return apperr.Invalid(path, "%s is not an RFC 3339 timestamp such as %s", apperr.Quote(s), apitime.Example)
		}
		v.Set(reflect.ValueOf(at.UTC()))
		return nil
	case t == uuidType:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return apperr.Invalid(path, "must be a UUID string")
		}
		id, err := uuid.Parse(s)
		if err != nil || len(s) != 36 {
			return apperr.Invalid(path, "%s is not a UUID", apperr.Quote(s))
		}
		v.Set(reflect.ValueOf(id))
		return nil
	}
	if e, ok := v.Addr().Interface().(gqlEnum); ok {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return apperr.Invalid(path, "must be a string, one of the enum's values")
		}
		if err := e.UnmarshalGQL(s); err != nil {
			return apperr.Invalid(path, "%s is not one of its values", apperr.Quote(s))
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if _, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
			break
		}
		var members map[string]json.RawMessage
		if json.Unmarshal(raw, &members) != nil || members == nil {
			return apperr.Invalid(path, "must be an object")
		}
		fields := fieldsOf(t)
		keys := make([]string, 0, len(members))
		for k := range members {
			keys = append(keys, k)
		}
		slices.Sort(keys) // the member an error names does not depend on map order
		for _, k := range keys {
			i, ok := fields[k]
			if !ok {
				return apperr.Invalid(path+"."+apperr.Cut(k), "unknown field")
			}
			if err := strict(path+"."+k, members[k], v.Field(i), depth+1); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return apperr.Invalid(path, "must be a list")
		}
		out := reflect.MakeSlice(t, len(items), len(items))
		for i, item := range items {
			if err := strict(fmt.Sprintf("%s[%d]", path, i), item, out.Index(i), depth+1); err != nil {
				return err
			}
		}
		v.Set(out)
		return nil
	}
	if err := json.Unmarshal(raw, v.Addr().Interface()); err != nil {
		return apperr.Invalid(path, "must be %s", kind(t))
	}
	return nil
}

// fieldsOf maps the GraphQL names of t's fields to their indexes: a
// field's json name, or its Go name begun in lower case when it has none
// (tasks.Filter's AssigneeID is assigneeId).
func fieldsOf(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" && f.IsExported() {
			name = strings.ToLower(f.Name[:1]) + f.Name[1:]
		}
		if name != "" && name != "-" {
			out[gqlName(name)] = i
		}
	}
	return out
}

func kind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "of another type"
}
