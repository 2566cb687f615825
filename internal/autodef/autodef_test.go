package autodef_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/autodef"
	"github.com/lendingpipe/svc/internal/bounds"
)

var (
	stage   = uuid.MustParse("0190c1d2-0000-7000-8000-000000000001")
	advisor = uuid.MustParse("0190c1d2-0000-7000-8000-000000000002")
	team    = uuid.MustParse("0190c1d2-0000-7000-8000-000000000003")
)

func act(typ string) autodef.Action { return autodef.Action{Type: typ} }

func actions(n int) []autodef.Action {
	out := make([]autodef.Action, n)
	for i := range out {
		out[i] = autodef.Action{Type: autodef.AddTags, Tags: []string{"t"}}
	}
	return append([]autodef.Action{act(autodef.CreateLead)}, out[1:]...)
}

func conditions(n int) []autodef.Condition {
	out := make([]autodef.Condition, n)
	for i := range out {
		out[i] = autodef.Condition{Path: "$.a", Op: autodef.OpExists}
	}
	return out
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// Check accepts every well-formed definition and refuses each malformed
// part, naming the offending field in API spelling.
func TestCheck(t *testing.T) {
	create := act(autodef.CreateLead)
	tests := []struct {
		name  string
		def   autodef.Definition
		field string // "" when the definition is valid
	}{
		{"CreateLead", autodef.Definition{Actions: []autodef.Action{create}}, ""},
		{"EveryAction", autodef.Definition{Actions: []autodef.Action{
			{Type: autodef.UpdateLead, MatchBy: "externalIds.partner", MatchField: "ref"},
			{Type: autodef.AddTags, Tags: []string{"a", strings.Repeat("é", bounds.MaxTagLen)}},
			{Type: autodef.MoveStage, StageID: &stage},
			{Type: autodef.AssignAdvisor, AdvisorID: &advisor},
			{Type: autodef.AssignAdvisor, TeamID: &team},
			{Type: autodef.MarkDoNotCall, Reason: strings.Repeat("r", 500)},
		}}, ""},
		{"LendingActions", autodef.Definition{Actions: []autodef.Action{
			act(autodef.DecideApplication), act(autodef.FundDeal), act(autodef.RecordCommissionPayment),
		}}, ""},
		{"LeadActionAfterLendingAction", autodef.Definition{Actions: []autodef.Action{
			act(autodef.FundDeal), {Type: autodef.AddTags, Tags: []string{"funded"}}, {Type: autodef.MoveStage, StageID: &stage},
		}}, ""},
		{"LeadEventNeedsNoCreate", autodef.Definition{LeadEvent: true, Actions: []autodef.Action{{Type: autodef.AddTags, Tags: []string{"x"}}}}, ""},
		{"TenActions", autodef.Definition{Actions: actions(10)}, ""},
		{"EveryOperator", autodef.Definition{Actions: []autodef.Action{create}, Conditions: []autodef.Condition{
			{Path: "$.a", Op: autodef.OpEq, Value: "x"}, {Path: "$.a", Op: autodef.OpNeq, Value: 1.0},
			{Path: "$.a", Op: autodef.OpIn, Value: []any{"x", 2.0}}, {Path: "$.a", Op: autodef.OpContains, Value: "x"},
			{Path: "$.a", Op: autodef.OpExists}, {Path: "$.a", Op: autodef.OpMissing},
			{Path: "$.a", Op: autodef.OpGt, Value: 1.0}, {Path: "$.a", Op: autodef.OpGte, Value: "2.5"},
			{Path: "$.a", Op: autodef.OpLt, Value: 3}, {Path: "$.items[?@.kind == 'x'].amount", Op: autodef.OpLte, Value: 4.0},
		}}, ""},
		{"TwentyConditions", autodef.Definition{Actions: []autodef.Action{create}, Conditions: conditions(20)}, ""},
		{"RequiredFields", autodef.Definition{Actions: []autodef.Action{create}, Required: []string{"email", strings.Repeat("f", 100)}}, ""},

		{"NoActions", autodef.Definition{}, "actions"},
		{"ElevenActions", autodef.Definition{Actions: actions(11)}, "actions"},
		{"UnknownAction", autodef.Definition{Actions: []autodef.Action{create, act("delete_lead")}}, "actions[1].type"},
		{"LendingActionMisspelt", autodef.Definition{Actions: []autodef.Action{act("decide_applications")}}, "actions[0].type"},
		{"LeadActionFirst", autodef.Definition{Actions: []autodef.Action{{Type: autodef.AddTags, Tags: []string{"x"}}}}, "actions[0].type"},
		{"LeadActionAfterUpdate", autodef.Definition{Actions: []autodef.Action{{Type: autodef.UpdateLead, MatchBy: "id"}, act(autodef.MarkDoNotCall)}}, ""},
		{"UnknownMatch", autodef.Definition{Actions: []autodef.Action{{Type: autodef.UpdateLead, MatchBy: "name"}}}, "actions[0].matchBy"},
		{"EmptyExternalMatch", autodef.Definition{Actions: []autodef.Action{{Type: autodef.UpdateLead, MatchBy: "externalIds."}}}, "actions[0].matchBy"},
		{"NoTags", autodef.Definition{Actions: []autodef.Action{create, {Type: autodef.AddTags}}}, "actions[1].tags"},
		{"TooManyTags", autodef.Definition{Actions: []autodef.Action{create, {Type: autodef.AddTags, Tags: repeat("t", bounds.MaxTags+1)}}}, "actions[1].tags"},
		{"EmptyTag", autodef.Definition{Actions: []autodef.Action{create, {Type: autodef.AddTags, Tags: []string{""}}}}, "actions[1].tags"},
		{"TagTooLong", autodef.Definition{Actions: []autodef.Action{create, {Type: autodef.AddTags, Tags: []string{strings.Repeat("é", bounds.MaxTagLen+1)}}}}, "actions[1].tags"},
		{"MoveWithoutStage", autodef.Definition{Actions: []autodef.Action{create, act(autodef.MoveStage)}}, "actions[1].stageId"},
		{"AssignToNobody", autodef.Definition{Actions: []autodef.Action{create, act(autodef.AssignAdvisor)}}, "actions[1].advisorId"},
		{"AssignToBoth", autodef.Definition{Actions: []autodef.Action{create, {Type: autodef.AssignAdvisor, AdvisorID: &advisor, TeamID: &team}}}, "actions[1].advisorId"},
		{"ReasonTooLong", autodef.Definition{Actions: []autodef.Action{create, {Type: autodef.MarkDoNotCall, Reason: strings.Repeat("r", 501)}}}, "actions[1].reason"},
		{"TwentyOneConditions", autodef.Definition{Actions: []autodef.Action{create}, Conditions: conditions(21)}, "conditions"},
		{"BadPath", autodef.Definition{Actions: []autodef.Action{create}, Conditions: []autodef.Condition{{Path: "$.a", Op: autodef.OpExists}, {Path: "$[", Op: autodef.OpExists}}}, "conditions[1].path"},
		{"EmptyPath", autodef.Definition{Actions: []autodef.Action{create}, Conditions: []autodef.Condition{{Op: autodef.OpExists}}}, "conditions[0].path"},
		{"PathTooLong", autodef.Definition{Actions: []autodef.Action{create}, Conditions: []autodef.Condition{{Path: "$." + strings.Repeat("a", bounds.MaxJSONPath), Op: autodef.OpExists}}}, "conditions[0].path"},
		{"UnknownOperator", autodef.Definition{Actions: []autodef.Action{create}, Conditions: []autodef.Condition{{Path: "$.a", Op: "like", Value: "x"}}}, "conditions[0].op"},
		{"InWithoutList", autodef.Definition{Actions: []autodef.Action{create}, Conditions: []autodef.Condition{{Path: "$.a", Op: autodef.OpIn, Value: "x"}}}, "conditions[0].value"},
		{"GtWithoutNumber", autodef.Definition{Actions: []autodef.Action{create}, Conditions: []autodef.Condition{{Path: "$.a", Op: autodef.OpGt, Value: "lots"}}}, "conditions[0].value"},
		{"ValueTooDeep", autodef.Definition{Actions: []autodef.Action{create}, Conditions: []autodef.Condition{{Path: "$.a", Op: autodef.OpEq, Value: nest(3)}}}, "conditions[0].value[0][0]"},
		{"ValueAtItsDepth", autodef.Definition{Actions: []autodef.Action{create}, Conditions: []autodef.Condition{{Path: "$.a", Op: autodef.OpIn, Value: nest(2)}}}, ""},
		{"TooManyRequired", autodef.Definition{Actions: []autodef.Action{create}, Required: repeat("f", 51)}, "requiredFields"},
		{"EmptyRequired", autodef.Definition{Actions: []autodef.Action{create}, Required: []string{""}}, "requiredFields"},
		{"RequiredTooLong", autodef.Definition{Actions: []autodef.Action{create}, Required: []string{strings.Repeat("f", 101)}}, "requiredFields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.def.Check()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("a valid definition was refused: %v", err)
				}
				return
			}
			var e *apperr.Error
			if !errors.As(err, &e) || e.Code != apperr.Validation || e.Field != tt.field {
				t.Errorf("err = %v, want a validation error naming %s", err, tt.field)
			}
		})
	}
}

