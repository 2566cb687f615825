package autorun

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	entsql "entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/sqljson"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/dialer"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/automation"
	"github.com/lendingpipe/svc/ent/automationrun"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/autodef"
	"github.com/lendingpipe/svc/internal/errclass"
	"github.com/lendingpipe/svc/internal/reqbody"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
)

// outcome is what a run that did not fail came to.
type outcome struct {
	status  automationrun.Status
	applied []map[string]any
	leadID  *uuid.UUID
	note    *string // why it was skipped
}

// scopes are what an automation may do: write leads, mark them
// do-not-call, and record lenders' decisions, fundings and commission
// payments (the lending actions). It acts for the automation's
// organization only.
var scopes = []string{viewer.ScopeLeadsWrite, viewer.ScopeDialerWrite, viewer.ScopeLendingWrite}

// apply checks the run's input and conditions, then applies the actions in
// order: lead actions to the run's lead, lending actions to the
// application or deal the input names. ctx carries the transaction.
func (r *Runner) apply(ctx context.Context, tx *ent.Client, a *ent.Automation, run *ent.AutomationRun) (outcome, error) {
	if !a.IsActive {
		why := "the automation was deactivated before the run was applied"
		return outcome{status: automationrun.StatusSkipped, applied: []map[string]any{}, note: &why}, nil
	}
	for _, f := range a.RequiredFields {
		if _, ok := run.Input[f]; !ok {
			return outcome{}, apperr.Invalid(f, "is required by the automation but the mapping found no value")
		}
	}
	if ok, why := autodef.Holds(a.Conditions, run.Input); !ok {
		return outcome{status: automationrun.StatusSkipped, applied: []map[string]any{}, note: &why}, nil
	}
	ctx = viewer.NewContext(ctx, viewer.Viewer{OrgID: a.OrgID, Scopes: scopes, AutomationID: a.ID, Depth: run.Depth})
	s := &step{r: r, tx: tx, a: a, input: run.Input, data: fold(run.Input)}
	if id, ok := s.input["leadId"].(string); ok && a.TriggerEvent != nil {
		if u, err := uuid.Parse(id); err == nil {
			s.lead = &u
		}
	}
	applied := make([]map[string]any, 0, len(a.Actions))
	for i, act := range a.Actions {
		detail, err := s.do(ctx, act)
		if err != nil {
			return outcome{}, actionError(i, act, err)
		}
		detail["action"] = act.Type
		if s.lead != nil {
			detail["leadId"] = *s.lead
		}
		applied = append(applied, detail)
	}
	return outcome{status: automationrun.StatusSucceeded, applied: applied, leadID: s.lead}, nil
}

// actionError says which action failed, with the error's code and field
// as the API surfaces map them (an ent validation error names its field).
// An unexpected error keeps its own words for the run's record.
func actionError(i int, act autodef.Action, err error) error {
	at := fmt.Sprintf("actions[%d] (%s)", i, act.Type)
	e := errclass.Of(err)
	if _, ours := apperr.As(err); !ours && e.Code == apperr.Internal {
		return fmt.Errorf("%s: %w", at, err)
	}
	out := *e
	out.Message = at + ": " + e.Message
	if errors.As(err, new(awaited)) {
		return awaited{&out}
	}
	return &out
}

// awaited is a failure that waits on data that may yet arrive, so the run
// is retried although its code alone would fail it at once: the lead an
// update_lead matches may be created by a request still on its way, a team
// may gain an advisor, the application a lender's reference names may be
// submitted and funded.
type awaited struct{ err *apperr.Error }

func (a awaited) Error() string { return a.err.Error() }
func (a awaited) Unwrap() error { return a.err }

// step is one run in progress: its input and the lead it works on.
type step struct {
	r     *Runner
	tx    *ent.Client
	a     *ent.Automation
	input map[string]any // as mapped
	data  map[string]any // with dotted targets folded into objects
	lead  *uuid.UUID
	tags  []string // the lead's tags, when an earlier action returned it
	known bool     // tags is current
}

