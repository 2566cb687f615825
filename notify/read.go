package notify

import (
	"context"
	"fmt"

	"entgo.io/contrib/entgql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/notification"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/viewer"
)

// person is the acting user: notifications are a person's, so a key bound
// to no one has none to read.
func person(ctx context.Context) (uuid.UUID, error) {
	v, ok := viewer.FromContext(ctx)
	if !ok || v.UserID == uuid.Nil {
		return uuid.Nil, apperr.New(apperr.Forbidden,
			"notifications belong to a person: sign in, or use an API key bound to a user")
	}
	return v.UserID, nil
}

// List reads the acting user's notifications, newest first: a page of
// first after the cursor after, only the unread ones when unreadOnly.
func List(ctx context.Context, c *ent.Client, unreadOnly bool, first *int, after *entgql.Cursor[uuid.UUID]) (*ent.NotificationConnection, error) {
	me, err := person(ctx)
	if err != nil {
		return nil, err
	}
	q := c.Notification.Query().Where(notification.UserID(me))
	if unreadOnly {
		q = q.Where(notification.ReadAtIsNil())
	}
	// Ids are time-ordered (UUIDv7, made as each is written): newest
	// first is by id, descending.
	order := &ent.NotificationOrder{Direction: entgql.OrderDirectionDesc, Field: ent.DefaultNotificationOrder.Field}
	return q.Paginate(ctx, after, first, nil, nil, ent.WithNotificationOrder(order))
}

// Unread counts the acting user's unread notifications.
func Unread(ctx context.Context, c *ent.Client) (int, error) {
	me, err := person(ctx)
	if err != nil {
		return 0, err
	}
	return c.Notification.Query().Where(notification.UserID(me), notification.ReadAtIsNil()).Count(ctx)
}

// MarkRead marks the acting user's notifications ids read (all of them
// when ids is empty) and answers how many it marked; ids of others'
// notifications mark nothing.
func MarkRead(ctx context.Context, c *ent.Client, ids []uuid.UUID) (int, error) {
	me, err := person(ctx)
	if err != nil {
		return 0, err
	}
	u := c.Notification.Update().Where(notification.UserID(me), notification.ReadAtIsNil())
	if len(ids) > 0 {
		u = u.Where(notification.IDIn(ids...))
	}
	n, err := u.SetReadAt(apitime.Now(ctx)).Save(ctx)
	if err != nil {
		return 0, fmt.Errorf("marking notifications read: %w", err)
	}
	return n, nil
}

// ByIDs reads the acting user's notifications ids, newest first: what a
// live subscriber sends of an announcement.
func ByIDs(ctx context.Context, c *ent.Client, ids []uuid.UUID) ([]*ent.Notification, error) {
	me, err := person(ctx)
	if err != nil {
		return nil, err
	}
	return c.Notification.Query().Where(notification.UserID(me), notification.IDIn(ids...)).
		Order(notification.ByID()).All(ctx)
}
