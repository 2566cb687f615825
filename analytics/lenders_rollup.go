package analytics

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/lendingpipe/svc/analytics/decision"
	"github.com/lendingpipe/svc/analytics/funnel"
	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/ent/application"
	"github.com/lendingpipe/svc/ent/decisionday"
	"github.com/lendingpipe/svc/ent/lenderday"
	"github.com/lendingpipe/svc/ent/predicate"
	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/money"
	"github.com/lendingpipe/svc/internal/period"
	"github.com/lendingpipe/svc/internal/store"
)

// sumTable is a struct type to scan grouped sums into: the key columns
// with their Go types, then one int64 per summed column, in order.
func sumTable(keys map[string]reflect.Type, keyOrder []string, sums []string) reflect.Type {
	fields := make([]reflect.StructField, 0, len(keyOrder)+len(sums))
	for i, k := range keyOrder {
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("K%d", i), Type: keys[k], Tag: reflect.StructTag(`json:"` + k + `"`)})
	}
	for i, s := range sums {
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("S%d", i), Type: reflect.TypeOf(int64(0)), Tag: reflect.StructTag(`json:"` + s + `"`)})
	}
	return reflect.StructOf(fields)
}

// scanner is an ent group-by ready to scan.
type scanner interface {
	Scan(ctx context.Context, v any) error
}

// scanSums scans a grouped query's rows and calls each with a row's keys
// and sums.
func scanSums(ctx context.Context, q scanner, keys map[string]reflect.Type, keyOrder, sums []string, each func(keys []any, sums []int64)) error {
	rows := reflect.New(reflect.SliceOf(sumTable(keys, keyOrder, sums)))
	if err := q.Scan(ctx, rows.Interface()); err != nil {
		return err
	}
	list := rows.Elem()
	k, s := make([]any, len(keyOrder)), make([]int64, len(sums))
	for i := range list.Len() {
		row := list.Index(i)
		for j := range keyOrder {
			k[j] = row.Field(j).Interface()
		}
		for j := range sums {
			s[j] = row.Field(len(keyOrder) + j).Int()
		}
		each(k, s)
	}
	return nil
}

var uuidType = reflect.TypeOf(uuid.UUID{})

// lenderColumns are LenderDay's sums, in the order lendersRolledUp reads.
var lenderColumns = append([]string{lenderday.FieldSubmitted, lenderday.FieldApproved, lenderday.FieldDeclined,
	lenderday.FieldWithdrawn, lenderday.FieldFunded, lenderday.FieldFundedAmount}, declineColumns()...)

func declineColumns() []string {
	out := make([]string, len(enum.DeclineCategories))
	for i, c := range enum.DeclineCategories {
		out[i] = funnel.DeclineColumn(c)
	}
	return out
}

// lenderSums is one lender's figures over the range's parts.
type lenderSums struct {
	tally   *lenderTally
	amount  money.Amount
	buckets map[[2]int]int // decisions by (octave, bucket)
}

// lendersRolledUp is the lenders report from the rollups for w's whole
// days and the records for its edges. The median is exact: the histogram
// of the whole days, with the edges' seconds, names the bucket holding
// it, and that bucket's decisions alone are read.
func lendersRolledUp(ctx context.Context, c *ent.Client, q *Request, w wholeDays) (*LendersReport, error) {
	byLender := map[uuid.UUID]*lenderSums{}
	at := func(id uuid.UUID) *lenderSums {
		s := byLender[id]
		if s == nil {
			s = &lenderSums{tally: &lenderTally{declines: map[application.DeclineCategory]int{}}, buckets: map[[2]int]int{}}
			byLender[id] = s
		}
		return s
	}
	sums := make([]string, len(lenderColumns))
	aggs := make([]ent.AggregateFunc, len(lenderColumns))
	for i, col := range lenderColumns {
		sums[i] = "s_" + col
		aggs[i] = sumOf(col, sums[i])
	}
	// The counts of each lender over the spans, signed: a lender is in the
	// report when its net submissions are.
	type lenderNet struct {
		counts   [6]int64
		declines []int64
	}
	nets := map[uuid.UUID]*lenderNet{}
	var order []uuid.UUID
	keys := map[string]reflect.Type{lenderday.FieldLenderID: uuidType}
	for _, span := range w.spans(period.YearGrain) {
		ps := []predicate.LenderDay{lenderday.OrgID(q.OrgID), lenderday.GrainEQ(lenderday.Grain(dealGrains[span.grain])),
			lenderday.DayGTE(span.lo), lenderday.DayLT(span.hi)}
		if q.lenders != nil {
			ps = append(ps, lenderday.LenderIDIn(q.lenders...))
		}
		err := scanSums(sys(ctx), c.LenderDay.Query().Where(ps...).
			GroupBy(lenderday.FieldLenderID).Aggregate(aggs...), keys, []string{lenderday.FieldLenderID}, sums,
			func(k []any, v []int64) {
				id := k[0].(uuid.UUID)
				n := nets[id]
				if n == nil {
					n = &lenderNet{declines: make([]int64, len(enum.DeclineCategories))}
					nets[id] = n
					order = append(order, id)
				}
				sign := int64(span.sign)
				for i := range n.counts {
					n.counts[i] += sign * v[i]
				}
				for i := range n.declines {
					n.declines[i] += sign * v[6+i]
				}
			})
		if err != nil {
			return nil, fmt.Errorf("summing the lender rollup: %w", err)
		}
	}
	for _, id := range order {
		v := nets[id]
		if v.counts[0] == 0 {
			continue
		}
		s := at(id)
		t := s.tally
		t.submitted += int(v.counts[0])
		t.approved += int(v.counts[1])
		t.declined += int(v.counts[2])
		t.withdrawn += int(v.counts[3])
		t.funded += int(v.counts[4])
		s.amount += money.Amount(v.counts[5])
		for i, cat := range enum.DeclineCategories {
			if n := int(v.declines[i]); n != 0 {
				t.declines[application.DeclineCategory(cat)] += n
			}
		}
	}
	if err := decisionHistogram(ctx, c, q, w, at); err != nil {
		return nil, err
	}
	for _, e := range w.edges {
		if err := lenderEdge(ctx, c, e, at); err != nil {
			return nil, err
		}
	}
	return lendersOut(ctx, c, q, w, byLender)
}

