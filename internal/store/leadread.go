package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/privacy"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/viewer"
)

// ReadLead reads one lead by id as an ent query of it would, privacy
// rules included: a caller without a viewer or without leads:read is
// refused as ent refuses it, and a viewer reads only a lead of its own
// organization (the organization is in the statement's WHERE clause, so a
// lead of another one is not found); the system context reads any.
//
// It is one statement of fixed text, which the connection keeps prepared
// (on SQLite the statement cache, on PostgreSQL pgx's), scanned into the
// ent.Lead the rest of the code uses: building an ent query for a single
// row cost more than SQLite took to answer it, and was most of a
// single-lead GET (BenchmarkReadLead). The lead carries no client, so
// its edges are only those the caller attaches.
func (s *DB) ReadLead(ctx context.Context, id uuid.UUID) (*ent.Lead, error) {
	if err := lead.Policy.EvalQuery(ctx, s.Client.Lead.Query()); err != nil {
		return nil, err
	}
	query, args := s.leadByID.any, []any{id}
	if _, decided := privacy.DecisionFromContext(ctx); !decided {
		// The policy let the query through without a decision of its own,
		// so a viewer is present: its organization filters the row.
		v, _ := viewer.FromContext(ctx)
		query, args = s.leadByID.inOrg, []any{id, v.OrgID}
	}
	// Outside ent's driver, so its span is made here, as the traced driver
	// makes ent's.
	l, err := tracedValue(ctx, sqlSystem(s.Dialect), query, func(ctx context.Context) (*ent.Lead, error) {
		return scanLead(s.SQL.QueryRowContext(ctx, query, args...))
	})
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, apperr.New(apperr.NotFound, "lead not found")
	case err != nil:
		return nil, fmt.Errorf("reading lead %s: %w", id, err)
	}
	return l, nil
}

// leadStatements are ReadLead's two statements in the database's dialect.
type leadStatements struct{ any, inOrg string }

func newLeadStatements(dia string) leadStatements {
	base := "SELECT " + strings.Join(leadReadColumns, ", ") + " FROM " + lead.Table + " WHERE " + lead.FieldID + " = ?"
	st := leadStatements{any: base, inOrg: base + " AND " + lead.FieldOrgID + " = ?"}
	if dia == dialect.Postgres {
		st.any = strings.Replace(st.any, "?", "$1", 1)
		st.inOrg = strings.Replace(strings.Replace(st.inOrg, "?", "$1", 1), "?", "$2", 1)
	}
	return st
}

// leadReadColumns are the columns scanLead reads, in its order; a test
// holds them to the lead's (lead.Columns), so a column the schema gains is
// not silently left out.
var leadReadColumns = []string{
	lead.FieldID, lead.FieldCreatedAt, lead.FieldUpdatedAt, lead.FieldOrgID,
	lead.FieldBusinessName, lead.FieldContactFirstName, lead.FieldContactLastName, lead.FieldEmail, lead.FieldPhone,
	lead.FieldIndustry, lead.FieldMonthlyRevenue, lead.FieldRequestedAmount, lead.FieldSource, lead.FieldPriority,
	lead.FieldIsDoNotCall, lead.FieldTags, lead.FieldCustomFields, lead.FieldExternalIds, lead.FieldLeadScore,
	lead.FieldStageID, lead.FieldPrimaryAdvisorID, lead.FieldContactID, lead.FieldLastContactedAt,
	lead.FieldStageChangedAt, lead.FieldDncReason, lead.FieldDncAt, lead.FieldConvertedAt,
	lead.FieldConvertedAccountID, lead.FieldConvertedContactID, lead.FieldImportJobID, lead.FieldCreatedBy,
}

// scanLead scans one row of leadReadColumns into a lead, as ent's own
// scan of the row would (NULL leaves a field at its zero value or nil;
// the JSON columns are decoded).
func scanLead(row *sql.Row) (*ent.Lead, error) {
	// One allocation holds every column scanned (each destination handed
	// to Scan escapes, and as separate variables each was one), and the
	// lead's optional fields point into it.
	v := new(struct {
		createdAt, updatedAt, stageChangedAt                    sql.NullTime
		lastContactedAt, dncAt, convertedAt                     sql.NullTime
		business, first, last, email, phone, industry           sql.NullString
		monthly, requested, source, priority, dncReason, author sql.NullString
		dnc                                                     sql.NullBool
		score                                                   sql.NullInt64
		tags, custom, external                                  []byte
		advisor, contact, account, accountContact, importJob    uuid.NullUUID
		lead                                                    ent.Lead
	})
	l := &v.lead
	err := row.Scan(&l.ID, &v.createdAt, &v.updatedAt, &l.OrgID,
		&v.business, &v.first, &v.last, &v.email, &v.phone,
		&v.industry, &v.monthly, &v.requested, &v.source, &v.priority,
		&v.dnc, &v.tags, &v.custom, &v.external, &v.score,
		&l.StageID, &v.advisor, &v.contact, &v.lastContactedAt,
		&v.stageChangedAt, &v.dncReason, &v.dncAt, &v.convertedAt,
		&v.account, &v.accountContact, &v.importJob, &v.author)
	if err != nil {
		return nil, err
	}
	l.CreatedAt, l.UpdatedAt, l.StageChangedAt = v.createdAt.Time, v.updatedAt.Time, v.stageChangedAt.Time
	l.LastContactedAt, l.DncAt, l.ConvertedAt = timePtr(&v.lastContactedAt), timePtr(&v.dncAt), timePtr(&v.convertedAt)
	l.BusinessName, l.ContactFirstName, l.ContactLastName = stringPtr(&v.business), stringPtr(&v.first), stringPtr(&v.last)
	l.Email, l.Phone, l.Industry = stringPtr(&v.email), stringPtr(&v.phone), stringPtr(&v.industry)
	l.MonthlyRevenue, l.RequestedAmount = stringPtr(&v.monthly), stringPtr(&v.requested)
	l.Source, l.Priority = lead.Source(v.source.String), lead.Priority(v.priority.String)
	l.DncReason, l.CreatedBy = stringPtr(&v.dncReason), stringPtr(&v.author)
	l.IsDoNotCall = v.dnc.Bool
	if v.score.Valid {
		n := int(v.score.Int64)
		l.LeadScore = &n
	}
	l.PrimaryAdvisorID, l.ContactID = uuidPtr(&v.advisor), uuidPtr(&v.contact)
	l.ConvertedAccountID, l.ConvertedContactID, l.ImportJobID = uuidPtr(&v.account), uuidPtr(&v.accountContact), uuidPtr(&v.importJob)
	for _, j := range []struct {
		name string
		raw  []byte
		dst  any
	}{{lead.FieldTags, v.tags, &l.Tags}, {lead.FieldCustomFields, v.custom, &l.CustomFields}, {lead.FieldExternalIds, v.external, &l.ExternalIds}} {
		if len(j.raw) == 0 {
			continue
		}
		if err := json.Unmarshal(j.raw, j.dst); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", j.name, err)
		}
	}
	return l, nil
}

func stringPtr(s *sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func timePtr(t *sql.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	return &t.Time
}

func uuidPtr(u *uuid.NullUUID) *uuid.UUID {
	if !u.Valid {
		return nil
	}
	return &u.UUID
}
