package seed_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/lead"
	"github.com/lendingpipe/svc/ent/lender"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/ent/stipulation"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
)

// book is an organization's lending records, read whole.
type book struct {
	lenders     map[uuid.UUID]*ent.Lender
	leads       map[uuid.UUID]*ent.Lead
	slots       map[uuid.UUID]string // stage id -> semantic slot
	apps        []*ent.Application
	appsOf      map[uuid.UUID][]*ent.Application // by lead
	deals       []*ent.FundedDeal
	dealsOf     map[uuid.UUID][]*ent.FundedDeal // by lead
	commissions map[uuid.UUID]*ent.Commission
	payments    map[uuid.UUID][]*ent.CommissionPayment // by commission, in the order recorded
	stipsOf     map[uuid.UUID][]*ent.Stipulation       // by application
}

func readBook(ctx context.Context, db *store.DB, orgID uuid.UUID) (*book, error) {
	sys, c := rule.SystemContext(ctx), db.Client
	b := &book{lenders: map[uuid.UUID]*ent.Lender{}, leads: map[uuid.UUID]*ent.Lead{}, slots: map[uuid.UUID]string{},
		appsOf: map[uuid.UUID][]*ent.Application{}, dealsOf: map[uuid.UUID][]*ent.FundedDeal{},
		commissions: map[uuid.UUID]*ent.Commission{}, payments: map[uuid.UUID][]*ent.CommissionPayment{},
		stipsOf: map[uuid.UUID][]*ent.Stipulation{}}
	lenders, err := c.Lender.Query().Where(lender.OrgID(orgID)).All(sys)
	if err != nil {
		return nil, err
	}
	for _, l := range lenders {
		b.lenders[l.ID] = l
	}
	leads, err := c.Lead.Query().Where(lead.OrgID(orgID)).All(sys)
	if err != nil {
		return nil, err
	}
	for _, l := range leads {
		b.leads[l.ID] = l
	}
	stages, err := c.PipelineStage.Query().Where(pipelinestage.OrgID(orgID)).All(sys)
	if err != nil {
		return nil, err
	}
	for _, s := range stages {
		b.slots[s.ID] = string(s.SemanticSlot)
	}
	if b.apps, err = c.Application.Query().Where(application.OrgID(orgID)).Order(application.ByCreatedAt(), application.ByID()).All(sys); err != nil {
		return nil, err
	}
	for _, a := range b.apps {
		b.appsOf[a.LeadID] = append(b.appsOf[a.LeadID], a)
	}
	if b.deals, err = c.FundedDeal.Query().Where(fundeddeal.OrgID(orgID)).All(sys); err != nil {
		return nil, err
	}
	for _, d := range b.deals {
		b.dealsOf[d.LeadID] = append(b.dealsOf[d.LeadID], d)
	}
	cms, err := c.Commission.Query().Where(commission.OrgID(orgID)).WithPayments(func(q *ent.CommissionPaymentQuery) {
		q.Order(commissionpayment.ByCreatedAt(), commissionpayment.ByID())
	}).All(sys)
	if err != nil {
		return nil, err
	}
	for _, cm := range cms {
		b.commissions[cm.ID] = cm
		b.payments[cm.ID] = cm.Edges.Payments
	}
	stips, err := c.Stipulation.Query().Where(stipulation.OrgID(orgID)).All(sys)
	if err != nil {
		return nil, err
	}
	for _, s := range stips {
		b.stipsOf[s.ApplicationID] = append(b.stipsOf[s.ApplicationID], s)
	}
	return b, nil
}

