package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/access"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/apikey"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
)

// The key commands act for an organization as the service itself: the
// same flows (package access) as the admin's GraphQL operations, each
// naming the organization it acts in, so the audit log records them, with
// the actor "system".

// asOrg is ctx acting for org with the service's own rights.
func asOrg(ctx context.Context, org uuid.UUID) context.Context {
	return viewer.NewContext(rule.SystemContext(ctx), viewer.Viewer{OrgID: org})
}

func setupKeysList(fs *flag.FlagSet) action {
	org := fs.String("org", "", "organization id (required)")
	all := fs.Bool("all", false, "list revoked keys too")
	return func(ctx context.Context, e env) error {
		orgID, err := orgFlag("keys list", *org)
		if err != nil {
			return err
		}
		return withOrg(ctx, e.cfg, orgID, func(db *store.DB) error {
			q := db.Client.APIKey.Query().Where(apikey.OrgID(orgID), apikey.KindEQ(apikey.KindLive))
			if !*all {
				q = q.Where(apikey.RevokedAtIsNil())
			}
			keys, err := q.Order(apikey.ByCreatedAt(sql.OrderDesc())).All(rule.SystemContext(ctx))
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tPREFIX\tNAME\tSCOPES\tCREATED\tLAST USED\tEXPIRES\tREVOKED")
			for _, k := range keys {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.DisplayPrefix, k.Name, strings.Join(k.Scopes, ","),
					apitime.Format(k.CreatedAt), when(k.LastUsedAt), when(k.ExpiresAt), when(k.RevokedAt))
			}
			return w.Flush()
		})
	}
}

// createKey creates an API key as createApiKey does, in one transaction
// with its audit record. App tokens are made only by installing an app.
func createKey(ctx context.Context, db *store.DB, name string, scopes []string) (string, error) {
	return store.WithTxValue(ctx, db.Client, func(ctx context.Context, tx *ent.Client) (string, error) {
		if name == "" {
			name = "svc keys create"
		}
		key, _, err := access.CreateKey(ctx, tx, access.NewKey{Name: name, Scopes: scopes})
		return key, err
	})
}

// when is a time as the API writes it, or "-".
func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return apitime.Format(*t)
}

func setupKeysRevoke(fs *flag.FlagSet) action {
	org := fs.String("org", "", "organization id (required)")
	id := fs.String("id", "", "the key's id (required; svc keys list shows it)")
	return func(ctx context.Context, e env) error {
		orgID, keyID, err := keyFlags("keys revoke", *org, *id)
		if err != nil {
			return err
		}
		return withOrg(ctx, e.cfg, orgID, func(db *store.DB) error {
			k, err := access.RevokeKey(asOrg(ctx, orgID), db.Client, keyID)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "revoked %s at %s\n", k.DisplayPrefix, when(k.RevokedAt))
			return nil
		})
	}
}

func setupKeysRotate(fs *flag.FlagSet) action {
	org := fs.String("org", "", "organization id (required)")
	id := fs.String("id", "", "the key's id (required; svc keys list shows it)")
	grace := fs.Duration("grace", access.DefaultGrace, "how long the old key keeps working: 0s to 168h")
	return func(ctx context.Context, e env) error {
		orgID, keyID, err := keyFlags("keys rotate", *org, *id)
		if err != nil {
			return err
		}
		return withOrg(ctx, e.cfg, orgID, func(db *store.DB) error {
			secret, _, err := access.RotateKey(asOrg(ctx, orgID), db.Client, keyID, grace)
			if e, ok := apperr.As(err); ok && e.Field == "graceSeconds" {
				return usagef("keys rotate", "--grace: %s", e.Message)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, secret)
			return nil
		})
	}
}

// keyFlags parses the --org and --id flags of a key command.
func keyFlags(command, org, id string) (uuid.UUID, uuid.UUID, error) {
	orgID, err := orgFlag(command, org)
	if err != nil {
		return uuid.Nil, uuid.Nil, err
	}
	keyID, err := uuid.Parse(id)
	if err != nil {
		return uuid.Nil, uuid.Nil, usagef(command, "--id must be a key's id: %v", err)
	}
	return orgID, keyID, nil
}
