package schema

import (
	"context"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/viewer"
)

// Document is a file attached to a lead, an application or a funded deal:
// the stipulations a lender asks for. Its bytes live in the file store
// under storage_key, written whole before the row commits (package
// documents), so a row never names bytes that are not there.
type Document struct{ ent.Schema }

func (Document) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (Document) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "documents", LeadingIndexes: true}}
}

func (Document) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("record_type").Values("lead", "application", "funded_deal").Immutable(),
		field.UUID("record_id", uuidType).Immutable(),
		field.String("filename").Immutable().NotEmpty(),
		field.String("content_type").Immutable().NotEmpty(),
		field.Int64("size").Immutable().Positive(),
		field.String("sha256").Immutable().NotEmpty(),
		field.Enum("category").Values("bank_statement", "application_form", "identification",
			"voided_check", "contract", "other").Default("other").Immutable(),
		// Who uploaded it: the API key's id, or system.
		field.String("uploaded_by").Immutable(),
		field.String("storage_key").Immutable().NotEmpty(),
	}
}

func (Document) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields(orgColumn, "record_id", "created_at"),
		index.Fields(orgColumn, "created_at"),
		index.Fields("storage_key").Unique(),
	}
}

func (Document) Hooks() []ent.Hook {
	return []ent.Hook{hook.On(emitDocumentUploaded, ent.OpCreate)}
}

func (Document) Policy() ent.Policy {
	return orgPolicy(viewer.ScopeLendingRead, viewer.ScopeLendingWrite)
}

// emitDocumentUploaded writes document.uploaded in the upload's transaction.
func emitDocumentUploaded(next ent.Mutator) ent.Mutator {
	return hook.DocumentFunc(func(ctx context.Context, m *gen.DocumentMutation) (gen.Value, error) {
		v, err := next.Mutate(ctx, m)
		if err != nil {
			return nil, err
		}
		d, ok := v.(*gen.Document)
		if !ok {
			return v, nil
		}
		return d, events.Emit(ctx, m.Client(), d.OrgID, event.DocumentUploaded, map[string]any{
			"documentId": d.ID, "orgId": d.OrgID, "recordType": d.RecordType, "recordId": d.RecordID,
			"filename": d.Filename, "fileName": d.Filename, "contentType": d.ContentType, "size": d.Size,
			"sha256": d.Sha256, "category": d.Category, "uploadedBy": d.UploadedBy,
		})
	})
}
