// Package notes holds what people write about a lead (PRODUCT 10.1): Add,
// Update and Delete, one function each, in the caller's transaction (a
// flow called outside one opens its own). Adding a note records note.added
// in the lead's history in the same transaction. A note is its author's:
// only they or an admin may change or delete it. GraphQL calls these; who
// may read notes is the schema's privacy policy (leads:read).
//
// It imports ent, the store (transactions), the lead history (activity)
// and the leaves.
package notes

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/activity"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/text"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Input is a note to add: the lead it is about and what it says.
type Input struct {
	LeadID uuid.UUID
	Body   string
}

// Add writes a note on the lead, by the acting user (no author for a key
// bound to no one), and records note.added in the lead's history. The
// body's length (1 to 10,000 characters) is the schema's rule.
func Add(ctx context.Context, c *ent.Client, in Input) (*ent.Note, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Note, error) {
		org, err := rule.RequireOrg(ctx, viewer.ScopeLeadsWrite, "writing a note")
		if err != nil {
			return nil, err
		}
		if text.HasNUL(in.Body) {
			return nil, text.NULError("body")
		}
		exists, err := c.Lead.Query().Where(lead.ID(in.LeadID), lead.OrgID(org)).Exist(ctx)
		if err != nil || !exists {
			return nil, apperr.RefError(err, ent.IsNotFound, "leadId", "lead")
		}
		n, err := c.Note.Create().SetLeadID(in.LeadID).SetBody(in.Body).SetNillableAuthorID(author(ctx)).Save(ctx)
		if err != nil {
			return nil, err
		}
		return n, activity.Record(ctx, c, activity.Entry{OrgID: n.OrgID, LeadID: n.LeadID, Kind: history.NoteAdded,
			RecordID: n.ID, Summary: Summary(n.Body)})
	})
}

// Update replaces the note's body; only its author or an admin may.
func Update(ctx context.Context, c *ent.Client, id uuid.UUID, body string) (*ent.Note, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Note, error) {
		n, err := own(ctx, c, id)
		if err != nil {
			return nil, err
		}
		if text.HasNUL(body) {
			return nil, text.NULError("body")
		}
		return c.Note.UpdateOne(n).SetBody(body).Save(ctx)
	})
}

// Delete removes the note; only its author or an admin may. Its note.added
// entry stays in the lead's history: it happened.
func Delete(ctx context.Context, c *ent.Client, id uuid.UUID) error {
	return store.WithTx(ctx, c, func(ctx context.Context, c *ent.Client) error {
		n, err := own(ctx, c, id)
		if err != nil {
			return err
		}
		return c.Note.DeleteOne(n).Exec(ctx)
	})
}

// own reads the note for a change by its author or an admin: NOT_FOUND
// when the organization has no such note, FORBIDDEN for anyone else.
func own(ctx context.Context, c *ent.Client, id uuid.UUID) (*ent.Note, error) {
	if _, err := rule.RequireOrg(ctx, viewer.ScopeLeadsWrite, "changing a note"); err != nil {
		return nil, err
	}
	n, err := c.Note.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	v, _ := viewer.FromContext(ctx)
	if v.Can(viewer.ScopeAdmin) || (n.AuthorID != nil && *n.AuthorID == v.UserID) {
		return n, nil
	}
	return nil, apperr.New(apperr.Forbidden, "only the note's author or an admin may change or delete it")
}

// author is the acting user, nil for a key bound to no one.
func author(ctx context.Context) *uuid.UUID {
	if v, ok := viewer.FromContext(ctx); ok && v.UserID != uuid.Nil {
		return &v.UserID
	}
	return nil
}

// summaryLen is how many characters of a note its history entry shows.
const summaryLen = 80

// Summary is a note's body as its history entry shows it: on one line,
// its first 80 characters, "..." when there is more.
func Summary(body string) string {
	line := []rune(strings.Join(strings.Fields(body), " "))
	if len(line) <= summaryLen {
		return string(line)
	}
	return strings.TrimRight(string(line[:summaryLen-3]), " ") + "..."
}
