package schema

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"entgo.io/ent"
	"entgo.io/ent/dialect/sql"

	gen "github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/hook"
	"github.com/lendingpipe/svc/ent/lender"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
)

// Bounds of the lender's lists.
const (
	maxListItems = 50
	maxItemLen   = 100
)

func (Lender) Hooks() []ent.Hook {
	return []ent.Hook{hook.On(lenderChecks, ent.OpCreate|ent.OpUpdateOne)}
}

// lenderChecks keys the name for the case-blind unique rule, and checks the
// lists and the amount range, which span fields.
func lenderChecks(next ent.Mutator) ent.Mutator {
	return hook.LenderFunc(func(ctx context.Context, m *gen.LenderMutation) (gen.Value, error) {
		if name, ok := m.Name(); ok {
			m.SetNameKey(strings.ToLower(strings.TrimSpace(name)))
			if err := uniqueLenderName(ctx, m, name); err != nil {
				return nil, err
			}
		}
		products, err := listAfter(ctx, m, lender.FieldProducts)
		if err != nil {
			return nil, err
		}
		for _, p := range products {
			if !slices.Contains(enum.LenderProducts, p) {
				return nil, apperr.Invalid("products", "%s is not a product; products are %s", apperr.Quote(p), strings.Join(enum.LenderProducts, ", "))
			}
		}
		industries, err := listAfter(ctx, m, lender.FieldExcludedIndustries)
		if err != nil {
			return nil, err
		}
		if err := checkList("excludedIndustries", industries); err != nil {
			return nil, err
		}
		if err := checkAmountRange(ctx, m); err != nil {
			return nil, err
		}
		return next.Mutate(ctx, m)
	})
}

// uniqueLenderName answers a clash with a clear CONFLICT; the unique index
// holds against a concurrent create.
func uniqueLenderName(ctx context.Context, m *gen.LenderMutation, name string) error {
	key, _ := m.NameKey()
	q := m.Client().Lender.Query().Where(lender.NameKey(key))
	if org, ok := m.OrgID(); ok {
		q = q.Where(lender.OrgID(org))
	}
	if id, ok := m.ID(); ok {
		q = q.Where(lender.IDNEQ(id))
	}
	taken, err := q.Exist(ctx)
	if err != nil {
		return fmt.Errorf("checking the lender's name: %w", err)
	}
	if taken {
		return &apperr.Error{Code: apperr.Conflict, Field: "name",
			Message: fmt.Sprintf("a lender named %s already exists in your organization (names are compared ignoring case)", apperr.Quote(name))}
	}
	return nil
}

// listAfter is what a list field of the lender holds once m applies:
// the list set, or the stored one, with what m appends (nil when m
// touches neither). A list both set and appended is folded into one set:
// one UPDATE cannot assign a column twice.
func listAfter(ctx context.Context, m *gen.LenderMutation, name string) ([]string, error) {
	v, set := m.Field(name)
	list, _ := v.([]string)
	var appended []string
	var appending bool
	switch name {
	case lender.FieldProducts:
		appended, appending = m.AppendedProducts()
	case lender.FieldExcludedIndustries:
		appended, appending = m.AppendedExcludedIndustries()
	}
	if !appending {
		return list, nil
	}
	if set {
		all := append(slices.Clone(list), appended...)
		if err := m.ResetField(name); err != nil {
			return nil, err
		}
		return all, m.SetField(name, all)
	}
	if m.Op().Is(ent.OpUpdateOne) {
		old, err := m.OldField(ctx, name) // the viewer's: another organization's lender is not found
		if err != nil {
			return nil, err
		}
		list, _ = old.([]string)
	}
	return append(slices.Clone(list), appended...), nil
}

func checkList(field string, list []string) error {
	if len(list) > maxListItems {
		return apperr.Invalid(field, "at most %d items are allowed", maxListItems)
	}
	for _, s := range list {
		if err := runeLen(1, maxItemLen)(s); err != nil {
			return apperr.Invalid(field, "each item %s", err)
		}
	}
	return nil
}

// checkAmountRange keeps minAmount <= maxAmount, reading the stored bound
// when an update changes only the other.
func checkAmountRange(ctx context.Context, m *gen.LenderMutation) error {
	lo, loSet := m.MinAmount()
	hi, hiSet := m.MaxAmount()
	if !loSet && !hiSet {
		return nil
	}
	if m.Op().Is(ent.OpUpdateOne) {
		// Read as the viewer: another organization's lender is NOT_FOUND,
		// not a range error that would tell its bounds.
		if !loSet && !m.MinAmountCleared() {
			old, err := m.OldMinAmount(ctx)
			if err != nil || old == nil {
				return err
			}
			lo, loSet = *old, true
		}
		if !hiSet && !m.MaxAmountCleared() {
			old, err := m.OldMaxAmount(ctx)
			if err != nil || old == nil {
				return err
			}
			hi, hiSet = *old, true
		}
	}
	if loSet && hiSet && lo > hi {
		return apperr.Invalid("minAmount", "must not exceed maxAmount (%s > %s)", lo, hi)
	}
	return nil
}

func (Application) Hooks() []ent.Hook {
	// The lenders report's rollups and the decision's time are the lending
	// flows' steps (lending.Decide and the others), not hooks'.
	return []ent.Hook{hook.On(moveApplication, ent.OpUpdate|ent.OpUpdateOne), hook.On(supersedeOnApplication, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne)}
}

// A Count of a lender's deals is answered from the day counts
// (FundedDealDay) when the caller marks the context (counted.With).
func (FundedDeal) Interceptors() []ent.Interceptor {
	return []ent.Interceptor{countFromTotal}
}

