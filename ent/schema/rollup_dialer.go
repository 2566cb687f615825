package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// The dialer report's rollups. A call counts once however many events it
// has, so a day's distinct calls add up over days only for the calls whose
// events all fall on one local day: CallDay counts those (a call the
// report sees whole on a day), and the few calls with events on more than
// one day (DialerCall.multi_day) are read from their events. Talk time and
// dispositions are sums of events and add up over any days.
//
// Rows are kept per day (span day), per calendar month (span month) and
// per calendar year (span year), day being the first day of the span: the
// report reads a range as the whole years and months inside it and the
// days around them, or as a year less its months and days outside the
// range (period.Cover), a few rows per agent.

// CallDay counts, for an agent (user_id) on a day, month or year, the one-day
// calls the agent had an event of, those of them the agent answered, and
// the seconds of the agent's call_ended events, and its disposition
// records by code (dispositions). The organization's row
// (user_id the nil UUID, span day only) counts its one-day calls of the
// day, once however many agents took part: the calls series. Rows are
// spread over slots as LeadDay's: every new call adds to the
// organization's row.
type CallDay struct{ ent.Schema }

func (CallDay) Annotations() []schema.Annotation { return rollupAnnotations }
func (CallDay) Policy() ent.Policy               { return rollupPolicy() }

func (CallDay) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.Enum("span").Values("day", "month", "year").Immutable(),
		field.Int("day").Immutable(),
		field.UUID("user_id", uuidType).Immutable(),
		field.Int("slot").Immutable(),
		field.Int("calls").Default(0),
		field.Int("answered").Default(0),
		field.Int("talk_seconds").Default(0),
		// A JSON object of counts keyed by the hex of each code: the
		// report reads an agent's dispositions with its calls, one row
		// per agent and span rather than one per code, and the key needs
		// no quoting in a JSON path.
		field.Text("dispositions").Default("{}"),
	}
}

func (CallDay) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("org_id", "span", "day", "user_id", "slot").Unique(),
		// The report reads a span's rows from an index that holds the
		// sums too: the store creates it (callday_sums), as it holds the
		// packed dispositions on SQLite alone.
		// The calls series reads the organization's rows alone, from
		// the index.
		index.Fields("org_id", "user_id", "span", "day", "calls"),
	}
}

// DialerCall is one call (an external call id) of the organization: the
// first and last local days it has events on. Each event of the call
// takes its row first, so two events of one call are counted one after
// the other on PostgreSQL too; a call whose days differ (multi_day) is
// counted by the report from its events.
type DialerCall struct{ ent.Schema }

func (DialerCall) Annotations() []schema.Annotation { return rollupAnnotations }
func (DialerCall) Policy() ent.Policy               { return rollupPolicy() }

func (DialerCall) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("org_id", uuidType).Immutable(),
		field.String("external_call_id").Immutable(),
		field.Int("first_day"),
		field.Int("last_day"),
		field.Bool("multi_day").Default(false),
	}
}

func (DialerCall) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("org_id", "external_call_id").Unique(),
		index.Fields("org_id", "multi_day", "last_day"),
	}
}
