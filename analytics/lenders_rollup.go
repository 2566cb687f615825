package analytics

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"

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
		err := scanSums(sys(ctx), c.LenderDay.Query().
			Where(lenderday.OrgID(q.OrgID), lenderday.GrainEQ(lenderday.Grain(dealGrains[span.grain])),
				lenderday.DayGTE(span.lo), lenderday.DayLT(span.hi)).
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
// span's rows with its sign. The rows (a lender's octave, its 32 bucket
// counts) are read with a statement built here and scanned into integers
// directly: through the generated select and its reflective scan, reading
// them was most of the lenders report's time.
func decisionHistogram(ctx context.Context, c *ent.Client, q *Request, w wholeDays, at func(uuid.UUID) *lenderSums) error {
	t := entsql.Table(decisionday.Table)
	cols := []string{t.C(decisionday.FieldLenderID), t.C(decisionday.FieldOctave)}
	for b := range decision.Buckets {
		cols = append(cols, t.C(decision.Column(b)))
	}
	var (
		lender uuid.UUID
		octave int64
		counts [decision.Buckets]int64
	)
	dest := []any{&lender, &octave}
	for b := range counts {
		dest = append(dest, &counts[b])
	}
	for _, span := range w.spans(period.YearGrain) {
		query, args := entsql.Dialect(q.Dialect).Select(cols...).From(t).Where(entsql.And(
			entsql.EQ(t.C(decisionday.FieldOrgID), q.OrgID),
			entsql.EQ(t.C(decisionday.FieldGrain), string(dealGrains[span.grain])),
			entsql.GTE(t.C(decisionday.FieldDay), span.lo), entsql.LT(t.C(decisionday.FieldDay), span.hi))).Query()
		err := eachRow(sys(ctx), c, query, args, dest, func() {
			s := at(lender)
			for b, n := range counts {
				if n != 0 {
					s.buckets[[2]int{int(octave), b}] += span.sign * int(n)
				}
			}
		})
		if err != nil {
			return fmt.Errorf("reading the decision histogram: %w", err)
		}
	}
	return nil
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

// lendersOut finishes each lender's figures, its exact median among them.
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
	out := make([]LenderStats, 0, len(ids))
	for _, id := range ids {
		s := byLender[id]
		edge := s.tally.seconds
		s.tally.seconds = nil
		stats := s.tally.stats(id, names[id], s.amount)
		if stats.MedianSecondsToDecision, err = medianOf(ctx, c, q, w, id, s.buckets, edge); err != nil {
			return nil, err
		}
		out = append(out, stats)
	}
	slices.SortFunc(out, func(a, b LenderStats) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.LenderID.String(), b.LenderID.String()))
	})
	return &LendersReport{Lenders: out}, nil
}

// medianOf is the lower median of a lender's decision seconds: those the
// whole days' histogram counts and the edges' own (edge).
func medianOf(ctx context.Context, c *ent.Client, q *Request, w wholeDays, lender uuid.UUID, hist map[[2]int]int, edge []int) (*int, error) {
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
		return nil, nil
	}
	keys := make([][2]int, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	rank := (n - 1) / 2
	for _, k := range keys {
		if rank >= counts[k] {
			rank -= counts[k]
			continue
		}
		lo, hi := decision.Bounds(k[0], k[1])
		if !slices.ContainsFunc(edge, func(secs int) bool { return secs >= lo && secs < hi }) {
			// The bucket's values are all in the whole days: the index
			// walks to the rank-th itself.
			return rankedSeconds(ctx, c, q, w, lender, lo, hi, rank, counts[k])
		}
		values, err := bucketSeconds(ctx, c, q, w, lender, lo, hi)
		if err != nil {
			return nil, err
		}
		for _, secs := range edge {
			if secs >= lo && secs < hi {
				values = append(values, secs)
			}
		}
		if len(values) != counts[k] {
			return nil, fmt.Errorf("the decision histogram counts %d in [%d, %d), the applications %d", counts[k], lo, hi, len(values))
		}
		slices.Sort(values)
		return &values[rank], nil
	}
	return nil, fmt.Errorf("the decision histogram counts fewer than %d decisions", n)
}

// rankedSeconds is the rank-th smallest (from 0) of the n decision
// seconds in [lo, hi) of the lender's applications submitted in the whole
// days. The index walks to it from the nearer end of the bucket.
func rankedSeconds(ctx context.Context, c *ent.Client, q *Request, w wholeDays, lender uuid.UUID, lo, hi, rank, n int) (*int, error) {
	order, offset := application.ByDecisionSeconds(), rank
	if rank >= n/2 {
		order, offset = application.ByDecisionSeconds(entsql.OrderDesc()), n-1-rank
	}
	secs, err := c.Application.Query().Where(inBucket(q, w, lender, lo, hi)...).
		Order(order).Offset(offset).Limit(1).
		Select(application.FieldDecisionSeconds).Ints(sys(ctx))
	if err != nil {
		return nil, fmt.Errorf("reading a bucket's decisions: %w", err)
	}
	if len(secs) != 1 {
		return nil, fmt.Errorf("the decision histogram counts %d in [%d, %d), more than the applications hold", n, lo, hi)
	}
	return &secs[0], nil
}

// bucketSeconds reads the decision seconds in [lo, hi) of the lender's
// applications submitted in the whole days.
func bucketSeconds(ctx context.Context, c *ent.Client, q *Request, w wholeDays, lender uuid.UUID, lo, hi int) ([]int, error) {
	var secs []int
	err := c.Application.Query().Where(inBucket(q, w, lender, lo, hi)...).
		Select(application.FieldDecisionSeconds).Scan(sys(ctx), &secs)
	if err != nil {
		return nil, fmt.Errorf("reading a bucket's decisions: %w", err)
	}
	return secs, nil
}

// inBucket are the lender's applications submitted in the whole days whose
// decision took [lo, hi) seconds: one bucket of the histogram.
func inBucket(q *Request, w wholeDays, lender uuid.UUID, lo, hi int) []predicate.Application {
	start, end := period.DayStart(w.first, q.Range.Loc).UTC(), period.DayStart(w.last, q.Range.Loc).UTC()
	return []predicate.Application{application.OrgID(q.OrgID), application.LenderID(lender),
		application.DecisionSecondsGTE(lo), application.DecisionSecondsLT(hi),
		application.SubmittedAtGTE(start), application.SubmittedAtLT(end)}
}