// decisionHistogram adds the decision histogram of w's whole days, each
// span's rows (a lender's octave, its 32 bucket counts) with its sign.
// The rows come packed (packedRows), being hundreds of 34 columns: read
// column by column, or summed by the database, reading them was most of
// the lenders report's time.
func decisionHistogram(ctx context.Context, c *ent.Client, q *Request, w wholeDays, at func(uuid.UUID) *lenderSums) error {
	t := entsql.Table(decisionday.Table)
	lenderCol := t.C(decisionday.FieldLenderID)
	cols := []string{lenderCol, t.C(decisionday.FieldOctave)}
	for b := range decision.Buckets {
		cols = append(cols, t.C(decision.Column(b)))
	}
	for _, span := range w.spans(period.YearGrain) {
		where := []*entsql.Predicate{entsql.EQ(t.C(decisionday.FieldOrgID), q.OrgID),
			entsql.EQ(t.C(decisionday.FieldGrain), string(dealGrains[span.grain])),
			entsql.GTE(t.C(decisionday.FieldDay), span.lo), entsql.LT(t.C(decisionday.FieldDay), span.hi)}
		if q.lenders != nil {
			where = append(where, entsql.In(lenderCol, anys(q.lenders)...))
		}
		query, args := entsql.Dialect(q.Dialect).Select().SelectExpr(packedRows(cols...)...).From(t).
			Where(entsql.And(where...)).Query()
		err := eachPacked(sys(ctx), c, query, args, len(cols), func(v []string) error {
			lender, err := uuid.Parse(v[0])
			if err != nil {
				return err
			}
			octave, err := strconv.Atoi(v[1])
			if err != nil {
				return err
			}
			s := at(lender)
			for b, text := range v[2:] {
				if text == "0" {
					continue
				}
				n, err := strconv.Atoi(text)
				if err != nil {
					return err
				}
				s.buckets[[2]int{octave, b}] += span.sign * n
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("reading the decision histogram: %w", err)
		}
	}
	return nil
}

// anys is ids as arguments of a statement.
func anys(ids []uuid.UUID) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// lenderEdge adds the applications submitted in a partial day.
func lenderEdge(ctx context.Context, c *ent.Client, e *Request, at func(uuid.UUID) *lenderSums) error {
	apps, err := c.Application.Query().Where(submittedIn(e)...).
		Select(application.FieldLenderID, application.FieldStatus, application.FieldSubmittedAt,
			application.FieldDecidedAt, application.FieldDeclineCategory, application.FieldFundedDealID).
		All(sys(ctx))
	if err != nil {
		return fmt.Errorf("reading the applications: %w", err)
	}
	var deals []uuid.UUID
	for _, a := range apps {
		s := at(a.LenderID)
		s.tally.add(a)
		if a.FundedDealID != nil {
			deals = append(deals, *a.FundedDealID)
		}
	}
	funded, err := dealAmounts(ctx, c, deals)
	if err != nil {
		return err
	}
	for id, amount := range funded {
		at(id).amount += amount
	}
	return nil
}

// lendersOut finishes each lender's figures, its exact median among them
// (with the middle decisions it is read from).
func lendersOut(ctx context.Context, c *ent.Client, q *Request, w wholeDays, byLender map[uuid.UUID]*lenderSums) (*LendersReport, error) {
	ids := make([]uuid.UUID, 0, len(byLender))
	for id, s := range byLender {
		if s.tally.submitted > 0 {
			ids = append(ids, id)
		}
	}
	names, err := q.lenderNames(ctx, c, ids)
	if err != nil {
		return nil, err
	}
	out := make([]LenderStats, len(ids))
	var reads []*middleRead
	for i, id := range ids {
		s := byLender[id]
		edge := s.tally.seconds
		s.tally.seconds = nil
		out[i] = s.tally.stats(id, names[id], s.amount)
		if reads, err = appendMiddleRead(reads, &out[i], s.buckets, edge); err != nil {
			return nil, err
		}
	}
	if err := readMiddles(ctx, c, q, w, reads); err != nil {
		return nil, err
	}
	for i := range out {
		if len(out[i].middle) > 0 {
			out[i].MedianSecondsToDecision = &out[i].middle[0]
		}
	}
	slices.SortFunc(out, func(a, b LenderStats) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.LenderID.String(), b.LenderID.String()))
	})
	return &LendersReport{Lenders: out}, nil
}

