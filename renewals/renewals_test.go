package renewals_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/fundeddeal"
	"github.com/lendingpipe/svc/ent/notification"
	"github.com/lendingpipe/svc/ent/privacy"
	"github.com/lendingpipe/svc/ent/user"
	"github.com/lendingpipe/svc/ent/webhookevent"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/internal/lendingrules"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/lending"
	"github.com/lendingpipe/svc/myday"
	"github.com/lendingpipe/svc/renewals"
)

// book is an organization of a real database (SQLite, or PostgreSQL when
// SVC_TEST_DATABASE_URL is set), an advisor and a panel of lenders, for
// deals funded through the lending flows.
type book struct {
	db      *store.DB
	org     uuid.UUID
	as      context.Context
	advisor uuid.UUID
	lenders []uuid.UUID
	now     time.Time
}

func newBook(t *testing.T, db *store.DB) *book {
	t.Helper()
	ctx := context.Background()
	o, _, err := store.CreateOrganization(ctx, db.Client, "Renewing Brokers")
	if err != nil {
		t.Fatal(err)
	}
	b := &book{db: db, org: o.ID, now: time.Now().UTC(),
		as: viewer.NewContext(ctx, viewer.Viewer{OrgID: o.ID, KeyID: uuid.New(), Scopes: viewer.AllScopes})}
	adv, err := db.Client.User.Create().SetOrgID(o.ID).SetFirstName("Ada").SetLastName("Byron").
		SetEmail(uuid.NewString()[:8] + "@example.com").SetRole(user.RoleAdvisor).Save(rule.SystemContext(b.as))
	if err != nil {
		t.Fatal(err)
	}
	b.advisor = adv.ID
	for _, name := range []string{"Alpha Capital", "Beta Funding", "Gamma Lending"} {
		ld, err := db.Client.Lender.Create().SetName(name).Save(b.as)
		if err != nil {
			t.Fatal(err)
		}
		b.lenders = append(b.lenders, ld.ID)
	}
	return b
}

// lead is a new lead, the advisor's when mine.
func (b *book) lead(t *testing.T, name string, mine bool) uuid.UUID {
	t.Helper()
	in := ent.CreateLeadInput{BusinessName: &name}
	if mine {
		in.PrimaryAdvisorID = &b.advisor
	}
	l, err := leads.Create(b.as, b.db.Client, in)
	if err != nil {
		t.Fatal(err)
	}
	return l.ID
}

