// Package ent is the data layer generated from the schemas in ent/schema:
// the client, queries, mutations, privacy and the GraphQL glue. Change a
// schema and run `go generate ./...`; never edit the generated files.
//
// Everything under ent/ is the bottom layer. It imports only ent's own
// packages and the leaf packages beside it (errors, the viewer, bounds,
// enumerations, the event catalog and the outbox writer), never graph,
// rest, webhooks or dialer; architecture_test.go keeps it so.
package ent

//go:generate go run -mod=mod entc.go entc_gql.go
