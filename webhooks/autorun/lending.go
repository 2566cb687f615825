package autorun

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/lender"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/lending"
)

// The lending actions (PRODUCT 1.9): a lender portal's decision, funding
// notice or commission remittance, read from the run's input under fixed
// names and applied by the lending flows the dashboard's mutations call
// (lending.Decide, lending.Fund, lending.RecordPayment): the transition
// table, the events and what a funding moves are theirs, as on every other
// path, so a move they refuse fails the run with their CONFLICT.

// The input fields that name what a lending action works on.
const (
	inApplicationID = "applicationId"
	inLenderID      = "lenderId"
	inExternalRef   = "externalRef"
	inDealID        = "dealId"
)

// decideApplication records the lender's decision with its offer, or its
// reason.
func (s *step) decideApplication(ctx context.Context) (map[string]any, error) {
	in := &reader{input: s.input}
	d := lending.Decision{
		Approved:         in.approved("decision"),
		ApprovedAmount:   in.amount("approvedAmount"),
		InterestRate:     in.rate("interestRate"),
		RateType:         oneOf[application.RateType](in, "rateType", enum.RateTypes),
		TermMonths:       in.integer("termMonths"),
		PaymentFrequency: oneOf[application.PaymentFrequency](in, "paymentFrequency", enum.PaymentFrequencies),
		Conditions:       in.list("conditions"),
		Reason:           in.text("reason"),
		DeclineCategory:  oneOf[application.DeclineCategory](in, "declineCategory", enum.DeclineCategories),
	}
	if in.err != nil {
		return nil, in.err
	}
	a, by, err := s.application(ctx, in)
	if err != nil {
		return nil, err
	}
	if a, err = lending.Decide(ctx, s.tx, a.ID, d); err != nil {
		return nil, err
	}
	s.on(a.LeadID)
	return map[string]any{"matchedBy": by, "applicationId": a.ID, "status": a.Status}, nil
}

// fundDeal funds the approved application: the deal, its commission, the
// other applications withdrawn and the lead won, as fundDeal does. The
// lender says it funded, so what it still listed as outstanding is waived
// (reason funded), as fundDeal with waiveOutstanding does.
func (s *step) fundDeal(ctx context.Context) (map[string]any, error) {
	in := &reader{input: s.input}
	f := lending.Funding{
		FundedAmount:     in.amount("fundedAmount"),
		FundedAt:         in.time("fundedAt"),
		Commission:       in.amount("commission"),
		WaiveOutstanding: true,
	}
	if in.err != nil {
		return nil, in.err
	}
	a, by, err := s.application(ctx, in)
	if err != nil {
		return nil, err
	}
	f.ApplicationID = a.ID
	d, err := lending.Fund(ctx, s.tx, f)
	if err != nil {
		return nil, err
	}
	s.on(d.LeadID)
	return map[string]any{"matchedBy": by, "applicationId": a.ID, "dealId": d.ID}, nil
}

// recordCommissionPayment adds a payment to the deal's commission.
func (s *step) recordCommissionPayment(ctx context.Context) (map[string]any, error) {
	in := &reader{input: s.input}
	amount := in.amount("amount")
	p := lending.Payment{PaidAt: in.time("paidAt"), Reference: in.text("reference")}
	if in.err == nil && amount == nil {
		in.fail("amount", "is required: the amount paid")
	}
	if in.err != nil {
		return nil, in.err
	}
	p.Amount = *amount
	dealID, by, err := s.deal(ctx, in)
	if err != nil {
		return nil, err
	}
	p.DealID = dealID
	c, err := lending.RecordPayment(ctx, s.tx, p)
	if err != nil {
		return nil, err
	}
	s.on(c.LeadID)
	return map[string]any{"matchedBy": by, "dealId": dealID, "commissionId": c.ID, "status": c.Status}, nil
}

// on makes lead the run's, for the lead actions after a lending action.
func (s *step) on(lead uuid.UUID) {
	s.lead, s.tags, s.known = &lead, nil, false
}

