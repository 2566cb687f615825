package schema

import (
	"entgo.io/contrib/entgql"
	"github.com/google/uuid"
)

var uuidType = uuid.UUID{}

// noInput keeps a field out of the GraphQL create and update inputs: it is
// set by the service (hooks, dedicated mutations), never by the caller.
var noInput = entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)

// valueDocs describes each value of an enum field. GraphQL has no other
// place for it: the generator (ent/entc_gql.go) writes them into the
// schema as the enum values' descriptions.
type valueDocs map[string]string

func (valueDocs) Name() string { return "ValueDocs" }