// submit sends the lead to the lender at index lender.
func (b *book) submit(t *testing.T, lead uuid.UUID, lender int) *ent.Application {
	t.Helper()
	amount := money.FromCents(2_500_000)
	a, err := lending.Submit(b.as, b.db.Client, lending.Submission{LeadID: lead, LenderID: b.lenders[lender], RequestedAmount: &amount})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// fund submits, approves on term months and funds the lead at fundedAt.
func (b *book) fund(t *testing.T, lead uuid.UUID, lender, term int, fundedAt time.Time) *ent.FundedDeal {
	t.Helper()
	a := b.submit(t, lead, lender)
	rate, _ := money.ParseRate("1.3")
	factor := application.RateTypeFactor
	if _, err := lending.Decide(b.as, b.db.Client, a.ID, lending.Decision{Approved: true, InterestRate: &rate, RateType: &factor, TermMonths: &term}); err != nil {
		t.Fatal(err)
	}
	d, err := lending.Fund(b.as, b.db.Client, lending.Funding{ApplicationID: a.ID, FundedAt: &fundedAt})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (b *book) queue(t *testing.T, f renewals.Filter, skip, limit int) renewals.Page {
	t.Helper()
	p, err := renewals.Queue(b.as, b.db.Client, f, skip, limit)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func dealIDs(p renewals.Page) []uuid.UUID {
	out := make([]uuid.UUID, len(p.Entries))
	for i, e := range p.Entries {
		out[i] = e.DealID
	}
	return out
}

func same(a, b []uuid.UUID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The queue holds the deals come due whose lead has moved on neither to
// an application in play nor to a later deal, earliest eligible first.
func TestQueue(t *testing.T) {
	b := newBook(t, storetest.Open(t))
	months := func(n int) time.Time { return b.now.AddDate(0, n, 0) }

	due := b.lead(t, "Due Bakery", true)
	dueDeal := b.fund(t, due, 0, 12, months(-7)) // eligible a month ago
	if want := lendingrules.RenewalEligibleAt(dueDeal.FundedAt, 12); dueDeal.RenewalEligibleAt == nil || !dueDeal.RenewalEligibleAt.Equal(want) {
		t.Fatalf("funding set renewalEligibleAt %v, want %s", dueDeal.RenewalEligibleAt, want)
	}
	older := b.lead(t, "Older Garage", false)
	olderDeal := b.fund(t, older, 1, 5, months(-9)) // eligible six months ago
	notYet := b.lead(t, "Not Yet Florist", true)
	notYetDeal := b.fund(t, notYet, 0, 12, months(-2)) // eligible in four months
	renewing := b.lead(t, "Renewing Deli", true)
	renewingDeal := b.fund(t, renewing, 0, 6, months(-10))
	open := b.submit(t, renewing, 1) // a renewal in play
	again := b.lead(t, "Again Hardware", true)
	b.fund(t, again, 0, 6, months(-12))
	againLater := b.fund(t, again, 1, 6, months(-8)) // the later deal supersedes the first

	t.Run("DueByNow", func(t *testing.T) {
		p := b.queue(t, renewals.Filter{}, 0, 20)
		want := []uuid.UUID{olderDeal.ID, againLater.ID, dueDeal.ID}
		if !same(dealIDs(p), want) || p.Total != 3 {
			t.Fatalf("queue %v (total %d), want %v", dealIDs(p), p.Total, want)
		}
		e := p.Entries[2]
		if e.LeadID != due || e.BusinessName == nil || *e.BusinessName != "Due Bakery" || e.LenderID != b.lenders[0] ||
			e.LenderName != "Alpha Capital" || e.AdvisorID == nil || *e.AdvisorID != b.advisor ||
			e.FundedAmount != dueDeal.FundedAmount || !e.FundedAt.Equal(dueDeal.FundedAt) || !e.RenewalEligibleAt.Equal(*dueDeal.RenewalEligibleAt) {
			t.Fatalf("entry %+v of deal %+v", e, dueDeal)
		}
	})
	t.Run("Paged", func(t *testing.T) {
		p := b.queue(t, renewals.Filter{}, 1, 1)
		if !same(dealIDs(p), []uuid.UUID{againLater.ID}) || p.Total != 3 {
			t.Fatalf("page 2 of 1: %v (total %d)", dealIDs(p), p.Total)
		}
	})
	t.Run("DueBefore", func(t *testing.T) {
		p := b.queue(t, renewals.Filter{DueBefore: ptr(months(5))}, 0, 20)
		want := []uuid.UUID{olderDeal.ID, againLater.ID, dueDeal.ID, notYetDeal.ID}
		if !same(dealIDs(p), want) {
			t.Fatalf("due in five months: %v, want %v", dealIDs(p), want)
		}
		p = b.queue(t, renewals.Filter{DueBefore: ptr(*dueDeal.RenewalEligibleAt)}, 0, 20)
		if !same(dealIDs(p), []uuid.UUID{olderDeal.ID, againLater.ID, dueDeal.ID}) {
			t.Fatalf("due at the due deal's instant (inclusive): %v", dealIDs(p))
		}
	})
	t.Run("Advisor", func(t *testing.T) {
		p := b.queue(t, renewals.Filter{AdvisorID: &b.advisor}, 0, 20)
		if !same(dealIDs(p), []uuid.UUID{againLater.ID, dueDeal.ID}) || p.Total != 2 {
			t.Fatalf("the advisor's: %v (total %d)", dealIDs(p), p.Total)
		}
	})
	t.Run("MyDay", func(t *testing.T) {
		asAdvisor := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: b.org, UserID: b.advisor,
			Scopes: viewer.RoleScopes[viewer.RoleAdvisor]})
		d, err := myday.Of(asAdvisor, b.db.Client, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := myday.RenewalsDue(asAdvisor, b.db.Client, d)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]uuid.UUID, len(got.Nodes))
		for i, n := range got.Nodes {
			ids[i] = n.ID
		}
		if !same(ids, []uuid.UUID{againLater.ID, dueDeal.ID}) || got.Total != 2 {
			t.Fatalf("the advisor's day: %v (total %d)", ids, got.Total)
		}
	})
	t.Run("ApplicationClosed", func(t *testing.T) {
		if _, err := lending.Withdraw(b.as, b.db.Client, open.ID, ptr("merchant changed their mind")); err != nil {
			t.Fatal(err)
		}
		p := b.queue(t, renewals.Filter{}, 0, 20)
		want := []uuid.UUID{renewingDeal.ID, olderDeal.ID, againLater.ID, dueDeal.ID}
		if !same(dealIDs(p), want) || p.Total != 4 {
			t.Fatalf("after the withdrawal: %v (total %d), want %v", dealIDs(p), p.Total, want)
		}
	})
	t.Run("NeedsLendingRead", func(t *testing.T) {
		leadsOnly := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: b.org, KeyID: uuid.New(), Scopes: []string{viewer.ScopeLeadsRead}})
		_, err := renewals.Queue(leadsOnly, b.db.Client, renewals.Filter{}, 0, 20)
		if !errors.Is(err, privacy.Deny) || !strings.Contains(err.Error(), viewer.ScopeLendingRead) {
			t.Fatalf("without lending:read: %v", err)
		}
	})
	t.Run("OtherOrganization", func(t *testing.T) {
		o, _, err := store.CreateOrganization(context.Background(), b.db.Client, "Other Brokers")
		if err != nil {
			t.Fatal(err)
		}
		other := viewer.NewContext(context.Background(), viewer.Viewer{OrgID: o.ID, KeyID: uuid.New(), Scopes: viewer.AllScopes})
		p, err := renewals.Queue(other, b.db.Client, renewals.Filter{AdvisorID: &b.advisor}, 0, 20)
		if err != nil || p.Total != 0 || len(p.Entries) != 0 {
			t.Fatalf("another organization's queue: %+v, %v", p, err)
		}
	})
}

