// Package views keeps people's saved views (PRODUCT 10.5): a screen's
// filters saved under a name, the person's own or shared with the
// organization. Save checks the filters as the screen's own arguments
// (filters.go), so a view that is saved can be applied; List answers the
// person's own views of a screen and the shared ones; Delete lets the owner
// or an admin remove one.
//
// A view belongs to a person: a caller acting for no one (an API key bound
// to no user) is FORBIDDEN. The schema's privacy policy keeps another
// person's own views out of every read.
//
// It imports ent, the leaves, and package tasks for the tasks list's
// filter.
package views

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/savedview"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/viewer"
)

// MaxListed bounds what List answers: a person's own views of a screen and
// the organization's shared ones, by name. It is far more than a menu
// shows; a list without a bound would be an unbounded read.
const MaxListed = 500

// Input is what saveView takes.
type Input struct {
	Name    string
	Screen  savedview.Screen
	Filters any // a JSON object: the screen's own filter arguments
	Shared  bool
}

// person is the acting user: a view is a person's, so a key bound to no
// one has none.
func person(ctx context.Context) (viewer.Viewer, error) {
	v, ok := viewer.FromContext(ctx)
	if !ok {
		return viewer.Viewer{}, apperr.New(apperr.Unauthorized, "authentication required")
	}
	if v.UserID == uuid.Nil {
		return viewer.Viewer{}, apperr.New(apperr.Forbidden,
			"saved views belong to a person: sign in, or use an API key bound to a user")
	}
	return v, nil
}

// Save stores the acting person's view: its name (1 to 100 characters,
// spaces around it dropped), its screen, its filters checked as that
// screen's arguments, shared or not.
func Save(ctx context.Context, c *ent.Client, in Input) (*ent.SavedView, error) {
	v, err := person(ctx)
	if err != nil {
		return nil, err
	}
	if err := savedview.ScreenValidator(in.Screen); err != nil {
		return nil, apperr.Invalid("screen", "must be one of BOARD, APPLICATIONS, TASKS, RENEWALS")
	}
	filters, err := Check(in.Screen, in.Filters)
	if err != nil {
		return nil, err
	}
	view, err := c.SavedView.Create().
		SetName(strings.TrimSpace(in.Name)).
		SetScreen(in.Screen).
		SetFilters(filters).
		SetShared(in.Shared).
		SetOwnerID(v.UserID).
		Save(ctx)
	if err != nil {
		return nil, fmt.Errorf("saving the view: %w", err)
	}
	return view, nil
}

// List answers the acting person's views of screen (of every screen when
// screen is nil) and the shared ones of the organization, by name then id
// (at most MaxListed).
func List(ctx context.Context, c *ent.Client, screen *savedview.Screen) ([]*ent.SavedView, error) {
	v, err := person(ctx)
	if err != nil {
		return nil, err
	}
	q := c.SavedView.Query().Where(savedview.Or(savedview.OwnerID(v.UserID), savedview.Shared(true)))
	if screen != nil {
		if err := savedview.ScreenValidator(*screen); err != nil {
			return nil, apperr.Invalid("screen", "must be one of BOARD, APPLICATIONS, TASKS, RENEWALS")
		}
		q = q.Where(savedview.ScreenEQ(*screen))
	}
	return q.Order(savedview.ByName(), savedview.ByID()).Limit(MaxListed).All(ctx)
}

// Delete removes view id: its owner may, and an admin; anyone else who
// sees it (a shared view) is FORBIDDEN. A view the caller cannot see is
// NOT_FOUND.
func Delete(ctx context.Context, c *ent.Client, id uuid.UUID) error {
	v, err := person(ctx)
	if err != nil {
		return err
	}
	view, err := c.SavedView.Get(ctx, id)
	if ent.IsNotFound(err) {
		return apperr.New(apperr.NotFound, "no saved view with id %s", id)
	}
	if err != nil {
		return fmt.Errorf("reading the view: %w", err)
	}
	if view.OwnerID != v.UserID && !v.Can(viewer.ScopeAdmin) {
		return apperr.New(apperr.Forbidden, "only the view's owner or an admin may delete it")
	}
	if err := c.SavedView.DeleteOneID(id).Exec(ctx); err != nil {
		if ent.IsNotFound(err) {
			return apperr.New(apperr.NotFound, "no saved view with id %s", id)
		}
		return fmt.Errorf("deleting the view: %w", err)
	}
	return nil
}
