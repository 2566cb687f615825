package lending

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/activity"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/document"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/stipulation"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/text"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Stipulations (PRODUCT 11) are what an approved application still waits
// for. The approval makes one of each condition (Decide), AddStipulation
// adds one, and each flow below moves one:
//
//	outstanding -> received  SatisfyStipulation (documents of the application or its lead)
//	outstanding -> waived    WaiveStipulation (admin), or a funding that waives what is left
//	received    -> outstanding  ReopenStipulation
//	waived      -> outstanding  ReopenStipulation
//
// Every flow takes the application's lead first, as the funding does, so a
// stipulation never changes under a funding that read it. Each keeps the
// application's count of outstanding ones in the same transaction, and
// emits application.ready_to_fund when that count reaches zero on an
// approved application. Stipulations change only while their application
// is approved: once funded, declined or withdrawn its checklist is history.

// MaxDocumentsPerStipulation bounds satisfyStipulation's documentIds.
const MaxDocumentsPerStipulation = 20

// openStipulations makes one outstanding stipulation of each condition of
// a just-approved application, or announces it ready when it has none.
func openStipulations(ctx context.Context, c *ent.Client, a *ent.Application) error {
	if len(a.Conditions) == 0 {
		return readyToFund(ctx, c, a)
	}
	creates := make([]*ent.StipulationCreate, len(a.Conditions))
	for i, cond := range a.Conditions {
		creates[i] = c.Stipulation.Create().SetOrgID(a.OrgID).SetApplicationID(a.ID).SetLeadID(a.LeadID).SetText(cond)
	}
	if err := c.Stipulation.CreateBulk(creates...).Exec(ctx); err != nil {
		return fmt.Errorf("opening the approval's stipulations: %w", err)
	}
	return nil
}

// AddStipulation adds an outstanding stipulation to an approved
// application: 1 to 100 characters of text.
func AddStipulation(ctx context.Context, c *ent.Client, applicationID uuid.UUID, txt string) (*ent.Stipulation, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Stipulation, error) {
		org, err := writer(ctx)
		if err != nil {
			return nil, err
		}
		if text.HasNUL(txt) {
			return nil, text.NULError("text")
		}
		a, err := takeApplication(ctx, c, org, applicationID)
		if err != nil {
			return nil, err // NOT_FOUND for another organization's
		}
		// The text's length (1 to 100 characters) is the schema's rule.
		s, err := c.Stipulation.Create().SetOrgID(org).SetApplicationID(a.ID).SetLeadID(a.LeadID).SetText(txt).Save(ctx)
		if err != nil {
			return nil, err
		}
		// The lead's history has no kind for an added stipulation (PRODUCT
		// 10.3 names received, waived and reopened): the checklist shows it.
		return s, countOutstanding(ctx, c, a, +1)
	})
}

// SatisfyStipulation marks an outstanding stipulation received with the
// documents that meet it: each attached to its application or its lead.
func SatisfyStipulation(ctx context.Context, c *ent.Client, id uuid.UUID, documentIDs []uuid.UUID) (*ent.Stipulation, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Stipulation, error) {
		org, err := writer(ctx)
		if err != nil {
			return nil, err
		}
		docs := uniqueIDs(documentIDs)
		if len(docs) == 0 || len(docs) > MaxDocumentsPerStipulation {
			return nil, apperr.Invalid("documentIds", "name 1 to %d documents", MaxDocumentsPerStipulation)
		}
		return moveStipulation(ctx, c, org, id, stipulation.StatusReceived, func(u *ent.StipulationUpdateOne, s *ent.Stipulation) error {
			if err := checkDocuments(ctx, c, s, docs); err != nil {
				return err
			}
			u.SetDocumentIds(docs).SetReceivedAt(apitime.Now(ctx))
			return nil
		})
	})
}

// WaiveStipulation waives an outstanding stipulation, with the reason:
// an admin's decision.
func WaiveStipulation(ctx context.Context, c *ent.Client, id uuid.UUID, reason string) (*ent.Stipulation, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Stipulation, error) {
		org, err := rule.RequireOrg(ctx, viewer.ScopeAdmin, "waiving a stipulation")
		if err != nil {
			return nil, err
		}
		if err := checkReason(reason); err != nil {
			return nil, err
		}
		return moveStipulation(ctx, c, org, id, stipulation.StatusWaived, func(u *ent.StipulationUpdateOne, _ *ent.Stipulation) error {
			u.SetWaivedAt(apitime.Now(ctx)).SetWaivedBy(*events.Actor(ctx)).SetWaiveReason(reason)
			return nil
		})
	})
}

// ReopenStipulation makes a received or waived stipulation outstanding
// again, clearing how it was met; the reason goes in the lead's history.
func ReopenStipulation(ctx context.Context, c *ent.Client, id uuid.UUID, reason string) (*ent.Stipulation, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Stipulation, error) {
		org, err := writer(ctx)
		if err != nil {
			return nil, err
		}
		if err := checkReason(reason); err != nil {
			return nil, err
		}
		return moveStipulation(ctx, c, org, id, stipulation.StatusOutstanding, func(u *ent.StipulationUpdateOne, _ *ent.Stipulation) error {
			u.SetDocumentIds([]uuid.UUID{}).ClearReceivedAt().ClearWaivedAt().ClearWaivedBy().ClearWaiveReason()
			return nil
		}, reason)
	})
}

