package activity

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	entactivity "github.com/lendingpipe/svc/ent/activity"
	"github.com/lendingpipe/svc/ent/apikey"
	"github.com/lendingpipe/svc/ent/app"
	"github.com/lendingpipe/svc/ent/appinstallation"
	"github.com/lendingpipe/svc/ent/automation"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/rule"
)

// Item is one entry as the API answers it.
type Item struct {
	ID       uuid.UUID
	At       time.Time
	Kind     string
	Actor    Actor
	RecordID *uuid.UUID
	Summary  string
	Changes  []history.Change
}

// Actor is who made a change: its type, its id (null for the connector
// and the system) and its name as it is now (null when the record is
// gone).
type Actor struct {
	Type string
	ID   *string
	Name *string
}

// Query is which entries to read: after a cursor (a previous page's last
// entry), or skipping Offset entries; at most Limit.
type Query struct {
	After  string
	Offset int
	Limit  int
}

// Page is one page of a lead's entries, newest first: each entry's
// cursor, whether more follow, and how many the lead has.
type Page struct {
	Items   []Item
	Cursors []string
	HasMore bool
	Total   int
}

// List reads the lead's entries as q asks, newest first (then by id,
// newest first), with their actors' names. The caller has read the lead,
// so it is of the viewer's organization and the viewer may read it.
func List(ctx context.Context, c *ent.Client, leadID uuid.UUID, q Query) (Page, error) {
	base := c.Activity.Query().Where(entactivity.LeadID(leadID))
	total, err := base.Clone().Count(ctx)
	if err != nil {
		return Page{}, fmt.Errorf("counting the lead's activity: %w", err)
	}
	rows := base.Order(entactivity.ByAt(sql.OrderDesc()), entactivity.ByID(sql.OrderDesc()))
	if q.After != "" {
		at, id, err := decodeCursor(q.After)
		if err != nil {
			return Page{}, err
		}
		rows = rows.Where(entactivity.Or(entactivity.AtLT(at),
			entactivity.And(entactivity.At(at), entactivity.IDLT(id))))
	}
	found, err := rows.Offset(q.Offset).Limit(q.Limit + 1).All(ctx)
	if err != nil {
		return Page{}, fmt.Errorf("reading the lead's activity: %w", err)
	}
	page := Page{Total: total, HasMore: len(found) > q.Limit}
	if page.HasMore {
		found = found[:q.Limit]
	}
	names, err := actorNames(ctx, c, found)
	if err != nil {
		return Page{}, err
	}
	for _, a := range found {
		actor := Actor{Type: a.ActorType.String(), ID: a.ActorID}
		if a.ActorID != nil {
			if n, ok := names[*a.ActorID]; ok {
				actor.Name = &n
			}
		}
		page.Items = append(page.Items, Item{ID: a.ID, At: a.At, Kind: a.Kind, Actor: actor,
			RecordID: a.RecordID, Summary: a.Summary, Changes: a.Changes})
		page.Cursors = append(page.Cursors, encodeCursor(a.At, a.ID))
	}
	return page, nil
}

// actorNames reads the names of the page's actors, one query per kind of
// actor present, keyed by the stored actor id.
func actorNames(ctx context.Context, c *ent.Client, rows []*ent.Activity) (map[string]string, error) {
	ids := map[string][]uuid.UUID{}
	for _, a := range rows {
		if a.ActorID == nil {
			continue
		}
		raw, typ := *a.ActorID, a.ActorType.String()
		if rest, ok := strings.CutPrefix(raw, automationPrefix); ok {
			raw, typ = rest, "automation"
		}
		if id, err := uuid.Parse(raw); err == nil {
			ids[typ] = append(ids[typ], id)
		}
	}
	names := map[string]string{}
	// The actor's record may be out of the reader's scopes (a key, an
	// app): its name is part of the lead's history, read for it.
	sys := rule.SystemContext(ctx)
	if len(ids[history.ActorUser]) > 0 {
		users, err := c.User.Query().Where(user.IDIn(ids[history.ActorUser]...)).All(sys)
		if err != nil {
			return nil, fmt.Errorf("reading the activity's users: %w", err)
		}
		for _, u := range users {
			names[u.ID.String()] = u.FirstName + " " + u.LastName
		}
	}
	if len(ids[history.ActorAPIKey]) > 0 {
		keys, err := c.APIKey.Query().Where(apikey.IDIn(ids[history.ActorAPIKey]...)).All(sys)
		if err != nil {
			return nil, fmt.Errorf("reading the activity's keys: %w", err)
		}
		for _, k := range keys {
			names[k.ID.String()] = k.Name
		}
	}
	if len(ids[history.ActorApp]) > 0 {
		insts, err := c.AppInstallation.Query().Where(appinstallation.IDIn(ids[history.ActorApp]...)).All(sys)
		if err != nil {
			return nil, fmt.Errorf("reading the activity's app installations: %w", err)
		}
		byApp := map[uuid.UUID][]uuid.UUID{}
		for _, in := range insts {
			byApp[in.AppID] = append(byApp[in.AppID], in.ID)
		}
		apps, err := c.App.Query().Where(app.IDIn(slices.Collect(maps.Keys(byApp))...)).All(sys)
		if err != nil {
			return nil, fmt.Errorf("reading the activity's apps: %w", err)
		}
		for _, a := range apps {
			for _, in := range byApp[a.ID] {
				names[in.String()] = a.Name
			}
		}
	}
	if len(ids["automation"]) > 0 {
		autos, err := c.Automation.Query().Where(automation.IDIn(ids["automation"]...)).All(sys)
		if err != nil {
			return nil, fmt.Errorf("reading the activity's automations: %w", err)
		}
		for _, a := range autos {
			names[automationPrefix+a.ID.String()] = a.Name
		}
	}
	return names, nil
}

// A cursor is an entry's time and id, opaque to the client.
type cursor struct {
	At time.Time `json:"t"`
	ID uuid.UUID `json:"i"`
}

func encodeCursor(at time.Time, id uuid.UUID) string {
	b, _ := json.Marshal(cursor{At: at, ID: id}) // a time and a UUID always encode
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (time.Time, uuid.UUID, error) {
	bad := apperr.Invalid("after", "after is not a cursor of this list")
	if len(s) > 200 {
		return time.Time{}, uuid.Nil, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return time.Time{}, uuid.Nil, bad
	}
	var c cursor
	if err := json.Unmarshal(b, &c); err != nil || c.ID == uuid.Nil {
		return time.Time{}, uuid.Nil, bad
	}
	return c.At, c.ID, nil
}
