package lendingrules_test

import (
	"slices"
	"testing"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/lendingrules"
)

var allStatuses = []string{lendingrules.Submitted, lendingrules.Underwriting, lendingrules.Approved,
	lendingrules.Declined, lendingrules.Withdrawn, lendingrules.Funded}

// TestTransitionTable checks every from status against every target, the
// table of PRODUCT 1.3 written out in full: a move not listed is refused.
func TestTransitionTable(t *testing.T) {
	allowed := map[[2]string]bool{
		{lendingrules.Submitted, lendingrules.Underwriting}: true,
		{lendingrules.Submitted, lendingrules.Approved}:     true,
		{lendingrules.Underwriting, lendingrules.Approved}:  true,
		{lendingrules.Submitted, lendingrules.Declined}:     true,
		{lendingrules.Underwriting, lendingrules.Declined}:  true,
		{lendingrules.Submitted, lendingrules.Withdrawn}:    true,
		{lendingrules.Underwriting, lendingrules.Withdrawn}: true,
		{lendingrules.Approved, lendingrules.Withdrawn}:     true,
		{lendingrules.Approved, lendingrules.Funded}:        true,
	}
	for _, from := range append([]string{"", "unknown"}, allStatuses...) {
		for _, to := range append([]string{"unknown"}, allStatuses...) {
			want := allowed[[2]string{from, to}]
			if got := lendingrules.Allowed(from, to); got != want {
				t.Errorf("Allowed(%q, %q) = %v, want %v", from, to, got, want)
			}
			if got := slices.Contains(lendingrules.From(to), from); got != want {
				t.Errorf("From(%q) = %v: contains %q is %v, want %v", to, lendingrules.From(to), from, got, want)
			}
		}
	}
	t.Run("SubmittedOnlyByCreation", func(t *testing.T) {
		if got := lendingrules.From(lendingrules.Submitted); len(got) != 0 {
			t.Errorf("From(submitted) = %v, want none", got)
		}
	})
	t.Run("FinalStatusesMoveNowhere", func(t *testing.T) {
		for _, from := range []string{lendingrules.Declined, lendingrules.Withdrawn, lendingrules.Funded} {
			for _, to := range allStatuses {
				if lendingrules.Allowed(from, to) {
					t.Errorf("%s -> %s is allowed", from, to)
				}
			}
		}
	})
	t.Run("OpenAreTheStatusesThatMoveOn", func(t *testing.T) {
		for _, s := range allStatuses {
			movesOn := slices.ContainsFunc(allStatuses, func(to string) bool { return lendingrules.Allowed(s, to) })
			if got := slices.Contains(lendingrules.Open, s); got != movesOn {
				t.Errorf("%s: open %v, moves on %v", s, got, movesOn)
			}
		}
	})
	t.Run("FromReturnsACopy", func(t *testing.T) {
		got := lendingrules.From(lendingrules.Withdrawn)
		got[0] = lendingrules.Funded
		if lendingrules.Allowed(lendingrules.Funded, lendingrules.Withdrawn) || !lendingrules.Allowed(lendingrules.Submitted, lendingrules.Withdrawn) {
			t.Error("changing From's answer changed the table")
		}
	})
}

func TestConflict(t *testing.T) {
	e := lendingrules.Conflict(lendingrules.Declined, lendingrules.Approved)
	if e.Code != apperr.Conflict || e.Field != "status" {
		t.Errorf("code %q field %q, want CONFLICT status", e.Code, e.Field)
	}
	if e.Detail["from"] != "declined" || e.Detail["to"] != "approved" || len(e.Detail) != 2 {
		t.Errorf("detail = %v, want {from: declined, to: approved}", e.Detail)
	}
	if e.Message == "" {
		t.Error("no message")
	}
}

// TestAdvances checks every pair of slots (and slots outside the order):
// a lead moves only forward along new, working, qualified, application,
// approved, won; never out of lost or a stage without a known slot.
func TestAdvances(t *testing.T) {
	order := []string{"new", "working", "qualified", "application", "approved", "won"}
	outside := []string{"lost", "", "unknown", "Won"}
	all := append(slices.Clone(order), outside...)
	for _, current := range all {
		for _, target := range all {
			i, j := slices.Index(order, current), slices.Index(order, target)
			want := i >= 0 && j >= 0 && i < j
			if got := lendingrules.Advances(current, target); got != want {
				t.Errorf("Advances(%q, %q) = %v, want %v", current, target, got, want)
			}
		}
	}
	// Spot checks that say the rule in words, should the loop above be wrong.
	for _, c := range []struct {
		current, target string
		want            bool
	}{
		{"new", "application", true},
		{"qualified", "approved", true},
		{"application", "application", false},
		{"approved", "application", false},
		{"won", "approved", false},
		{"lost", "won", false},
		{"lost", "application", false},
		{"new", "lost", false},
	} {
		if got := lendingrules.Advances(c.current, c.target); got != c.want {
			t.Errorf("Advances(%q, %q) = %v, want %v", c.current, c.target, got, c.want)
		}
	}
}
