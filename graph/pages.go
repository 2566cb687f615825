package graph

import (
	"github.com/lendingpipe/svc/dialer"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/webhooks"
)

// The GraphQL page types (gqlgen.yml binds each to its type here), each a
// Page of its node.
type (
	LeadPage            Page[*ent.Lead]
	PipelineStagePage   Page[*ent.PipelineStage]
	UserPage            Page[*ent.User]
	TeamPage            Page[*ent.Team]
	LenderPage          Page[*ent.Lender]
	ApplicationPage     Page[*ent.Application]
	FundedDealPage      Page[*ent.FundedDeal]
	CommissionPage      Page[*ent.Commission]
	AgentBoardPage      Page[*dialer.AgentStatus]
	DeliveryPage        Page[*webhooks.DeliveryRecord]
	InboundRequestPage  Page[*ent.InboundRequest]
	AutomationRunPage   Page[*ent.AutomationRun]
	ApiKeyPage          Page[*ent.APIKey]
	AppPage             Page[*ent.App]
	AppInstallationPage Page[*ent.AppInstallation]
	DocumentPage        Page[*ent.Document]
	ImportJobPage       Page[*ent.ImportJob]
	NotePage            Page[*ent.Note]
	TaskPage            Page[*ent.Task]
	StipulationPage     Page[*ent.Stipulation]
)