// nest is a value nested depth arrays deep.
func nest(depth int) any {
	var v any = "x"
	for range depth {
		v = []any{v}
	}
	return v
}

// Conditions and actions are stored as JSON columns: what is stored reads
// back as the same definition, and one read from its JSON is checked as
// the original was.
func TestJSONRoundTrip(t *testing.T) {
	def := autodef.Definition{
		Conditions: []autodef.Condition{
			{Path: "$.amount", Op: autodef.OpGte, Value: 25000.0},
			{Path: "$.state", Op: autodef.OpIn, Value: []any{"NY", "NJ"}},
			{Path: "$.email", Op: autodef.OpExists},
		},
		Actions: []autodef.Action{
			{Type: autodef.UpdateLead, MatchBy: "externalIds.partner", MatchField: "ref"},
			{Type: autodef.AddTags, Tags: []string{"partner"}},
			{Type: autodef.MoveStage, StageID: &stage},
			{Type: autodef.AssignAdvisor, TeamID: &team},
			{Type: autodef.MarkDoNotCall, Reason: "asked"},
		},
	}
	raw, err := json.Marshal(map[string]any{"conditions": def.Conditions, "actions": def.Actions})
	if err != nil {
		t.Fatal(err)
	}
	// Stored in API spelling, with only the fields each part uses: the
	// columns are read by the API as they are.
	stored := `{"actions":[{"type":"update_lead","matchBy":"externalIds.partner","matchField":"ref"},` +
		`{"type":"add_tags","tags":["partner"]},{"type":"move_stage","stageId":"` + stage.String() + `"},` +
		`{"type":"assign_advisor","teamId":"` + team.String() + `"},{"type":"mark_do_not_call","reason":"asked"}],` +
		`"conditions":[{"path":"$.amount","op":"gte","value":25000},{"path":"$.state","op":"in","value":["NY","NJ"]},` +
		`{"path":"$.email","op":"exists"}]}`
	if string(raw) != stored {
		t.Errorf("stored\n  %s\nwant\n  %s", raw, stored)
	}
	var back struct {
		Conditions []autodef.Condition `json:"conditions"`
		Actions    []autodef.Action    `json:"actions"`
	}
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Conditions, def.Conditions) || !reflect.DeepEqual(back.Actions, def.Actions) {
		t.Errorf("read back\n  %+v\n  %+v\nwant\n  %+v\n  %+v", back.Conditions, back.Actions, def.Conditions, def.Actions)
	}
	def.Conditions, def.Actions = back.Conditions, back.Actions
	if err := def.Check(); err != nil {
		t.Errorf("the definition read back is refused: %v", err)
	}
	var bad autodef.Action
	if err := json.Unmarshal([]byte(`{"type":"move_stage","stageId":"not-a-uuid"}`), &bad); err == nil {
		t.Errorf("a stage id that is no UUID was read as %v", bad.StageID)
	}
}

