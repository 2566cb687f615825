package dialer

import (
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/agentpresence"
	"github.com/lendingpipe/svc/ent/callevent"
)

// Fields each endpoint accepts (canonical names; Aliases lists the others).
var (
	EventFields       = []string{"externalCallId", "userId", "leadId", "eventType", "direction", "durationSeconds", "disposition", "metadata", "occurredAt"}
	DispositionFields = []string{"externalCallId", "userId", "leadId", "disposition", "notes", "occurredAt"}
	PresenceFields    = []string{"userId", "status", "currentCallId", "currentLeadId", "campaignName", "metadata"}
)

// CallEventInput records a call event (SPEC 4.2 POST /v1/dialer/events).
// GraphQL binds its CallEventInput type to this struct.
type CallEventInput struct {
	ExternalCallID  string               `json:"externalCallId"`
	UserID          uuid.UUID            `json:"userId"`
	LeadID          *uuid.UUID           `json:"leadId"`
	EventType       callevent.EventType  `json:"eventType"`
	Direction       *callevent.Direction `json:"direction"`
	DurationSeconds *int                 `json:"durationSeconds"`
	Disposition     *string              `json:"disposition"`
	Notes           *string              `json:"notes"`
	Metadata        map[string]any       `json:"metadata"`
	OccurredAt      time.Time            `json:"occurredAt"`
}

// DispositionInput records a disposition (SPEC 4.2 POST /v1/dialer/disposition).
type DispositionInput struct {
	ExternalCallID string     `json:"externalCallId"`
	UserID         uuid.UUID  `json:"userId"`
	LeadID         *uuid.UUID `json:"leadId"`
	Disposition    string     `json:"disposition"`
	Notes          *string    `json:"notes"`
	OccurredAt     time.Time  `json:"occurredAt"`
}

// CallEvent is the call event a disposition records.
func (d DispositionInput) CallEvent() CallEventInput {
	return CallEventInput{
		ExternalCallID: d.ExternalCallID, UserID: d.UserID, LeadID: d.LeadID,
		EventType: callevent.EventTypeDisposition, Disposition: &d.Disposition, Notes: d.Notes,
		OccurredAt: d.OccurredAt,
	}
}

// PresenceInput sets an agent's status (SPEC 4.2 POST /v1/dialer/presence).
type PresenceInput struct {
	UserID        uuid.UUID            `json:"userId"`
	Status        agentpresence.Status `json:"status"`
	CurrentCallID *string              `json:"currentCallId"`
	CurrentLeadID *uuid.UUID           `json:"currentLeadId"`
	CampaignName  *string              `json:"campaignName"`
	Metadata      map[string]any       `json:"metadata"`
}

// EventInput reads a call event from a normalised payload.
func (p *Payload) EventInput() (CallEventInput, error) {
	var in CallEventInput
	var err error
	var s *string
	if s, err = p.String("externalCallId", true); err != nil {
		return in, err
	}
	in.ExternalCallID = *s
	if in.UserID, in.LeadID, err = p.people(); err != nil {
		return in, err
	}
	if s, err = p.String("eventType", true); err != nil {
		return in, err
	}
	in.EventType = callevent.EventType(*s)
	if s, err = p.String("direction", false); err != nil {
		return in, err
	}
	if s != nil {
		d := callevent.Direction(*s)
		in.Direction = &d
	}
	if in.DurationSeconds, err = p.Int("durationSeconds"); err != nil {
		return in, err
	}
	if in.Disposition, err = p.String("disposition", false); err != nil {
		return in, err
	}
	if in.Metadata, err = p.Object("metadata"); err != nil {
		return in, err
	}
	t, err := p.Time("occurredAt", true)
	if err != nil {
		return in, err
	}
	in.OccurredAt = *t
	return in, nil
}

// DispositionInput reads a disposition from a normalised payload.
func (p *Payload) DispositionInput() (DispositionInput, error) {
	var in DispositionInput
	var err error
	var s *string
	if s, err = p.String("externalCallId", true); err != nil {
		return in, err
	}
	in.ExternalCallID = *s
	if in.UserID, in.LeadID, err = p.people(); err != nil {
		return in, err
	}
	if s, err = p.String("disposition", true); err != nil {
		return in, err
	}
	in.Disposition = *s
	if in.Notes, err = p.String("notes", false); err != nil {
		return in, err
	}
	t, err := p.Time("occurredAt", true)
	if err != nil {
		return in, err
	}
	in.OccurredAt = *t
	return in, nil
}

// PresenceInput reads a presence update from a normalised payload.
func (p *Payload) PresenceInput() (PresenceInput, error) {
	var in PresenceInput
	id, err := p.UUID("userId", true)
	if err != nil {
		return in, err
	}
	in.UserID = *id
	s, err := p.String("status", true)
	if err != nil {
		return in, err
	}
	in.Status = agentpresence.Status(*s)
	if in.CurrentCallID, err = p.String("currentCallId", false); err != nil {
		return in, err
	}
	if in.CurrentLeadID, err = p.UUID("currentLeadId", false); err != nil {
		return in, err
	}
	if in.CampaignName, err = p.String("campaignName", false); err != nil {
		return in, err
	}
	in.Metadata, err = p.Object("metadata")
	return in, err
}

// people reads the agent (required) and the lead (optional).
func (p *Payload) people() (uuid.UUID, *uuid.UUID, error) {
	user, err := p.UUID("userId", true)
	if err != nil {
		return uuid.Nil, nil, err
	}
	lead, err := p.UUID("leadId", false)
	return *user, lead, err
}