// saw records the lead an action returned, sparing later actions a read.
func (s *step) saw(l *ent.Lead, err error) error {
	if err == nil && l != nil {
		s.lead, s.tags, s.known = &l.ID, l.Tags, true
	}
	return err
}

func (s *step) do(ctx context.Context, act autodef.Action) (map[string]any, error) {
	if act.NeedsLead() && s.lead == nil {
		return nil, apperr.Invalid("leadId", "the run has no lead to act on")
	}
	switch act.Type {
	case autodef.CreateLead:
		return s.createLead(ctx)
	case autodef.UpdateLead:
		return s.updateLead(ctx, act)
	case autodef.AddTags:
		return s.addTags(ctx, act.Tags)
	case autodef.MoveStage:
		return map[string]any{"stageId": *act.StageID}, s.saw(leads.MoveStage(ctx, s.tx, *s.lead, *act.StageID))
	case autodef.AssignAdvisor:
		return s.assign(ctx, act)
	case autodef.MarkDoNotCall:
		var reason *string
		if act.Reason != "" {
			reason = &act.Reason
		}
		_, err := dialer.MarkDoNotCall(ctx, s.tx, s.lead, nil, reason, s.r.now())
		return map[string]any{}, err // its leads are not read back: tags stay as known
	case autodef.DecideApplication:
		return s.decideApplication(ctx)
	case autodef.FundDeal:
		return s.fundDeal(ctx)
	case autodef.RecordCommissionPayment:
		return s.recordCommissionPayment(ctx)
	}
	return nil, fmt.Errorf("unknown action %q", act.Type)
}

// createLead turns the mapped fields into the create input of POST
// /v1/leads and creates the lead as it does.
func (s *step) createLead(ctx context.Context) (map[string]any, error) {
	var body reqbody.CreateLead
	if _, err := reqbody.DecodeMapped(s.data, &body); err != nil {
		return nil, err
	}
	in := body.Input()
	if in.Source == nil {
		src := lead.SourceAPI
		in.Source = &src
	}
	return map[string]any{"created": true}, s.saw(leads.Create(ctx, s.tx, in))
}

// updateLead finds the lead by the configured attribute and applies the
// mapped lead fields to it as PATCH /v1/leads/{id} does.
func (s *step) updateLead(ctx context.Context, act autodef.Action) (map[string]any, error) {
	l, err := s.match(ctx, act)
	if err != nil {
		return nil, err
	}
	_ = s.saw(l, nil)
	var body reqbody.LeadFields
	n, err := reqbody.DecodeMapped(s.data, &body)
	if err != nil || n == 0 {
		return map[string]any{"matchedBy": act.MatchBy}, err
	}
	return map[string]any{"matchedBy": act.MatchBy}, s.saw(leads.Update(ctx, s.tx, l.ID, body.UpdateInput()))
}

// match finds the lead whose matchBy attribute equals the input's value;
// the newest when several do. None is NOT_FOUND, awaited: the lead may be
// created by a request still on its way.
func (s *step) match(ctx context.Context, act autodef.Action) (*ent.Lead, error) {
	field := act.ValueField()
	v, ok := s.input[field]
	if !ok {
		return nil, apperr.Invalid(field, "update_lead matches on %s but the input has no %s", act.MatchBy, field)
	}
	text := fmt.Sprint(v)
	q := s.tx.Lead.Query()
	switch key, external := autodef.IsExternalID(act.MatchBy); {
	case external:
		q = q.Where(func(sel *entsql.Selector) {
			sel.Where(sqljson.ValueEQ(lead.FieldExternalIds, text, sqljson.Path(key)))
		})
	case act.MatchBy == "id":
		id, err := uuid.Parse(text)
		if err != nil {
			return nil, apperr.Invalid(field, "is not a lead id")
		}
		q = q.Where(lead.ID(id))
	case act.MatchBy == "email":
		q = q.Where(lead.EmailEqualFold(text))
	default:
		q = q.Where(lead.Phone(text))
	}
	l, err := q.Order(lead.ByCreatedAt(entsql.OrderDesc())).First(ctx)
	if ent.IsNotFound(err) {
		return nil, awaited{apperr.New(apperr.NotFound, "no lead has %s = %s", act.MatchBy, apperr.Quote(text))}
	}
	return l, err
}

