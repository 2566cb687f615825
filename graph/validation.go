package graph

import (
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator/core"
	"github.com/vektah/gqlparser/v2/validator/rules"

	"github.com/lendingpipe/svc/internal/apperr"
)

// MaxRepeatedField bounds how many fields of one selection set, fragments
// merged in, may answer to the same name. gqlparser's
// OverlappingFieldsCanBeMerged compares every such pair (and their
// sub-selections), so without a bound its time grows with the square of the
// query: 5,000 copies of one field took seconds to validate.
const MaxRepeatedField = 16

// validationRules are gqlparser's default rules, with
// OverlappingFieldsCanBeMerged run only on a document whose selection sets
// repeat no name more than MaxRepeatedField times.
func validationRules() *rules.Rules {
	r := rules.NewDefaultRules()
	r.ReplaceRule(rules.OverlappingFieldsCanBeMergedRule.Name, boundedOverlap)
	return r
}

// boundedOverlap checks the whole document once, at its first operation:
// refuses it if a selection set repeats a name too often, and otherwise
// runs the original rule over it in a walk of its own.
func boundedOverlap(observers *core.Events, addError core.AddErrFunc) {
	done := false
	observers.OnOperation(func(walker *core.Walker, _ *ast.OperationDefinition) {
		if done {
			return
		}
		done = true
		if f, n := mostRepeated(walker.Document); n > MaxRepeatedField {
			addError(core.Message("%s is selected %d times or more in one selection set; at most %d are allowed",
				apperr.Quote(f.Alias), n, MaxRepeatedField), core.At(f.Position))
			return
		}
		inner := &core.Events{}
		rules.OverlappingFieldsCanBeMergedRule.RuleFunc(inner, addError)
		core.Walk(walker.Schema, walker.Document, inner)
	})
}

// mostRepeated finds a field whose response name is repeated more than
// MaxRepeatedField times in one selection set, if any, looking at each
// selection set of the document once.
func mostRepeated(doc *ast.QueryDocument) (*ast.Field, int) {
	c := repetition{doc: doc, fragments: map[string]map[string]int{}, inProgress: map[string]bool{}}
	for _, op := range doc.Operations {
		if f, n := c.check(op.SelectionSet); f != nil {
			return f, n
		}
	}
	for _, fr := range doc.Fragments {
		if f, n := c.check(fr.SelectionSet); f != nil {
			return f, n
		}
	}
	return nil, 0
}

// repetition counts response names per selection set; a fragment's counts
// are computed once. Counts saturate just over the limit, which is where
// the check stops.
type repetition struct {
	doc        *ast.QueryDocument
	fragments  map[string]map[string]int
	inProgress map[string]bool
}

// check looks at set and every selection set nested in it.
func (c *repetition) check(set ast.SelectionSet) (*ast.Field, int) {
	counts := map[string]int{}
	c.add(counts, set)
	for name, n := range counts {
		if n > MaxRepeatedField {
			return firstNamed(set, name), n
		}
	}
	for _, sel := range set {
		var nested ast.SelectionSet
		switch s := sel.(type) {
		case *ast.Field:
			nested = s.SelectionSet
		case *ast.InlineFragment:
			nested = s.SelectionSet
		}
		if f, n := c.check(nested); f != nil {
			return f, n
		}
	}
	return nil, 0
}

// add merges the response names of set, fragments included, into counts.
func (c *repetition) add(counts map[string]int, set ast.SelectionSet) {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			counts[s.Alias] = min(counts[s.Alias]+1, MaxRepeatedField+1)
		case *ast.InlineFragment:
			c.add(counts, s.SelectionSet)
		case *ast.FragmentSpread:
			for name, n := range c.fragment(s.Name) {
				counts[name] = min(counts[name]+n, MaxRepeatedField+1)
			}
		}
	}
}

// fragment is the response-name counts of a named fragment; a cycle (which
// another rule reports) counts as empty.
func (c *repetition) fragment(name string) map[string]int {
	if counts, ok := c.fragments[name]; ok {
		return counts
	}
	counts := map[string]int{}
	if def := c.doc.Fragments.ForName(name); def != nil && !c.inProgress[name] {
		c.inProgress[name] = true
		c.add(counts, def.SelectionSet)
		delete(c.inProgress, name)
	}
	c.fragments[name] = counts
	return counts
}

// firstNamed finds a field answering to name in set, or, when it only
// arrives through fragments, any field of set to point at.
func firstNamed(set ast.SelectionSet, name string) *ast.Field {
	var other *ast.Field
	for _, sel := range set {
		if f, ok := sel.(*ast.Field); ok {
			if f.Alias == name {
				return f
			}
			other = f
		}
	}
	if other == nil {
		return &ast.Field{Alias: name}
	}
	return &ast.Field{Alias: name, Position: other.Position}
}
