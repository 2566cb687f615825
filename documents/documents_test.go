package documents_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/privacy"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/documents"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/document"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
)

// env is a real database (SQLite, or PostgreSQL when SVC_TEST_DATABASE_URL
// is set) and its file store, with an organization acting with every
// scope and a lead of it.
type env struct {
	db   *store.DB
	org  uuid.UUID
	as   context.Context
	lead uuid.UUID
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := storetest.Open(t)
	e := &env{db: db}
	e.org, e.as = orgOf(t, db, "Acme Brokers", viewer.AllScopes...)
	l, err := leads.Create(e.as, db.Client, ent.CreateLeadInput{}, leads.Fields(db.Client.Lead.Create().SetBusinessName("Doc Bakery")))
	if err != nil {
		t.Fatal(err)
	}
	e.lead = l.ID
	return e
}

// orgOf creates an organization and a caller acting for it with scopes.
func orgOf(t *testing.T, db *store.DB, name string, scopes ...string) (uuid.UUID, context.Context) {
	t.Helper()
	o, _, err := store.CreateOrganization(context.Background(), db.Client, name)
	if err != nil {
		t.Fatal(err)
	}
	return o.ID, viewer.NewContext(context.Background(), viewer.Viewer{OrgID: o.ID, KeyID: uuid.New(), Scopes: scopes})
}

func (e *env) upload(ctx context.Context, record uuid.UUID, name string, content []byte) (*ent.Document, error) {
	return documents.Upload(ctx, e.db.Client, e.db.Files, documents.Input{
		RecordID: record, Filename: name, Category: document.CategoryBankStatement,
		File: bytes.NewReader(content), Size: int64(len(content)), MaxBytes: 1 << 20,
	})
}

func code(err error) string {
	if e, ok := apperr.As(err); ok {
		return e.Code
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}

func TestUpload(t *testing.T) {
	e := newEnv(t)
	content := []byte("%PDF-1.7\n" + strings.Repeat("stream of the statement\n", 1000))
	d, err := e.upload(e.as, e.lead, "../Bank Statement.pdf", content)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(content)
	v, _ := viewer.FromContext(e.as)
	type attrs struct {
		RecordType            document.RecordType
		RecordID              uuid.UUID
		Filename, ContentType string
		Size                  int64
		Sha256                string
		Category              document.Category
		UploadedBy            string
	}
	want := attrs{RecordType: document.RecordTypeLead, RecordID: e.lead, Filename: "Bank Statement.pdf",
		ContentType: documents.TypePDF, Size: int64(len(content)), Sha256: hex.EncodeToString(sum[:]),
		Category: document.CategoryBankStatement, UploadedBy: v.KeyID.String()}
	got := attrs{RecordType: d.RecordType, RecordID: d.RecordID, Filename: d.Filename, ContentType: d.ContentType,
		Size: d.Size, Sha256: d.Sha256, Category: d.Category, UploadedBy: d.UploadedBy}
	if got != want {
		t.Fatalf("document = %+v, want %+v", got, want)
	}
	if !strings.HasPrefix(d.StorageKey, "documents/") {
		t.Errorf("storage key %q", d.StorageKey)
	}

	t.Run("OpenReadsTheSameBytes", func(t *testing.T) {
		od, r, err := documents.Open(e.as, e.db.Client, e.db.Files, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		back, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(back, content) || od.ID != d.ID {
			t.Fatalf("read %d bytes (%v), want %d", len(back), err, len(content))
		}
	})

	t.Run("EmitsDocumentUploaded", func(t *testing.T) {
		evs, err := e.db.Client.WebhookEvent.Query().
			Where(webhookevent.OrgID(e.org), webhookevent.EventType(event.DocumentUploaded)).All(rule.SystemContext(context.Background()))
		if err != nil || len(evs) != 1 {
			t.Fatalf("%d document.uploaded events, %v", len(evs), err)
		}
		data := evs[0].Data
		for k, want := range map[string]any{"documentId": d.ID.String(), "orgId": e.org.String(), "recordType": "lead",
			"recordId": e.lead.String(), "filename": "Bank Statement.pdf", "contentType": documents.TypePDF,
			"size": float64(len(content)), "sha256": d.Sha256, "category": "bank_statement", "uploadedBy": v.KeyID.String()} {
			if data[k] != want {
				t.Errorf("payload %s = %#v, want %#v", k, data[k], want)
			}
		}
	})
}

func TestUploadRefusals(t *testing.T) {
	e := newEnv(t)
	pdf := []byte("%PDF-1.4 tiny")
	_, other := orgOf(t, e.db, "Other Shop", viewer.AllScopes...)
	_, readOnly := orgOf(t, e.db, "Reader", viewer.ScopeLendingRead, viewer.ScopeLeadsWrite)
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		record  uuid.UUID
		file    string
		content []byte
		want    string
	}{
		{"ErrAnotherOrganizationsRecord", other, e.lead, "a.pdf", pdf, apperr.NotFound},
		{"ErrUnknownRecord", e.as, uuid.New(), "a.pdf", pdf, apperr.NotFound},
		{"ErrNoLendingWrite", readOnly, e.lead, "a.pdf", pdf, apperr.Forbidden},
		{"ErrNoViewer", context.Background(), e.lead, "a.pdf", pdf, apperr.Forbidden},
		{"ErrNUL", e.as, e.lead, "a\x00.pdf", pdf, apperr.BadRequest},
		{"ErrEmpty", e.as, e.lead, "a.pdf", nil, apperr.Validation},
		{"ErrTooLarge", e.as, e.lead, "a.pdf", append([]byte("%PDF-"), make([]byte, 1<<20)...), apperr.PayloadTooLarge},
		{"ErrType", e.as, e.lead, "a.gif", []byte("GIF89a\x01\x00"), apperr.UnsupportedMediaType},
		// Text in its first 64 KiB that stops being text later on.
		{"ErrTextThatIsNot", e.as, e.lead, "a.txt", append(bytes.Repeat([]byte("line\n"), 20000), 0, 1, 2), apperr.UnsupportedMediaType},
		{"ErrTextCutMidRune", e.as, e.lead, "a.txt", append(bytes.Repeat([]byte("line\n"), 20000), 0xC3), apperr.UnsupportedMediaType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.upload(tc.ctx, tc.record, tc.file, tc.content)
			if got := code(err); got != tc.want && !(tc.want == apperr.Forbidden && isDenied(err)) {
				t.Fatalf("err = %v (%s), want %s", err, got, tc.want)
			}
		})
	}
	t.Run("NothingKept", func(t *testing.T) {
		n, err := e.db.Client.Document.Query().Count(rule.SystemContext(context.Background()))
		if err != nil || n != 0 {
			t.Fatalf("%d documents, %v", n, err)
		}
		// Every refused file is gone from the store at once, or was never
		// written: a sweep of everything finds nothing to remove.
		removed, err := documents.SweepFiles(context.Background(), e.db, time.Now().Add(time.Hour))
		if err != nil || removed != 0 {
			t.Fatalf("the sweep removed %d files (%v): a refusal left bytes behind", removed, err)
		}
	})
}

