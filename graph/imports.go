package graph

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/importjob"
	"github.com/lendingpipe/svc/internal/leadcsv"
	"github.com/lendingpipe/svc/leadimport"
)

// importLeads starts an import of the uploaded CSV file (PRODUCT 6).
func (r *Resolver) importLeads(ctx context.Context, file graphql.Upload, mapping any, dedupe *importjob.Dedupe) (*ent.ImportJob, error) {
	d := importjob.DedupeNONE
	if dedupe != nil {
		d = *dedupe
	}
	return leadimport.Start(ctx, r.db, leadimport.Upload{Filename: file.Filename, File: file.File, Size: file.Size,
		Limit: r.uploads.Import, Mapping: mapping, Dedupe: d})
}

// importJob is the organization's job id, or nil when it has none by it.
func (r *Resolver) importJob(ctx context.Context, id uuid.UUID) (*ent.ImportJob, error) {
	j, err := r.client(ctx).ImportJob.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return j, err
}

// importJobs is a page of the organization's import jobs, newest first.
func (r *Resolver) importJobs(ctx context.Context, pageArg, limitArg *int) (*ImportJobPage, error) {
	o, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q := r.client(ctx).ImportJob.Query().Order(importjob.ByCreatedAt(sql.OrderDesc()), importjob.ByID(sql.OrderDesc()))
	return answer[ImportJobPage](readPage(ctx, q, o))
}

// importMapping is a job's mapping as given, or nil when it had none.
func importMapping(j *ent.ImportJob) any {
	if len(j.Mapping) == 0 {
		return nil
	}
	return mappingOut(j.Mapping)
}

// rowErrorField is the field a row error names, nil for a row that could
// not be read.
func rowErrorField(e *leadcsv.RowError) *string {
	if e.Field == "" {
		return nil
	}
	return &e.Field
}

// progressPoll is how often a progress subscription reads its job: the
// row is the truth on every replica, whichever one runs the import.
const progressPoll = 300 * time.Millisecond

// importJobProgress sends the job now and each time its progress changes,
// and ends once it is done or failed. A job of another organization is
// NOT_FOUND, as the privacy filter hides it.
func (r *Resolver) importJobProgress(ctx context.Context, id uuid.UUID) (<-chan *ent.ImportJob, error) {
	j, err := r.db.Client.ImportJob.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	ch := make(chan *ent.ImportJob, 1)
	ch <- j
	go func() {
		defer close(ch)
		last := progressOf(j)
		for !ended(j) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(progressPoll):
			}
			next, err := r.db.Client.ImportJob.Get(ctx, id)
			if err != nil {
				return // the subscription ends; the client may query the job
			}
			if p := progressOf(next); p != last {
				last, j = p, next
				select {
				case ch <- j:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return ch, nil
}

// progress is what a progress subscriber sees change.
type progress struct {
	status                    importjob.Status
	total                     int
	imported, skipped, failed int
	updated                   time.Time
}

func progressOf(j *ent.ImportJob) progress {
	p := progress{status: j.Status, imported: j.RowsImported, skipped: j.RowsSkipped, failed: j.RowsFailed, updated: j.UpdatedAt}
	if j.RowsTotal != nil {
		p.total = *j.RowsTotal
	}
	return p
}

func ended(j *ent.ImportJob) bool {
	return j.Status == importjob.StatusDone || j.Status == importjob.StatusFailed
}
