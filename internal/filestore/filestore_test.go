package filestore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/filestore"
	"github.com/lendingpipe/svc/internal/filestore/filestoretest"
)

// kinds opens one store of each kind: a local directory and S3.
func kinds(t *testing.T) map[string]*filestore.Store {
	t.Helper()
	out := map[string]*filestore.Store{}
	for name, u := range map[string]string{
		"dir": "file://" + filepath.Join(t.TempDir(), "files"),
		"s3":  filestoretest.S3(t, "svc-files"),
	} {
		s, err := filestore.Open(context.Background(), u)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Cleanup(func() { _ = s.Close() })
		out[name] = s
	}
	return out
}

func TestRoundTripAndSeek(t *testing.T) {
	ctx := context.Background()
	data := make([]byte, 3<<20+17)
	_, _ = rand.Read(data)
	for name, s := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			n, err := s.Write(ctx, "documents/a", bytes.NewReader(data))
			if err != nil || n != int64(len(data)) {
				t.Fatalf("write: %d, %v", n, err)
			}
			r, err := s.Open(ctx, "documents/a")
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Size() != int64(len(data)) {
				t.Fatalf("size %d, want %d", r.Size(), len(data))
			}
			if _, err := r.Seek(1<<20, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, data[1<<20:]) {
				t.Fatalf("read after seek: %d bytes, %v", len(got), err)
			}
			if _, err := s.Open(ctx, "documents/missing"); !errors.Is(err, filestore.ErrNotFound) {
				t.Fatalf("missing key: %v, want ErrNotFound", err)
			}
		})
	}
}

// failingReader fails after some bytes, as a client that hangs up does.
type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("connection reset")
	}
	k := min(len(p), f.n)
	f.n -= k
	return k, nil
}

func TestAbandonedWriteLeavesNothing(t *testing.T) {
	ctx := context.Background()
	for name, s := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			if _, err := s.Write(ctx, "documents/half", &failingReader{n: 6 << 20}); err == nil {
				t.Fatal("a failing reader's write succeeded")
			}
			if _, err := s.Open(ctx, "documents/half"); !errors.Is(err, filestore.ErrNotFound) {
				t.Fatalf("half a file is readable: %v", err)
			}
		})
	}
}

func TestSweepRemovesOnlyOldUnnamedFiles(t *testing.T) {
	ctx := context.Background()
	for name, s := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			for _, k := range []string{"documents/named", "documents/orphan", "imports/orphan", "other/x"} {
				if _, err := s.Write(ctx, k, bytes.NewReader([]byte(k))); err != nil {
					t.Fatal(err)
				}
			}
			named := func(_ context.Context, keys []string) (map[string]bool, error) {
				return map[string]bool{"documents/named": true}, nil
			}
			// Nothing is old enough yet: the grace period keeps uploads in flight.
			if n, err := s.Sweep(ctx, "documents/", time.Now().Add(-time.Hour), named); err != nil || n != 0 {
				t.Fatalf("young sweep removed %d, %v", n, err)
			}
			n, err := s.Sweep(ctx, "documents/", time.Now().Add(time.Minute), named)
			if err != nil || n != 1 {
				t.Fatalf("sweep removed %d, %v; want 1", n, err)
			}
			for k, want := range map[string]bool{"documents/named": true, "documents/orphan": false, "imports/orphan": true, "other/x": true} {
				_, err := s.Open(ctx, k)
				if got := err == nil; got != want {
					t.Errorf("%s present = %v, want %v (%v)", k, got, want, err)
				}
			}
		})
	}
}

func TestDefaultURL(t *testing.T) {
	for in, want := range map[string]string{
		"svc.db":                            "svc.db-files",
		"file:/data/svc.db?_fk=1":           "/data/svc.db-files",
		"postgres://u@h/db?sslmode=disable": "svc-files",
	} {
		if got := filestore.DefaultURL(in); got != want {
			t.Errorf("DefaultURL(%q) = %q, want %q", in, got, want)
		}
	}
}
