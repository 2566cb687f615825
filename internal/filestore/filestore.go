// Package filestore keeps the bytes of uploaded files (documents, import
// files) behind one interface over gocloud.dev/blob: a local directory by
// default, S3-compatible object storage (s3://) when several replicas
// share the files. One URL setting chooses.
//
// A write is atomic on both: an object appears only once its bytes are
// all written (a local file is written aside and renamed; an S3 upload is
// completed whole), so a reader never sees half a file. Records name their
// bytes by key; bytes that no record names are removed by Sweep.
//
// A leaf: it imports nothing of this service.
package filestore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob" // registers s3://
	"gocloud.dev/gcerrors"
)

// ErrNotFound is returned for a key that holds nothing.
var ErrNotFound = errors.New("file not found")

// Store is a bucket of files.
type Store struct {
	bucket *blob.Bucket
	// where names the store in logs and errors, without credentials.
	where string
}

// Open opens the store rawURL names: s3://bucket?region=...&endpoint=...
// (credentials from the standard AWS variables), file:///abs/dir, or a
// plain directory path. A directory is created when missing.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	if rawURL == "" {
		return nil, errors.New("the file store's URL is empty")
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" || len(u.Scheme) == 1 { // a Windows drive letter is a path
		return openDir(rawURL)
	}
	switch u.Scheme {
	case "file":
		return openDir(u.Path)
	case "s3":
		b, err := blob.OpenBucket(ctx, rawURL)
		if err != nil {
			return nil, fmt.Errorf("opening the file store s3://%s: %w", u.Host, err)
		}
		return &Store{bucket: b, where: "s3://" + u.Host}, nil
	}
	return nil, fmt.Errorf("the file store's URL must be a directory, file:// or s3://, got scheme %q", u.Scheme)
}

func openDir(dir string) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("the file store's directory %q: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("creating the file store's directory: %w", err)
	}
	// No attribute side files: the records keep each file's type and size.
	// A file is written aside in its own directory, not in $TMPDIR, so the
	// rename that completes it never crosses file systems (a store on a
	// mounted volume), and one a crash left half written is under the
	// store's prefixes, where the sweep finds it.
	b, err := fileblob.OpenBucket(abs, &fileblob.Options{Metadata: fileblob.MetadataDontWrite, NoTempDir: true})
	if err != nil {
		return nil, fmt.Errorf("opening the file store %s: %w", abs, err)
	}
	return &Store{bucket: b, where: abs}, nil
}

// DefaultURL is the store beside a database when none is configured: a
// directory named after a SQLite file (svc.db keeps its files in
// svc.db-files), or svc-files in the working directory for PostgreSQL.
// Each database has its own, since a sweep removes what its database does
// not name.
func DefaultURL(databaseURL string) string {
	if strings.HasPrefix(databaseURL, "postgres://") || strings.HasPrefix(databaseURL, "postgresql://") {
		return "svc-files"
	}
	path := strings.TrimPrefix(databaseURL, "file:")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	return path + "-files"
}

// String names the store without credentials.
func (s *Store) String() string { return s.where }

// Close releases the store.
func (s *Store) Close() error { return s.bucket.Close() }

// Write stores r's bytes under key. The object appears whole or not at
// all: when r fails (or ctx ends) the write is abandoned.
func (s *Store) Write(ctx context.Context, key string, r io.Reader) (int64, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.bucket.NewWriter(wctx, key, &blob.WriterOptions{ContentType: "application/octet-stream"})
	if err != nil {
		return 0, fmt.Errorf("writing %s: %w", key, err)
	}
	n, err := io.Copy(w, r)
	if err != nil {
		cancel() // abandons the write: nothing appears under key
		_ = w.Close()
		return n, fmt.Errorf("writing %s: %w", key, err)
	}
	if err := w.Close(); err != nil {
		return n, fmt.Errorf("writing %s: %w", key, err)
	}
	return n, nil
}

// Reader is an open file: it reads, seeks (for ranges) and closes.
type Reader = blob.Reader

// Open opens key for reading; ErrNotFound when it holds nothing.
func (s *Store) Open(ctx context.Context, key string) (*Reader, error) {
	r, err := s.bucket.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", key, err)
	}
	return r, nil
}

// Delete removes key; a key that holds nothing is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	err := s.bucket.Delete(ctx, key)
	if err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("deleting %s: %w", key, err)
	}
	return nil
}

// Named reports which of keys a record still names.
type Named func(ctx context.Context, keys []string) (map[string]bool, error)

// sweepPage is how many keys one sweep step lists and checks.
const sweepPage = 500

// Sweep removes the files under prefix written before olderThan that no
// record names. The grace period covers an upload whose bytes are written
// and whose record is not yet committed. It answers how many it removed.
func (s *Store) Sweep(ctx context.Context, prefix string, olderThan time.Time, named Named) (int, error) {
	removed := 0
	token := blob.FirstPageToken
	for {
		objs, next, err := s.bucket.ListPage(ctx, token, sweepPage, &blob.ListOptions{Prefix: prefix})
		if err != nil {
			return removed, fmt.Errorf("listing %s: %w", prefix, err)
		}
		var keys []string
		for _, o := range objs {
			if !o.IsDir && o.ModTime.Before(olderThan) {
				keys = append(keys, o.Key)
			}
		}
		if len(keys) > 0 {
			kept, err := named(ctx, keys)
			if err != nil {
				return removed, err
			}
			for _, k := range keys {
				if kept[k] {
					continue
				}
				if err := s.Delete(ctx, k); err != nil {
					return removed, err
				}
				removed++
			}
		}
		if len(next) == 0 {
			return removed, nil
		}
		token = next
	}
}
