package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/migrate"
	"github.com/lendingpipe/svc/ent/privacy"
	"github.com/lendingpipe/svc/internal/apperr"
)

// node finds the record id names, whichever type implements Node. UUIDs
// carry no type, so it asks ent's Noder of each table in turn: every type
// the generator gives a Noder is found, a new one included, and nothing
// else is listed here to fall behind. Privacy rules apply to each read, so
// other organizations' rows and types the key may not read are never
// found.
func (r *Resolver) node(ctx context.Context, id uuid.UUID) (ent.Noder, string, error) {
	c := r.client(ctx)
	for _, t := range migrate.Tables {
		n, err := c.Noder(ctx, id, ent.WithFixedNodeType(t.Name))
		switch {
		case err == nil:
			return n, t.Name, nil
		case !elsewhere(err):
			return nil, "", fmt.Errorf("looking for node %s in %s: %w", id, t.Name, err)
		}
	}
	return nil, "", apperr.New(apperr.NotFound, "no node with id %s", id)
}

// nodeType is the table holding id (node), for ent's Noders, which reads
// each table's ids together.
func (r *Resolver) nodeType(ctx context.Context, id uuid.UUID) (string, error) {
	_, table, err := r.node(ctx, id)
	return table, err
}

// elsewhere reports whether err, from a table's Noder, only means the id
// is not to be found there: no such row (or no Noder for the table, which
// ent reports as not found), or a row the caller may not read. Any other
// error (the database down, the deadline past) is no answer at all, and
// taking it for one would tell the client NOT_FOUND.
func elsewhere(err error) bool {
	return ent.IsNotFound(err) || errors.Is(err, privacy.Deny)
}
