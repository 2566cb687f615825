package seed

import (
	"context"
	"errors"
	"fmt"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/organization"
	"github.com/lendingpipe/svc/ent/pipelinestage"
	"github.com/lendingpipe/svc/internal/rule"
	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/viewer"
	"github.com/lendingpipe/svc/leads"
	"github.com/lendingpipe/svc/people"
)

// DemoOrgName names the demo organization. CreateDemo makes one only when
// no organization has this name, so asking for it again changes nothing.
const DemoOrgName = "Demo Lending Co"

// DemoTeam is the demo organization's team: its advisors and agents.
const DemoTeam = "Closers"

// Demo is what CreateDemo made for a newcomer. The key and the connector
// token are shown only now.
type Demo struct {
	OrgID, APIKey, ConnectorToken string
	// Admin is the demo organization's admin, invited to sign in to the
	// console: Invitation is the token that sets their password.
	Admin, Invitation            string
	Scopes                       []string
	Advisors, Agents, Leads      int
	Lenders, Applications, Deals int
}

// demoPeople are the demo organization's users: advisors own leads, agents
// appear on the dialer board.
var demoPeople = []store.UserSpec{
	{First: "Maya", Last: "Chen", Email: "maya.chen@demo.example", Role: "advisor", Team: DemoTeam},
	{First: "Sam", Last: "Ortiz", Email: "sam.ortiz@demo.example", Role: "advisor", Team: DemoTeam},
	{First: "Riley", Last: "Brooks", Email: "riley.brooks@demo.example", Role: "agent", Team: DemoTeam},
	{First: "Jordan", Last: "Kim", Email: "jordan.kim@demo.example", Role: "agent", Team: DemoTeam},
	{First: "Alex", Last: "Morgan", Email: DemoAdminEmail, Role: "admin"},
}

// DemoAdminEmail is the demo organization's admin: the person a newcomer
// signs in to the console as, once they have set a password with the
// invitation the first start prints.
const DemoAdminEmail = "alex.morgan@demo.example"

// demoLead is a lead of the demo organization: its stage by key, and the
// index in demoPeople of its advisor (-1 for none).
type demoLead struct {
	business, first, last, email, amount, stage string
	advisor                                     int
}

// demoLeads cover every stage of the default pipeline; most have an advisor.
var demoLeads = []demoLead{
	{"Harbor Trucking LLC", "Dana", "Reyes", "dana@harbortrucking.example", "120000", "new", -1},
	{"Cedar Dental Group", "Omar", "Haddad", "omar@cedardental.example", "85000", "new", -1},
	{"Summit Bakery Co", "Lena", "Novak", "lena@summitbakery.example", "40000", "contacted", 0},
	{"Atlas Auto Repair Inc", "Kofi", "Okafor", "kofi@atlasauto.example", "150000", "qualified", 1},
	{"Beacon Logistics Partners", "Priya", "Patel", "priya@beaconlogistics.example", "500000", "application", 0},
	{"Maple Salon & Sons", "Gus", "Rossi", "gus@maplesalon.example", "25000", "approved", 1},
	{"Granite Construction Group", "Hana", "Tanaka", "hana@graniteconstruction.example", "750000", "funded", 0},
	{"Willow Pharmacy Inc", "Ivan", "Silva", "ivan@willowpharmacy.example", "60000", "lost", -1},
}

// CreateDemo creates the demo organization (DemoOrgName) with an API key
// holding every scope, advisors and agents in one team, leads across the
// pipeline, and its lending book (demobook.go), all in one transaction. It
// returns nil when the database already has a demo organization, or once
// had one: it is made once per database, however many replicas start at
// once on it (store.ClaimDemo).
func CreateDemo(ctx context.Context, db *store.DB) (*Demo, error) {
	var demo *Demo
	err := store.WithTx(rule.SystemContext(ctx), db.Client, func(ctx context.Context, tx *ent.Client) error {
		exists, err := tx.Organization.Query().Where(organization.Name(DemoOrgName)).Exist(ctx)
		if err != nil || exists {
			return err
		}
		claimed, err := store.ClaimDemo(ctx, tx)
		if err != nil {
			return err
		}
		if !claimed {
			return errDemoClaimed // the failed claim ended the transaction
		}
		demo, err = createDemo(ctx, tx)
		return err
	})
	if errors.Is(err, errDemoClaimed) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("creating the demo organization: %w", err)
	}
	return demo, nil
}

// errDemoClaimed says another process made the demo organization meanwhile.
var errDemoClaimed = errors.New("the demo organization was made by another process")

func createDemo(ctx context.Context, tx *ent.Client) (*Demo, error) {
	org, token, err := store.CreateOrganization(ctx, tx, DemoOrgName)
	if err != nil {
		return nil, err
	}
	key, _, err := store.CreateAPIKey(ctx, tx, org.ID, "live", "demo", viewer.AllScopes)
	if err != nil {
		return nil, fmt.Errorf("creating the demo key: %w", err)
	}
	demo := &Demo{OrgID: org.ID.String(), APIKey: key, ConnectorToken: token, Scopes: viewer.AllScopes}
	users := make([]*ent.User, len(demoPeople))
	for i, p := range demoPeople {
		p.OrgID = org.ID
		if users[i], err = store.CreateUser(ctx, tx, p); err != nil {
			return nil, fmt.Errorf("creating demo user %s %s: %w", p.First, p.Last, err)
		}
		switch p.Role {
		case "agent":
			demo.Agents++
		case "advisor":
			demo.Advisors++
		case "admin":
			if err := inviteDemoAdmin(ctx, tx, demo, users[i]); err != nil {
				return nil, err
			}
		}
	}
	stages, err := tx.PipelineStage.Query().Where(pipelinestage.OrgID(org.ID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("loading the demo pipeline: %w", err)
	}
	stageID := make(map[string]*ent.PipelineStage, len(stages))
	for _, st := range stages {
		stageID[st.StageKey] = st
	}
	made := map[string]*ent.Lead{}
	for _, l := range demoLeads {
		st, ok := stageID[l.stage]
		if !ok {
			return nil, fmt.Errorf("demo lead %s: the default pipeline has no stage %q", l.business, l.stage)
		}
		in := ent.CreateLeadInput{BusinessName: &l.business, ContactFirstName: &l.first, ContactLastName: &l.last,
			Email: &l.email, RequestedAmount: &l.amount, StageID: &st.ID}
		if l.advisor >= 0 {
			in.PrimaryAdvisorID = &users[l.advisor].ID
		}
		created, err := leads.Create(ctx, tx, in, func(m *ent.LeadMutation) { m.SetOrgID(org.ID) })
		if err != nil {
			return nil, fmt.Errorf("creating demo lead %s: %w", l.business, err)
		}
		made[l.business] = created
		demo.Leads++
	}
	if err := createDemoBook(ctx, tx, org.ID, made, demo); err != nil {
		return nil, fmt.Errorf("creating the demo lending book: %w", err)
	}
	return demo, nil
}

// inviteDemoAdmin invites u, the demo organization's admin, as an admin
// would: the first start prints the invitation.
func inviteDemoAdmin(ctx context.Context, tx *ent.Client, demo *Demo, u *ent.User) error {
	admin := viewer.NewContext(ctx, viewer.Viewer{OrgID: u.OrgID, Scopes: []string{viewer.ScopeAdmin}})
	inv, err := people.New(people.Settings{}).InviteUser(admin, tx, u.ID)
	if err != nil {
		return fmt.Errorf("inviting the demo admin: %w", err)
	}
	demo.Admin, demo.Invitation = u.Email, inv.Token
	return nil
}
