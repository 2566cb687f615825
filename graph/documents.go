package graph

import (
	"context"
	"io"

	"entgo.io/ent/dialect/sql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/documents"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/document"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/filestore"
)

// uploadDocument attaches the spooled file to a record (documents.Upload),
// outside the operation's transaction (takesFiles): the flow commits its
// row in a transaction of its own once the bytes are stored.
func (r *Resolver) uploadDocument(ctx context.Context, recordID uuid.UUID, file graphql.Upload, category *document.Category) (*ent.Document, error) {
	at, ok := file.File.(io.ReaderAt)
	if !ok {
		return nil, apperr.New(apperr.BadRequest, "send the file as a part of a multipart request")
	}
	in := documents.Input{RecordID: recordID, Filename: file.Filename, File: at, Size: file.Size, MaxBytes: r.uploads.Document}
	if category != nil {
		in.Category = *category
	}
	return documents.Upload(ctx, r.db.Client, r.db.Files, in)
}

// documentByID is the organization's document by id, or nil.
func (r *Resolver) documentByID(ctx context.Context, id uuid.UUID) (*ent.Document, error) {
	d, err := r.client(ctx).Document.Query().Where(document.ID(id)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return d, err
}

// documentsOf is a page of the documents attached to a record, newest
// first. Who may read is the privacy policy's to say (lending:read).
func (r *Resolver) documentsOf(ctx context.Context, recordID uuid.UUID, pageArg, limitArg *int) (*DocumentPage, error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q := r.client(ctx).Document.Query().Where(document.RecordID(recordID)).
		Order(document.ByCreatedAt(sql.OrderDesc()), document.ByID(sql.OrderDesc()))
	return answer[DocumentPage](readPage(ctx, q, s))
}

// DocumentContentPath is where a document's bytes are downloaded (REST).
func DocumentContentPath(id uuid.UUID) string { return "/v1/documents/" + id.String() + "/content" }

// DocumentContent opens a document of the caller's organization for its
// download (GET /v1/documents/{id}/content); the caller closes the reader.
func (r *Resolver) DocumentContent(ctx context.Context, id uuid.UUID) (*ent.Document, *filestore.Reader, error) {
	return documents.Open(ctx, r.client(ctx), r.db.Files, id)
}
