// Package tasks holds the follow-ups on leads (PRODUCT 10.2): Create,
// Update, Complete and Reopen, one function each, in the caller's
// transaction (a flow called outside one opens its own). Creating a task
// records task.created in the lead's history and completing one
// task.completed, in the same transaction; a task someone else gives a
// person notifies them (task.assigned). A task moves open -> done and
// done -> open only; any other move is CONFLICT {field status, from, to}.
// GraphQL and REST call these and List; who may read tasks is the schema's
// privacy policy (leads:read).
//
// It imports ent, the store (transactions), the lead history (activity),
// the notifications (notify), events (the actor's name) and the leaves.
package tasks

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/activity"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/task"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/text"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/notify"
)

// Input is a task to create: the lead, what is to be done, when, and by
// whom (the acting user when nil).
type Input struct {
	LeadID     uuid.UUID
	Title      string
	DueAt      time.Time
	AssigneeID *uuid.UUID
}

// Change is what Update changes of a task; nil fields stay.
type Change struct {
	Title      *string
	DueAt      *time.Time
	AssigneeID *uuid.UUID
}

// Create adds a task on the lead, assigned to in.AssigneeID or else to the
// acting user, records task.created in the lead's history and notifies the
// assignee when someone else gave them the task. The title's length (1 to
// 200 characters) is the schema's rule.
func Create(ctx context.Context, c *ent.Client, in Input) (*ent.Task, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Task, error) {
		org, err := writer(ctx)
		if err != nil {
			return nil, err
		}
		if text.HasNUL(in.Title) {
			return nil, text.NULError("title")
		}
		exists, err := c.Lead.Query().Where(lead.ID(in.LeadID), lead.OrgID(org)).Exist(ctx)
		if err != nil || !exists {
			return nil, apperr.RefError(err, ent.IsNotFound, "leadId", "lead")
		}
		due, err := dueAt(ctx, in.DueAt)
		if err != nil {
			return nil, err
		}
		assignee, err := assigneeOf(ctx, c, org, in.AssigneeID)
		if err != nil {
			return nil, err
		}
		t, err := c.Task.Create().SetLeadID(in.LeadID).SetTitle(in.Title).SetDueAt(due).
			SetAssigneeID(assignee).SetCreatedBy(*events.Actor(ctx)).Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := activity.Record(ctx, c, activity.Entry{OrgID: t.OrgID, LeadID: t.LeadID, Kind: history.TaskCreated,
			RecordID: t.ID, Summary: "Task: " + t.Title}); err != nil {
			return nil, err
		}
		return t, assigned(ctx, c, t)
	})
}

// Update changes the task's title, due time or assignee; a new assignee
// other than the acting user is notified.
func Update(ctx context.Context, c *ent.Client, id uuid.UUID, ch Change) (*ent.Task, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Task, error) {
		org, err := writer(ctx)
		if err != nil {
			return nil, err
		}
		if text.HasNUL(ch.Title) {
			return nil, text.NULError("title")
		}
		t, err := c.Task.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		u := c.Task.UpdateOne(t).SetNillableTitle(ch.Title)
		if ch.DueAt != nil {
			due, err := dueAt(ctx, *ch.DueAt)
			if err != nil {
				return nil, err
			}
			u.SetDueAt(due)
		}
		reassigned := ch.AssigneeID != nil && *ch.AssigneeID != t.AssigneeID
		if reassigned {
			if _, err := assigneeOf(ctx, c, org, ch.AssigneeID); err != nil {
				return nil, err
			}
			u.SetAssigneeID(*ch.AssigneeID)
		}
		updated, err := u.Save(ctx)
		if err != nil || !reassigned {
			return updated, err
		}
		return updated, assigned(ctx, c, updated)
	})
}

// Complete moves an open task to done, stamped with the time and the
// actor, and records task.completed in the lead's history.
func Complete(ctx context.Context, c *ent.Client, id uuid.UUID) (*ent.Task, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Task, error) {
		t, err := move(ctx, c, id, task.StatusOpen, task.StatusDone, func(u *ent.TaskUpdateOne) {
			u.SetCompletedAt(apitime.Now(ctx)).SetCompletedBy(*events.Actor(ctx))
		})
		if err != nil {
			return nil, err
		}
		return t, activity.Record(ctx, c, activity.Entry{OrgID: t.OrgID, LeadID: t.LeadID, Kind: history.TaskCompleted,
			RecordID: t.ID, Summary: "Completed: " + t.Title})
	})
}

// Reopen moves a done task back to open, clearing who completed it and
// when.
func Reopen(ctx context.Context, c *ent.Client, id uuid.UUID) (*ent.Task, error) {
	return store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Task, error) {
		return move(ctx, c, id, task.StatusDone, task.StatusOpen, func(u *ent.TaskUpdateOne) {
			u.ClearCompletedAt().ClearCompletedBy()
		})
	})
}

