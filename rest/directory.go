package rest

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
)

// directoryHandlers translates /v1/stages, /v1/users and /v1/teams onto the
// GraphQL resolvers: the ids the writes take (a lead's stageId, an
// assignment's advisorId, a call's userId, the board's teamId). Who may read
// them is the ent privacy policy's rule (any key of the organization).
type directoryHandlers struct {
	resolver *graph.Resolver
}

// stageAttributes is a pipeline stage as GET /v1/stages shows it.
type stageAttributes struct {
	StageKey     string       `json:"stageKey"`
	StageLabel   string       `json:"stageLabel"`
	Color        string       `json:"color" openapi:"hexColor"`
	SemanticSlot string       `json:"semanticSlot" enum:"SemanticSlot"`
	Position     int          `json:"position" openapi:"count" description:"The stage's place in the pipeline: lowest first."`
	CreatedAt    apitime.Time `json:"createdAt"`
	UpdatedAt    apitime.Time `json:"updatedAt"`
}

func stageResource(s *ent.PipelineStage) Resource {
	return Resource{ID: s.ID.String(), Type: "stage", Attributes: stageAttributes{
		StageKey: s.StageKey, StageLabel: s.StageLabel, Color: s.Color, SemanticSlot: s.SemanticSlot.String(),
		Position: s.Position, CreatedAt: apitime.Of(s.CreatedAt), UpdatedAt: apitime.Of(s.UpdatedAt),
	}}
}

// userAttributes is a user as GET /v1/users shows it, with its team's name.
type userAttributes struct {
	FirstName string       `json:"firstName"`
	LastName  string       `json:"lastName"`
	Email     string       `json:"email"`
	Role      string       `json:"role" enum:"UserRole"`
	TeamID    *uuid.UUID   `json:"teamId"`
	TeamName  *string      `json:"teamName"`
	CreatedAt apitime.Time `json:"createdAt"`
	UpdatedAt apitime.Time `json:"updatedAt"`
}

func userResource(u *ent.User) Resource {
	a := userAttributes{FirstName: u.FirstName, LastName: u.LastName, Email: u.Email, Role: u.Role.String(),
		TeamID: u.TeamID, CreatedAt: apitime.Of(u.CreatedAt), UpdatedAt: apitime.Of(u.UpdatedAt)}
	if t := u.Edges.Team; t != nil {
		a.TeamName = &t.Name
	}
	return Resource{ID: u.ID.String(), Type: "user", Attributes: a}
}

// teamAttributes is a team as GET /v1/teams shows it.
type teamAttributes struct {
	Name      string       `json:"name"`
	CreatedAt apitime.Time `json:"createdAt"`
	UpdatedAt apitime.Time `json:"updatedAt"`
}

func teamResource(t *ent.Team) Resource {
	return Resource{ID: t.ID.String(), Type: "team", Attributes: teamAttributes{
		Name: t.Name, CreatedAt: apitime.Of(t.CreatedAt), UpdatedAt: apitime.Of(t.UpdatedAt),
	}}
}

func (h directoryHandlers) stages(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, stageResource, func(page, limit *int) (*graph.PipelineStagePage, error) {
		return h.resolver.Query().StagesPage(r.Context(), page, limit)
	})
}

func (h directoryHandlers) users(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, userResource, func(page, limit *int) (*graph.UserPage, error) {
		teamID, err := uuidParam(r, "teamId")
		if err != nil {
			return nil, err
		}
		var role *user.Role
		if s := queryParam(r, "role"); s != nil {
			// The resolver holds the value to the schema's roles (422 naming role).
			v := user.Role(*s)
			role = &v
		}
		return h.resolver.Query().UsersPage(r.Context(), role, teamID, page, limit)
	})
}

func (h directoryHandlers) teams(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, teamResource, func(page, limit *int) (*graph.TeamPage, error) {
		return h.resolver.Query().TeamsPage(r.Context(), page, limit)
	})
}

// uuidParam reads an optional UUID query parameter; nil when absent or
// empty, 422 naming it when not a UUID.
func uuidParam(r *http.Request, name string) (*uuid.UUID, error) {
	s := queryParam(r, name)
	if s == nil {
		return nil, nil
	}
	id, err := uuid.Parse(*s)
	if err != nil {
		return nil, apperr.Invalid(name, "must be a UUID")
	}
	return &id, nil
}
