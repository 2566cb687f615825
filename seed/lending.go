package seed

import (
	"context"
	"fmt"
	"github.com/lendingpipe/svc/analytics/decision"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/commission"
	"github.com/lendingpipe/svc/ent/commissionpayment"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/fundeddealday"
	"github.com/lendingpipe/svc/ent/lender"
	"github.com/lendingpipe/svc/ent/stipulation"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/events"
	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/history"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
)

// A seeded lending book looks like one a broker built through the API over
// the past year: about a quarter of the leads are shopped to one to four
// lenders of the panel (mostly ones whose box fits the file), about 60 % of
// the decided applications are approved, about 30 % of the shopped leads
// are funded from one of their approvals (their other open applications
// withdrawn, funded_elsewhere), and every deal has its commission, paid in
// full, in part, not yet, or paid and clawed back. Each record is written
// in the state the lending flows would leave it (the tests check
// every rule), with times in order: submitted after the lead's creation,
// decided after submission, funded after every decision, paid after
// funding, all before now.

// LendingSeeded counts what a seeded lending book holds.
type LendingSeeded struct {
	Lenders, Advisors              int
	Applications, Deals, Payments  int
	AppliedLeads, FundedLeads      int
	Approved, Declined, Decided    int
	PendingCommissions, PaidInFull int
	PartlyPaid, ClawedBack         int
}

// Proportions of the book.
const (
	appliedPercent = 25 // of the leads, shopped to lenders
	fundedPercent  = 30 // of the shopped leads, funded
	decidedPercent = 85 // of the other applications, decided by their lender
	misfitPercent  = 12 // of the submissions, to a lender whose box the file misses
	seedAdvisors   = 8
	seedApplyDays  = 2 // typical days from a lead's creation to its first submission
	seedFundDays   = 4 // from the last decision to funding
	seedPayDays    = 30
	staleOpenDays  = 45 // an undecided application older than this is withdrawn
	staleOfferDays = 60 // half the offers older than this were turned down by the merchant
	recentFundDays = 21 // a commission of a deal younger than this is mostly not paid yet
	day            = 24 * time.Hour
	seedRefDigits  = 7
)

// panelLender is a lender of the seeded panel with what the book needs.
type panelLender struct {
	id       uuid.UUID
	name     string
	prefix   string // of its externalRefs
	products []string
	rate     money.Rate
	box      lendingrules.Box
	nextRef  int
	temper   lenderTemper
}

// lenderTemper is how a lender of the panel answers, so each has a record
// of its own and the lender matches rank them apart: how often it
// approves, how fast it decides, and how often a deal it is shopped first
// for funds with it.
type lenderTemper struct {
	approve    int           // percent of its decisions approved
	decideDays time.Duration // its typical days to a decision
	fund       int           // percent of fundedPercent for leads it is shopped first for
}

// lenderTempers are the tempers a lender takes, by its name's hash: the
// quick yes-sayer, the slow careful one, and those between.
var lenderTempers = []lenderTemper{
	{approve: 75, decideDays: day / 2, fund: 130},
	{approve: 60, decideDays: 1 * day, fund: 100},
	{approve: 52, decideDays: 2 * day, fund: 110},
	{approve: 45, decideDays: 4 * day, fund: 80},
	{approve: 35, decideDays: 7 * day, fund: 60},
	{approve: 65, decideDays: 3 * day, fund: 140},
	{approve: 30, decideDays: 12 * day, fund: 90},
}

// temperOf is the temper of the lender named name.
func temperOf(name string) lenderTemper {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return lenderTempers[h.Sum32()%uint32(len(lenderTempers))]
}

// lenderTemplate is a lender a new panel may hold.
type lenderTemplate struct {
	name, prefix     string
	products         []string
	min, max, minRev int64 // whole dollars; 0 for none
	minMonths        int
	excluded         []string
	commissionRate   string
}