// stipulationMoves is the transition table: the statuses each status is
// reached from.
var stipulationMoves = map[stipulation.Status][]stipulation.Status{
	stipulation.StatusReceived:    {stipulation.StatusOutstanding},
	stipulation.StatusWaived:      {stipulation.StatusOutstanding},
	stipulation.StatusOutstanding: {stipulation.StatusReceived, stipulation.StatusWaived},
}

// moveStipulation moves the stipulation to status to, with set's changes:
// it takes the lead, checks the application is approved and the move is
// in the table, updates the stipulation conditionally on the status it
// read, keeps the application's count, and records the move in the lead's
// history (with why, for a reopening).
func moveStipulation(ctx context.Context, c *ent.Client, org, id uuid.UUID, to stipulation.Status,
	set func(*ent.StipulationUpdateOne, *ent.Stipulation) error, why ...string) (*ent.Stipulation, error) {
	s, err := c.Stipulation.Get(ctx, id)
	if err != nil {
		return nil, err // NOT_FOUND for another organization's
	}
	a, err := takeApplication(ctx, c, org, s.ApplicationID)
	if err != nil {
		return nil, err
	}
	// Read again under the lead's lock: a writer that held it may have
	// moved the stipulation.
	if s, err = c.Stipulation.Get(ctx, id); err != nil {
		return nil, err
	}
	if !slices.Contains(stipulationMoves[to], s.Status) {
		return nil, StipulationConflict(s.Status, to)
	}
	u := c.Stipulation.UpdateOne(s).Where(stipulation.StatusEQ(s.Status)).SetStatus(to)
	if err := set(u, s); err != nil {
		return nil, err
	}
	moved, err := u.Save(ctx)
	if ent.IsNotFound(err) {
		return nil, StipulationConflict(to, to) // moved since the read
	}
	if err != nil {
		return nil, err
	}
	delta := -1
	if to == stipulation.StatusOutstanding {
		delta = +1
	}
	if err := countOutstanding(ctx, c, a, delta); err != nil {
		return nil, err
	}
	kind, summary := stipulationEntry(moved, why)
	return moved, recordStipulation(ctx, c, moved, kind, summary)
}

