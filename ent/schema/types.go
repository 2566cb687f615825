package schema

import (
	"entgo.io/contrib/entgql"
	"github.com/google/uuid"
)

var uuidType = uuid.UUID{}

// noInput keeps a field out of the GraphQL create and update inputs: it is
// set by the service (hooks, dedicated mutations), never by the caller.
var noInput = entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)
