package graph

import (
	"context"
	"fmt"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/apikey"
)

// createdKey answers a key just created or rotated, with its secret.
func createdKey(secret string, k *ent.APIKey, err error) (*CreatedAPIKey, error) {
	if err != nil {
		return nil, err
	}
	return &CreatedAPIKey{APIKey: k, Secret: secret}, nil
}

// seconds is a count of seconds as a duration, nil for none. A count
// beyond any bound stays beyond it (clamped, not wrapped around).
func seconds(n *int) *time.Duration {
	if n == nil {
		return nil
	}
	d := time.Duration(min(max(*n, -1), 1<<30)) * time.Second
	return &d
}

// apiKeys is a page of the organization's API keys (app tokens are the
// apps' and not listed), newest first; revoked ones only when asked. Who
// may read is the privacy policy's to say (admin).
func (r *Resolver) apiKeys(ctx context.Context, includeRevoked bool, pageArg, limitArg *int) (*ApiKeyPage, error) {
	o, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q := r.client(ctx).APIKey.Query().Where(apikey.KindEQ(apikey.KindLive))
	if !includeRevoked {
		q = q.Where(apikey.RevokedAtIsNil())
	}
	return answer[ApiKeyPage](readPage(ctx, q.Order(apikey.ByCreatedAt(sql.OrderDesc()), apikey.ByID(sql.OrderDesc())), o))
}

// keyUser is the user k acts as, nil for a key bound to no one. It is read
// as the caller reads users (an admin reads them all); a user gone since
// is none.
func (r *Resolver) keyUser(ctx context.Context, k *ent.APIKey) (*ent.User, error) {
	if k.UserID == nil {
		return nil, nil
	}
	u, err := r.client(ctx).User.Get(ctx, *k.UserID)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the key's user: %w", err)
	}
	return u, nil
}
