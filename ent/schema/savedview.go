package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/rule"
)

// SavedView is a screen's filters saved under a name (PRODUCT 10.5): the
// user's own, or shared with the organization. Package views validates the
// filters as the screen's own arguments.
type SavedView struct{ ent.Schema }

func (SavedView) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A screen's filters saved under a name."),
		entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput, entgql.SkipWhereInput, entgql.SkipOrderField),
	}
}

func (SavedView) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "saved_views", LeadingIndexes: true}}
}

func (SavedView) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Validate(textLen(bounds.Named)).
			Comment("The view's name: 1 to 100 characters."),
		field.Enum("screen").Values(enum.SavedViewScreens...).Immutable().
			Annotations(valueDocs(enum.SavedViewScreenDocs)).
			Comment("The screen whose filters it holds."),
		field.JSON("filters", map[string]any{}).Default(map[string]any{}).Annotations(entgql.Type("Map")).
			Comment("The screen's own filter arguments, as a JSON object."),
		field.Bool("shared").Default(false).
			Comment("true when every user of the organization sees it; false when only its owner does."),
		field.UUID("owner_id", uuidType).Immutable().
			Comment("The id of the user who saved it."),
	}
}

// The columns FilterOwnOrShared reads.
const (
	savedViewOwner  = "owner_id"
	savedViewShared = "shared"
)

func (SavedView) Indexes() []ent.Index {
	return []ent.Index{index.Fields(orgColumn, "screen", "owner_id")}
}

// Every person of the organization may read the shared views and keep
// their own; another's own view is not found (an admin's reads find every
// view, as an admin may delete any). Package views holds who may delete.
func (SavedView) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{rule.DenyIfNoViewer(), rule.FilterOrg(),
			rule.FilterOwnOrShared(savedViewOwner, savedViewShared)},
		Mutation: privacy.MutationPolicy{rule.DenyIfNoViewer(), rule.FilterOrg()},
	}
}