// lenderTemplates are plausible lenders of an ISO broker's panel: merchant
// cash advance funders, term and SBA lenders, equipment finance, factoring.
var lenderTemplates = []lenderTemplate{
	{"Northstar Capital Funding", "NSC", []string{"mca"}, 5000, 250000, 10000, 6, []string{"Trucking"}, "0.10"},
	{"Ironwood Business Capital", "IWB", []string{"mca", "line_of_credit"}, 10000, 500000, 25000, 12, []string{"Construction"}, "0.08"},
	{"Lakeshore Term Lending", "LTL", []string{"term_loan"}, 25000, 1000000, 50000, 24, nil, "0.04"},
	{"Keystone Merchant Funding", "KMF", []string{"mca"}, 5000, 150000, 8000, 4, []string{"Trucking", "Transportation & Logistics"}, "0.12"},
	{"Redline Equipment Finance", "RLE", []string{"equipment"}, 10000, 2000000, 20000, 12, nil, "0.05"},
	{"Pinnacle SBA Partners", "PSB", []string{"sba", "term_loan"}, 50000, 5000000, 40000, 24, []string{"Restaurant & Food"}, "0.02"},
	{"Bayside Factoring Co", "BFC", []string{"invoice_factoring"}, 10000, 1000000, 30000, 6, nil, "0.03"},
	{"Evergreen Credit Line", "ECL", []string{"line_of_credit"}, 10000, 250000, 15000, 12, nil, "0.035"},
	{"Crestview Capital Group", "CCG", []string{"mca", "term_loan"}, 15000, 750000, 30000, 12, []string{"Construction"}, "0.07"},
	{"Silverleaf Funding", "SLF", []string{"mca"}, 5000, 100000, 5000, 3, nil, "0.11"},
	{"Harborview Business Lending", "HBL", []string{"term_loan", "line_of_credit"}, 50000, 1500000, 75000, 36, nil, "0.03"},
	{"Summit Ridge Advance", "SRA", []string{"mca"}, 10000, 400000, 20000, 6, []string{"Trucking", "Construction"}, "0.09"},
	{"Granite State Equipment Leasing", "GSE", []string{"equipment"}, 5000, 500000, 10000, 24, nil, "0.045"},
	{"Bluewater Working Capital", "BWC", []string{"mca", "line_of_credit"}, 5000, 300000, 12000, 6, []string{"Restaurant & Food"}, "0.09"},
	{"Meridian Growth Capital", "MGC", []string{"term_loan", "sba"}, 100000, 2000000, 100000, 24, nil, "0.025"},
}

// Why lenders decline, by category.
var declineReasons = map[string][]string{
	"credit":             {"Owner's credit score is below our minimum of 550", "Recent bankruptcy on the owner's credit report", "Open tax lien against the business"},
	"revenue":            {"Average monthly deposits are below our minimum", "Revenue fell more than 30% over the last three months"},
	"time_in_business":   {"Less time in business than we require", "Business changed ownership in the last six months"},
	"industry":           {"Industry is outside our appetite"},
	"existing_positions": {"Three open advance positions; we do not stack", "A current advance was funded in the last 30 days"},
	"incomplete_file":    {"Missing the last three months of bank statements", "Application not signed by every owner"},
	"other":              {"Too many NSFs and negative days in the last month", "Could not verify the business address"},
}

// declineMix is how often each category is the reason, in percent.
var declineMix = []struct {
	category string
	percent  int
}{{"credit", 30}, {"revenue", 20}, {"existing_positions", 18}, {"time_in_business", 10}, {"incomplete_file", 10}, {"industry", 4}, {"other", 8}}

var (
	seedConditions = []string{"Last three months of bank statements", "Voided business check", "Copy of the owner's driver's license",
		"Landlord verification", "Proof of ownership", "Two years of business tax returns", "Signed funding contract"}
	seedNotes         = []string{"Merchant prefers weekly payments", "Owner available after 3 pm", "Seasonal business: summer is the peak", "Referred by an existing client"}
	staleOpenReasons  = []string{"No answer from the lender", "The merchant stopped responding", "The merchant chose another broker"}
	turnedDownReasons = []string{"The merchant declined the offer", "The offer expired"}
	seedAdvisorFirst  = []string{"Maya", "Sam", "Noor", "Lucas", "Grace", "Tomas", "Aisha", "Ravi"}
	seedAdvisorLast   = []string{"Chen", "Ortiz", "Rahman", "Becker", "Mensah", "Lindqvist", "Bello", "Iyer"}
	lendingSlots      = []string{"application", "approved", "won"}
	seedAdvisorTeam   = "Lending desk"
	fundedElsewhere   = "funded_elsewhere"
)

// book plans the lending records of each seeded lead and writes them after
// its batch of leads, in the batch's transaction.
type book struct {
	org      uuid.UUID
	rng      *rand.Rand
	now      time.Time
	actor    string
	lenders  []*panelLender
	advisors []uuid.UUID
	slot     map[string]*ent.PipelineStage // the first stage of each slot
	early    []*ent.PipelineStage          // the stages a lead never shopped may be in

	apps     []*ent.ApplicationCreate
	stips    []*ent.StipulationCreate
	deals    []*ent.FundedDealCreate
	comms    []*ent.CommissionCreate
	payments []*ent.CommissionPaymentCreate
	history  []*ent.ActivityCreate // the leads' history of the above
	days     map[lenderDay]int     // the batch's deals per lender and day (schema.FundedDealDay)
	seeded   LendingSeeded
}

type lenderDay struct {
	lender uuid.UUID
	day    int
}