// Holds reports whether every condition holds for a run's input and, when
// one does not, which: numbers compare by value whether sent as numbers or
// numeric strings, and filters select what they compare.
func TestHolds(t *testing.T) {
	input := map[string]any{
		"amount": "25000", "score": 71.0, "state": "NY", "name": "Corner Bakery LLC",
		"tags":  []any{"vip", "partner"},
		"items": []any{map[string]any{"kind": "loan", "amount": 5000.0}, map[string]any{"kind": "fee", "amount": 50.0}},
	}
	tests := []struct {
		cond autodef.Condition
		want bool
	}{
		{autodef.Condition{Path: "$.amount", Op: autodef.OpEq, Value: 25000.0}, true},
		{autodef.Condition{Path: "$.amount", Op: autodef.OpEq, Value: "25000"}, true},
		{autodef.Condition{Path: "$.score", Op: autodef.OpEq, Value: "71"}, true},
		{autodef.Condition{Path: "$.state", Op: autodef.OpEq, Value: "ny"}, false},
		{autodef.Condition{Path: "$.state", Op: autodef.OpNeq, Value: "NJ"}, true},
		{autodef.Condition{Path: "$.state", Op: autodef.OpNeq, Value: "NY"}, false},
		{autodef.Condition{Path: "$.missing", Op: autodef.OpNeq, Value: "NY"}, true},
		{autodef.Condition{Path: "$.state", Op: autodef.OpIn, Value: []any{"NJ", "NY"}}, true},
		{autodef.Condition{Path: "$.state", Op: autodef.OpIn, Value: []any{"NJ", "CT"}}, false},
		{autodef.Condition{Path: "$.name", Op: autodef.OpContains, Value: "bakery"}, true},
		{autodef.Condition{Path: "$.name", Op: autodef.OpContains, Value: "dental"}, false},
		{autodef.Condition{Path: "$.tags", Op: autodef.OpContains, Value: "vip"}, true},
		{autodef.Condition{Path: "$.tags", Op: autodef.OpContains, Value: "gold"}, false},
		{autodef.Condition{Path: "$.score", Op: autodef.OpContains, Value: "7"}, false},
		{autodef.Condition{Path: "$.name", Op: autodef.OpExists}, true},
		{autodef.Condition{Path: "$.nothing", Op: autodef.OpExists}, false},
		{autodef.Condition{Path: "$.nothing", Op: autodef.OpMissing}, true},
		{autodef.Condition{Path: "$.name", Op: autodef.OpMissing}, false},
		{autodef.Condition{Path: "$.amount", Op: autodef.OpGt, Value: 24999.5}, true},
		{autodef.Condition{Path: "$.amount", Op: autodef.OpGt, Value: 25000.0}, false},
		{autodef.Condition{Path: "$.amount", Op: autodef.OpGte, Value: "25000"}, true},
		{autodef.Condition{Path: "$.score", Op: autodef.OpLt, Value: 71.0}, false},
		{autodef.Condition{Path: "$.score", Op: autodef.OpLte, Value: 71}, true},
		{autodef.Condition{Path: "$.name", Op: autodef.OpGt, Value: 1.0}, false},
		{autodef.Condition{Path: "$.items[?@.kind == 'loan'].amount", Op: autodef.OpGte, Value: 5000.0}, true},
		{autodef.Condition{Path: "$.items[?@.kind == 'fee'].amount", Op: autodef.OpGte, Value: 5000.0}, false},
		{autodef.Condition{Path: "$[", Op: autodef.OpMissing}, false}, // a stored bad path never holds
	}
	for _, tt := range tests {
		if got, why := autodef.Holds([]autodef.Condition{tt.cond}, input); got != tt.want {
			t.Errorf("%s %s %v: holds = %v (%s), want %v", tt.cond.Path, tt.cond.Op, tt.cond.Value, got, why, tt.want)
		}
	}
	conds := []autodef.Condition{{Path: "$.state", Op: autodef.OpEq, Value: "NY"}, {Path: "$.score", Op: autodef.OpGt, Value: 90.0}}
	if ok, why := autodef.Holds(conds, input); ok || why != "conditions[1] ($.score gt) does not hold" {
		t.Errorf("holds = %v, %q; want the second condition named", ok, why)
	}
	if ok, why := autodef.Holds(nil, input); !ok || why != "" {
		t.Errorf("no conditions: holds = %v, %q; want true", ok, why)
	}
}

