package webhooks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/viewer"
)

// PRODUCT 3, events follow scopes: a credential is sent, and may subscribe
// to, only the events whose records it may read. This file is the one
// place that says so: the GraphQL events subscription, the webhook
// subscriptions' create and update on both surfaces, and the delivery
// worker's fan-out all ask it.

// ReadScope is the scope that reads the records an event of type t
// describes: lead.* and contact.* leads:read; application.*, deal.*,
// document.* and the stipulation and renewal events lending:read; app.*
// (and any type not named here) admin.
func ReadScope(t string) string {
	family, _, _ := strings.Cut(t, ".")
	switch family {
	case "lead", "contact":
		return viewer.ScopeLeadsRead
	case "application", "deal", "document", "stipulation", "renewal":
		return viewer.ScopeLendingRead
	}
	return viewer.ScopeAdmin
}

// ownAppEvents are the app.* types an app token receives about its own
// installation without admin: its uninstallation, and its own paused
// subscriptions. They are its own records; other apps' are the admin's.
var ownAppEvents = []string{event.AppUninstalled, event.AppWebhookPaused}

// MayList reports whether v may subscribe to events of type t (a catalog
// type, not "*").
func MayList(v viewer.Viewer, t string) bool {
	return v.Can(ReadScope(t)) || v.InstallationID != uuid.Nil && slices.Contains(ownAppEvents, t)
}

// MayReceive reports whether v may be sent ev.
func MayReceive(v viewer.Viewer, ev *ent.WebhookEvent) bool {
	return v.Can(ReadScope(ev.EventType)) || v.InstallationID != uuid.Nil && concerns(ev, v.InstallationID)
}

// concerns reports whether ev is about the app installation inst itself.
func concerns(ev *ent.WebhookEvent, inst uuid.UUID) bool {
	switch ev.EventType {
	case event.AppWebhookPaused:
		return ev.OnlyInstallationID != nil && *ev.OnlyInstallationID == inst
	case event.AppUninstalled:
		return fmt.Sprint(ev.Data["installationId"]) == inst.String()
	}
	return false
}

// CheckTypes validates a live subscription's event types against the
// catalog and v's scopes: an unknown type, or one v may not read, is
// refused by name.
func CheckTypes(v viewer.Viewer, types []string) error {
	for _, t := range types {
		if t != event.All && !event.Known(t) {
			return apperr.Invalid("types", "unknown event type %s; the catalog (GET /v1/webhooks/catalog) lists them", apperr.Quote(t))
		}
	}
	return CheckReadable(v, types)
}

// CheckReadable refuses (FORBIDDEN, naming it) the first of types, known
// catalog types or "*", that v may not read. "*", or no type at all, asks
// for every type v may read, and is refused only when that is none.
func CheckReadable(v viewer.Viewer, types []string) error {
	for _, t := range types {
		if t != event.All && !MayList(v, t) {
			return apperr.New(apperr.Forbidden, "the credential lacks the %s scope that %s events need", ReadScope(t), t)
		}
	}
	if len(types) > 0 && !slices.Contains(types, event.All) {
		return nil
	}
	for _, t := range event.Catalog {
		if MayList(v, t.Name) {
			return nil
		}
	}
	return apperr.New(apperr.Forbidden, "the credential holds no scope that reads an event type (leads:read, lending:read or admin)")
}