// moveApplication enforces the transition table on every status change,
// single or bulk, whoever writes it: the update is conditional on the
// statuses the target may be reached from (lendingrules.From), so of two
// concurrent moves the second finds the row moved and is refused, whatever
// it read before. The lending flows (package lending) take the lead's row
// before they move one of its applications.
func moveApplication(next ent.Mutator) ent.Mutator {
	return hook.ApplicationFunc(func(ctx context.Context, m *gen.ApplicationMutation) (gen.Value, error) {
		to, moving := m.Status()
		if !moving {
			return next.Mutate(ctx, m)
		}
		if err := checkMove(ctx, m, string(to)); err != nil {
			return nil, err
		}
		m.Where(sql.FieldIn(application.FieldStatus, lendingrules.From(string(to))...))
		v, err := next.Mutate(ctx, m)
		if m.Op().Is(ent.OpUpdateOne) && gen.IsNotFound(err) {
			return nil, refusedMove(ctx, m, string(to))
		}
		return v, err
	})
}

// refusedMove tells a refused move from a missing application: CONFLICT
// with the status the application is in, or NOT_FOUND.
func refusedMove(ctx context.Context, m *gen.ApplicationMutation, to string) error {
	id, _ := m.ID()
	a, err := m.Client().Application.Get(ctx, id)
	if err != nil {
		return err
	}
	return lendingrules.Conflict(string(a.Status), to)
}

// checkMove checks what each move needs: a decision needs its offer or its
// reason and its time (lending.Decide stamps it), a funding comes only
// with its deal, and fields of one outcome are refused on another.
func checkMove(ctx context.Context, m *gen.ApplicationMutation, to string) error {
	if err := onlyFor(m, to); err != nil {
		return err
	}
	switch to {
	case lendingrules.Submitted:
		return refusedMove(ctx, m, to)
	case lendingrules.Approved:
		return checkApproval(m)
	case lendingrules.Declined:
		reason, ok := m.DeclineReason()
		if !ok || strings.TrimSpace(reason) == "" {
			return apperr.Invalid("reason", "is required to decline an application")
		}
		if err := runeLen(1, 500)(reason); err != nil {
			return apperr.Invalid("reason", "%s", err)
		}
		return checkDecidedAt(m)
	case lendingrules.Withdrawn:
		if reason, ok := m.WithdrawnReason(); ok {
			if err := runeLen(1, 500)(reason); err != nil {
				return apperr.Invalid("reason", "%s", err)
			}
		}
	case lendingrules.Funded:
		if _, ok := m.FundedDealID(); !ok {
			return apperr.Invalid("status", "an application is funded only by funding a deal (fundDeal)")
		}
	}
	return nil
}

// outcomes lists, in the order they are checked, the fields each outcome
// records.
var outcomes = []struct {
	status string
	fields []string
}{
	{lendingrules.Approved, []string{application.FieldApprovedAmount, application.FieldInterestRate, application.FieldRateType,
		application.FieldTermMonths, application.FieldPaymentFrequency, application.FieldConditions}},
	{lendingrules.Declined, []string{application.FieldDeclineReason, application.FieldDeclineCategory}},
	{lendingrules.Withdrawn, []string{application.FieldWithdrawnReason}},
	{lendingrules.Funded, []string{application.FieldFundedDealID}},
}

// onlyFor refuses the fields of an outcome other than the move's, named
// as the operations take them.
func onlyFor(m *gen.ApplicationMutation, to string) error {
	for _, o := range outcomes {
		if o.status == to {
			continue
		}
		for _, f := range o.fields {
			if _, set := m.Field(f); set {
				return apperr.Invalid(inputName(f), "applies only when the application becomes %s", o.status)
			}
		}
	}
	return nil
}

// inputName is the name decideApplication, withdrawApplication and the
// automation actions give a field: both reasons are "reason".
func inputName(field string) string {
	switch field {
	case application.FieldDeclineReason, application.FieldWithdrawnReason:
		return "reason"
	}
	return apperr.FieldName(field)
}

// checkApproval needs the offer: its amount, rate, kind and term.
func checkApproval(m *gen.ApplicationMutation) error {
	for _, f := range []string{application.FieldInterestRate, application.FieldRateType, application.FieldTermMonths} {
		if _, ok := m.Field(f); !ok {
			// The message names the field too: a reader may see it without
			// the field beside it (an automation's run log, a toast).
			name := apperr.FieldName(f)
			return apperr.Invalid(name, "%s is required to approve an application", name)
		}
	}
	if r, _ := m.InterestRate(); r < 0 || r > money.MaxRate {
		return apperr.Invalid("interestRate", "must be between 0 and 10")
	}
	if list, ok := m.Conditions(); ok {
		if err := checkList("conditions", list); err != nil {
			return err
		}
	}
	// lending.Decide defaults the amount to the amount requested.
	if amt, ok := m.ApprovedAmount(); !ok {
		return apperr.Invalid("approvedAmount", "approvedAmount is required to approve an application")
	} else if amt <= 0 {
		return apperr.Invalid("approvedAmount", "must be more than 0")
	}
	return checkDecidedAt(m)
}

// checkDecidedAt needs a decision's time and its seconds from submission,
// which the deciding flow stamps (lending.Decide): the lenders report
// reads both.
func checkDecidedAt(m *gen.ApplicationMutation) error {
	_, decided := m.DecidedAt()
	_, seconds := m.DecisionSeconds()
	if !decided || !seconds {
		return errors.New("a decision is written with its time and its seconds from submission (lending.Decide)")
	}
	return nil
}
