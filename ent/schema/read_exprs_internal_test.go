package schema

import (
	"slices"
	"testing"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent/lead"
)

// TestReadExprsWriteWhatTheBuilderWrites reads a lead with each added
// column twice, with other values the second time (the reused text), and
// compares both statements with the builder's, written afresh.
func TestReadExprsWriteWhatTheBuilderWrites(t *testing.T) {
	read := func(funded uuid.UUID, slot string) (string, []any) {
		s := sql.Dialect(dialect.SQLite).Select(lead.FieldID).From(sql.Table(lead.Table))
		selectZone(s)
		selectWasApproved(s)
		selectOthersOpen(s, funded)
		selectSlotStages(s, slot)
		return s.Query()
	}
	fresh := func(funded uuid.UUID, slot string) (string, []any) {
		readExprs.Clear()
		return read(funded, slot)
	}
	for _, c := range []struct {
		funded uuid.UUID
		slot   string
	}{{uuid.New(), "won"}, {uuid.New(), "approved"}} {
		wantText, wantArgs := fresh(c.funded, c.slot)
		gotText, gotArgs := read(c.funded, c.slot) // the text written by fresh, reused
		if gotText != wantText {
			t.Errorf("reused text\n%s\nwant\n%s", gotText, wantText)
		}
		if !slices.Equal(gotArgs, wantArgs) {
			t.Errorf("reused args %v, want %v", gotArgs, wantArgs)
		}
		if !slices.Contains(gotArgs, any(c.funded)) || !slices.Contains(gotArgs, any(c.slot)) {
			t.Errorf("args %v lack the read's values %v and %q", gotArgs, c.funded, c.slot)
		}
	}
	// Written for one value, reused for another.
	readExprs.Clear()
	read(uuid.New(), "won")
	funded := uuid.New()
	gotText, gotArgs := read(funded, "approved")
	wantText, wantArgs := fresh(funded, "approved")
	if gotText != wantText || !slices.Equal(gotArgs, wantArgs) {
		t.Errorf("reused for other values:\n%s %v\nwant\n%s %v", gotText, gotArgs, wantText, wantArgs)
	}
}
