package leads

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/lendingpipe/svc/activity"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/rule"
)

// notAttributes change with others and are no attribute of their own in
// the history: the times a write stamps, and the stage, which is a
// lead.stage_changed entry of its own.
var notAttributes = []string{lead.FieldUpdatedAt, lead.FieldStageChangedAt, lead.FieldStageID, lead.FieldConvertedAt}

// before holds what m is about to change, read before it is saved: each
// attribute it sets or clears, with its value now. The old row is read
// through the mutation, which the event hooks read it through too: one
// query for both.
type before struct {
	m      *ent.LeadMutation
	fields []string
	values map[string]any
}

func readBefore(ctx context.Context, m *ent.LeadMutation) (before, error) {
	b := before{m: m, values: map[string]any{}}
	fields := append(m.Fields(), m.ClearedFields()...)
	if _, appended := m.AppendedTags(); appended {
		fields = append(fields, lead.FieldTags)
	}
	for _, f := range fields {
		if slices.Contains(notAttributes, f) || slices.Contains(b.fields, f) {
			continue
		}
		v, err := m.OldField(rule.SystemContext(ctx), f)
		if ent.IsNotFound(err) {
			return b, nil // the update fails on it, as it would without this read
		}
		if err != nil {
			return before{}, fmt.Errorf("reading the lead's %s before its update: %w", f, err)
		}
		b.fields = append(b.fields, f)
		b.values[f] = v
	}
	return b, nil
}

// changes are the attributes whose value the mutation changed, by API
// name, in the order of the schema's fields.
func (b before) changes() []history.Change {
	var out []history.Change
	for _, f := range lead.Columns {
		if !slices.Contains(b.fields, f) {
			continue
		}
		from, to := plain(b.values[f]), plain(b.after(f))
		if equalJSON(from, to) {
			continue
		}
		out = append(out, history.Change{Field: apperr.FieldName(f), From: from, To: to})
	}
	return out
}

// after is the field's value the mutation wrote: nil when cleared, the
// tags it appended after those it kept.
func (b before) after(f string) any {
	if b.m.FieldCleared(f) {
		return nil
	}
	v, set := b.m.Field(f)
	if f != lead.FieldTags {
		return v
	}
	tags, _ := b.values[f].([]string)
	if set {
		tags, _ = v.([]string)
	}
	appended, _ := b.m.AppendedTags()
	return append(slices.Clone(tags), appended...)
}

// recordUpdated records lead.updated for the changes, when there are any.
func recordUpdated(ctx context.Context, c *ent.Client, l *ent.Lead, changes []history.Change) error {
	if len(changes) == 0 {
		return nil
	}
	words := make([]string, len(changes))
	for i, ch := range changes {
		words[i] = spaced(ch.Field)
	}
	return activity.Record(ctx, c, activity.Entry{OrgID: l.OrgID, LeadID: l.ID, Kind: history.LeadUpdated,
		RecordID: l.ID, Summary: "Changed " + strings.Join(words, ", "), Changes: changes})
}

// recordCreated records lead.created for each of the leads.
func recordCreated(ctx context.Context, c *ent.Client, leads []*ent.Lead) error {
	entries := make([]activity.Entry, len(leads))
	for i, l := range leads {
		summary := "Lead created"
		if l.Source != lead.SourceManual {
			summary += " from " + strings.ReplaceAll(l.Source.String(), "_", " ")
		}
		entries[i] = activity.Entry{OrgID: l.OrgID, LeadID: l.ID, Kind: history.LeadCreated, RecordID: l.ID, Summary: summary}
	}
	return activity.Record(ctx, c, entries...)
}

// recordStageChanged records lead.stage_changed from the stage from to the
// stage to, both read by the caller with their labels.
func recordStageChanged(ctx context.Context, c *ent.Client, l *ent.Lead, from, to *ent.PipelineStage) error {
	return activity.Record(ctx, c, activity.Entry{OrgID: l.OrgID, LeadID: l.ID, Kind: history.LeadStageChanged,
		RecordID: l.ID, Summary: fmt.Sprintf("Moved from %s to %s", from.StageLabel, to.StageLabel),
		Changes: []history.Change{{Field: "stageId", From: from.ID, To: to.ID}}})
}

// plain is v as JSON would carry it: pointers followed, times as text.
func plain(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// spaced is an API field name in words: primaryAdvisorId -> primary
// advisor id.
func spaced(name string) string {
	var b strings.Builder
	for _, r := range name {
		if unicode.IsUpper(r) {
			b.WriteByte(' ')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
