// Package leadimport imports CSV files of leads (PRODUCT 6): Start stores
// the file and queues a job; a Worker on any replica claims the job with a
// lease and imports its rows in batches, each batch's leads committed with
// the job's progress in one transaction, so a crash loses at most the
// batch in flight and the job resumes after the records already settled.
package leadimport

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/importjob"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/leadcsv"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
)

// keyPrefix is where import files are kept in the file store.
const keyPrefix = "imports/"

// emptyImport says what an import file should hold when it holds nothing.
const emptyImport = "; send a CSV file with a header line and one lead per row"

// Upload is a file to import and how.
type Upload struct {
	Filename string
	// File is the upload's bytes, read twice: stored, then its header read.
	File io.ReadSeeker
	Size int64
	// Limit is the largest file taken.
	Limit int64
	// Mapping is the mapping argument as given: a JSON object of strings,
	// or nil.
	Mapping any
	Dedupe  importjob.Dedupe
}

// Start checks an upload, stores its file and queues its job, answering
// the queued job at once. The file must be UTF-8 CSV with a header naming
// at least one lead field.
func Start(ctx context.Context, db *store.DB, up Upload) (*ent.ImportJob, error) {
	if err := rule.Require(ctx, viewer.ScopeLeadsWrite); err != nil {
		return nil, err
	}
	mapping, err := mappingOf(up.Mapping)
	if err != nil {
		return nil, err
	}
	if up.Dedupe == "" {
		up.Dedupe = importjob.DedupeNONE
	}
	if err := importjob.DedupeValidator(up.Dedupe); err != nil {
		return nil, apperr.Invalid("dedupe", "must be NONE, EMAIL or PHONE")
	}
	if err := bounds.FileSize(up.Size, up.Limit, emptyImport, "an import takes at most %d"); err != nil {
		return nil, err
	}
	// The encoding, then the header, are checked before the file is
	// stored, so a refused file leaves nothing behind; a file in another
	// encoding is refused as such, not for a header that reads as no
	// lead field's name.
	if err := checkEncoding(up.File); err != nil {
		return nil, err
	}
	if _, err := openCSV(leadcsv.NewUTF8Reader(up.File), mapping); err != nil {
		return nil, err
	}
	if _, err := up.File.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("rewinding the upload: %w", err)
	}
	id := uuid.Must(uuid.NewV7())
	key := keyPrefix + id.String()
	if err := storeFile(ctx, db, key, up.File); err != nil {
		return nil, err
	}
	// A failed insert leaves the file to the sweep: were the commit's
	// answer lost after it succeeded, deleting the file here would leave
	// a job naming bytes that are gone.
	j, err := queue(ctx, db, id, key, up, mapping)
	if err != nil {
		return nil, err
	}
	db.ImportsQueued.Notify()
	return j, nil
}

// mappingOf reads the mapping argument: absent, or an object of strings.
func mappingOf(v any) (map[string]string, error) {
	if v == nil {
		return nil, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, apperr.Invalid("mapping", "must be a JSON object from lead field name to CSV header")
	}
	out := make(map[string]string, len(obj))
	for k, h := range obj {
		s, ok := h.(string)
		if !ok {
			return nil, apperr.Invalid("mapping", "the header for %q must be a string", k)
		}
		out[k] = s
	}
	if err := leadcsv.CheckMapping(out); err != nil {
		return nil, apperr.Invalid("mapping", "%s", err)
	}
	return out, nil
}

// storeFile writes the file under key, checking that it is UTF-8 as it
// goes: a file that is not is refused, and nothing is stored.
func storeFile(ctx context.Context, db *store.DB, key string, f io.ReadSeeker) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewinding the upload: %w", err)
	}
	_, err := db.Files.Write(ctx, key, leadcsv.NewUTF8Reader(f))
	if errors.Is(err, leadcsv.ErrNotUTF8) {
		return notUTF8("")
	}
	if err != nil {
		return fmt.Errorf("storing the import file: %w", err)
	}
	return nil
}

// checkEncoding refuses a file whose first bytes show an encoding other
// than UTF-8 (leadcsv.ForeignEncoding), and rewinds it.
func checkEncoding(f io.ReadSeeker) error {
	head := make([]byte, 4)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading the upload: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewinding the upload: %w", err)
	}
	if enc := leadcsv.ForeignEncoding(head[:n]); enc != "" {
		return notUTF8(enc)
	}
	return nil
}

// notUTF8 is the refusal of a file that is not UTF-8, naming the encoding
// it is in when that is known.
func notUTF8(encoding string) error {
	is := "not UTF-8 text"
	if encoding != "" {
		is = encoding + " text, not UTF-8"
	}
	return apperr.New(apperr.UnsupportedMediaType, "the file is %s; save it as \"CSV UTF-8\" and import it again", is)
}

// queue inserts the queued job.
func queue(ctx context.Context, db *store.DB, id uuid.UUID, key string, up Upload, mapping map[string]string) (*ent.ImportJob, error) {
	v, _ := viewer.FromContext(ctx)
	return store.WithTxValue(ctx, db.Client, func(ctx context.Context, tx *ent.Client) (*ent.ImportJob, error) {
		c := tx.ImportJob.Create().SetID(id).SetFilename(up.Filename).SetStorageKey(key).
			SetDedupe(up.Dedupe).SetCreatedBy(actor(v))
		if mapping != nil {
			c.SetMapping(mapping)
		}
		if v.KeyID != uuid.Nil {
			c.SetCreatedByKey(v.KeyID)
		}
		return c.Save(ctx)
	})
}

// actor names who started a job, as leads name who created them.
func actor(v viewer.Viewer) string {
	if a := v.Actor(); a != "" {
		return a
	}
	return "system"
}

// openCSV reads a file's header and matches it to lead fields, answering
// the file's or the mapping's fault as the caller's.
func openCSV(r io.Reader, mapping map[string]string) (*leadcsv.Reader, error) {
	rd, err := leadcsv.NewReader(r, mapping)
	var me *leadcsv.MappingError
	switch {
	case errors.Is(err, leadcsv.ErrNotUTF8):
		return nil, notUTF8("")
	case errors.Is(err, leadcsv.ErrNoHeader):
		return nil, apperr.Invalid("file", "has no header line; the first line must name the columns")
	case errors.As(err, &me):
		return nil, apperr.Invalid("mapping", "%s", me.Reason)
	case err != nil:
		return nil, apperr.Invalid("file", "%s", err)
	case rd.Columns().Len() == 0:
		return nil, apperr.Invalid("file", "no column of the header names a lead field (such as businessName, email or phone); "+
			"name them in the header or give a mapping")
	}
	return rd, nil
}
