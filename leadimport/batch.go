package leadimport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"entgo.io/ent/dialect/sql"

	"github.com/lendingpipe/svc/analytics/rollup"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/importjob"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/filestore"
	"github.com/lendingpipe/svc/internal/leadcsv"
	"github.com/lendingpipe/svc/internal/reqbody"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
)

// importJob imports a claimed job's file from the records it has settled
// to its end, one batch a transaction, then marks it done. A file that
// cannot be read as CSV fails the job.
func (w *Worker) importJob(ctx context.Context, c *claim) error {
	j := c.job
	if j.StorageKey == nil {
		return w.fail(ctx, c, "the uploaded file is no longer stored")
	}
	f, err := w.db.Files.Open(ctx, *j.StorageKey)
	if errors.Is(err, filestore.ErrNotFound) {
		return w.fail(ctx, c, "the uploaded file is no longer stored")
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if j.RowsTotal == nil {
		if err := w.count(ctx, c, f); err != nil {
			return err
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewinding the import file: %w", err)
	}
	rd, err := openCSV(f, j.Mapping)
	if err != nil {
		return w.failFor(ctx, c, err)
	}
	for range j.RecordsDone {
		if err := rd.Skip(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return w.unreadable(ctx, c, err)
		}
	}
	return w.importRest(ctx, c, rd)
}

// unreadable fails the job for a file that stops being a lead list (a
// record over leadcsv.MaxRecordBytes); other read errors are the store's,
// and the job is tried again.
func (w *Worker) unreadable(ctx context.Context, c *claim, err error) error {
	if errors.Is(err, leadcsv.ErrRecordTooLarge) {
		return w.fail(ctx, c, fmt.Sprintf("the file has a row longer than %d bytes, and was not read past it", leadcsv.MaxRecordBytes))
	}
	return fmt.Errorf("reading the import file: %w", err)
}

// importRest imports the records rd has left, one batch a transaction.
func (w *Worker) importRest(ctx context.Context, c *claim, rd *leadcsv.Reader) error {
	for {
		recs, err := readBatch(rd, w.Batch)
		if err != nil {
			return w.unreadable(ctx, c, err)
		}
		if len(recs) == 0 {
			return w.finish(ctx, c)
		}
		if err := w.settle(ctx, c, recs); err != nil {
			return err
		}
	}
}

// readBatch reads up to n records; fewer only at the end of the file.
func readBatch(rd *leadcsv.Reader, n int) ([]leadcsv.Record, error) {
	recs := make([]leadcsv.Record, 0, n)
	for len(recs) < n {
		r, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// count records the file's data rows, so progress can be shown as a share.
func (w *Worker) count(ctx context.Context, c *claim, f io.ReadSeeker) error {
	n, err := leadcsv.Count(f)
	if err != nil {
		if _, serr := f.Seek(0, io.SeekStart); serr != nil {
			return fmt.Errorf("rewinding the import file: %w", serr)
		}
		if _, herr := openCSV(f, c.job.Mapping); herr != nil {
			return w.failFor(ctx, c, herr)
		}
		if errors.Is(err, leadcsv.ErrRecordTooLarge) {
			return w.unreadable(ctx, c, err)
		}
		return fmt.Errorf("counting the import file's rows: %w", err)
	}
	return store.WithTx(ctx, w.db.Client, func(ctx context.Context, tx *ent.Client) error {
		return w.fenced(ctx, tx, c, func(u *ent.ImportJobUpdate) { u.SetRowsTotal(n) })
	})
}

// fenced updates the job while it still carries this worker's token,
// pushing its lease forward; errLostClaim when another worker has taken
// it over, which rolls back the transaction's work.
func (w *Worker) fenced(ctx context.Context, tx *ent.Client, c *claim, set func(*ent.ImportJobUpdate)) error {
	u := tx.ImportJob.Update().Where(importjob.ID(c.job.ID), importjob.ClaimToken(c.token)).
		SetClaimedUntil(w.now().UTC().Add(w.Lease))
	set(u)
	n, err := u.Save(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("recording import job %s's progress: %w", c.job.ID, err)
	}
	if n == 0 {
		return errLostClaim
	}
	return nil
}

// finish marks the job done: every record is settled.
func (w *Worker) finish(ctx context.Context, c *claim) error {
	err := store.WithTx(ctx, w.db.Client, func(ctx context.Context, tx *ent.Client) error {
		return endJob(rule.SystemContext(ctx), tx, c.job.ID, &c.token, importjob.StatusDone, nil, w.now().UTC())
	})
	if err == nil {
		w.dropFile(ctx, c)
	}
	return err
}

// failFor fails the job for a file that cannot be imported at all.
func (w *Worker) failFor(ctx context.Context, c *claim, err error) error {
	e, ok := apperr.As(err)
	if !ok {
		return err
	}
	msg := e.Message
	if e.Field == "file" {
		msg = "the file " + msg
	}
	return w.fail(ctx, c, msg)
}

// fail marks the job failed with why.
func (w *Worker) fail(ctx context.Context, c *claim, why string) error {
	err := store.WithTx(ctx, w.db.Client, func(ctx context.Context, tx *ent.Client) error {
		return endJob(rule.SystemContext(ctx), tx, c.job.ID, &c.token, importjob.StatusFailed, &why, w.now().UTC())
	})
	if err == nil {
		w.dropFile(ctx, c)
	}
	return err
}

// dropFile removes an ended job's file now; the sweep would otherwise.
func (w *Worker) dropFile(ctx context.Context, c *claim) {
	if c.job.StorageKey != nil {
		if err := w.db.Files.Delete(ctx, *c.job.StorageKey); err != nil {
			w.log.Warn("removing an imported file", "key", *c.job.StorageKey, "err", err)
		}
	}
}

// tally is what a batch settled.
type tally struct {
	imported, skipped, failed int
	errors                    []leadcsv.RowError
}

// settle imports a batch of records in one transaction with the job's
// progress. A row the database itself refuses (rather than the checks
// that run before the INSERT) aborts the transaction on PostgreSQL, so the
// batch is then run again with each row in a savepoint of its own.
func (w *Worker) settle(ctx context.Context, c *claim, recs []leadcsv.Record) error {
	var t tally
	run := func(careful bool) error {
		return store.WithTx(ctx, w.db.Client, func(ctx context.Context, tx *ent.Client) error {
			var err error
			t, err = w.settleIn(ctx, tx, c, recs, careful)
			return err
		})
	}
	err := run(w.careful)
	if errors.Is(err, errCareful) {
		err = run(true)
	}
	if err != nil {
		return err
	}
	j := c.job
	j.RowsImported += t.imported
	j.RowsSkipped += t.skipped
	j.RowsFailed += t.failed
	j.RecordsDone += len(recs)
	j.Errors = append(j.Errors, t.errors...)
	return nil
}

// errCareful asks for a batch to be run again row by row in savepoints.
var errCareful = errors.New("a row failed in the database: the batch runs again with a savepoint a row")

// settleIn imports recs through tx and records the job's progress.
func (w *Worker) settleIn(ctx context.Context, tx *ent.Client, c *claim, recs []leadcsv.Record, careful bool) (tally, error) {
	b := &batch{w: w, tx: tx, job: c.job, careful: careful, room: leadcsv.MaxErrors - len(c.job.Errors)}
	if careful {
		if err := b.run(ctx, recs); err != nil {
			return tally{}, err
		}
	} else {
		// The batch's leads are added to the counts in one statement, not
		// two a lead; in careful mode each row's counts roll back with it.
		bctx, counts := rollup.WithCreateBatch(ctx)
		if err := b.run(bctx, recs); err != nil {
			return tally{}, err
		}
		if err := counts.Flush(ctx, tx); err != nil {
			return tally{}, err
		}
	}
	t := b.tally
	// Decoding fails rows before creating does: the job keeps the first
	// errors in file order.
	slices.SortStableFunc(t.errors, func(a, b leadcsv.RowError) int { return a.Row - b.Row })
	t.errors = t.errors[:min(len(t.errors), max(b.room, 0))]
	err := w.fenced(ctx, tx, c, func(u *ent.ImportJobUpdate) {
		u.AddRowsImported(t.imported).AddRowsSkipped(t.skipped).AddRowsFailed(t.failed).AddRecordsDone(len(recs))
		if len(t.errors) > 0 {
			u.SetErrors(append(slices.Clip(c.job.Errors), t.errors...))
		}
	})
	return t, err
}

// batch is one transaction's records being imported.
type batch struct {
	w       *Worker
	tx      *ent.Client
	job     *ent.ImportJob
	careful bool
	// room is how many more row errors the job keeps.
	room int
	// seen holds the dedupe keys of the organization's leads and of the
	// batch's rows so far.
	seen  map[string]bool
	tally tally
}

// row is a record decoded as POST /v1/leads decodes a body.
type row struct {
	line  int
	input ent.CreateLeadInput
	key   string
}

func (b *batch) run(ctx context.Context, recs []leadcsv.Record) error {
	rows := make([]row, 0, len(recs))
	for _, r := range recs {
		if r.Err != nil {
			b.failed(*r.Err)
			continue
		}
		in, err := decode(r.Cells)
		if err != nil {
			b.rowFailed(r.Line, err)
			continue
		}
		rows = append(rows, row{line: r.Line, input: in, key: dedupeKey(b.job.Dedupe, in)})
	}
	if err := b.loadSeen(ctx, rows); err != nil {
		return err
	}
	v := viewer.Viewer{OrgID: b.job.OrgID, Scopes: []string{viewer.ScopeLeadsWrite}}
	if b.job.CreatedByKey != nil {
		v.KeyID = *b.job.CreatedByKey
	}
	vctx := viewer.NewContext(ctx, v)
	for _, r := range rows {
		if r.key != "" && b.seen[r.key] {
			b.tally.skipped++
			continue
		}
		if err := b.create(vctx, r); err != nil {
			return err
		}
	}
	return nil
}

// decode turns a record's cells into the input POST /v1/leads would build
// from the same values.
func decode(cells map[string]string) (ent.CreateLeadInput, error) {
	obj, err := leadcsv.Object(cells)
	if err != nil {
		return ent.CreateLeadInput{}, fmt.Errorf("encoding the row: %w", err)
	}
	var body reqbody.CreateLead
	if err := reqbody.Decode(obj, &body, nil); err != nil {
		return ent.CreateLeadInput{}, err
	}
	in := body.Input()
	src := lead.SourceCsvImport
	in.Source = &src
	return in, nil
}

// dedupeKey is what a row is compared on under dedupe, "" for none.
func dedupeKey(d importjob.Dedupe, in ent.CreateLeadInput) string {
	switch {
	case d == importjob.DedupeEMAIL && in.Email != nil:
		return strings.ToLower(*in.Email)
	case d == importjob.DedupePHONE && in.Phone != nil:
		return *in.Phone
	}
	return ""
}

// loadSeen reads which of the rows' keys the organization's leads have.
func (b *batch) loadSeen(ctx context.Context, rows []row) error {
	b.seen = map[string]bool{}
	var keys []any
	for _, r := range rows {
		if r.key != "" {
			keys = append(keys, r.key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	col := lead.FieldPhone
	if b.job.Dedupe == importjob.DedupeEMAIL {
		col = lead.FieldEmail
	}
	found, err := b.tx.Lead.Query().Where(lead.OrgID(b.job.OrgID), func(s *sql.Selector) {
		c := s.C(col)
		if col == lead.FieldEmail {
			c = sql.Lower(c)
		}
		s.Where(sql.In(c, keys...))
	}).Select(col).Strings(rule.SystemContext(ctx))
	if err != nil {
		return fmt.Errorf("reading the leads an import would duplicate: %w", err)
	}
	for _, k := range found {
		if col == lead.FieldEmail {
			k = strings.ToLower(k)
		}
		b.seen[k] = true
	}
	return nil
}

// create creates a row's lead as its job's creator. A row whose checks
// fail is counted failed; in careful mode each row runs in a savepoint,
// so that one the database refuses is rolled back alone.
func (b *batch) create(ctx context.Context, r row) error {
	if !b.careful {
		err := b.insert(ctx, r)
		if err != nil && !checkedBeforeInsert(err) {
			return errCareful
		}
		b.settled(r, err)
		return nil
	}
	sys := rule.SystemContext(ctx)
	events, err := events.Savepoint(ctx)
	if err != nil {
		return fmt.Errorf("writing the batch's events before a row: %w", err)
	}
	if _, err := b.tx.ExecContext(sys, "SAVEPOINT import_row"); err != nil {
		return fmt.Errorf("starting a row's savepoint: %w", err)
	}
	err = b.insert(ctx, r)
	if err == nil {
		err = events.Write()
	}
	if err != nil {
		if ctx.Err() != nil || store.Unreachable(err) {
			return err
		}
		if _, rerr := b.tx.ExecContext(sys, "ROLLBACK TO SAVEPOINT import_row"); rerr != nil {
			return fmt.Errorf("rolling back a failed row (%v): %w", err, rerr)
		}
		events.Forget()
	}
	if _, rerr := b.tx.ExecContext(sys, "RELEASE SAVEPOINT import_row"); rerr != nil {
		return fmt.Errorf("releasing a row's savepoint: %w", rerr)
	}
	b.settled(r, err)
	return nil
}

// insert creates the row's lead as POST /v1/leads does, recorded as the
// job's; within a batch (rollup.WithCreateBatch) its counts wait for the
// batch's end.
func (b *batch) insert(ctx context.Context, r row) error {
	_, err := leads.Create(ctx, b.tx, r.input, func(m *ent.LeadMutation) { m.SetImportJobID(b.job.ID) })
	return err
}

// settled counts a row imported, or failed with err.
func (b *batch) settled(r row, err error) {
	if err != nil {
		b.rowFailed(r.line, err)
		return
	}
	b.tally.imported++
	if r.key != "" {
		b.seen[r.key] = true // a later row of the file with the same key is a duplicate
	}
}

// checkedBeforeInsert reports whether err comes from the checks a lead's
// create runs before its INSERT (field validators, the schema hooks'
// rules), which leave the transaction as it was.
func checkedBeforeInsert(err error) bool {
	if ent.IsValidationError(err) {
		return true
	}
	e, ok := apperr.As(err)
	return ok && e.Code != apperr.Internal && e.Code != apperr.Unavailable
}

// rowFailed counts a row failed with the code, field and message POST
// /v1/leads answers for err.
func (b *batch) rowFailed(line int, err error) {
	e := b.w.present(err)
	b.failed(leadcsv.RowError{Row: line, Field: e.Field, Code: e.Code, Message: e.Message})
}

func (b *batch) failed(re leadcsv.RowError) {
	b.tally.failed++
	if b.room > 0 {
		b.tally.errors = append(b.tally.errors, re)
	}
}