// isDenied reports a privacy denial, which the surfaces answer FORBIDDEN.
func isDenied(err error) bool {
	return errors.Is(err, privacy.Deny)
}

func TestOpenIsolated(t *testing.T) {
	e := newEnv(t)
	d, err := e.upload(e.as, e.lead, "a.txt", []byte("hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, other := orgOf(t, e.db, "Other Shop", viewer.AllScopes...)
	if _, _, err := documents.Open(other, e.db.Client, e.db.Files, d.ID); code(err) != apperr.NotFound {
		t.Errorf("another organization: %v, want NOT_FOUND", err)
	}
	_, writerOnly := orgOf(t, e.db, "Leads only", viewer.ScopeLeadsRead)
	if _, _, err := documents.Open(writerOnly, e.db.Client, e.db.Files, d.ID); !isDenied(err) {
		t.Errorf("without lending:read: %v, want a denial", err)
	}
}

func TestSweepFiles(t *testing.T) {
	e := newEnv(t)
	d, err := e.upload(e.as, e.lead, "kept.txt", []byte("kept\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, key := range []string{"documents/orphan", "imports/not-ours"} {
		if _, err := e.db.Files.Write(ctx, key, strings.NewReader("bytes")); err != nil {
			t.Fatal(err)
		}
	}
	// Within the grace period nothing goes: an upload may be between its
	// bytes and its row.
	if n, err := documents.SweepFiles(ctx, e.db, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("a sweep of older files removed %d (%v), want 0", n, err)
	}
	if n, err := documents.SweepFiles(ctx, e.db, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("the sweep removed %d (%v), want 1", n, err)
	}
	for key, want := range map[string]bool{d.StorageKey: true, "documents/orphan": false, "imports/not-ours": true} {
		r, err := e.db.Files.Open(ctx, key)
		if r != nil {
			r.Close()
		}
		if got := err == nil; got != want {
			t.Errorf("%s present = %v, want %v (%v)", key, got, want, err)
		}
	}
}
