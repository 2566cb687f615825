package autodef

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/theory/jsonpath"
)

// Holds reports whether every condition holds for input; when one does
// not, it says which, for the run log.
func Holds(conds []Condition, input map[string]any) (bool, string) {
	for i, c := range conds {
		if !c.holds(input) {
			return false, fmt.Sprintf("conditions[%d] (%s %s) does not hold", i, c.Path, c.Op)
		}
	}
	return true, ""
}

func (c Condition) holds(input map[string]any) bool {
	p, err := jsonpath.Parse(c.Path)
	if err != nil {
		return false // checked on save; a stored bad path never holds
	}
	nodes := p.Select(input)
	switch c.Op {
	case OpExists:
		return len(nodes) > 0
	case OpMissing:
		return len(nodes) == 0
	case OpNeq:
		return !slices.ContainsFunc(nodes, func(n any) bool { return equal(n, c.Value) })
	}
	// The others hold when any selected value satisfies them.
	return slices.ContainsFunc(nodes, func(n any) bool { return c.test(n) })
}

func (c Condition) test(v any) bool {
	switch c.Op {
	case OpEq:
		return equal(v, c.Value)
	case OpIn:
		list, _ := c.Value.([]any)
		return slices.ContainsFunc(list, func(x any) bool { return equal(v, x) })
	case OpContains:
		switch v := v.(type) {
		case string:
			s, ok := c.Value.(string)
			return ok && strings.Contains(strings.ToLower(v), strings.ToLower(s))
		case []any:
			return slices.ContainsFunc(v, func(x any) bool { return equal(x, c.Value) })
		}
		return false
	}
	a, okA := number(v)
	b, okB := number(c.Value)
	if !okA || !okB {
		return false
	}
	switch c.Op {
	case OpGt:
		return a > b
	case OpGte:
		return a >= b
	case OpLt:
		return a < b
	case OpLte:
		return a <= b
	}
	return false
}

// equal compares JSON values; numbers compare by value, and a numeric
// string equals the number it spells ("25000" = 25000), as partners send both.
func equal(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return f, err == nil
	}
	return 0, false
}