// Which input field update_lead reads, which actions need a lead, and
// which names are external ids.
func TestActionHelpers(t *testing.T) {
	for _, tt := range []struct {
		a    autodef.Action
		want string
	}{
		{autodef.Action{MatchBy: "id"}, "leadId"},
		{autodef.Action{MatchBy: "email"}, "email"},
		{autodef.Action{MatchBy: "externalIds.crm"}, "externalIds.crm"},
		{autodef.Action{MatchBy: "id", MatchField: "ref"}, "ref"},
	} {
		if got := tt.a.ValueField(); got != tt.want {
			t.Errorf("ValueField(%+v) = %q, want %q", tt.a, got, tt.want)
		}
	}
	// The lead actions need one; create_lead and update_lead write theirs,
	// and the lending actions find theirs through the application.
	needs := []string{autodef.AddTags, autodef.MoveStage, autodef.AssignAdvisor, autodef.MarkDoNotCall}
	for _, typ := range autodef.ActionTypes {
		want := slices.Contains(needs, typ)
		if got := act(typ).NeedsLead(); got != want {
			t.Errorf("%s needs a lead = %v, want %v", typ, got, want)
		}
		if autodef.ActionTypeDocs[typ] == "" {
			t.Errorf("%s is not described", typ)
		}
	}
	if len(autodef.ActionTypeDocs) != len(autodef.ActionTypes) {
		t.Errorf("%d action types described, %d exist", len(autodef.ActionTypeDocs), len(autodef.ActionTypes))
	}
	for name, want := range map[string]string{"externalIds.crm": "crm", "externalIds.": "", "email": "", "externalIdscrm": ""} {
		key, ok := autodef.IsExternalID(name)
		if key != want && ok || ok != (want != "") {
			t.Errorf("IsExternalID(%q) = %q, %v; want %q", name, key, ok, want)
		}
	}
}

