package graph

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/note"
)

// leadNotes is a page of the lead's notes, newest first. Who may read is
// the privacy policy's to say (leads:read).
func (r *Resolver) leadNotes(ctx context.Context, l *ent.Lead, pageArg, limitArg *int) (*NotePage, error) {
	s, err := spanOf(pageArg, limitArg)
	if err != nil {
		return nil, err
	}
	q := r.client(ctx).Note.Query().Where(note.LeadID(l.ID)).
		Order(note.ByCreatedAt(sql.OrderDesc()), note.ByID(sql.OrderDesc()))
	return answer[NotePage](readPage(ctx, q, s))
}