// violations lists every way the book breaks a rule the lending flows
// enforce, so that any book built through the API has none.
func (b *book) violations(now time.Time) []string {
	var bad []string
	fail := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	open := map[[2]uuid.UUID]int{}
	refs := map[string]bool{}
	for _, a := range b.apps {
		bad = append(bad, b.stipulationViolations(a)...)
		ld, l := b.lenders[a.LenderID], b.leads[a.LeadID]
		if ld == nil || l == nil {
			fail("application %s: lead or lender of another organization", a.ID)
			continue
		}
		if a.LenderName != ld.Name {
			fail("application %s: lenderName %q, the lender is %q", a.ID, a.LenderName, ld.Name)
		}
		if a.RequestedAmount <= 0 || a.RequestedAmount > money.MaxAmount {
			fail("application %s: requestedAmount %s out of bounds", a.ID, a.RequestedAmount)
		}
		if want := boxWarnings(ld, l, a); !slices.Equal(a.Warnings, want) {
			fail("application %s: warnings %q, the lender's box says %q", a.ID, a.Warnings, want)
		}
		if a.SubmittedAt.Before(l.CreatedAt) || a.SubmittedAt.After(now) || a.UpdatedAt.Before(a.CreatedAt) {
			fail("application %s: submitted %s, the lead created %s", a.ID, a.SubmittedAt, l.CreatedAt)
		}
		if a.DecidedAt != nil && (a.DecidedAt.Before(a.SubmittedAt) || a.DecidedAt.After(now)) {
			fail("application %s: decided %s, submitted %s", a.ID, a.DecidedAt, a.SubmittedAt)
		}
		offer := a.ApprovedAmount != nil && a.InterestRate != nil && a.RateType != nil && a.TermMonths != nil
		anyOffer := a.ApprovedAmount != nil || a.InterestRate != nil || a.RateType != nil || a.TermMonths != nil ||
			a.PaymentFrequency != nil || len(a.Conditions) > 0
		declined := a.DeclineReason != nil
		switch a.Status {
		case application.StatusSubmitted, application.StatusUnderwriting:
			if a.DecidedAt != nil || anyOffer || declined {
				fail("application %s: %s with a decision", a.ID, a.Status)
			}
		case application.StatusApproved, application.StatusFunded:
			if a.DecidedAt == nil || !offer || declined {
				fail("application %s: %s without its offer", a.ID, a.Status)
			}
		case application.StatusDeclined:
			if a.DecidedAt == nil || !declined || anyOffer || utf8.RuneCountInString(*a.DeclineReason) < 1 || utf8.RuneCountInString(*a.DeclineReason) > 500 {
				fail("application %s: declined without a decline of 1 to 500 characters", a.ID)
			}
		case application.StatusWithdrawn:
			// Withdrawn before a decision or after an approval.
			if declined || anyOffer != offer || offer != (a.DecidedAt != nil) {
				fail("application %s: withdrawn with a partial decision", a.ID)
			}
		}
		if a.DeclineCategory != nil && !declined {
			fail("application %s: declineCategory without a decline", a.ID)
		}
		if offer && (*a.ApprovedAmount <= 0 || *a.InterestRate < 0 || *a.InterestRate > money.MaxRate || *a.TermMonths < 1 || *a.TermMonths > 600) {
			fail("application %s: offer out of bounds", a.ID)
		}
		if (a.WithdrawnReason != nil) != (a.Status == application.StatusWithdrawn && a.WithdrawnReason != nil) {
			fail("application %s: withdrawnReason on a %s application", a.ID, a.Status)
		}
		if (a.FundedDealID != nil) != (a.Status == application.StatusFunded) {
			fail("application %s: fundedDealId on a %s application", a.ID, a.Status)
		}
		if slices.Contains(lendingrules.Open, string(a.Status)) {
			if open[[2]uuid.UUID{a.LeadID, a.LenderID}]++; open[[2]uuid.UUID{a.LeadID, a.LenderID}] > 1 {
				fail("lead %s has two open applications with lender %s", a.LeadID, a.LenderID)
			}
		}
		if a.ExternalRef != nil {
			key := a.LenderID.String() + "/" + *a.ExternalRef
			if refs[key] {
				fail("lender %s has externalRef %q twice", a.LenderID, *a.ExternalRef)
			}
			refs[key] = true
		}
	}

	byID := map[uuid.UUID]*ent.Application{}
	for _, a := range b.apps {
		byID[a.ID] = a
	}
	funded := map[uuid.UUID]bool{}
	for _, d := range b.deals {
		a := byID[d.ApplicationID]
		switch {
		case a == nil:
			fail("deal %s: no application", d.ID)
			continue
		case funded[a.ID]:
			fail("application %s has two deals", a.ID)
		case a.Status != application.StatusFunded || a.FundedDealID == nil || *a.FundedDealID != d.ID:
			fail("deal %s: its application is %s, fundedDealId %v", d.ID, a.Status, a.FundedDealID)
		}
		funded[a.ID] = true
		ld, l := b.lenders[d.LenderID], b.leads[d.LeadID]
		if d.LeadID != a.LeadID || d.LenderID != a.LenderID || d.LenderName != a.LenderName || l == nil || ld == nil {
			fail("deal %s: lead, lender or name differ from its application's", d.ID)
			continue
		}
		if a.InterestRate == nil || d.InterestRate != *a.InterestRate || string(d.RateType) != str(a.RateType) || d.TermMonths != *a.TermMonths ||
			str(d.PaymentFrequency) != str(a.PaymentFrequency) {
			fail("deal %s: terms differ from the offer", d.ID)
		}
		if d.FundedAmount <= 0 {
			fail("deal %s: fundedAmount %s", d.ID, d.FundedAmount)
		}
		payback, _ := d.FundedAmount.MulRate(d.InterestRate)
		if d.RateType == fundeddeal.RateTypeFactor && (d.PaybackAmount == nil || *d.PaybackAmount != payback) ||
			d.RateType == fundeddeal.RateTypeApr && d.PaybackAmount != nil {
			fail("deal %s: paybackAmount %v, want %s for a factor and none for an APR", d.ID, d.PaybackAmount, payback)
		}
		if due, _ := d.FundedAmount.MulRate(ld.CommissionRate); d.ExpectedCommission != due {
			fail("deal %s: commission %s, want %s x %s = %s", d.ID, d.ExpectedCommission, d.FundedAmount, ld.CommissionRate, due)
		}
		if !sameID(d.AdvisorID, l.PrimaryAdvisorID) {
			fail("deal %s: advisor %v, the lead's is %v", d.ID, d.AdvisorID, l.PrimaryAdvisorID)
		}
		if d.FundedAt.After(now) || a.DecidedAt != nil && d.FundedAt.Before(*a.DecidedAt) {
			fail("deal %s: funded %s, approved %v", d.ID, d.FundedAt, a.DecidedAt)
		}
		// Funding withdrew the lead's other open applications.
		for _, o := range b.appsOf[d.LeadID] {
			if o.ID != a.ID && o.SubmittedAt.Before(d.FundedAt) && slices.Contains(lendingrules.Open, string(o.Status)) {
				fail("lead %s: application %s still %s after the funding", d.LeadID, o.ID, o.Status)
			}
		}
		cm := b.commissions[d.CommissionID]
		if cm == nil || cm.DealID != d.ID || cm.LeadID != d.LeadID || cm.LenderID != d.LenderID ||
			cm.ExpectedAmount != d.ExpectedCommission || !sameID(cm.AdvisorID, d.AdvisorID) {
			fail("deal %s: no commission matching it", d.ID)
		}
	}
	for _, a := range b.apps {
		if a.Status == application.StatusFunded && !funded[a.ID] {
			fail("application %s: funded without a deal", a.ID)
		}
	}
	if len(b.commissions) != len(b.deals) {
		fail("%d commissions for %d deals", len(b.commissions), len(b.deals))
	}

	for id, cm := range b.commissions {
		var paid money.Amount
		clawed := false
		for _, p := range b.payments[id] {
			if p.Amount <= 0 || p.PaidAt.After(now) {
				fail("commission %s: payment of %s at %s", id, p.Amount, p.PaidAt)
			}
			if p.Kind == commissionpayment.KindClawback {
				paid -= p.Amount
				clawed = true
			} else {
				paid += p.Amount
			}
			if paid < 0 {
				fail("commission %s: clawed back more than was paid", id)
			}
		}
		if cm.PaidAmount != paid {
			fail("commission %s: paidAmount %s, its payments make %s", id, cm.PaidAmount, paid)
		}
		want := commission.StatusPending
		switch {
		case clawed:
			want = commission.StatusClawedBack
		case len(b.payments[id]) > 0 && paid >= cm.ExpectedAmount:
			want = commission.StatusPaid
		case paid > 0:
			want = commission.StatusPartiallyPaid
		}
		if cm.Status != want {
			fail("commission %s: status %s, its payments make it %s", id, cm.Status, want)
		}
	}

	// Each lead is at least as far along as its lending moved it (unless
	// it is lost or in a stage without a slot), and a funded one converted.
	for id, l := range b.leads {
		slot := b.slots[l.StageID]
		reached := ""
		for _, a := range b.appsOf[id] {
			if reached = "application"; a.ApprovedAmount != nil {
				reached = "approved"
				break
			}
		}
		if deals := b.dealsOf[id]; len(deals) > 0 {
			reached = "won"
			last := slices.MaxFunc(deals, func(x, y *ent.FundedDeal) int { return x.CreatedAt.Compare(y.CreatedAt) })
			if l.ConvertedAt == nil || !l.ConvertedAt.Equal(last.FundedAt) {
				fail("lead %s: convertedAt %v, funded %s", id, l.ConvertedAt, last.FundedAt)
			}
		} else if l.ConvertedAt != nil {
			fail("lead %s: converted without a deal", id)
		}
		if reached != "" && lendingrules.Advances(slot, reached) {
			fail("lead %s: in the %s slot, its lending reached %s", id, slot, reached)
		}
	}
	return bad
}

