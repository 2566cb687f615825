package store

import (
	"context"
	"fmt"

	"github.com/lendingpipe/svc/ent/rule"
	"github.com/lendingpipe/svc/ent/viewer"
)

// Demo is what Bootstrap made for a newcomer.
type Demo struct {
	OrgID, APIKey, ConnectorToken string
}

// Bootstrap creates a demo organization with an all-scopes API key when the
// database has no organization yet, so a fresh server can be curled at
// once. It returns nil when the database was not empty.
func (s *DB) Bootstrap(ctx context.Context) (*Demo, error) {
	n, err := s.Client.Organization.Query().Count(rule.SystemContext(ctx))
	if err != nil || n > 0 {
		return nil, err
	}
	org, token, err := CreateOrganization(ctx, s.Client, "Demo Lending Co")
	if err != nil {
		return nil, err
	}
	key, _, err := CreateAPIKey(ctx, s.Client, org.ID, "live", "demo", viewer.AllScopes)
	if err != nil {
		return nil, fmt.Errorf("creating the demo key: %w", err)
	}
	return &Demo{OrgID: org.ID.String(), APIKey: key, ConnectorToken: token}, nil
}
