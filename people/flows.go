package people

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/signinflow"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/token"
)

// FlowTTL is how long a single sign-on may take from its start to the
// provider's callback (PRODUCT 9.6).
const FlowTTL = 10 * time.Minute

// ErrNoFlow is a callback whose state names no flow in progress: never
// started, finished already (a replay), or older than FlowTTL.
var ErrNoFlow = errors.New("no single sign-on in progress for this state")

// Flow is a single sign-on in progress: the state the provider hands back,
// the nonce the ID token must carry and the PKCE verifier the code is
// exchanged with.
type Flow struct {
	State, Nonce, Verifier string
}

// BeginFlow stores a new flow, with a random state and nonce, exchanging
// its code with verifier; any replica may finish it, once, within FlowTTL.
func BeginFlow(ctx context.Context, c *ent.Client, verifier string) (*Flow, error) {
	f := &Flow{State: token.New("", 32, token.Base32), Nonce: token.New("", 32, token.Base32), Verifier: verifier}
	now := apitime.Now(ctx)
	err := c.SignInFlow.Create().SetStateHash(digest(f.State)).SetNonce(f.Nonce).SetVerifier(verifier).
		SetCreatedAt(now).SetExpiresAt(now.Add(FlowTTL)).Exec(rule.SystemContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("storing the single sign-on: %w", err)
	}
	return f, nil
}

// TakeFlow finishes the flow state names: it deletes it, so a replayed
// callback finds nothing, and answers it unless it expired. Two callbacks
// racing with one state: the delete is conditional, one of them wins.
func TakeFlow(ctx context.Context, c *ent.Client, state string) (*Flow, error) {
	ctx = rule.SystemContext(ctx)
	row, err := c.SignInFlow.Query().Where(signinflow.StateHash(digest(state))).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return nil, ErrNoFlow
	case err != nil:
		return nil, fmt.Errorf("reading the single sign-on: %w", err)
	}
	n, err := c.SignInFlow.Delete().Where(signinflow.ID(row.ID)).Exec(ctx)
	switch {
	case err != nil:
		return nil, fmt.Errorf("finishing the single sign-on: %w", err)
	case n == 0, !apitime.Now(ctx).Before(row.ExpiresAt):
		return nil, ErrNoFlow
	}
	return &Flow{State: state, Nonce: row.Nonce, Verifier: row.Verifier}, nil
}

// PurgeFlows deletes the flows never finished, past their end.
func PurgeFlows(ctx context.Context, c *ent.Client, now time.Time) (int, error) {
	n, err := c.SignInFlow.Delete().Where(signinflow.ExpiresAtLT(now)).Exec(rule.SystemContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("purging unfinished single sign-ons: %w", err)
	}
	return n, nil
}
