// Package graph is the GraphQL API. Its resolvers are thin calls into the
// domains' flows (leads, lending, dialer, webhooks, access, documents,
// leadimport), which REST and the automation runner call too; the REST
// adapter also reads through its resolvers and renders its Page.
//
// It imports the domains, the reports (analytics), the automation runner
// it starts (webhooks/autorun), the store and the leaves, never rest or the
// HTTP root.
package graph

//go:generate sh -c "cd .. && go run github.com/99designs/gqlgen generate"

import (
	"context"
	"github.com/lendingpipe/svc/internal/signals"
	"strings"
	"time"

	"github.com/lendingpipe/svc/dialer"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/people"
	"github.com/lendingpipe/svc/webhooks"
)

// Resolver holds the resolvers' dependencies.
type Resolver struct {
	db       *store.DB
	now      func() time.Time
	presence *dialer.Broker
	events   *webhooks.Live
	webhooks webhooks.Config
	refs     *refCache
	// uploads bound uploadDocument's and importLeads' files (NewHandler
	// sets them from its configuration).
	uploads UploadLimits
	// accounts are the sign-in flows, shared with the HTTP surface's
	// /auth routes (WithAccounts).
	accounts *people.Accounts
}

// NewResolver returns the root resolver over db; hooks holds the webhook
// settings subscriptions are validated against.
func NewResolver(db *store.DB, now func() time.Time, hooks webhooks.Config) *Resolver {
	return &Resolver{db: db, now: now, presence: dialer.NewBroker(db.Client, now),
		events: webhooks.NewLive(db.Client), webhooks: hooks, refs: newRefCache(),
		uploads: UploadLimits{}.withDefaults(), accounts: people.New(people.Settings{})}
}

// WithAccounts makes the sign-in flows the resolvers call a, the ones the
// HTTP surface's /auth routes use: one bound on concurrent password hashes
// per server.
func (r *Resolver) WithAccounts(a *people.Accounts) *Resolver {
	r.accounts = a
	return r
}

// Accounts are the sign-in flows the resolvers call, for the HTTP
// surface to share them (one bound on concurrent password hashes).
func (r *Resolver) Accounts() *people.Accounts { return r.accounts }

// RunsQueued wakes this process's automation runner; the /v1 inbound
// route hands it to the runs a request queues.
func (r *Resolver) RunsQueued() *signals.Signal { return r.db.RunsQueued }

// client is the transaction's client when the request runs in one (every
// surface opens it with store.WithTx: mutationTx on GraphQL, the handlers on
// REST, the automation runner), else the pool's.
func (r *Resolver) client(ctx context.Context) *ent.Client {
	if c := ent.FromContext(ctx); c != nil {
		return c
	}
	return r.db.Client
}

// OperationFields lists every Query and Mutation field as "Query.lead",
// for tests that must cover each one (the isolation matrix).
func OperationFields() []string {
	s := NewExecutableSchema(Config{}).Schema()
	var out []string
	for _, root := range []string{"Query", "Mutation"} {
		for _, f := range s.Types[root].Fields {
			if !strings.HasPrefix(f.Name, "__") {
				out = append(out, root+"."+f.Name)
			}
		}
	}
	return out
}