// takeApplication takes the application's lead, as every lending flow
// does, then reads the application under it: it must be approved.
func takeApplication(ctx context.Context, c *ent.Client, org, id uuid.UUID) (*ent.Application, error) {
	ref, err := c.Application.Query().Where(application.ID(id), application.OrgID(org)).
		Select(application.FieldLeadID).Only(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := lockLead(ctx, c, store.MoveRead, lead.ID(ref.LeadID)); err != nil {
		return nil, fmt.Errorf("locking the application's lead: %w", err)
	}
	a, err := c.Application.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if a.Status != application.StatusApproved {
		return nil, &apperr.Error{Code: apperr.Conflict, Field: "applicationId",
			Message: fmt.Sprintf("the application is %s: its stipulations change only while it is approved", a.Status),
			Detail:  map[string]any{"applicationStatus": string(a.Status)}}
	}
	return a, nil
}

// countOutstanding adds delta to the application's count of outstanding
// stipulations, in one UPDATE, and announces the application ready when
// the count reaches zero.
func countOutstanding(ctx context.Context, c *ent.Client, a *ent.Application, delta int) error {
	updated, err := c.Application.UpdateOneID(a.ID).AddStipulationsOutstanding(delta).Save(ctx)
	if err != nil {
		return fmt.Errorf("counting the application's stipulations: %w", err)
	}
	if updated.StipulationsOutstanding == 0 {
		return readyToFund(ctx, c, updated)
	}
	return nil
}

// readyToFund emits application.ready_to_fund for an approved application
// with no stipulation outstanding.
func readyToFund(ctx context.Context, c *ent.Client, a *ent.Application) error {
	data := map[string]any{"applicationId": a.ID, "orgId": a.OrgID, "leadId": a.LeadID, "lenderId": a.LenderID,
		"readyAt": apitime.Of(apitime.Now(ctx))}
	return events.Emit(ctx, c, a.OrgID, event.ApplicationReady, data)
}

// checkDocuments refuses a document that is not attached to the
// stipulation's application or its lead, naming documentIds.
func checkDocuments(ctx context.Context, c *ent.Client, s *ent.Stipulation, ids []uuid.UUID) error {
	n, err := c.Document.Query().Where(document.IDIn(ids...), document.OrgID(s.OrgID), document.Or(
		document.And(document.RecordTypeEQ(document.RecordTypeApplication), document.RecordID(s.ApplicationID)),
		document.And(document.RecordTypeEQ(document.RecordTypeLead), document.RecordID(s.LeadID)),
	)).Count(ctx)
	if err != nil {
		return fmt.Errorf("reading the stipulation's documents: %w", err)
	}
	if n != len(ids) {
		return apperr.Invalid("documentIds", "every document must be attached to the stipulation's application or its lead")
	}
	return nil
}

// waiveOutstanding waives what the application still waits for, as a
// funding that says so does (the lender funded): reason funded, by the
// caller. The application is then funded, so it is never announced ready.
func waiveOutstanding(ctx context.Context, c *ent.Client, a *ent.Application) error {
	out, err := c.Stipulation.Query().Where(stipulation.ApplicationID(a.ID),
		stipulation.StatusEQ(stipulation.StatusOutstanding)).Order(stipulation.ByCreatedAt(), stipulation.ByID()).All(ctx)
	if err != nil {
		return fmt.Errorf("reading the outstanding stipulations: %w", err)
	}
	now, by := apitime.Now(ctx), *events.Actor(ctx)
	for _, s := range out {
		moved, err := c.Stipulation.UpdateOne(s).SetStatus(stipulation.StatusWaived).
			SetWaivedAt(now).SetWaivedBy(by).SetWaiveReason(lendingrules.WaivedByFunding).Save(ctx)
		if err != nil {
			return fmt.Errorf("waiving a stipulation: %w", err)
		}
		if err := recordStipulation(ctx, c, moved, history.StipulationWaived, "Stipulation waived at funding: "+moved.Text); err != nil {
			return err
		}
	}
	return c.Application.UpdateOneID(a.ID).SetStipulationsOutstanding(0).Exec(ctx)
}

// StipulationConflict is the refusal of a move from status from to status
// to, carried as an application's or a task's: the field and, in the
// details, from and to.
func StipulationConflict(from, to stipulation.Status) *apperr.Error {
	return &apperr.Error{Code: apperr.Conflict, Field: "status",
		Message: fmt.Sprintf("the stipulation cannot move from %s to %s", from, to),
		Detail:  map[string]any{"from": string(from), "to": string(to)}}
}

// checkReason needs a waiver's or a reopening's reason: 1 to 500
// characters, not blank.
func checkReason(reason string) error {
	if text.HasNUL(reason) {
		return text.NULError("reason")
	}
	b := bounds.StipulationReason
	if n := utf8.RuneCountInString(reason); n < b.Min || n > b.Max || strings.TrimSpace(reason) == "" {
		return apperr.Invalid("reason", "must be %d to %d characters, not blank", b.Min, b.Max)
	}
	return nil
}

func stipulationEntry(s *ent.Stipulation, why []string) (kind, summary string) {
	switch s.Status {
	case stipulation.StatusReceived:
		return history.StipulationReceived, "Stipulation received: " + s.Text
	case stipulation.StatusWaived:
		return history.StipulationWaived, fmt.Sprintf("Stipulation waived: %s (%s)", s.Text, *s.WaiveReason)
	}
	summary = "Stipulation reopened: " + s.Text
	if len(why) > 0 {
		summary += " (" + why[0] + ")"
	}
	return history.StipulationReopened, summary
}

// recordStipulation is a stipulation's change in its lead's history.
func recordStipulation(ctx context.Context, c *ent.Client, s *ent.Stipulation, kind, summary string) error {
	return activity.Record(ctx, c, activity.Entry{OrgID: s.OrgID, LeadID: s.LeadID, Kind: kind,
		RecordID: s.ID, Summary: summary})
}

// uniqueIDs is ids without repeats, in their first order. It runs before
// the count is checked, so it stays linear in what a request sends.
func uniqueIDs(ids []uuid.UUID) []uuid.UUID {
	seen := make(map[uuid.UUID]bool, len(ids))
	out := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// StipulationFilter is which stipulations ListStipulations reads; nil
// fields do not filter.
type StipulationFilter struct {
	ApplicationID *uuid.UUID
	LeadID        *uuid.UUID
	Status        *stipulation.Status
}

// ListStipulations is the organization's stipulations that f keeps, oldest
// first (an application's checklist in the order it was made): the query
// a page is read from. Who may read is the privacy policy's to say
// (lending:read).
func ListStipulations(c *ent.Client, f StipulationFilter) *ent.StipulationQuery {
	q := c.Stipulation.Query()
	if f.ApplicationID != nil {
		q = q.Where(stipulation.ApplicationID(*f.ApplicationID))
	}
	if f.LeadID != nil {
		q = q.Where(stipulation.LeadID(*f.LeadID))
	}
	if f.Status != nil {
		q = q.Where(stipulation.StatusEQ(*f.Status))
	}
	return q.Order(stipulation.ByCreatedAt(), stipulation.ByID())
}

// ApplicationStipulations is an application's checklist, in the order it
// was made: at most the conditions' 50 and what was added.
func ApplicationStipulations(ctx context.Context, c *ent.Client, applicationID uuid.UUID) ([]*ent.Stipulation, error) {
	return ListStipulations(c, StipulationFilter{ApplicationID: &applicationID}).All(ctx)
}
