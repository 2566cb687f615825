// Package documents holds the document flows (PRODUCT 5): attaching a
// file to a lead, an application or a funded deal, opening it for a
// download, and sweeping stored bytes no document names.
//
// A file is streamed from where the transport spooled it to the file
// store, hashed on the way, and never held in memory whole; its row is
// committed only once its bytes are stored, so a row never names bytes
// that are not there.
package documents

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/activity"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/document"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/filestore"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/text"
	"github.com/lendingpipe/svc/internal/viewer"
)

// keyPrefix is where documents keep their bytes in the file store.
const keyPrefix = "documents/"

// Input is one file to attach.
type Input struct {
	// RecordID is the lead, application or funded deal's id.
	RecordID uuid.UUID
	// Filename is the name the client sent; it is sanitized.
	Filename string
	// Category defaults to other.
	Category document.Category
	// File holds Size bytes: a spooled upload, read in place.
	File io.ReaderAt
	Size int64
	// MaxBytes is the largest file taken.
	MaxBytes int64
}

// Upload attaches in's file to a record of the caller's organization: it
// checks the caller may write lending records, finds the record, checks
// the file's size and type (read from its content), streams it to the
// file store and commits the Document row, whose hook emits
// document.uploaded in the same transaction, with the entry of the
// record's lead's history.
func Upload(ctx context.Context, c *ent.Client, files *filestore.Store, in Input) (*ent.Document, error) {
	org, err := writer(ctx)
	if err != nil {
		return nil, err
	}
	if text.HasNUL(in.Filename) {
		return nil, text.NULError("filename")
	}
	recordType, leadID, err := recordOf(ctx, c, org, in.RecordID)
	if err != nil {
		return nil, err
	}
	if err := bounds.FileSize(in.Size, in.MaxBytes, "", "a document may be at most %d bytes"); err != nil {
		return nil, err
	}
	filename := SanitizeFilename(in.Filename)
	contentType, err := Sniff(in.File, in.Size, filename)
	if err != nil {
		return nil, err
	}
	stored, err := keep(ctx, files, io.NewSectionReader(in.File, 0, in.Size), contentType)
	if err != nil {
		return nil, err
	}
	d, err := store.WithTxValue(ctx, c, func(ctx context.Context, c *ent.Client) (*ent.Document, error) {
		d, err := c.Document.Create().SetRecordType(recordType).SetRecordID(in.RecordID).
			SetFilename(filename).SetContentType(contentType).SetSize(stored.size).SetSha256(stored.sha256).
			SetCategory(categoryOr(in.Category)).SetUploadedBy(*events.Actor(ctx)).SetStorageKey(stored.key).
			Save(ctx)
		if err != nil {
			return nil, err
		}
		return d, activity.Record(ctx, c, activity.Entry{OrgID: d.OrgID, LeadID: leadID, Kind: history.DocumentUploaded,
			RecordID: d.ID, Summary: "Uploaded " + d.Filename})
	})
	if err != nil {
		// The bytes are left to SweepFiles: were the commit's answer lost
		// after it succeeded, deleting them here would leave a document
		// naming bytes that are gone.
		return nil, fmt.Errorf("recording the document: %w", err)
	}
	return d, nil
}

// writer is the caller's organization when it may write lending records.
func writer(ctx context.Context) (uuid.UUID, error) {
	return rule.RequireOrg(ctx, viewer.ScopeLendingWrite, "uploading a document")
}

