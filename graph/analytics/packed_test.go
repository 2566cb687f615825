package analytics

import (
	"context"
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/dialect/sql"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
)

// packedNames reads the organizations' ids and names through packedRows.
func packedNames(t *testing.T, db *store.DB) ([][2]string, error) {
	t.Helper()
	o := sql.Table(organization.Table)
	query, args := sql.Dialect(db.Dialect).Select().
		SelectExpr(packedRows(o.C(organization.FieldID), o.C(organization.FieldName))...).From(o).Query()
	var got [][2]string
	err := eachPacked(sys(context.Background()), db.Client, query, args, 2, func(v []string) error {
		got = append(got, [2]string{v[0], v[1]})
		return nil
	})
	return got, err
}

func TestPackedRowsReadWhatTheColumnsHold(t *testing.T) {
	db := storetest.Open(t)
	ctx := sys(context.Background())
	if got, err := packedNames(t, db); err != nil || got != nil {
		t.Fatalf("no rows: got %v, %v; want none", got, err)
	}
	var want [][2]string
	for _, name := range []string{"Acme Funding", "Ünïcode & Co, \"quoted\"", "Tab\tand newline\n"} {
		o, err := db.Client.Organization.Create().SetName(name).SetConnectorTokenHash("hash of " + name).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, [2]string{o.ID.String(), name})
	}
	got, err := packedNames(t, db)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b [2]string) int { return strings.Compare(a[1], b[1]) })
	slices.SortFunc(want, func(a, b [2]string) int { return strings.Compare(a[1], b[1]) })
	if !slices.Equal(got, want) {
		t.Fatalf("packed rows = %q, want %q", got, want)
	}
}

// A value holding a separator cannot be read back: the read fails rather
// than shifting values between columns or rows, even when the value
// forges whole rows.
func TestPackedRowsRefuseAValueHoldingASeparator(t *testing.T) {
	for _, name := range []string{"Split" + unitSep + "name", "Split" + recordSep + "name",
		"Forged" + recordSep + uuid.NewString() + unitSep + "name"} { // the last reads as two whole rows
		db := storetest.Open(t)
		err := db.Client.Organization.Create().SetName(name).SetConnectorTokenHash("hash").Exec(sys(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := packedNames(t, db); err == nil {
			t.Errorf("name %q read back as %q without an error", name, got)
		}
	}
}
