package webhooks

import (
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
)

// DeliveryRecord is a delivery as its subscription's owner sees it, with
// every attempt, for debugging a receiver.
type DeliveryRecord struct {
	ID             uuid.UUID        `json:"-"`
	WebhookID      string           `json:"webhookId"`
	EventID        string           `json:"eventId"`
	EventType      string           `json:"eventType"`
	Status         string           `json:"status"`
	Attempts       int              `json:"attempts"`
	NextAttemptAt  *time.Time       `json:"nextAttemptAt"`
	LastStatusCode *int             `json:"lastStatusCode"`
	LastError      *string          `json:"lastError"`
	DeliveredAt    *time.Time       `json:"deliveredAt"`
	DeadAt         *time.Time       `json:"deadAt"`
	CreatedAt      time.Time        `json:"createdAt"`
	AttemptLog     []*AttemptRecord `json:"attemptLog"`
}

// AttemptRecord is one try of a delivery.
type AttemptRecord struct {
	AttemptedAt     time.Time `json:"attemptedAt"`
	StatusCode      *int      `json:"statusCode"`
	LatencyMs       int       `json:"latencyMs"`
	Error           *string   `json:"error"`
	ResponseExcerpt *string   `json:"responseExcerpt"`
}

// Record builds the record of d (loaded with its attempts) for event ev.
func Record(d *ent.WebhookDelivery, ev *ent.WebhookEvent) *DeliveryRecord {
	r := &DeliveryRecord{
		ID: d.ID, WebhookID: DeliveryIDPrefix + d.ID.String(), Status: d.Status.String(), Attempts: d.Attempts,
		LastStatusCode: d.LastStatusCode, LastError: d.LastError, DeliveredAt: d.DeliveredAt, DeadAt: d.DeadAt,
		CreatedAt: d.CreatedAt.UTC(), AttemptLog: []*AttemptRecord{},
	}
	if ev != nil {
		r.EventID, r.EventType = EventIDPrefix+ev.ID.String(), ev.EventType
	}
	if d.Status.String() == "pending" {
		next := d.NextAttemptAt.UTC()
		r.NextAttemptAt = &next
	}
	for _, a := range d.Edges.AttemptLog {
		r.AttemptLog = append(r.AttemptLog, &AttemptRecord{AttemptedAt: a.AttemptedAt.UTC(), StatusCode: a.StatusCode,
			LatencyMs: a.LatencyMs, Error: a.Error, ResponseExcerpt: a.ResponseExcerpt})
	}
	return r
}
