package rest

import (
	"maps"
	"reflect"

	"github.com/lendingpipe/svc/internal/autodef"
	"github.com/lendingpipe/svc/internal/event"
	"github.com/lendingpipe/svc/webhooks"
)

// resource is one resource type: its attributes, and which envelopes of it
// the operations use.
type resource struct {
	name, typ     string
	id            m
	view          any // the attributes as the handler encodes them
	single, paged bool
	totalOnly     bool // a collection whose meta has only total
}

// nestedViews are the shapes inside the resources that have a component
// of their own.
var nestedViews = map[string]any{
	"Stage":               stageView{},
	"CommissionPayment":   paymentView{},
	"DeliveryAttempt":     webhooks.AttemptRecord{},
	"AutomationTrigger":   triggerView{},
	"AutomationCondition": autodef.Condition{},
	"AutomationAction":    autodef.Action{},
	"Error":               ErrorBody{},
	"ActivityActor":       activityActor{},
	"ActivityChange":      activityChange{},
	"LenderMatchMiss":     lenderMatchMiss{},
}

// views are every view's component name and Go shape.
func views() map[string]any {
	out := maps.Clone(nestedViews)
	maps.Copy(out, analyticsViews)
	for _, r := range append(resources(), reportResources()...) {
		out[r.name] = r.view
	}
	return out
}

// generator generates the views' components, each referring to the others.
func generator() viewGenerator {
	g := viewGenerator{components: map[reflect.Type]string{}}
	for name, v := range views() {
		g.components[reflect.TypeOf(v)] = name
	}
	return g
}

func (r resource) addTo(out m, g viewGenerator) {
	out[r.name] = g.schema(r.view)
	out[r.name+"Resource"] = record(m{"id": r.id, "type": enumS(r.typ), "attributes": sRef(r.name)})
	if r.single {
		out[r.name+"Envelope"] = record(m{"data": sRef(r.name + "Resource"), "meta": sRef("Meta")})
	}
	if r.paged {
		out[r.name+"List"] = record(m{"data": arr(sRef(r.name + "Resource")), "meta": sRef("PageMeta")})
	}
	if r.totalOnly {
		out[r.name+"TotalList"] = record(m{"data": arr(sRef(r.name + "Resource")), "meta": sRef("TotalMeta")})
	}
}

func prefixed(prefix string) m {
	return m{"type": "string", "pattern": "^" + prefix + "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"}
}

// resources are the resource types with a view, and the form of their ids.
func resources() []resource {
	return []resource{
		{name: "Lead", typ: "lead", id: uuidS(), view: leadAttributes{}, single: true, paged: true},
		{name: "PipelineStage", typ: "stage", id: uuidS(), view: stageAttributes{}, paged: true},
		{name: "User", typ: "user", id: uuidS(), view: userAttributes{}, paged: true},
		{name: "Team", typ: "team", id: uuidS(), view: teamAttributes{}, paged: true},
		{name: "CallEvent", typ: "call_event", id: prefixed(callEventPrefix), view: callEventAttributes{}, single: true},
		{name: "AgentPresence", typ: "agent_presence", id: prefixed(presencePrefix), view: presenceAttributes{}, single: true, paged: true},
		{name: "DoNotCall", typ: "do_not_call", id: str(), view: dncAttributes{}, single: true},
		{name: "WebhookSubscription", typ: "webhook_subscription", id: prefixed(subscriptionPrefix), view: subscriptionAttributes{}, single: true, totalOnly: true},
		{name: "WebhookDelivery", typ: "webhook_delivery", id: prefixed(webhooks.DeliveryIDPrefix), view: webhooks.DeliveryRecord{}, single: true, paged: true},
		{name: "WebhookReplay", typ: "webhook_replay", id: enumS("replay"), view: replayAttributes{}, single: true},
		{name: "WebhookEventType", typ: "webhook_event_type", id: str(), view: event.Type{}, totalOnly: true},
		{name: "InboundEndpoint", typ: "inbound_endpoint", id: uuidS(), view: inboundAttributes{}, single: true, totalOnly: true},
		{name: "InboundRequest", typ: "inbound_request", id: uuidS(), view: inboundRequestAttributes{}, paged: true},
		{name: "Automation", typ: "automation", id: uuidS(), view: automationAttributes{}, single: true, paged: true},
		{name: "AutomationRun", typ: "automation_run", id: uuidS(), view: runAttributes{}, single: true, paged: true},
		{name: "Lender", typ: "lender", id: uuidS(), view: lenderAttributes{}, single: true, paged: true},
		{name: "Application", typ: "application", id: uuidS(), view: applicationAttributes{}, single: true, paged: true},
		{name: "FundedDeal", typ: "funded_deal", id: uuidS(), view: fundedDealAttributes{}, single: true, paged: true},
		{name: "Commission", typ: "commission", id: uuidS(), view: commissionAttributes{}, single: true, paged: true},
		{name: "Task", typ: "task", id: uuidS(), view: taskAttributes{}, paged: true},
		{name: "Renewal", typ: "renewal", id: uuidS(), view: renewalAttributes{}, paged: true},
		{name: "Stipulation", typ: "stipulation", id: uuidS(), view: stipulationAttributes{}, paged: true},
		{name: "Offer", typ: "offer", id: uuidS(), view: offerAttributes{}, totalOnly: true},
		{name: "LenderMatch", typ: "lender_match", id: uuidS(), view: lenderMatchAttributes{}, totalOnly: true},
		{name: "Activity", typ: "activity", id: uuidS(), view: activityAttributes{}, paged: true},
		{name: "AppInstallation", typ: "app_installation", id: uuidS(), view: installationAttributes{}, paged: true},
		{name: "Status", typ: "status", id: enumS("status"), view: statusAttributes{}, single: true},
	}
}