func (s *step) addTags(ctx context.Context, tags []string) (map[string]any, error) {
	if !s.known {
		if err := s.saw(s.tx.Lead.Get(ctx, *s.lead)); err != nil {
			return nil, err
		}
	}
	merged := slices.Clone(s.tags)
	for _, t := range tags {
		if !slices.Contains(merged, t) {
			merged = append(merged, t)
		}
	}
	if len(merged) > len(s.tags) {
		if err := s.saw(leads.Update(ctx, s.tx, *s.lead, ent.UpdateLeadInput{Tags: merged})); err != nil {
			return nil, err
		}
	}
	return map[string]any{"tags": tags}, nil
}

// assign gives the lead to the named advisor, or to the team's next
// advisor in turn (members with role advisor or admin, oldest first).
func (s *step) assign(ctx context.Context, act autodef.Action) (map[string]any, error) {
	advisor := act.AdvisorID
	if advisor == nil {
		var err error
		if advisor, err = s.nextInTeam(ctx, *act.TeamID); err != nil {
			return nil, err
		}
	}
	return map[string]any{"advisorId": *advisor}, s.saw(leads.Assign(ctx, s.tx, *s.lead, *advisor))
}

// nextInTeam advances the automation's round-robin counter and picks the
// member it lands on. The counter is bumped with an UPDATE in the run's
// transaction, so concurrent runs on PostgreSQL queue on the row lock and
// each gets its own turn.
func (s *step) nextInTeam(ctx context.Context, teamID uuid.UUID) (*uuid.UUID, error) {
	sys := rule.SystemContext(ctx)
	members, err := s.tx.User.Query().
		Where(user.TeamID(teamID), user.OrgID(s.a.OrgID), user.RoleIn(user.RoleAdvisor, user.RoleAdmin)).
		Order(user.ByCreatedAt(), user.ByID()).IDs(sys)
	if err != nil {
		return nil, fmt.Errorf("reading the team: %w", err)
	}
	if len(members) == 0 {
		return nil, awaited{apperr.New(apperr.Conflict, "team %s has no advisors to assign to", teamID)}
	}
	// Both databases support UPDATE ... RETURNING (SQLite since 3.35).
	bump := entsql.Dialect(s.r.db.Dialect).Update(automation.Table).
		Add(automation.FieldRoundRobin, 1).Where(entsql.EQ(automation.FieldID, s.a.ID)).Returning(automation.FieldRoundRobin)
	query, args := bump.Query()
	rows, err := s.tx.QueryContext(sys, query, args...)
	if err != nil {
		return nil, fmt.Errorf("advancing the round-robin: %w", err)
	}
	defer rows.Close()
	var turn int
	if !rows.Next() {
		return nil, fmt.Errorf("advancing the round-robin: automation %s is gone", s.a.ID)
	}
	if err := rows.Scan(&turn); err != nil {
		return nil, fmt.Errorf("reading the round-robin: %w", err)
	}
	return &members[(turn-1)%len(members)], rows.Close()
}

// fold turns mapping targets such as "customFields.loanPurpose" and
// "externalIds.partnerId" into members of those objects, merged over an
// object mapped whole.
func fold(input map[string]any) map[string]any {
	out := make(map[string]any, len(input))
	for k, v := range input {
		if _, _, dotted := nested(k); !dotted {
			if m, ok := v.(map[string]any); ok {
				v = maps.Clone(m) // merged into below; the input stays as logged
			}
			out[k] = v
		}
	}
	for k, v := range input {
		obj, key, dotted := nested(k)
		if !dotted {
			continue
		}
		m, _ := out[obj].(map[string]any)
		if m == nil {
			m = map[string]any{}
			out[obj] = m
		}
		m[key] = v
	}
	return out
}

func nested(target string) (obj, key string, ok bool) {
	obj, key, ok = strings.Cut(target, ".")
	return obj, key, ok && key != "" && (obj == "customFields" || obj == "externalIds")
}
