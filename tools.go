//go:build tools

// Package tools pins the code generators `go generate ./...` runs.
package tools

import (
	_ "entgo.io/contrib/entgql"
	_ "entgo.io/ent/cmd/ent"
	_ "github.com/99designs/gqlgen"
	_ "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
)
