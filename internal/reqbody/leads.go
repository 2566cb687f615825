package reqbody

import (
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
)

// LeadFields are the members POST /v1/leads and PATCH /v1/leads/{id}
// accept (SPEC 4.1). The REST adapter generates the bodies' OpenAPI schemas
// from these structs: the tags other than json say what the Go types
// cannot (rest/openapi_views.go reads them; bound names an entry of
// bounds.Fields).
type LeadFields struct {
	BusinessName     Opt[string]         `json:"businessName" nullable:"true" bound:"businessName" description:"No HTML: markup and character references are refused."`
	ContactFirstName Opt[string]         `json:"contactFirstName" nullable:"true" bound:"personName"`
	ContactLastName  Opt[string]         `json:"contactLastName" nullable:"true" bound:"personName"`
	Email            Opt[string]         `json:"email" nullable:"true" bound:"email" openapi:"email"`
	Phone            Opt[string]         `json:"phone" nullable:"true" bound:"phone"`
	Industry         Opt[string]         `json:"industry" nullable:"true" bound:"industry"`
	MonthlyRevenue   Opt[string]         `json:"monthlyRevenue" nullable:"true" openapi:"decimal" example:"\"12500.00\""`
	RequestedAmount  Opt[string]         `json:"requestedAmount" nullable:"true" openapi:"decimal" example:"\"50000\""`
	Priority         Opt[lead.Priority]  `json:"priority" nullable:"true" enum:"LeadPriority"`
	Tags             Opt[[]string]       `json:"tags" nullable:"true" bound:"tags"`
	CustomFields     Opt[map[string]any] `json:"customFields" nullable:"true" bound:"customFields"`
}

// CreateLead is the body of POST /v1/leads.
type CreateLead struct {
	LeadFields
	ExternalIDs       Opt[map[string]any] `json:"externalIds" nullable:"true" bound:"externalIds" openapi:"externalIds" description:"Other systems' ids: strings or numbers."`
	Source            Opt[lead.Source]    `json:"source" nullable:"true" enum:"LeadSource"`
	StageID           Opt[uuid.UUID]      `json:"stageId" nullable:"true" description:"Defaults to the organization's first stage."`
	AssignToAdvisorID Opt[uuid.UUID]      `json:"assignToAdvisorId" nullable:"true"`
	ContactID         Opt[uuid.UUID]      `json:"contactId" nullable:"true"`
}

// PatchRefused names the create fields PATCH does not take (SPEC 4.1).
var PatchRefused = map[string]string{
	"source":            "cannot be changed after the lead is created",
	"stageId":           "cannot be changed with PATCH; use POST /v1/leads/{id}/stage",
	"assignToAdvisorId": "cannot be changed with PATCH; use POST /v1/leads/{id}/assign",
	"contactId":         "cannot be changed after the lead is created",
	"externalIds":       "cannot be changed after the lead is created; they identify it",
}

// Input is the create resolver's input.
func (b CreateLead) Input() ent.CreateLeadInput {
	f := b.LeadFields
	return ent.CreateLeadInput{
		BusinessName: f.BusinessName.Ptr(), ContactFirstName: f.ContactFirstName.Ptr(),
		ContactLastName: f.ContactLastName.Ptr(), Email: f.Email.Ptr(), Phone: f.Phone.Ptr(),
		Industry: f.Industry.Ptr(), MonthlyRevenue: f.MonthlyRevenue.Ptr(), RequestedAmount: f.RequestedAmount.Ptr(),
		Source: b.Source.Ptr(), Priority: f.Priority.Ptr(), Tags: f.Tags.Value, CustomFields: f.CustomFields.Value,
		StageID: b.StageID.Ptr(), PrimaryAdvisorID: b.AssignToAdvisorID.Ptr(), ContactID: b.ContactID.Ptr(),
		ExternalIds: b.ExternalIDs.Value,
	}
}

// UpdateInput maps PATCH members: absent leaves a value, null clears it.
func (f LeadFields) UpdateInput() ent.UpdateLeadInput {
	in := ent.UpdateLeadInput{
		BusinessName: f.BusinessName.Ptr(), ClearBusinessName: f.BusinessName.Null,
		ContactFirstName: f.ContactFirstName.Ptr(), ClearContactFirstName: f.ContactFirstName.Null,
		ContactLastName: f.ContactLastName.Ptr(), ClearContactLastName: f.ContactLastName.Null,
		Email: f.Email.Ptr(), ClearEmail: f.Email.Null,
		Phone: f.Phone.Ptr(), ClearPhone: f.Phone.Null,
		Industry: f.Industry.Ptr(), ClearIndustry: f.Industry.Null,
		MonthlyRevenue: f.MonthlyRevenue.Ptr(), ClearMonthlyRevenue: f.MonthlyRevenue.Null,
		RequestedAmount: f.RequestedAmount.Ptr(), ClearRequestedAmount: f.RequestedAmount.Null,
		Priority: f.Priority.Ptr(),
	}
	if f.Priority.Null {
		normal := lead.PriorityNormal
		in.Priority = &normal
	}
	if f.Tags.Set {
		in.Tags = append([]string{}, f.Tags.Value...) // null clears: no tags
	}
	if f.CustomFields.Set {
		in.CustomFields = f.CustomFields.Value
		if in.CustomFields == nil {
			in.CustomFields = map[string]any{} // null clears
		}
	}
	return in
}
