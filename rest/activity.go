package rest

import (
	"net/http"

	"github.com/lendingpipe/svc/activity"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apitime"
)

// activityPage answers GET /v1/leads/{id}/activity: a page of the lead's
// stored history (PRODUCT 10.3), newest first, as Lead.activity reads it.
func (h leadHandlers) activityPage(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	return list(w, r, activityResource, func(page, limit *int) (*graph.Page[activity.Item], error) {
		return h.resolver.LeadActivityPage(r.Context(), id, page, limit)
	})
}

// activityAttributes is one entry of a lead's history.
type activityAttributes struct {
	At       apitime.Time     `json:"at" description:"When the change was made."`
	Kind     string           `json:"kind" enum:"ActivityKind"`
	Actor    activityActor    `json:"actor"`
	RecordID *string          `json:"recordId" openapi:"uuid" description:"The record the entry is about: the lead, a call event, a note, a task, a document, an application, a deal, a commission payment, a stipulation; null when none is named."`
	Summary  string           `json:"summary" description:"The entry in a line of words, as the console shows it."`
	Changes  []activityChange `json:"changes" description:"The attributes changed (lead.updated names every one, lead.stage_changed the stage); empty for the other kinds."`
}

// activityActor is who made a change.
type activityActor struct {
	Type string  `json:"type" enum:"ActivityActorType"`
	ID   *string `json:"id" description:"The user's, the key's or the app installation's id, or automation:<id>; null for the connector and the service."`
	Name *string `json:"name" description:"The actor's name as it is now (a user's full name, a key's, an app's, an automation's); null when none."`
}

// activityChange is one attribute a change changed.
type activityChange struct {
	Field string `json:"field" description:"The attribute's API name, such as businessName or stageId."`
	From  any    `json:"from" openapi:"anyValue" description:"Its value before, as the lead renders it; null when unset."`
	To    any    `json:"to" openapi:"anyValue" description:"Its value after; null when cleared."`
}

func activityResource(a activity.Item) Resource {
	attrs := activityAttributes{At: apitime.Of(a.At), Kind: a.Kind, Summary: a.Summary,
		Actor:   activityActor{Type: a.Actor.Type, ID: a.Actor.ID, Name: a.Actor.Name},
		Changes: make([]activityChange, len(a.Changes))}
	if a.RecordID != nil {
		s := a.RecordID.String()
		attrs.RecordID = &s
	}
	for i, c := range a.Changes {
		attrs.Changes[i] = activityChange{Field: c.Field, From: c.From, To: c.To}
	}
	return Resource{ID: a.ID.String(), Type: "activity", Attributes: attrs}
}