// Any condition: checking and evaluating it never panics, a condition the
// check accepts reads back from its JSON as one it accepts, and Holds of
// an unaccepted path is false rather than an error.
func FuzzCondition(f *testing.F) {
	f.Add("$.amount", "gte", `25000`)
	f.Add("$.items[?@.kind == 'loan'].amount", "lt", `"12.5"`)
	f.Add("$.state", "in", `["NY","NJ"]`)
	f.Add("$[", "exists", `null`)
	// Values of the wrong shape for their operator: refused on save, and
	// evaluating one must not panic all the same.
	f.Add("$.state", "in", `"NY"`)
	f.Add("$.amount", "gt", `"lots"`)
	f.Add("$.items", "contains", `{"kind":"loan"}`)
	f.Fuzz(func(t *testing.T, path, op, value string) {
		var v any
		if json.Unmarshal([]byte(value), &v) != nil {
			return
		}
		c := autodef.Condition{Path: path, Op: op, Value: v}
		input := map[string]any{"amount": "25000", "state": "NY", "items": []any{map[string]any{"kind": "loan", "amount": 5.0}}}
		_, _ = autodef.Holds([]autodef.Condition{c}, input)
		def := autodef.Definition{Conditions: []autodef.Condition{c}, Actions: []autodef.Action{act(autodef.CreateLead)}}
		if def.Check() != nil {
			return
		}
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("an accepted condition does not encode: %v", err)
		}
		var back autodef.Condition
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("an accepted condition does not decode: %v", err)
		}
		def.Conditions = []autodef.Condition{back}
		if err := def.Check(); err != nil {
			t.Fatalf("accepted %+v, refused it read back from %s: %v", c, raw, err)
		}
	})
}
