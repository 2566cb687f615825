package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/internal/rule"
)

// StaleRollups lists the organizations whose rollups are not cut in their
// time zone: never built, or built before the zone changed.
func (s *DB) StaleRollups(ctx context.Context) ([]uuid.UUID, error) {
	var orgs []struct {
		ID       uuid.UUID `json:"id"`
		Timezone string    `json:"timezone"`
		Rollup   *string   `json:"rollup_zone"`
	}
	err := s.Client.Organization.Query().
		Select(organization.FieldID, organization.FieldTimezone, organization.FieldRollupZone).
		Scan(rule.SystemContext(ctx), &orgs)
	if err != nil {
		return nil, fmt.Errorf("reading the organizations' zones: %w", err)
	}
	var out []uuid.UUID
	for _, o := range orgs {
		if o.Rollup == nil || *o.Rollup != o.Timezone {
			out = append(out, o.ID)
		}
	}
	return out, nil
}