// boxWarnings is what the submission hook records for a: the lender's box
// against the lead's file.
func boxWarnings(ld *ent.Lender, l *ent.Lead, a *ent.Application) []string {
	f := lendingrules.File{Amount: &a.RequestedAmount, Industry: l.Industry}
	if l.MonthlyRevenue != nil {
		if rev, err := money.RoundDecimal(*l.MonthlyRevenue); err == nil {
			f.MonthlyRevenue = &rev
		}
	}
	switch n := l.CustomFields["monthsInBusiness"].(type) {
	case float64:
		m := int(n)
		f.MonthsInBusiness = &m
	case string:
		if m, err := strconv.Atoi(n); err == nil {
			f.MonthsInBusiness = &m
		}
	}
	if a.Product != nil {
		p := string(*a.Product)
		f.Product = &p
	}
	box := lendingrules.Box{MinAmount: ld.MinAmount, MaxAmount: ld.MaxAmount, MinMonthlyRevenue: ld.MinMonthlyRevenue,
		MinMonthsInBusiness: ld.MinMonthsInBusiness, ExcludedIndustries: ld.ExcludedIndustries, Products: ld.Products}
	return box.Warnings(f)
}

// str is an optional enumeration's value, "" for none.
func str[T ~string](v *T) string {
	if v == nil {
		return ""
	}
	return string(*v)
}