// middleRead is the read of a lender's middle decision seconds: the
// first-th smallest (from 0) of the n the histogram counts in [lo, hi)
// and the one after it when into has room for two. edge are those of
// them the edges hold (the rest are the whole days').
type middleRead struct {
	lender   uuid.UUID
	lo, hi   int
	first, n int
	edge     []int
	into     []int
}

// appendMiddleRead appends the read of the middle one (an odd count) or
// two (an even count) of the lender's decision seconds, those the whole
// days' histogram counts and the edges' own (edge), into stats.middle:
// the first is the lower median. The histogram names the bucket holding
// the first; the second is in it too or in the next bucket that holds
// any, whose range the read then reaches to.
func appendMiddleRead(reads []*middleRead, stats *LenderStats, hist map[[2]int]int, edge []int) ([]*middleRead, error) {
	counts := make(map[[2]int]int, len(hist)+len(edge))
	n := 0
	for k, v := range hist {
		counts[k] += v
		n += v
	}
	for _, secs := range edge {
		o, b := decision.Bucket(secs)
		counts[[2]int{o, b}]++
		n++
	}
	if n == 0 {
		return reads, nil
	}
	keys := make([][2]int, 0, len(counts))
	for k, v := range counts {
		if v > 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	rank, i := (n-1)/2, 0
	for ; i < len(keys) && rank >= counts[keys[i]]; i++ {
		rank -= counts[keys[i]]
	}
	if i == len(keys) {
		return nil, fmt.Errorf("the decision histogram counts fewer than %d decisions", n)
	}
	r := &middleRead{lender: stats.LenderID, first: rank, n: counts[keys[i]], into: make([]int, 2-n%2)}
	r.lo, r.hi = decision.Bounds(keys[i][0], keys[i][1])
	if len(r.into) == 2 && rank == r.n-1 {
		if i+1 == len(keys) {
			return nil, fmt.Errorf("the decision histogram counts fewer than %d decisions", n)
		}
		_, r.hi = decision.Bounds(keys[i+1][0], keys[i+1][1])
		r.n += counts[keys[i+1]]
	}
	for _, secs := range edge {
		if secs >= r.lo && secs < r.hi {
			r.edge = append(r.edge, secs)
		}
	}
	stats.middle = r.into
	return append(reads, r), nil
}

// readMiddles reads the lenders' middle decisions in one statement
// (store.DecisionWalks): a range that holds none of the edges' is walked
// by the index to the middle; one that does has its whole days' decisions
// read, to be sorted with the edges' own.
func readMiddles(ctx context.Context, c *ent.Client, q *Request, w wholeDays, reads []*middleRead) error {
	if len(reads) == 0 {
		return nil
	}
	walks := make([]store.DecisionWalk, len(reads))
	for i, r := range reads {
		walks[i] = store.DecisionWalk{Lender: r.lender, Lo: r.lo, Hi: r.hi, Limit: len(r.into), Offset: r.first}
		if len(r.edge) > 0 {
			walks[i].Limit, walks[i].Offset = r.n, 0
		}
	}
	start, end := period.DayStart(w.first, q.Range.Loc), period.DayStart(w.last, q.Range.Loc)
	values, err := store.DecisionWalks(sys(ctx), c, q.Dialect, q.OrgID, start, end, walks)
	if err != nil {
		return err
	}
	for i, r := range reads {
		got, from := values[i], 0
		if len(r.edge) > 0 {
			got, from = append(got, r.edge...), r.first
			slices.Sort(got)
			if len(got) != r.n {
				got = nil // fails below
			}
		}
		if len(got) < from+len(r.into) {
			return fmt.Errorf("the decision histogram counts %d in [%d, %d), the applications hold otherwise", r.n, r.lo, r.hi)
		}
		copy(r.into, got[from:])
	}
	return nil
}