// move moves the task from status from to status to with set's changes, in
// one UPDATE conditional on the status it read: a task another writer
// moved first is refused as one read in its new status would be.
func move(ctx context.Context, c *ent.Client, id uuid.UUID, from, to task.Status, set func(*ent.TaskUpdateOne)) (*ent.Task, error) {
	if _, err := writer(ctx); err != nil {
		return nil, err
	}
	t, err := c.Task.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if t.Status != from {
		return nil, Conflict(t.Status, to)
	}
	u := c.Task.UpdateOne(t).Where(task.StatusEQ(from)).SetStatus(to)
	set(u)
	moved, err := u.Save(ctx)
	if ent.IsNotFound(err) {
		return nil, Conflict(to, to) // moved by another writer since the read
	}
	return moved, err
}

// Conflict is the refusal of a move from status from to status to
// (PRODUCT 10.2), carried as lendingrules.Conflict carries an
// application's: the field and, in the details, from and to.
func Conflict(from, to task.Status) *apperr.Error {
	return &apperr.Error{Code: apperr.Conflict, Field: "status",
		Message: fmt.Sprintf("the task cannot move from %s to %s", from, to),
		Detail:  map[string]any{"from": string(from), "to": string(to)}}
}

// maxAheadYears is how far ahead a task may be due (PRODUCT 10.2).
const maxAheadYears = 5

// dueAt is a due time the caller gave, checked to lie in [1970, now + 5
// years].
func dueAt(ctx context.Context, t time.Time) (time.Time, error) {
	t = apitime.Truncate(t)
	if err := apitime.Within("dueAt", t, apitime.Now(ctx).AddDate(maxAheadYears, 0, 0)); err != nil {
		return time.Time{}, err
	}
	return t, nil
}

// assigneeOf is the user a task goes to: the one named, who must be an
// active user of the organization, else the acting user; a key bound to no
// one must name one.
func assigneeOf(ctx context.Context, c *ent.Client, org uuid.UUID, id *uuid.UUID) (uuid.UUID, error) {
	if id == nil {
		if v, ok := viewer.FromContext(ctx); ok && v.UserID != uuid.Nil {
			return v.UserID, nil
		}
		return uuid.Nil, apperr.Invalid("assigneeId", "name the user to assign: the caller is no user")
	}
	// Any key of the organization may read its users; read for the flow.
	u, err := c.User.Query().Where(user.ID(*id), user.OrgID(org)).
		Select(user.FieldID, user.FieldDeactivatedAt).Only(rule.SystemContext(ctx))
	if err != nil {
		return uuid.Nil, apperr.RefError(err, ent.IsNotFound, "assigneeId", "user")
	}
	if u.DeactivatedAt != nil {
		return uuid.Nil, apperr.Invalid("assigneeId", "the user is deactivated and takes no tasks")
	}
	return u.ID, nil
}

// assigned tells the task's assignee they have it, unless they gave it to
// themselves (notify.Send leaves out the acting user).
func assigned(ctx context.Context, c *ent.Client, t *ent.Task) error {
	return notify.Send(ctx, c, notify.Notice{OrgID: t.OrgID, UserID: t.AssigneeID, Kind: notify.TaskAssigned,
		RecordID: t.ID, LeadID: t.LeadID, Summary: "New task: " + t.Title})
}

// writer is the organization the caller writes tasks in, once the caller
// may: asked first, so a caller who may not learns nothing of the rows it
// names.
func writer(ctx context.Context) (uuid.UUID, error) {
	return rule.RequireOrg(ctx, viewer.ScopeLeadsWrite, "writing a task")
}

// Filter is which tasks List reads; nil fields do not filter.
type Filter struct {
	AssigneeID *uuid.UUID
	Status     *task.Status
	LeadID     *uuid.UUID
	// DueBefore keeps the tasks due before it.
	DueBefore *time.Time
}

// List is the organization's tasks that f keeps, by due time then id: the
// query a page is read from. Who may read is the privacy policy's to say
// (leads:read).
func List(c *ent.Client, f Filter) *ent.TaskQuery {
	q := c.Task.Query()
	if f.AssigneeID != nil {
		q = q.Where(task.AssigneeID(*f.AssigneeID))
	}
	if f.Status != nil {
		q = q.Where(task.StatusEQ(*f.Status))
	}
	if f.LeadID != nil {
		q = q.Where(task.LeadID(*f.LeadID))
	}
	if f.DueBefore != nil {
		// In UTC, as stored: SQLite compares the text.
		q = q.Where(task.DueAtLT(f.DueBefore.UTC()))
	}
	return q.Order(task.ByDueAt(), task.ByID())
}

// MaxOpenOfLead bounds Lead.openTasks: a lead's follow-ups are a handful.
const MaxOpenOfLead = 100

// OpenOf is the lead's open tasks by due time, at most MaxOpenOfLead.
func OpenOf(ctx context.Context, c *ent.Client, leadID uuid.UUID) ([]*ent.Task, error) {
	open := task.StatusOpen
	return List(c, Filter{LeadID: &leadID, Status: &open}).Limit(MaxOpenOfLead).All(ctx)
}