// Two sweepers on one database (two servers' workers) announce each deal
// come due exactly once, event and notification, in batches past the
// first; a deal due later is left for its time.
func TestSweepAnnouncesEachDealOnce(t *testing.T) {
	url := storetest.URL(t)
	open := func() *store.DB {
		db, err := store.Open(context.Background(), url, store.Options{FilesURL: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	one, two := open(), open()
	b := newBook(t, one)
	const dueDeals = 130 // more than one sweep's batch
	due := map[uuid.UUID]bool{}
	for i := range dueDeals {
		l := b.lead(t, "Swept "+uuid.NewString()[:6], i%2 == 0)
		d := b.fund(t, l, i%3, 2+i%5, b.now.AddDate(0, -4, -i%20))
		due[d.ID] = true
	}
	later := b.fund(t, b.lead(t, "Later Cafe", true), 0, 12, b.now.AddDate(0, -1, 0))

	var wg sync.WaitGroup
	counts := make([]int, 2)
	errs := make([]error, 2)
	for i, db := range []*store.DB{one, two} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				n, err := renewals.Sweep(context.Background(), db.Client, b.now)
				counts[i] += n
				if err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if counts[0]+counts[1] != dueDeals {
		t.Fatalf("the sweepers announced %d and %d, want %d in all", counts[0], counts[1], dueDeals)
	}
	sys := rule.SystemContext(context.Background())
	evs, err := one.Client.WebhookEvent.Query().Where(webhookevent.EventType(event.DealRenewalEligible)).All(sys)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, ev := range evs {
		id, _ := ev.Data["dealId"].(string)
		seen[id]++
		if ev.OrgID != b.org || ev.Data["orgId"] != b.org.String() || ev.Data["leadId"] == nil || ev.Data["lenderId"] == nil || ev.Data["renewalEligibleAt"] == nil {
			t.Fatalf("event data %v", ev.Data)
		}
	}
	for id := range due {
		if seen[id.String()] != 1 {
			t.Errorf("deal %s announced %d times, want once", id, seen[id.String()])
		}
	}
	if len(evs) != dueDeals || seen[later.ID.String()] != 0 {
		t.Fatalf("%d events (the later deal's %d), want %d", len(evs), seen[later.ID.String()], dueDeals)
	}
	notes, err := one.Client.Notification.Query().Where(notification.Kind("deal.renewal_due")).All(sys)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != dueDeals/2 {
		t.Fatalf("%d notifications, want one per deal with an advisor (%d)", len(notes), dueDeals/2)
	}
	for _, n := range notes {
		if n.UserID != b.advisor || n.RecordID == nil || !due[*n.RecordID] {
			t.Fatalf("notification %+v", n)
		}
	}

	// The later deal is announced once its time comes, and only then.
	if n, err := renewals.Sweep(context.Background(), two.Client, later.RenewalEligibleAt.Add(-time.Second)); err != nil || n != 0 {
		t.Fatalf("a second before it is due: %d, %v", n, err)
	}
	if n, err := renewals.Sweep(context.Background(), two.Client, *later.RenewalEligibleAt); err != nil || n != 1 {
		t.Fatalf("when it is due: %d, %v", n, err)
	}
	d, err := one.Client.FundedDeal.Query().Where(fundeddeal.ID(later.ID)).Only(sys)
	if err != nil || d.RenewalAnnouncedAt == nil {
		t.Fatalf("the later deal after its sweep: %+v, %v", d, err)
	}
}

func ptr[T any](v T) *T { return &v }

// A database whose deals predate their renewal dates gets them at its next
// start, with whether each lead has moved on; a renewal long due is marked
// announced (no backlog of events), one still ahead is left to the sweep.
func TestBackfillAtStart(t *testing.T) {
	url := storetest.URL(t)
	db, err := store.Open(context.Background(), url, store.Options{FilesURL: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	b := newBook(t, db)
	old := b.fund(t, b.lead(t, "Old Bakery", true), 0, 6, b.now.AddDate(-1, 0, 0))
	moved := b.lead(t, "Moved Garage", true)
	movedDeal := b.fund(t, moved, 0, 6, b.now.AddDate(-1, 0, 0))
	b.submit(t, moved, 1)
	ahead := b.fund(t, b.lead(t, "Ahead Florist", true), 0, 24, b.now.AddDate(0, -1, 0))
	sys := rule.SystemContext(context.Background())
	err = db.Client.FundedDeal.Update().ClearRenewalEligibleAt().ClearRenewalAnnouncedAt().SetRenewalSuperseded(false).Exec(sys)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for range 2 { // idempotent: the second start finds nothing to do
		db, err = store.Open(context.Background(), url, store.Options{FilesURL: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []struct {
			deal       *ent.FundedDeal
			superseded bool
			announced  bool
		}{{old, false, true}, {movedDeal, true, true}, {ahead, false, false}} {
			d, err := db.Client.FundedDeal.Get(sys, want.deal.ID)
			if err != nil {
				t.Fatal(err)
			}
			if d.RenewalEligibleAt == nil || !d.RenewalEligibleAt.Equal(*want.deal.RenewalEligibleAt) ||
				d.RenewalSuperseded != want.superseded || (d.RenewalAnnouncedAt != nil) != want.announced {
				t.Errorf("deal funded %s: eligible %v, superseded %v, announced %v; want %s, %v, %v", d.FundedAt,
					d.RenewalEligibleAt, d.RenewalSuperseded, d.RenewalAnnouncedAt, want.deal.RenewalEligibleAt, want.superseded, want.announced)
			}
		}
		db.Close()
	}
}
