package rest

import (
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apitime"
)

// leadAttributes is the lead as SPEC 2.2 shows it. Optional values are
// pointers so they render as null, never as an empty string.
type leadAttributes struct {
	BusinessName       *string        `json:"businessName"`
	ContactFirstName   *string        `json:"contactFirstName"`
	ContactLastName    *string        `json:"contactLastName"`
	Email              *string        `json:"email"`
	Phone              *string        `json:"phone"`
	Industry           *string        `json:"industry"`
	MonthlyRevenue     *string        `json:"monthlyRevenue" openapi:"decimal"`
	RequestedAmount    *string        `json:"requestedAmount" openapi:"decimal"`
	Source             string         `json:"source" enum:"LeadSource"`
	Priority           string         `json:"priority" enum:"LeadPriority"`
	IsDoNotCall        bool           `json:"isDoNotCall"`
	Tags               []string       `json:"tags"`
	CustomFields       map[string]any `json:"customFields"`
	ExternalIDs        map[string]any `json:"externalIds"`
	LeadScore          *int           `json:"leadScore" minimum:"0" maximum:"100"`
	Stage              *stageView     `json:"stage"`
	PrimaryAdvisorID   *uuid.UUID     `json:"primaryAdvisorId"`
	PrimaryAdvisorName *string        `json:"primaryAdvisorName"`
	ContactID          *uuid.UUID     `json:"contactId"`
	LastContactedAt    *apitime.Time  `json:"lastContactedAt"`
	StageChangedAt     apitime.Time   `json:"stageChangedAt"`
	CreatedAt          apitime.Time   `json:"createdAt"`
	UpdatedAt          apitime.Time   `json:"updatedAt"`
	DNCReason          *string        `json:"dncReason"`
	DNCAt              *apitime.Time  `json:"dncAt"`
	ConvertedAt        *apitime.Time  `json:"convertedAt"`
	ConvertedAccountID *uuid.UUID     `json:"convertedAccountId"`
	ConvertedContactID *uuid.UUID     `json:"convertedContactId"`
	ImportJobID        *uuid.UUID     `json:"importJobId"`
	CreatedBy          *string        `json:"createdBy" description:"The API key id, or automation:<id>, that created the lead."`
}

type stageView struct {
	ID           uuid.UUID `json:"id"`
	StageKey     string    `json:"stageKey"`
	StageLabel   string    `json:"stageLabel"`
	Color        string    `json:"color" openapi:"hexColor"`
	SemanticSlot string    `json:"semanticSlot" enum:"SemanticSlot"`
}

// leadResource renders a lead loaded with its stage and advisor edges.
func leadResource(l *ent.Lead) Resource {
	a := leadAttributes{
		BusinessName: l.BusinessName, ContactFirstName: l.ContactFirstName, ContactLastName: l.ContactLastName,
		Email: l.Email, Phone: l.Phone, Industry: l.Industry,
		MonthlyRevenue: l.MonthlyRevenue, RequestedAmount: l.RequestedAmount,
		Source: l.Source.String(), Priority: l.Priority.String(), IsDoNotCall: l.IsDoNotCall,
		Tags: nonNilSlice(l.Tags), CustomFields: nonNilMap(l.CustomFields), ExternalIDs: nonNilMap(l.ExternalIds),
		LeadScore: l.LeadScore, PrimaryAdvisorID: l.PrimaryAdvisorID, ContactID: l.ContactID,
		LastContactedAt: utcPtr(l.LastContactedAt), StageChangedAt: apitime.Of(l.StageChangedAt),
		CreatedAt: apitime.Of(l.CreatedAt), UpdatedAt: apitime.Of(l.UpdatedAt),
		DNCReason: l.DncReason, DNCAt: utcPtr(l.DncAt), ConvertedAt: utcPtr(l.ConvertedAt),
		ConvertedAccountID: l.ConvertedAccountID, ConvertedContactID: l.ConvertedContactID,
		ImportJobID: l.ImportJobID, CreatedBy: l.CreatedBy,
	}
	if s := l.Edges.Stage; s != nil {
		a.Stage = &stageView{ID: s.ID, StageKey: s.StageKey, StageLabel: s.StageLabel, Color: s.Color, SemanticSlot: s.SemanticSlot.String()}
	}
	if u := l.Edges.PrimaryAdvisor; u != nil {
		name := graph.FullName(u)
		a.PrimaryAdvisorName = &name
	}
	return Resource{ID: l.ID.String(), Type: "lead", Attributes: a}
}

func utcPtr(t *time.Time) *apitime.Time { return apitime.OfPtr(t) }

// nonNilSlice renders none as an empty list, never null.
func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