// application finds the application the input names: by applicationId, or
// by lenderId and externalRef (the lender's own reference, unique per
// lender, given at submission). It says which it was found by.
//
// An application not found by its reference is awaited, as update_lead's
// lead is: a lender's portal may answer within seconds of a submission
// whose reference is still being recorded. One named by its id, or a
// lender the organization does not have, fails the run at once: waiting
// cannot make them appear.
func (s *step) application(ctx context.Context, in *reader) (*ent.Application, string, error) {
	// The first way the input gives is the one read: the others may hold
	// values of the portal's own.
	if id := in.id(inApplicationID); id != nil {
		a, err := s.tx.Application.Get(ctx, *id)
		if ent.IsNotFound(err) {
			return nil, "", notFound(inApplicationID, "no application with id %s exists in your organization", id)
		}
		return a, inApplicationID, err
	}
	lenderID, ref := in.id(inLenderID), in.text(inExternalRef)
	switch {
	case in.err != nil:
		return nil, "", in.err
	case lenderID == nil && ref == nil:
		return nil, "", apperr.Invalid(inApplicationID, "the input names no application: map applicationId, or lenderId and externalRef")
	case lenderID == nil:
		return nil, "", apperr.Invalid(inLenderID, "is required with externalRef: a reference is the lender's own")
	case ref == nil:
		return nil, "", apperr.Invalid(inExternalRef, "is required with lenderId, or map applicationId")
	}
	by := inLenderID + "+" + inExternalRef
	a, err := s.tx.Application.Query().Where(application.LenderID(*lenderID), application.ExternalRef(*ref)).Only(ctx)
	if !ent.IsNotFound(err) {
		return a, by, err
	}
	known, err := s.tx.Lender.Query().Where(lender.ID(*lenderID)).Exist(ctx)
	switch {
	case err != nil:
		return nil, "", err
	case !known:
		return nil, "", notFound(inLenderID, "no lender with id %s exists in your organization", lenderID)
	}
	return nil, "", awaited{notFound(inExternalRef, "lender %s has no application with externalRef %s", lenderID, apperr.Quote(*ref))}
}

// deal finds the deal the input names: by dealId, or as the funded deal of
// the application it names. An application not funded yet but still open
// is awaited (its funding notice may be on its way); one declined or
// withdrawn never will be.
func (s *step) deal(ctx context.Context, in *reader) (uuid.UUID, string, error) {
	id := in.id(inDealID)
	switch {
	case in.err != nil:
		return uuid.Nil, "", in.err
	case id != nil:
		return *id, inDealID, nil // the resolver says NOT_FOUND for another organization's or none
	case !slices.ContainsFunc([]string{inApplicationID, inLenderID, inExternalRef}, in.has):
		return uuid.Nil, "", apperr.Invalid(inDealID, "the input names no deal: map dealId, applicationId, or lenderId and externalRef")
	}
	a, by, err := s.application(ctx, in)
	if err != nil {
		return uuid.Nil, "", err
	}
	if a.FundedDealID != nil {
		return *a.FundedDealID, by, nil
	}
	e := apperr.New(apperr.NotFound, "application %s is %s: it has no funded deal", a.ID, a.Status)
	if slices.Contains(lendingrules.Open, string(a.Status)) {
		return uuid.Nil, "", awaited{e}
	}
	return uuid.Nil, "", e
}

// notFound is NOT_FOUND naming the input field that named what is missing.
func notFound(field, format string, args ...any) *apperr.Error {
	e := apperr.New(apperr.NotFound, format, args...)
	e.Field = field
	return e
}

// reader reads the lending actions' values from a run's input, keeping the
// first problem: a value of the wrong form is VALIDATION_ERROR naming its
// input field. A field absent, null or blank sets nothing: portals send
// one shape for every outcome, with the other outcome's fields empty.
type reader struct {
	input map[string]any
	err   error
}

func (r *reader) fail(field, format string, args ...any) {
	if r.err == nil {
		r.err = apperr.Invalid(field, format, args...)
	}
}

func (r *reader) has(field string) bool {
	v := r.input[field]
	s, isString := v.(string)
	return v != nil && (!isString || strings.TrimSpace(s) != "")
}

// value is the field's value, unless it is absent, null or blank, or an
// earlier field was wrong.
func (r *reader) value(field string) (any, bool) {
	return r.input[field], r.has(field) && r.err == nil
}

// text reads a string; a JSON number is taken as its decimal text, as
// lenders' references are often numbers.
func (r *reader) text(field string) *string {
	v, ok := r.value(field)
	if !ok {
		return nil
	}
	if s, isString := v.(string); isString {
		return &s
	}
	if s, isNumber := numberText(v); isNumber {
		return &s
	}
	r.fail(field, "must be a string")
	return nil
}

