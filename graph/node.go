package graph

import (
	"context"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/migrate"
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
		if err == nil {
			return n, t.Name, nil
		}
		// Not there, not readable, or no Noder for the table: the next.
	}
	return nil, "", apperr.New(apperr.NotFound, "no node with id %s", id)
}

// nodeType is the table holding id (node), for ent's Noders, which reads
// each table's ids together.
func (r *Resolver) nodeType(ctx context.Context, id uuid.UUID) (string, error) {
	_, table, err := r.node(ctx, id)
	return table, err
}
