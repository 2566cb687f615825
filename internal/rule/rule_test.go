package rule

import (
	"context"
	"errors"
	"testing"

	"entgo.io/ent/privacy"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/internal/viewer"
)

func TestRequireOrg(t *testing.T) {
	org := uuid.New()
	as := func(scopes ...string) context.Context {
		return viewer.NewContext(context.Background(), viewer.Viewer{OrgID: org, Scopes: scopes})
	}
	if got, err := RequireOrg(as(viewer.ScopeLendingWrite), viewer.ScopeLendingWrite, "writing"); err != nil || got != org {
		t.Errorf("holding the scope: %v, %v; want %v", got, err, org)
	}
	for name, ctx := range map[string]context.Context{
		"NoViewer": context.Background(),
		"NoScope":  as(viewer.ScopeLendingRead),
	} {
		if _, err := RequireOrg(ctx, viewer.ScopeLendingWrite, "writing"); !errors.Is(err, privacy.Deny) {
			t.Errorf("%s: err = %v, want a denial", name, err)
		}
	}
	_, err := RequireOrg(SystemContext(context.Background()), viewer.ScopeLendingWrite, "writing a record")
	if err == nil || err.Error() != "writing a record without an organization" {
		t.Errorf("system context: err = %v", err)
	}
}