// recordOf finds which kind of record of org id names, and the lead it
// belongs to. The caller's key needs no scope of the record's own
// (leads:read for a lead): attaching is a lending write, and the lookup
// names the organization itself.
func recordOf(ctx context.Context, c *ent.Client, org, id uuid.UUID) (document.RecordType, uuid.UUID, error) {
	sys := rule.SystemContext(ctx)
	checks := []struct {
		kind   document.RecordType
		leadOf func() ([]uuid.UUID, error)
	}{
		{document.RecordTypeLead, func() ([]uuid.UUID, error) {
			return c.Lead.Query().Where(lead.ID(id), lead.OrgID(org)).IDs(sys)
		}},
		{document.RecordTypeApplication, func() ([]uuid.UUID, error) {
			apps, err := c.Application.Query().Where(application.ID(id), application.OrgID(org)).
				Select(application.FieldLeadID).All(sys)
			return leadIDs(apps, func(a *ent.Application) uuid.UUID { return a.LeadID }), err
		}},
		{document.RecordTypeFundedDeal, func() ([]uuid.UUID, error) {
			deals, err := c.FundedDeal.Query().Where(fundeddeal.ID(id), fundeddeal.OrgID(org)).
				Select(fundeddeal.FieldLeadID).All(sys)
			return leadIDs(deals, func(d *ent.FundedDeal) uuid.UUID { return d.LeadID }), err
		}},
	}
	for _, check := range checks {
		leads, err := check.leadOf()
		if err != nil {
			return "", uuid.Nil, fmt.Errorf("finding the record %s: %w", id, err)
		}
		if len(leads) > 0 {
			return check.kind, leads[0], nil
		}
	}
	return "", uuid.Nil, apperr.New(apperr.NotFound, "no lead, application or funded deal with id %s in your organization", id)
}

func leadIDs[T any](rows []T, lead func(T) uuid.UUID) []uuid.UUID {
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		ids[i] = lead(r)
	}
	return ids
}

func categoryOr(c document.Category) document.Category {
	if c == "" {
		return document.CategoryOther
	}
	return c
}

// storedFile is where a file's bytes went and what they were.
type storedFile struct {
	key    string
	size   int64
	sha256 string
}

// keep streams r to the file store under a new key, hashing and counting
// on the way. A text file is checked whole as it goes (textCheck): one
// that stops being text is abandoned and refused.
func keep(ctx context.Context, files *filestore.Store, r io.Reader, contentType string) (storedFile, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return storedFile{}, fmt.Errorf("naming the document's file: %w", err)
	}
	key := keyPrefix + id.String()
	hash := sha256.New()
	sinks := []io.Writer{hash}
	var check *textCheck
	if contentType == TypeText || contentType == TypeCSV {
		check = &textCheck{}
		sinks = append(sinks, check)
	}
	n, err := files.Write(ctx, key, io.TeeReader(r, io.MultiWriter(sinks...)))
	if errors.Is(err, errNotText) {
		return storedFile{}, errNotText
	}
	if err != nil {
		return storedFile{}, fmt.Errorf("storing the document: %w", err)
	}
	if check != nil {
		if err := check.close(); err != nil {
			_ = files.Delete(context.WithoutCancel(ctx), key)
			return storedFile{}, err
		}
	}
	return storedFile{key: key, size: n, sha256: hex.EncodeToString(hash.Sum(nil))}, nil
}

// Open finds a document of the caller's organization (NOT_FOUND for
// another's) and opens its bytes; the caller closes the reader.
func Open(ctx context.Context, c *ent.Client, files *filestore.Store, id uuid.UUID) (*ent.Document, *filestore.Reader, error) {
	if err := rule.Require(ctx, viewer.ScopeLendingRead); err != nil {
		return nil, nil, err
	}
	d, err := c.Document.Query().Where(document.ID(id)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil, apperr.New(apperr.NotFound, "document not found")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("finding the document %s: %w", id, err)
	}
	r, err := files.Open(ctx, d.StorageKey)
	if err != nil {
		return nil, nil, fmt.Errorf("opening the document %s's file: %w", id, err)
	}
	return d, r, nil
}

// SweepFiles removes the files under documents/ written before olderThan
// that no document names: an upload whose row failed, or was never
// committed because the process stopped. The grace period covers uploads
// still between their bytes and their row. It answers how many it removed.
func SweepFiles(ctx context.Context, db *store.DB, olderThan time.Time) (int, error) {
	named := func(ctx context.Context, keys []string) (map[string]bool, error) {
		// Every organization's rows: the store holds them all.
		kept, err := db.Client.Document.Query().Where(document.StorageKeyIn(keys...)).
			Select(document.FieldStorageKey).Strings(rule.SystemContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("reading which files documents name: %w", err)
		}
		out := make(map[string]bool, len(kept))
		for _, k := range kept {
			out[k] = true
		}
		return out, nil
	}
	n, err := db.Files.Sweep(ctx, keyPrefix, olderThan, named)
	if err != nil {
		return n, fmt.Errorf("sweeping documents' files: %w", err)
	}
	return n, nil
}
