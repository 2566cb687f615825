package schema

import (
	"context"
	"errors"
	"fmt"

	"entgo.io/ent"
	"github.com/google/uuid"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/contact"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/counted"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/stagesread"
	"github.com/lendingpipe/svc/internal/txstate"
)

// Hooks keep what holds for every writer of a lead: its fields' rules,
// its references into its own organization, and its events. What a lead's
// write does besides (its defaults, its counts, the agents board) is the
// leads package's flows'.
func (Lead) Hooks() []ent.Hook {
	return []ent.Hook{
		hook.On(leadChecks, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne),
		hook.On(emitLeadEvents, ent.OpCreate|ent.OpUpdateOne),
	}
}

func (Lead) Interceptors() []ent.Interceptor {
	return []ent.Interceptor{countFromTotal}
}

// countFromTotal answers a lead Count from the maintained total when the
// caller marked the context (counted.With) because the query is the whole
// organization's, or a filter a kept count covers: a COUNT would read every
// one of the matching leads. A total that turns out not to be kept
// (counted.ErrNotKept) falls back to the COUNT. The privacy
// rules have run by then (Count prepares the query before its
// interceptors), so a caller without leads:read still gets no total.
var countFromTotal = ent.InterceptFunc(func(next ent.Querier) ent.Querier {
	return ent.QuerierFunc(func(ctx context.Context, q ent.Query) (ent.Value, error) {
		total, ok := counted.From(ctx)
		if !ok || ent.QueryFromContext(ctx).Op != ent.OpQueryCount {
			return next.Query(ctx, q)
		}
		n, err := total(ctx)
		if errors.Is(err, counted.ErrNotKept) {
			return next.Query(ctx, q)
		}
		return n, err
	})
})

// leadChecks validates what field validators cannot see: collections, and
// references that must point into the lead's own organization.
func leadChecks(next ent.Mutator) ent.Mutator {
	return hook.LeadFunc(func(ctx context.Context, m *gen.LeadMutation) (gen.Value, error) {
		if err := checkTags(ctx, m); err != nil {
			return nil, err
		}
		if err := checkCustomFields(m); err != nil {
			return nil, err
		}
		if err := checkExternalIDs(m); err != nil {
			return nil, err
		}
		if err := checkLeadRefs(ctx, m); err != nil {
			return nil, err
		}
		if _, ok := m.StageID(); ok {
			if m.Op().Is(ent.OpUpdate) {
				// A bulk update does not say which leads left which stage.
				return nil, errors.New("a lead's stage is changed one lead at a time, so its stage counts follow")
			}
			// Stage moves are the only writes of stage_id, so this marks the move.
			m.SetStageChangedAt(apitime.Now(ctx))
		}
		return next.Mutate(ctx, m)
	})
}

func checkTags(ctx context.Context, m *gen.LeadMutation) error {
	tags, set := m.Tags()
	appended, appending := m.AppendedTags()
	if !set && !appending {
		return nil
	}
	total := len(tags) + len(appended)
	if appending && !set && m.Op().Is(ent.OpUpdateOne) {
		// GraphQL's appendTags adds to what the lead already has.
		id, _ := m.ID()
		current, err := m.Client().Lead.Get(ctx, id)
		if err != nil {
			return err
		}
		total += len(current.Tags)
	}
	if total > bounds.MaxTags {
		return apperr.Invalid("tags", "at most %d tags are allowed", bounds.MaxTags)
	}
	for _, t := range append(tags, appended...) {
		if err := runeLen(1, bounds.MaxTagLen)(t); err != nil {
			return apperr.Invalid("tags", "each tag %s", err)
		}
	}
	return nil
}

func checkCustomFields(m *gen.LeadMutation) error {
	fields, ok := m.CustomFields()
	if !ok {
		return nil
	}
	if len(fields) > bounds.MaxCustomFields {
		return apperr.Invalid("customFields", "at most %d custom fields are allowed", bounds.MaxCustomFields)
	}
	for k := range fields {
		if err := runeLen(1, bounds.MaxKeyLen)(k); err != nil {
			return apperr.Invalid("customFields", "each key %s", err)
		}
	}
	return bounds.CustomFields.Check("customFields", fields)
}