// openBook finds or creates the panel and the advisors.
func openBook(ctx context.Context, db *store.DB, orgID uuid.UUID, n int, stages []*ent.PipelineStage, start, now time.Time) (*book, error) {
	b := &book{org: orgID, rng: rand.New(rand.NewPCG(uint64(n), 43)), now: now, actor: *events.Actor(ctx),
		slot: map[string]*ent.PipelineStage{}, days: map[lenderDay]int{}}
	for _, st := range stages {
		sl := string(st.SemanticSlot)
		if _, ok := b.slot[sl]; !ok {
			b.slot[sl] = st
		}
		if !slices.Contains(lendingSlots, sl) {
			b.early = append(b.early, st)
		}
	}
	if len(b.early) == 0 {
		b.early = stages
	}
	var err error
	if b.lenders, err = seedPanel(ctx, db, orgID, b.rng, start.Add(-30*day)); err != nil {
		return nil, err
	}
	if b.advisors, err = advisorsOf(ctx, db, orgID); err != nil {
		return nil, err
	}
	b.seeded.Lenders, b.seeded.Advisors = len(b.lenders), len(b.advisors)
	return b, nil
}

// seedPanel returns the organization's active lenders, creating a panel of
// 8 to 15 through the lender hooks when it has none.
func seedPanel(ctx context.Context, db *store.DB, orgID uuid.UUID, rng *rand.Rand, at time.Time) ([]*panelLender, error) {
	sys := rule.SystemContext(ctx)
	existing, err := db.Client.Lender.Query().Where(lender.OrgID(orgID), lender.IsActive(true)).
		Order(lender.ByCreatedAt(), lender.ByID()).All(sys)
	if err != nil {
		return nil, fmt.Errorf("loading the lender panel: %w", err)
	}
	if len(existing) == 0 {
		size := 8 + rng.IntN(8)
		picked := rng.Perm(len(lenderTemplates))[:size]
		slices.Sort(picked)
		err = store.WithTx(sys, db.Client, func(ctx context.Context, tx *ent.Client) error {
			for _, i := range picked {
				l, err := createLender(ctx, tx, orgID, lenderTemplates[i], &at)
				if err != nil {
					return err
				}
				existing = append(existing, l)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("seeding the lender panel: %w", err)
		}
	}
	panel := make([]*panelLender, len(existing))
	for i, l := range existing {
		// References continue after the lender's applications.
		used, err := db.Client.Application.Query().Where(application.LenderID(l.ID)).Count(sys)
		if err != nil {
			return nil, fmt.Errorf("counting the applications of %s: %w", l.Name, err)
		}
		panel[i] = &panelLender{id: l.ID, name: l.Name, prefix: refPrefix(l.Name), products: l.Products,
			rate: l.CommissionRate, nextRef: used + 1, temper: temperOf(l.Name),
			box: lendingrules.Box{MinAmount: l.MinAmount, MaxAmount: l.MaxAmount, MinMonthlyRevenue: l.MinMonthlyRevenue,
				MinMonthsInBusiness: l.MinMonthsInBusiness, ExcludedIndustries: l.ExcludedIndustries, Products: l.Products}}
		if t, ok := lenderTemplateNamed(l.Name); ok {
			panel[i].prefix = t.prefix
		}
	}
	return panel, nil
}

// createLender adds t to the organization's panel through the lender
// hooks, created at at (now when nil).
func createLender(ctx context.Context, tx *ent.Client, orgID uuid.UUID, t lenderTemplate, at *time.Time) (*ent.Lender, error) {
	rate, err := money.ParseRate(t.commissionRate)
	if err != nil {
		return nil, err
	}
	c := tx.Lender.Create().SetOrgID(orgID).SetName(t.name).SetProducts(t.products).
		SetCommissionRate(rate).SetMinMonthsInBusiness(t.minMonths).SetExcludedIndustries(append([]string{}, t.excluded...)).
		SetContactEmail("submissions@" + strings.ToLower(strings.ReplaceAll(t.name, " ", "")) + ".example").
		SetNillableCreatedAt(at).SetNillableUpdatedAt(at)
	for _, bound := range []struct {
		dollars int64
		set     func(money.Amount) *ent.LenderCreate
	}{{t.min, c.SetMinAmount}, {t.max, c.SetMaxAmount}, {t.minRev, c.SetMinMonthlyRevenue}} {
		if bound.dollars > 0 {
			bound.set(money.FromCents(bound.dollars * 100))
		}
	}
	l, err := c.Save(ctx)
	if err != nil {
		return nil, fmt.Errorf("creating the lender %s: %w", t.name, err)
	}
	return l, nil
}

// lenderTemplateNamed is the template of that name.
func lenderTemplateNamed(name string) (lenderTemplate, bool) {
	for _, t := range lenderTemplates {
		if t.name == name {
			return t, true
		}
	}
	return lenderTemplate{}, false
}

// refPrefix is the initials of a lender's name, as its references start.
func refPrefix(name string) string {
	var p []rune
	for _, w := range strings.Fields(name) {
		if r := []rune(w)[0]; len(p) < 3 && (r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			p = append(p, r)
		}
	}
	if len(p) == 0 {
		return "REF"
	}
	return strings.ToUpper(string(p))
}

// advisorsOf returns the organization's advisors, creating eight in a
// team when it has none.
func advisorsOf(ctx context.Context, db *store.DB, orgID uuid.UUID) ([]uuid.UUID, error) {
	ids, err := db.Client.User.Query().Where(user.OrgID(orgID), user.RoleEQ(user.RoleAdvisor)).
		Order(user.ByID()).IDs(rule.SystemContext(ctx))
	if err != nil || len(ids) > 0 {
		return ids, err
	}
	for i := range seedAdvisors {
		first, last := seedAdvisorFirst[i], seedAdvisorLast[i]
		u, err := store.CreateUser(ctx, db.Client, store.UserSpec{OrgID: orgID, First: first, Last: last, Role: "advisor", Team: seedAdvisorTeam,
			Email: fmt.Sprintf("%s.%s.%s@seed.example", strings.ToLower(first), strings.ToLower(last), orgID.String()[:8])})
		if err != nil {
			return nil, fmt.Errorf("seeding advisor %d: %w", i, err)
		}
		ids = append(ids, u.ID)
	}
	return ids, nil
}

// after is a time about typical after t (half to one and a half times it),
// but never past halfway from t to now, so a chain of steps stays ordered
// and in the past however recent t is.
func (b *book) after(t time.Time, typical time.Duration) time.Time {
	d := typical/2 + time.Duration(b.rng.Int64N(int64(typical)))
	if left := b.now.Sub(t) - time.Minute; d > left/2 {
		d = max(left/2, 0)
	}
	return t.Add(d)
}

func (b *book) percent(p int) bool { return b.rng.IntN(100) < p }

func pickOf[T any](rng *rand.Rand, s []T) T { return s[rng.IntN(len(s))] }

// seedApp is one planned application.
type seedApp struct {
	id        uuid.UUID
	lender    *panelLender
	requested money.Amount
	product   string // "" when not stated
	warnings  []string
	submitted time.Time
	decided   *time.Time
	approved  bool
	status    application.Status
	updated   time.Time
	withdrawn string
}

// plan decides the lead's lending state and queues its records.
func (b *book) plan(tx *ent.Client, l *seedLead) {
	if !b.percent(appliedPercent) || len(b.lenders) == 0 {
		if slices.Contains(lendingSlots, string(l.stage.SemanticSlot)) {
			l.stage = b.early[b.rng.IntN(len(b.early))] // never shopped: not past qualified
		}
		return
	}
	b.seeded.AppliedLeads++
	advisor := b.advisors[b.rng.IntN(len(b.advisors))]
	l.advisor = &advisor
	l.monthsInBusiness = 3 + b.rng.IntN(240)
	requested := money.FromCents(int64(l.requested) * 100)
	revenue := money.FromCents(int64(l.revenue) * 100)
	industry := seedIndustries[l.kind]
	file := lendingrules.File{Amount: &requested, MonthlyRevenue: &revenue, MonthsInBusiness: &l.monthsInBusiness, Industry: &industry}

	apps := b.shop(l, file)
	funded := len(apps) > 0 && b.percent(fundedPercent*apps[0].lender.temper.fund/100)
	// Decisions: the funded application is approved; the others as their
	// lenders answered, each at its own pace, always before the funding.
	last := l.at
	for i, a := range apps {
		last = later(last, a.submitted)
		if i == 0 && funded || b.percent(decidedPercent) {
			at := b.after(a.submitted, a.lender.temper.decideDays)
			a.decided, a.updated = &at, at
			a.approved = i == 0 && funded || b.percent(a.lender.temper.approve)
			last = later(last, at)
		}
	}
	var fundedAt time.Time
	if funded {
		fundedAt = b.after(last, seedFundDays*day)
	}
	everApproved, allDeclined := false, true
	for i, a := range apps {
		switch {
		case funded && i == 0:
			a.status, a.updated = application.StatusFunded, fundedAt
		case funded && (a.decided == nil || a.approved):
			a.status, a.updated, a.withdrawn = application.StatusWithdrawn, fundedAt, fundedElsewhere
		case a.decided != nil && !a.approved:
			a.status = application.StatusDeclined
		case a.approved && b.now.Sub(*a.decided) > staleOfferDays*day && b.percent(50):
			a.status, a.updated, a.withdrawn = application.StatusWithdrawn, b.after(*a.decided, 7*day), pickOf(b.rng, turnedDownReasons)
		case a.approved:
			a.status = application.StatusApproved
		case b.now.Sub(a.submitted) > staleOpenDays*day:
			a.status, a.updated, a.withdrawn = application.StatusWithdrawn, b.after(a.submitted, 20*day), pickOf(b.rng, staleOpenReasons)
		case b.percent(50):
			a.status, a.updated = application.StatusUnderwriting, b.after(a.submitted, day)
		default:
			a.status = application.StatusSubmitted
		}
		everApproved = everApproved || a.approved
		allDeclined = allDeclined && a.status == application.StatusDeclined
		l.updatedAt = later(l.updatedAt, a.updated)
	}
	var dealID uuid.UUID
	if funded {
		dealID = uuid.Must(uuid.NewV7())
	}
	for i, a := range apps {
		offer := b.queueApp(tx, l, a, funded && i == 0, dealID)
		if funded && i == 0 {
			b.queueDeal(tx, l, a, offer, dealID, fundedAt)
		}
	}

	// The lead's stage, as the moves of its applications left it.
	move := "application"
	switch {
	case funded:
		move = "won"
		l.convertedAt = &fundedAt
		b.seeded.FundedLeads++
	case everApproved:
		move = "approved"
	case allDeclined && b.percent(50):
		move = "lost" // the broker gave up on it
	}
	if st, ok := b.slot[move]; ok {
		l.stage = st
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// shop picks the lead's lenders, distinct, mostly ones whose box fits, and
// plans a submission to each.
func (b *book) shop(l *seedLead, file lendingrules.File) []*seedApp {
	k := 1
	switch r := b.rng.IntN(100); {
	case r >= 90:
		k = 4
	case r >= 70:
		k = 3
	case r >= 35:
		k = 2
	}
	order := b.rng.Perm(len(b.lenders))
	var fit, misfit []*panelLender
	for _, i := range order {
		if fits(b.lenders[i].box, file) {
			fit = append(fit, b.lenders[i])
		} else {
			misfit = append(misfit, b.lenders[i])
		}
	}
	var chosen []*panelLender
	for len(chosen) < min(k, len(b.lenders)) {
		if len(misfit) > 0 && (len(fit) == 0 || b.percent(misfitPercent)) {
			chosen, misfit = append(chosen, misfit[0]), misfit[1:]
		} else {
			chosen, fit = append(chosen, fit[0]), fit[1:]
		}
	}
	first := b.after(l.at, seedApplyDays*day)
	apps := make([]*seedApp, len(chosen))
	for i, ld := range chosen {
		a := &seedApp{id: uuid.Must(uuid.NewV7()), lender: ld, submitted: first, requested: *file.Amount}
		if i > 0 {
			a.submitted = b.after(first, day/2)
		}
		a.updated = a.submitted
		// A broker mostly asks a lender for no more than it funds.
		if max := ld.box.MaxAmount; max != nil && a.requested > *max && b.percent(90) {
			a.requested = *max
		}
		f := file
		f.Amount = &a.requested
		if len(ld.products) > 0 && b.percent(90) {
			a.product = pickOf(b.rng, ld.products)
			f.Product = &a.product
		}
		a.warnings = ld.box.Warnings(f)
		apps[i] = a
	}
	return apps
}

// fits tells the panel's fitting lenders from the rest for shopping (an
// amount over the lender's maximum is asked at the maximum); the
// application's warnings come from lendingrules.Box itself.
func fits(box lendingrules.Box, f lendingrules.File) bool {
	return (box.MinAmount == nil || *f.Amount >= *box.MinAmount) &&
		(box.MinMonthlyRevenue == nil || *f.MonthlyRevenue >= *box.MinMonthlyRevenue) &&
		(box.MinMonthsInBusiness == nil || *f.MonthsInBusiness >= *box.MinMonthsInBusiness) &&
		!slices.ContainsFunc(box.ExcludedIndustries, func(x string) bool { return strings.EqualFold(x, *f.Industry) })
}

// seedOffer is an approval's terms.
type seedOffer struct {
	amount    money.Amount
	rate      money.Rate
	rateType  string
	term      int
	frequency string
}

// offer is what a lender of the product approves for requested.
func (b *book) offer(product string, requested money.Amount, ld *panelLender) seedOffer {
	// Between half and all of the amount asked, in steps of $500, within the lender's maximum.
	amt := requested.Cents() * int64(50+b.rng.IntN(51)) / 100 / 50000 * 50000
	if ld.box.MaxAmount != nil {
		amt = min(amt, ld.box.MaxAmount.Cents())
	}
	o := seedOffer{amount: money.FromCents(max(amt, 50000)), rateType: "apr", frequency: "monthly"}
	between := func(lo, hi, step int64) money.Rate {
		return money.FromMillionths(lo + b.rng.Int64N((hi-lo)/step+1)*step)
	}
	switch product {
	case "mca":
		o.rateType, o.rate, o.term = "factor", between(1_150_000, 1_490_000, 10_000), 3+b.rng.IntN(16)
		o.frequency = pickOf(b.rng, []string{"daily", "daily", "weekly"})
	case "invoice_factoring":
		o.rateType, o.rate, o.term, o.frequency = "factor", between(1_010_000, 1_050_000, 5_000), 1+b.rng.IntN(4), "weekly"
	case "line_of_credit":
		o.rate, o.term = between(120_000, 450_000, 1_000), pickOf(b.rng, []int{12, 18, 24})
	case "equipment":
		o.rate, o.term = between(65_000, 195_000, 1_000), pickOf(b.rng, []int{24, 36, 48, 60, 72})
	case "sba":
		o.rate, o.term = between(102_500, 132_500, 2_500), pickOf(b.rng, []int{120, 300})
	default: // term loans
		o.rate, o.term = between(79_000, 349_000, 1_000), 12+6*b.rng.IntN(9)
		o.frequency = pickOf(b.rng, []string{"monthly", "weekly"})
	}
	return o
}

// queueApp adds the application's row and returns its offer (zero unless approved).
func (b *book) queueApp(tx *ent.Client, l *seedLead, a *seedApp, funded bool, dealID uuid.UUID) seedOffer {
	ld := a.lender
	c := tx.Application.Create().SetID(a.id).SetOrgID(b.org).SetLeadID(l.id).SetLenderID(ld.id).SetLenderName(ld.name).
		SetStatus(a.status).SetRequestedAmount(a.requested).SetSubmittedAt(a.submitted).SetSubmittedBy(b.actor).
		SetWarnings(a.warnings).SetCreatedAt(a.submitted).SetUpdatedAt(a.updated).
		SetAmountBand(lendingrules.AmountBand(a.requested))
	industry := seedIndustries[l.kind]
	c.SetNillableIndustryKey(lendingrules.IndustryKey(&industry))
	if a.product != "" {
		c.SetProduct(application.Product(a.product))
	}
	if b.percent(80) {
		c.SetExternalRef(fmt.Sprintf("%s-%0*d", ld.prefix, seedRefDigits, ld.nextRef))
		ld.nextRef++
	}
	if b.percent(10) {
		c.SetNotes(pickOf(b.rng, seedNotes))
	}
	if a.withdrawn != "" {
		c.SetWithdrawnReason(a.withdrawn)
	}
	b.seeded.Applications++
	b.entry(tx, l.id, history.ApplicationSubmitted, a.submitted, a.id, fmt.Sprintf("Submitted to %s for %s", ld.name, a.requested))
	var o seedOffer
	if a.decided == nil {
		b.apps = append(b.apps, c)
		return o
	}
	// A decision carries its time and, for the lenders report's median,
	// its seconds since the submission, as lending.Decide stamps them.
	c.SetDecidedAt(*a.decided).SetDecisionSeconds(decision.Seconds(a.submitted, *a.decided))
	b.seeded.Decided++
	if a.approved {
		b.seeded.Approved++
		product := a.product
		if product == "" && len(ld.products) > 0 {
			product = ld.products[0]
		}
		o = b.offer(product, a.requested, ld)
		c.SetApprovedAmount(o.amount).SetInterestRate(o.rate).SetRateType(application.RateType(o.rateType)).
			SetTermMonths(o.term).SetPaymentFrequency(application.PaymentFrequency(o.frequency))
		conds := make([]string, 0, 3)
		for _, i := range b.rng.Perm(len(seedConditions))[:b.rng.IntN(4)] {
			conds = append(conds, seedConditions[i])
		}
		c.SetConditions(conds).SetStipulationsOutstanding(b.queueStipulations(tx, l, a, conds, funded))
		if funded {
			c.SetFundedDealID(dealID)
		}
		b.entry(tx, l.id, history.ApplicationApproved, *a.decided, a.id, fmt.Sprintf("%s approved %s", ld.name, o.amount))
	} else {
		b.seeded.Declined++
		category := b.declineCategory(a.warnings)
		c.SetDeclineReason(pickOf(b.rng, declineReasons[category])).SetDeclineCategory(application.DeclineCategory(category))
		b.entry(tx, l.id, history.ApplicationDeclined, *a.decided, a.id, fmt.Sprintf("%s declined the application", ld.name))
	}
	b.apps = append(b.apps, c)
	return o
}

// seedWaivers are the reasons an admin waives a stipulation for.
var seedWaivers = []string{"The lender accepted the bank's letter instead", "Covered by the signed application", "Not needed below 25k"}

// queueStipulations makes the approval's conditions its stipulations, in
// every state: a funded application's are all met (received, or waived
// with reason funded, as a funding that waives them leaves them); an open
// approval's are outstanding, received or waived. It returns how many are
// outstanding. The seed writes no files, so a received stipulation names
// no documents.
func (b *book) queueStipulations(tx *ent.Client, l *seedLead, a *seedApp, conds []string, funded bool) int {
	outstanding := 0
	for _, text := range conds {
		at, id := b.after(*a.decided, 2*day), uuid.Must(uuid.NewV7())
		s := tx.Stipulation.Create().SetID(id).SetOrgID(b.org).SetApplicationID(a.id).SetLeadID(l.id).SetText(text).
			SetCreatedAt(*a.decided).SetUpdatedAt(at)
		switch roll := b.rng.IntN(100); {
		case funded && roll < 20:
			s.SetStatus(stipulation.StatusWaived).SetWaivedAt(at).SetWaivedBy(b.actor).SetWaiveReason(lendingrules.WaivedByFunding)
			b.entry(tx, l.id, history.StipulationWaived, at, id, fmt.Sprintf("Stipulation waived at funding: %s", text))
		case funded || roll < 35:
			s.SetStatus(stipulation.StatusReceived).SetReceivedAt(at)
			b.entry(tx, l.id, history.StipulationReceived, at, id, "Stipulation received: "+text)
		case roll < 50:
			reason := pickOf(b.rng, seedWaivers)
			s.SetStatus(stipulation.StatusWaived).SetWaivedAt(at).SetWaivedBy(b.actor).SetWaiveReason(reason)
			b.entry(tx, l.id, history.StipulationWaived, at, id, fmt.Sprintf("Stipulation waived: %s (%s)", text, reason))
		default:
			s.SetUpdatedAt(*a.decided)
			outstanding++
		}
		b.stips = append(b.stips, s)
	}
	return outstanding
}

// declineCategory is the reason's kind: the box's miss when the file missed
// it, else drawn from declineMix.
func (b *book) declineCategory(warnings []string) string {
	for _, w := range warnings {
		switch {
		case strings.Contains(w, "monthlyRevenue"):
			return "revenue"
		case strings.Contains(w, "industry"):
			return "industry"
		case strings.Contains(w, "monthsInBusiness"):
			return "time_in_business"
		}
	}
	r := b.rng.IntN(100)
	for _, m := range declineMix {
		if r < m.percent {
			return m.category
		}
		r -= m.percent
	}
	return "other"
}

// queueDeal adds the deal of the funded application, its commission and
// the commission's payments.
func (b *book) queueDeal(tx *ent.Client, l *seedLead, a *seedApp, o seedOffer, dealID uuid.UUID, fundedAt time.Time) {
	ld := a.lender
	commissionID := uuid.Must(uuid.NewV7())
	// Rates are at most 10 and amounts far below MaxAmount: no overflow.
	expected, _ := lendingrules.ExpectedCommission(o.amount, ld.rate)
	d := tx.FundedDeal.Create().SetID(dealID).SetOrgID(b.org).SetApplicationID(a.id).SetLeadID(l.id).SetLenderID(ld.id).
		SetLenderName(ld.name).SetNillableAdvisorID(l.advisor).SetFundedAmount(o.amount).SetInterestRate(o.rate).
		SetRateType(fundeddeal.RateType(o.rateType)).SetTermMonths(o.term).SetPaymentFrequency(fundeddeal.PaymentFrequency(o.frequency)).
		SetExpectedCommission(expected).SetCommissionID(commissionID).SetFundedAt(fundedAt).
		SetCreatedAt(fundedAt).SetUpdatedAt(fundedAt)
	if payback, ok, _ := lendingrules.Payback(o.amount, o.rateType, o.rate); ok {
		d.SetPaybackAmount(payback)
	}
	// A renewal that came due in the book's past was announced then (a bulk
	// load emits no events); the sweeper announces the later ones.
	due := lendingrules.RenewalEligibleAt(fundedAt.UTC(), o.term)
	d.SetRenewalEligibleAt(due)
	if !due.After(b.now) {
		d.SetRenewalAnnouncedAt(due)
	}
	b.deals = append(b.deals, d)
	b.entry(tx, l.id, history.DealFunded, fundedAt, dealID, fmt.Sprintf("Funded %s by %s", o.amount, ld.name))
	b.days[lenderDay{ld.id, apitime.Day(apitime.Truncate(fundedAt))}]++
	b.seeded.Deals++

	// What the lender has paid so far: mostly nothing for a recent deal.
	var parts []money.Amount // payments, then at most one clawback (negative)
	r := b.rng.IntN(100)     // below 14 pending, then paid, partly paid, clawed back
	if b.now.Sub(fundedAt) < recentFundDays*day {
		r = 0 // pending
		if b.percent(25) {
			r = 80 // partly paid
		}
	}
	part := func(lo, hi int) money.Amount {
		return money.FromCents(expected.Cents() * int64(lo+b.rng.IntN(hi-lo+1)) / 100)
	}
	switch {
	case expected <= 1 || r < 14: // pending
	case r < 79: // paid, once or in two parts
		if b.percent(70) {
			parts = []money.Amount{expected}
		} else {
			first := max(part(40, 60), 1)
			parts = []money.Amount{first, expected - first}
		}
	case r < 95: // partly paid
		parts = []money.Amount{max(part(25, 75), 1)}
	default: // paid, then clawed back when the merchant defaulted early
		parts = []money.Amount{expected, -max(part(50, 100), 1)}
	}
	var paid money.Amount
	clawedBack := false
	at, updated := fundedAt, fundedAt
	for i, p := range parts {
		kind := commissionpayment.KindPayment
		if p < 0 {
			kind, p = commissionpayment.KindClawback, -p
			at = b.after(at, 2*seedPayDays*day)
			paid -= p
			clawedBack = true
		} else {
			at = b.after(at, seedPayDays*day)
			paid += p
		}
		paymentID := uuid.Must(uuid.NewV7())
		pc := tx.CommissionPayment.Create().SetID(paymentID).SetOrgID(b.org).SetCommissionID(commissionID).SetAmount(p).SetKind(kind).
			SetPaidAt(at).SetCreatedAt(at).SetUpdatedAt(at)
		if kind == commissionpayment.KindClawback {
			b.entry(tx, l.id, history.CommissionClawedBack, at, paymentID, fmt.Sprintf("Commission of %s clawed back", p))
		} else {
			b.entry(tx, l.id, history.CommissionPaid, at, paymentID, fmt.Sprintf("Commission of %s paid", p))
		}
		if b.percent(90) {
			pc.SetReference(fmt.Sprintf("%s-REM-%0*d-%d", ld.prefix, seedRefDigits, b.seeded.Deals, i+1))
		}
		b.payments = append(b.payments, pc)
		b.seeded.Payments++
		updated = at
	}
	status := lendingrules.CommissionPending
	if len(parts) > 0 {
		status = lendingrules.CommissionStatus(paid, expected, clawedBack)
	}
	switch status {
	case lendingrules.CommissionClawedBack:
		b.seeded.ClawedBack++
	case lendingrules.CommissionPaid:
		b.seeded.PaidInFull++
	case lendingrules.CommissionPartiallyPaid:
		b.seeded.PartlyPaid++
	default:
		b.seeded.PendingCommissions++
	}
	b.comms = append(b.comms, tx.Commission.Create().SetID(commissionID).SetOrgID(b.org).SetDealID(dealID).
		SetLeadID(l.id).SetLenderID(ld.id).SetNillableAdvisorID(l.advisor).SetExpectedAmount(expected).
		SetPaidAmount(paid).SetStatus(commission.Status(status)).SetCreatedAt(fundedAt).SetUpdatedAt(updated))
}

// flush writes the batch's queued records in foreign-key order, each table
// in as few statements as a statement's parameters allow.
func (b *book) flush(ctx context.Context, tx *ent.Client) error {
	for _, chunk := range chunks(b.apps, 1000) {
		if err := tx.Application.CreateBulk(chunk...).Exec(ctx); err != nil {
			return fmt.Errorf("applications: %w", err)
		}
	}
	for _, chunk := range chunks(b.stips, 1000) {
		if err := tx.Stipulation.CreateBulk(chunk...).Exec(ctx); err != nil {
			return fmt.Errorf("stipulations: %w", err)
		}
	}
	for _, chunk := range chunks(b.deals, 1000) {
		if err := tx.FundedDeal.CreateBulk(chunk...).Exec(ctx); err != nil {
			return fmt.Errorf("funded deals: %w", err)
		}
	}
	for _, chunk := range chunks(b.comms, 1000) {
		if err := tx.Commission.CreateBulk(chunk...).Exec(ctx); err != nil {
			return fmt.Errorf("commissions: %w", err)
		}
	}
	for _, chunk := range chunks(b.payments, 1000) {
		if err := tx.CommissionPayment.CreateBulk(chunk...).Exec(ctx); err != nil {
			return fmt.Errorf("commission payments: %w", err)
		}
	}
	for _, chunk := range chunks(b.history, 1000) {
		if err := tx.Activity.CreateBulk(chunk...).Exec(ctx); err != nil {
			return fmt.Errorf("the leads' lending history: %w", err)
		}
	}
	// The day counts, added to what earlier batches counted (slot 0).
	counts := make([]*ent.FundedDealDayCreate, 0, len(b.days))
	for k, n := range b.days {
		counts = append(counts, tx.FundedDealDay.Create().SetOrgID(b.org).SetLenderID(k.lender).SetDay(k.day).SetSlot(0).SetN(n))
	}
	for _, chunk := range chunks(counts, 1000) {
		err := tx.FundedDealDay.CreateBulk(chunk...).
			OnConflict(sql.ConflictColumns(fundeddealday.FieldOrgID, fundeddealday.FieldLenderID, fundeddealday.FieldDay, fundeddealday.FieldSlot),
				sql.ResolveWith(func(u *sql.UpdateSet) {
					u.Set(fundeddealday.FieldN, sql.Expr(u.Table().C(fundeddealday.FieldN)+" + excluded."+fundeddealday.FieldN))
				})).Exec(ctx)
		if err != nil {
			return fmt.Errorf("deal day counts: %w", err)
		}
	}
	clear(b.days)
	b.apps, b.deals, b.comms, b.payments, b.history = b.apps[:0], b.deals[:0], b.comms[:0], b.payments[:0], b.history[:0]
	b.stips = b.stips[:0]
	return nil
}

func chunks[T any](s []T, size int) [][]T {
	var out [][]T
	for len(s) > 0 {
		n := min(size, len(s))
		out, s = append(out, s[:n]), s[n:]
	}
	return out
}

// entry queues one entry of the lead's history, as the lending flows
// write it, at the time of its change.
func (b *book) entry(tx *ent.Client, lead uuid.UUID, kind string, at time.Time, record uuid.UUID, summary string) {
	b.history = append(b.history, historyEntry(tx, b.org, lead, kind, at, record, summary))
}
