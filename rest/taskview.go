package rest

import (
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apitime"
)

// taskAttributes is a task, a follow-up on a lead (PRODUCT 10.2), as
// GraphQL's Task shows it.
type taskAttributes struct {
	LeadID      uuid.UUID     `json:"leadId"`
	Title       string        `json:"title" minLength:"1" maxLength:"200" description:"What is to be done."`
	DueAt       apitime.Time  `json:"dueAt"`
	AssigneeID  uuid.UUID     `json:"assigneeId" description:"The user who is to do it."`
	Status      string        `json:"status" enum:"TaskStatus"`
	CompletedAt *apitime.Time `json:"completedAt" description:"When it was completed; null while open."`
	CompletedBy *string       `json:"completedBy" description:"Who completed it: user:<id>, the API key's id, automation:<id> or system; null while open."`
	CreatedBy   *string       `json:"createdBy" description:"Who created it: user:<id>, the API key's id, automation:<id> or system."`
	CreatedAt   apitime.Time  `json:"createdAt"`
	UpdatedAt   apitime.Time  `json:"updatedAt"`
}

func taskResource(t *ent.Task) Resource {
	return Resource{ID: t.ID.String(), Type: "task", Attributes: taskAttributes{
		LeadID: t.LeadID, Title: t.Title, DueAt: apitime.Of(t.DueAt), AssigneeID: t.AssigneeID, Status: t.Status.String(),
		CompletedAt: utcPtr(t.CompletedAt), CompletedBy: t.CompletedBy, CreatedBy: t.CreatedBy,
		CreatedAt: apitime.Of(t.CreatedAt), UpdatedAt: apitime.Of(t.UpdatedAt),
	}}
}
