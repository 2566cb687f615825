package webhooks

import (
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/apitime"
)

// DeliveryRecord is a delivery as its subscription's owner sees it, with
// every attempt, for debugging a receiver.
type DeliveryRecord struct {
	ID             uuid.UUID        `json:"-"`
	WebhookID      string           `json:"webhookId" openapi:"deliveryId"`
	EventID        string           `json:"eventId" openapi:"eventId"`
	EventType      string           `json:"eventType"`
	Status         string           `json:"status" enum:"DeliveryStatus"`
	Attempts       int              `json:"attempts" openapi:"count"`
	NextAttemptAt  *apitime.Time    `json:"nextAttemptAt"`
	LastStatusCode *int             `json:"lastStatusCode"`
	LastError      *string          `json:"lastError"`
	DeliveredAt    *apitime.Time    `json:"deliveredAt"`
	DeadAt         *apitime.Time    `json:"deadAt"`
	CreatedAt      apitime.Time     `json:"createdAt"`
	AttemptLog     []*AttemptRecord `json:"attemptLog"`
}

// AttemptRecord is one try of a delivery.
type AttemptRecord struct {
	AttemptedAt     apitime.Time `json:"attemptedAt"`
	StatusCode      *int         `json:"statusCode"`
	LatencyMs       int          `json:"latencyMs" openapi:"count"`
	Error           *string      `json:"error"`
	ResponseExcerpt *string      `json:"responseExcerpt"`
}

// Record builds the record of d (loaded with its attempts) for event ev.
func Record(d *ent.WebhookDelivery, ev *ent.WebhookEvent) *DeliveryRecord {
	r := &DeliveryRecord{
		ID: d.ID, WebhookID: DeliveryIDPrefix + d.ID.String(), Status: d.Status.String(), Attempts: d.Attempts,
		LastStatusCode: d.LastStatusCode, LastError: d.LastError, DeliveredAt: apitime.OfPtr(d.DeliveredAt), DeadAt: apitime.OfPtr(d.DeadAt),
		CreatedAt: apitime.Of(d.CreatedAt), AttemptLog: []*AttemptRecord{},
	}
	if ev != nil {
		r.EventID, r.EventType = EventIDPrefix+ev.ID.String(), ev.EventType
	}
	if d.Status.String() == "pending" {
		r.NextAttemptAt = apitime.OfPtr(&d.NextAttemptAt)
	}
	for _, a := range d.Edges.AttemptLog {
		r.AttemptLog = append(r.AttemptLog, &AttemptRecord{AttemptedAt: apitime.Of(a.AttemptedAt), StatusCode: a.StatusCode,
			LatencyMs: a.LatencyMs, Error: a.Error, ResponseExcerpt: a.ResponseExcerpt})
	}
	return r
}
