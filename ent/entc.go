//go:build ignore

// Command entc generates the ent client and the GraphQL schema of the ent
// types (graph/ent.graphql). Run it through `go generate ./...`; the naming
// and documentation rules of the GraphQL schema are in entc_gql.go.
package main

import (
	"log"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"

	"github.com/lendingpipe/svc/internal/bus"
	"github.com/lendingpipe/svc/internal/signals"
)

func main() {
	ex, err := entgql.NewExtension(
		entgql.WithConfigPath("../gqlgen.yml"),
		entgql.WithSchemaGenerator(),
		entgql.WithSchemaPath("../graph/ent.graphql"),
		entgql.WithWhereInputs(true),
		entgql.WithSchemaHook(renameIDs, describe),
	)
	if err != nil {
		log.Fatalf("creating entgql extension: %v", err)
	}
	err = entc.Generate("./schema", &gen.Config{
		Features: []gen.Feature{
			gen.FeaturePrivacy,
			gen.FeatureEntQL,
			gen.FeatureIntercept,
			gen.FeatureUpsert,
			gen.FeatureLock,
			gen.FeatureExecQuery,
			gen.FeatureModifier,
		},
		// Runs before entgql's own hooks, so the GraphQL schema and the
		// field collection it generates agree on every field's name.
		Hooks: []gen.Hook{mapIDFields},
	}, entc.Extensions(ex),
		// The change bus of the process that opened the client: the hooks
		// publish committed changes on it (dialer/board, events).
		entc.Dependency(entc.DependencyName("Bus"), entc.DependencyType(&bus.Bus{})),
		// The store's signals to this process (signals.Set): the outbox
		// wakes the store's delivery worker, the cached rows' hooks move
		// its versions on. Per store, so two stores never hear each other.
		entc.Dependency(entc.DependencyName("Signals"), entc.DependencyType(&signals.Set{})))
	if err != nil {
		log.Fatalf("running ent codegen: %v", err)
	}
}
