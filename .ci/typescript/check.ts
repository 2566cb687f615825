// Uses the types openapi-typescript generates from the served document
// (generated/api.d.ts, made by .ci/run), as an integrator's code would. tsc
// --noEmit fails if the types cannot express these calls, and the lines
// marked as expected errors fail it if the types stop refusing what the
// API refuses.
import type { components, operations, paths } from "./generated/api";

type Schemas = components["schemas"];
type Json<R> = R extends { content: { "application/json": infer B } } ? B : never;

// Discovery: the ids the writes take.
type StagePage = Json<operations["listStages"]["responses"][200]>;
type UserPage = Json<paths["/v1/users"]["get"]["responses"][200]>;
type UserQuery = NonNullable<operations["listUsers"]["parameters"]["query"]>;

const agents: UserQuery = { role: "agent", page: 1, limit: 100 };
// @ts-expect-error: not a role
const boss: UserQuery = { role: "boss" };

function qualifiedStage(page: StagePage): string | undefined {
  return page.data.find((s) => s.attributes.semanticSlot === "qualified")?.id;
}

function advisorIds(page: UserPage): string[] {
  return page.data.filter((u) => u.attributes.role === "advisor").map((u) => u.id);
}

function teamNames(page: UserPage): (string | null)[] {
  return page.data.map((u) => u.attributes.teamName);
}

// Writes with the discovered ids.
function newLead(stageId: string, advisorId: string): Schemas["LeadCreate"] {
  return { businessName: "Acme Trucking LLC", priority: "high", stageId, assignToAdvisorId: advisorId, tags: ["hot"] };
}
// @ts-expect-error: not a priority
const extreme: Schemas["LeadCreate"] = { priority: "extreme" };
const cleared: Schemas["LeadPatch"] = { priority: null, email: null };

// A dialer body under its canonical names or its aliases.
const canonical: Schemas["CallEventBody"] = {
  externalCallId: "c-881", userId: "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6c01", eventType: "call_started", occurredAt: "2026-11-22T14:03:00Z",
};
const aliased: Schemas["CallEventBody"] = {
  call_id: "c-881", agent_id: "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6c01", event_type: "call_ended", duration: 125, timestamp: 1795341600,
};
// @ts-expect-error: eventType is required under its canonical name
const partial: Schemas["CallEventInput"] = { externalCallId: "c-1", userId: "u", occurredAt: "2026-11-22T14:03:00Z" };

// Errors name the field.
function invalidField(e: Schemas["ErrorEnvelope"]): string | undefined {
  const first = e.errors[0];
  return first?.code === "VALIDATION_ERROR" ? String(first.detail["field"]) : undefined;
}

// The lending half, read through REST: amounts are decimal strings, the
// filters' enumerations are closed, nullable offers say so.
type DealQuery = NonNullable<operations["listFundedDeals"]["parameters"]["query"]>;
type CommissionQuery = NonNullable<operations["listCommissions"]["parameters"]["query"]>;
type CommissionPage = Json<operations["listCommissions"]["responses"][200]>;
type Application = Schemas["Application"];

const november: DealQuery = { fundedFrom: "2026-11-01T00:00:00Z", fundedTo: "2026-12-01T00:00:00Z", limit: 100 };
const clawedBack: CommissionQuery = { status: "clawed_back" };
// @ts-expect-error: not a commission status
const settled: CommissionQuery = { status: "settled" };

function outstanding(page: CommissionPage): { dealId: string; expected: string; paid: string }[] {
  return page.data
    .filter((c) => c.attributes.status !== "paid")
    .map((c) => ({ dealId: c.attributes.dealId, expected: c.attributes.expectedAmount, paid: c.attributes.paidAmount }));
}

function offer(a: Application): string | null {
  // @ts-expect-error: the offer's rate is null unless approved
  const rate: string = a.interestRate;
  return a.approvedAmount === null ? null : `${a.approvedAmount} at ${a.interestRate ?? rate} (${a.rateType})`;
}

// The reports: the shared parameters' interval is a closed enumeration,
// figures are numbers or decimal strings, a lender without a decision has
// no median, and an agent's dispositions map a code to a count.
type ReportQuery = NonNullable<operations["getFundingReport"]["parameters"]["query"]>;
type FundingReport = Json<operations["getFundingReport"]["responses"][200]>;
type LendersReport = Json<paths["/v1/analytics/lenders"]["get"]["responses"][200]>;
type DialerReport = Schemas["DialerReport"];

const lastQuarter: ReportQuery = { from: "2026-09-01", to: "2026-11-30", timezone: "America/New_York", interval: "month" };
// @ts-expect-error: not an interval
const fortnightly: ReportQuery = { interval: "fortnight" };

function fundedByMonth(r: FundingReport): { month: string; amount: string }[] {
  return r.data.attributes.series.map((b) => ({ month: b.periodStart, amount: b.fundedAmount }));
}

function decisionTimes(r: LendersReport): { lender: string; seconds: number }[] {
  return r.data.attributes.lenders.flatMap((l) =>
    l.medianSecondsToDecision === null ? [] : [{ lender: l.name, seconds: l.medianSecondsToDecision }]);
}

function median(l: Schemas["LenderStats"]): number {
  // @ts-expect-error: the median is null when nothing was decided
  return l.medianSecondsToDecision;
}

function interested(r: DialerReport): number {
  return r.agents.reduce((n, a) => n + (a.dispositions["interested"] ?? 0), 0);
}

export { agents, boss, qualifiedStage, advisorIds, teamNames, newLead, extreme, cleared, canonical, aliased, partial, invalidField,
  november, clawedBack, settled, outstanding, offer, lastQuarter, fortnightly, fundedByMonth, decisionTimes, median, interested };