func sameID(a, b *uuid.UUID) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// stipulationViolations lists how an application's checklist breaks the
// rules: one stipulation per condition of an approval, the kept count of
// outstanding ones, none outstanding once funded, and each state's fields.
func (b *book) stipulationViolations(a *ent.Application) []string {
	var bad []string
	stips, outstanding := b.stipsOf[a.ID], 0
	if a.DecidedAt != nil && a.ApprovedAmount != nil && len(stips) != len(a.Conditions) {
		bad = append(bad, fmt.Sprintf("application %s: %d stipulations of %d conditions", a.ID, len(stips), len(a.Conditions)))
	}
	for _, s := range stips {
		switch s.Status {
		case stipulation.StatusOutstanding:
			outstanding++
			if s.ReceivedAt != nil || s.WaivedAt != nil {
				bad = append(bad, fmt.Sprintf("stipulation %s: outstanding but met", s.ID))
			}
		case stipulation.StatusReceived:
			if s.ReceivedAt == nil || s.WaivedAt != nil {
				bad = append(bad, fmt.Sprintf("stipulation %s: received without its time", s.ID))
			}
		case stipulation.StatusWaived:
			if s.WaivedAt == nil || s.WaiveReason == nil || s.WaivedBy == nil {
				bad = append(bad, fmt.Sprintf("stipulation %s: waived without its time, actor or reason", s.ID))
			}
		}
	}
	if outstanding != a.StipulationsOutstanding {
		bad = append(bad, fmt.Sprintf("application %s: counts %d outstanding, has %d", a.ID, a.StipulationsOutstanding, outstanding))
	}
	if a.Status == application.StatusFunded && outstanding > 0 {
		bad = append(bad, fmt.Sprintf("application %s: funded with %d stipulations outstanding", a.ID, outstanding))
	}
	return bad
}
