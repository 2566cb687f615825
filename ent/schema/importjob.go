package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/lendingpipe/svc/internal/leadcsv"
	"github.com/lendingpipe/svc/internal/viewer"
)

// ImportJob is a CSV file of leads being imported (package leadimport). A
// worker on any replica claims it with a lease, as deliveries are claimed,
// and commits each batch of leads with the job's progress in one
// transaction: records_done says how many of the file's records are
// settled, so a job resumed after a crash starts after them.
type ImportJob struct{ ent.Schema }

func (ImportJob) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

func (ImportJob) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, OrgMixin{Ref: "import_jobs", LeadingIndexes: true}}
}

func (ImportJob) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("status").Values("queued", "running", "done", "failed").Default("queued"),
		field.String("filename").Immutable(),
		// The uploaded file's key in the file store; cleared when the job
		// ends, so the store's sweep removes the file.
		field.String("storage_key").Optional().Nillable(),
		// A lead field's name to the CSV header it is read from; without
		// one, headers are matched by alias.
		field.JSON("mapping", map[string]string{}).Optional().Immutable(),
		field.Enum("dedupe").Values("NONE", "EMAIL", "PHONE").Default("NONE").Immutable(),
		// The file's data rows; null until the worker has counted them.
		field.Int("rows_total").Optional().Nillable(),
		field.Int("rows_imported").Default(0),
		field.Int("rows_skipped").Default(0),
		field.Int("rows_failed").Default(0),
		// The file's records settled so far (imported, skipped or failed).
		field.Int("records_done").Default(0),
		field.JSON("errors", []leadcsv.RowError{}).Optional(),
		// Why a failed job failed.
		field.String("failure").Optional().Nillable(),
		// Who started it: the API key's id, or system. The leads it
		// creates are created by the same.
		field.String("created_by").Immutable(),
		field.UUID("created_by_key", uuidType).Optional().Nillable().Immutable(),
		// The claim: a worker's lease and its token. A batch commits only
		// while its worker's token still holds the claim.
		field.Time("claimed_until").Optional().Nillable(),
		field.UUID("claim_token", uuidType).Optional().Nillable(),
		field.Int("attempts").Default(0),
		field.Time("started_at").Optional().Nillable(),
		field.Time("finished_at").Optional().Nillable(),
	}
}

func (ImportJob) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields(orgColumn, "created_at"),
		index.Fields("status", "claimed_until"),
	}
}

func (ImportJob) Policy() ent.Policy { return orgPolicy(viewer.ScopeLeadsRead, viewer.ScopeLeadsWrite) }