// decimal reads a decimal as text: a string as written, or a JSON number
// (see numberText).
func (r *reader) decimal(field, example string) (string, bool) {
	v, ok := r.value(field)
	if !ok {
		return "", false
	}
	if s, isString := v.(string); isString {
		return s, true
	}
	if s, isNumber := numberText(v); isNumber {
		return s, true
	}
	r.fail(field, "must be a decimal string such as %q, or a number", example)
	return "", false
}

// numberText is v's decimal text when v is a JSON number, and no
// arithmetic touches it. The inbound payload is decoded by encoding/json,
// so a number reaches the run as the binary value nearest to what the
// payload wrote, and its JSON text is the shortest decimal that reads back
// as that value: the payload's own digits whenever it wrote at most 15
// significant ones, which every amount (at most 14) and rate (at most 8)
// the API accepts does. Digits past the 15th cannot be told apart, so a
// number such as 100.0000000000000001 reads as 100; a string carries any
// digits exactly, and money's parsers then refuse what is not an amount.
func numberText(v any) (string, bool) {
	switch v.(type) {
	case string, bool, []any, map[string]any, nil:
		return "", false
	}
	raw, err := json.Marshal(v)
	if err != nil || len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return "", false
	}
	return string(raw), true
}

func (r *reader) amount(field string) *money.Amount {
	s, ok := r.decimal(field, "12500.00")
	if !ok {
		return nil
	}
	a, err := money.ParseAmount(s)
	if err != nil {
		r.fail(field, "%s", err)
		return nil
	}
	return &a
}

func (r *reader) rate(field string) *money.Rate {
	s, ok := r.decimal(field, "1.35")
	if !ok {
		return nil
	}
	v, err := money.ParseRate(s)
	if err != nil {
		r.fail(field, "%s", err)
		return nil
	}
	return &v
}

// integer reads a whole number, written as a JSON number or as digits.
func (r *reader) integer(field string) *int {
	s, ok := r.decimal(field, "36")
	if !ok {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		r.fail(field, "must be a whole number")
		return nil
	}
	return &n
}

// list reads strings: an array of them, or one string (a mapping path
// that selects one node gives its value, not an array). An empty array
// sets nothing.
func (r *reader) list(field string) []string {
	v, ok := r.value(field)
	if !ok {
		return nil
	}
	if s, isString := v.(string); isString {
		return []string{s}
	}
	items, isArray := v.([]any)
	var out []string
	for _, item := range items {
		s, isString := item.(string)
		if !isString {
			isArray = false
			break
		}
		out = append(out, s)
	}
	if !isArray {
		r.fail(field, "must be an array of strings")
		return nil
	}
	return out
}

// approved reads approved (true) or declined (false), in any case.
func (r *reader) approved(field string) bool {
	v, ok := r.value(field)
	s, isString := v.(string)
	switch {
	case r.err != nil:
	case !ok:
		r.fail(field, "is required: approved or declined")
	case isString && strings.EqualFold(s, "approved"):
		return true
	case isString && strings.EqualFold(s, "declined"):
		return false
	default:
		r.fail(field, "must be approved or declined")
	}
	return false
}

// oneOf reads one of values, in any case, as the enumeration T.
func oneOf[T ~string](r *reader, field string, values []string) *T {
	s := r.text(field)
	if s == nil {
		return nil
	}
	v := strings.ToLower(*s)
	if !slices.Contains(values, v) {
		r.fail(field, "must be one of %s", strings.Join(values, ", "))
		return nil
	}
	t := T(v)
	return &t
}

func (r *reader) time(field string) *time.Time {
	v, ok := r.value(field)
	if !ok {
		return nil
	}
	s, _ := v.(string)
	t, err := apitime.Parse(s)
	if err != nil {
		r.fail(field, "must be an RFC 3339 timestamp such as %s", apitime.Example)
		return nil
	}
	t = t.UTC()
	return &t
}

func (r *reader) id(field string) *uuid.UUID {
	v, ok := r.value(field)
	if !ok {
		return nil
	}
	s, _ := v.(string)
	id, err := uuid.Parse(s)
	if err != nil {
		r.fail(field, "must be a UUID")
		return nil
	}
	return &id
}