// checkExternalIDs keeps externalIds a small map of other systems' ids:
// each a string or a number, so automations can match on it.
func checkExternalIDs(m *gen.LeadMutation) error {
	ids, ok := m.ExternalIds()
	if !ok {
		return nil
	}
	if len(ids) > bounds.MaxExternalIDs {
		return apperr.Invalid("externalIds", "at most %d external ids are allowed", bounds.MaxExternalIDs)
	}
	for k, v := range ids {
		if err := runeLen(1, bounds.MaxKeyLen)(k); err != nil {
			return apperr.Invalid("externalIds", "each key %s", err)
		}
		switch v := v.(type) {
		case float64:
		case string:
			if err := textLen(bounds.ExternalID)(v); err != nil {
				return apperr.Invalid("externalIds."+k, "%s", err)
			}
		default:
			return apperr.Invalid("externalIds."+k, "must be a string or a number")
		}
	}
	return nil
}

// checkLeadRefs makes sure stage, advisor and contact belong to the lead's
// organization. The queries name the organization themselves and run with
// the system context, so a key that may write leads but not read contacts
// can still link one it knows the id of. A reference found is remembered
// to the end of the transaction (knownRef): a bulk create naming one stage
// or advisor a thousand times reads it once.
func checkLeadRefs(ctx context.Context, m *gen.LeadMutation) error {
	orgID, err := mutationOrg(ctx, m)
	if err != nil {
		return err
	}
	sys := rule.SystemContext(ctx)
	c := m.Client()
	if id, ok := m.StageID(); ok {
		if st, read := stagesread.Of(ctx, id); !read || st.OrgID != orgID {
			err := knownRef(ctx, pipelinestage.Table, id, orgID, func() (bool, error) {
				return c.PipelineStage.Query().Where(pipelinestage.ID(id), pipelinestage.OrgID(orgID)).Exist(sys)
			})
			if err != nil {
				return apperr.RefError(err, gen.IsNotFound, "stageId", "stage")
			}
		}
	}
	if id, ok := m.PrimaryAdvisorID(); ok {
		err := knownRef(ctx, user.Table, id, orgID, func() (bool, error) {
			return c.User.Query().Where(user.ID(id), user.OrgID(orgID)).Exist(sys)
		})
		if err != nil {
			return apperr.RefError(err, gen.IsNotFound, "assignToAdvisorId", "advisor")
		}
	}
	if id, ok := m.ContactID(); ok {
		err := knownRef(ctx, contact.Table, id, orgID, func() (bool, error) {
			return c.Contact.Query().Where(contact.ID(id), contact.OrgID(orgID)).Exist(sys)
		})
		if err != nil {
			return apperr.RefError(err, gen.IsNotFound, "contactId", "contact")
		}
	}
	return nil
}

// refKey names a row of table found in an organization.
type refKey struct {
	table   string
	id, org uuid.UUID
}

// knownRef is nil when the row id of table is the organization's: known
// from earlier in the transaction (its state, txstate), or found by
// exists. A row not found is a NotFoundError.
func knownRef(ctx context.Context, table string, id, org uuid.UUID, exists func() (bool, error)) error {
	key := refKey{table, id, org}
	if _, known := txstate.Load[bool](ctx, key); known {
		return nil
	}
	found, err := exists()
	if err != nil {
		return err
	}
	if !found {
		return &gen.NotFoundError{}
	}
	txstate.LoadOrStore(ctx, key, true)
	return nil
}

// refError is the error of a reference to a row: a failure to read it
// (err), or the caller's mistake when it does not exist (nil).
func refError(err error, field, what string) error {
	return apperr.RefError(err, nil, field, what)
}

// mutationOrg is the organization a lead mutation acts in: the new row's on
// create, the viewer's on update (the privacy filter already limits updates
// to it).
func mutationOrg(ctx context.Context, m *gen.LeadMutation) (uuid.UUID, error) {
	if id, ok := mutationOrgOf(ctx, m); ok {
		return id, nil
	}
	// A system update: take the organization of the rows being changed.
	ids, err := m.IDs(rule.SystemContext(ctx))
	if err != nil || len(ids) == 0 {
		return uuid.Nil, fmt.Errorf("resolving the organization of the lead update: %w", err)
	}
	l, err := m.Client().Lead.Get(rule.SystemContext(ctx), ids[0])
	if err != nil {
		return uuid.Nil, fmt.Errorf("resolving the organization of the lead update: %w", err)
	}
	return l.OrgID, nil
}
