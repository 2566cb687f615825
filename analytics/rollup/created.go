package rollup

import (
	"context"
	"fmt"
	"sync"

	"entgo.io/ent/dialect"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/leadcount"
	"github.com/lendingpipe/svc/ent/leadday"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/txstate"
)

// countCreated adds a created lead to its day (LeadDay) and to its
// stage's count (LeadCount), in that order.
func countCreated(ctx context.Context, c *gen.Client, l *gen.Lead) error {
	if done, err := countCreatedAtOnce(ctx, c, l); done || err != nil {
		return err
	}
	if err := addLeadStep(ctx, c, l, leadStep{leads: 1}); err != nil {
		return err
	}
	return AddStage(ctx, c, l.OrgID, l.StageID, 1)
}

// zoneSeen is an organization's rollup zone as this process last read it
// (nil: not built), and the dialect it was read on.
type zoneSeen struct {
	name    *string
	dialect string
}

// zonesSeen holds a zoneSeen by organization. It is a guess, never
// trusted as the zone: countCreatedAtOnce adds to the day it names only if
// the zone it reads under the organization's shared row is the same.
var zonesSeen sync.Map // uuid.UUID → zoneSeen

// createdOnPostgres reads the organization's rollup zone sharing its row
// (as readRollupZone does), adds the lead to the day computed in the zone
// guessed ($5) and to its stage's count, only if that is the zone read:
// on PostgreSQL each statement of a create is a round trip, and
// these were three. The organization's row is locked first (the main
// query reads z before the row counts of d; s, which nothing reads, runs
// after it), then the day's row, then the stage's: the order of the
// statements it replaces, and of a rebuild, which updates the
// organization's row before it rewrites the counts. It returns the zone
// read and how many day rows it added to; when the zone read is not the
// one guessed it added to neither count, and the caller adds to both.
var createdOnPostgres = fmt.Sprintf(`WITH z AS (SELECT %[3]s FROM %[1]s WHERE %[2]s = $1 FOR SHARE),
d AS (INSERT INTO %[4]s (%[5]s, %[6]s, %[7]s, %[8]s, %[9]s)
	SELECT CAST($1 AS uuid), CAST($2 AS bigint), CAST($3 AS varchar), CAST($4 AS bigint), 1 FROM z WHERE z.%[3]s = $5
	ON CONFLICT (%[5]s, %[6]s, %[7]s, %[8]s) DO UPDATE SET %[9]s = %[4]s.%[9]s + 1 RETURNING 1),
s AS (INSERT INTO %[10]s (%[11]s, %[12]s, %[13]s, %[14]s)
	SELECT CAST($1 AS uuid), CAST($6 AS uuid), CAST($7 AS bigint), 1 FROM z WHERE z.%[3]s IS NOT DISTINCT FROM $5
	ON CONFLICT (%[11]s, %[12]s, %[13]s) DO UPDATE SET %[14]s = %[10]s.%[14]s + 1)
SELECT z.%[3]s, (SELECT count(*) FROM d) FROM z`,
	organization.Table, organization.FieldID, organization.FieldRollupZone,
	leadday.Table, leadday.FieldOrgID, leadday.FieldDay, leadday.FieldSource, leadday.FieldSlot, leadday.FieldLeads,
	leadcount.Table, leadcount.FieldOrgID, leadcount.FieldStageID, leadcount.FieldSlot, leadcount.FieldN)

// countCreatedAtOnce counts a created lead in one statement
// (createdOnPostgres) where it can: on PostgreSQL, once this process has
// read the organization's zone, for a lead created outside a batch, in a
// transaction that has not read the zone yet. It reports whether it did.
func countCreatedAtOnce(ctx context.Context, c *gen.Client, l *gen.Lead) (bool, error) {
	if batchOf(ctx) != nil {
		return false, nil
	}
	if _, read := txstate.Load[zoneRead](ctx, zoneKey{l.OrgID}); read {
		return false, nil
	}
	v, ok := zonesSeen.Load(l.OrgID)
	if !ok || v.(zoneSeen).dialect != dialect.Postgres {
		return false, nil
	}
	guess, day := v.(zoneSeen).name, 0
	if guess != nil {
		loc, err := period.Location(*guess)
		if err != nil {
			return false, nil
		}
		day = period.LocalDay(l.CreatedAt, loc)
	}
	stored, _, err := queryCreated(ctx, c, l, guess, day)
	if err != nil {
		return true, fmt.Errorf("counting the created lead: %w", err)
	}
	z := zoneRead{dialect: dialect.Postgres}
	if err := z.read(stored); err != nil {
		return true, err
	}
	rememberZone(ctx, l.OrgID, z)
	zonesSeen.Store(l.OrgID, zoneSeen{name: stored, dialect: dialect.Postgres})
	if sameZone(stored, guess) {
		return true, nil
	}
	// Another zone than the one guessed (the rollups were rebuilt in it):
	// the statement added to neither count, so both are added here, the
	// day before the stage, in the order every create locks them.
	if z.loc != nil {
		if err := addLeadDay(ctx, c, z, l, leadStep{leads: 1}); err != nil {
			return true, err
		}
	}
	return true, AddStage(ctx, c, l.OrgID, l.StageID, 1)
}

// sameZone reports whether two stored zone names (nil: not built) are the same.
func sameZone(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// queryCreated runs createdOnPostgres.
func queryCreated(ctx context.Context, c *gen.Client, l *gen.Lead, guess *string, day int) (*string, int, error) {
	rows, err := c.QueryContext(ctx, createdOnPostgres, l.OrgID, day, string(l.Source), rollupSlot(ctx), guess,
		l.StageID, stageSlot(ctx))
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, 0, err
		}
		return nil, 0, fmt.Errorf("organization %s not found", l.OrgID)
	}
	var stored *string
	var added int
	if err := rows.Scan(&stored, &added); err != nil {
		return nil, 0, err
	}
	return stored, added, rows.Close()
}
