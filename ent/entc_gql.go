//go:build ignore

package main

// The GraphQL schema entgql derives from the ent schemas follows two rules
// here, in one place rather than field by field:
//
//   - Names: ent spells an id as Go does (userID, leadIDs, stageIDNEQ);
//     GraphQL spells it as the REST attributes do (userId, leadIds,
//     stageIdNEQ). Object fields are renamed through entgql's own mapping
//     annotation (mapIDFields), so the field collection entgql generates
//     selects the renamed columns; inputs and arguments, which entgql names
//     without consulting it, are renamed in the generated schema (renameIDs).
//     gqlgen binds userId to the Go field UserID either way.
//   - Descriptions: a type's comes from its schema.Comment annotation, a
//     field's and an edge's from Comment(), an enum value's from the
//     ValueDocs annotation; what entgql generates around them (filters,
//     orderings, inputs) is described from the same comments (describe).

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/entc/gen"
	"entgo.io/ent/schema/field"
	"github.com/vektah/gqlparser/v2/ast"
)

var (
	camel    = gen.Funcs["camel"].(func(string) string)
	pascal   = gen.Funcs["pascal"].(func(string) string)
	snake    = gen.Funcs["snake"].(func(string) string)
	plural   = gen.Funcs["plural"].(func(string) string)
	singular = gen.Funcs["singular"].(func(string) string)

	// idAcronym is an "ID" ending a word after the first: userID, leadIDs,
	// stageIDNEQ.
	idAcronym = regexp.MustCompile(`([a-z0-9])ID(s?)([A-Z]|$)`)
)

// gqlName is the GraphQL spelling of a name ent derived: userID → userId.
func gqlName(name string) string {
	return idAcronym.ReplaceAllString(name, "${1}Id${2}${3}")
}

// fieldName is the GraphQL name of an ent field on its object type.
func fieldName(f *gen.Field) string { return gqlName(camel(f.Name)) }

// mapIDFields names every object field whose ent name ends in an id
// (user_id → userId) through entgql's mapping annotation.
func mapIDFields(next gen.Generator) gen.Generator {
	return gen.GenerateFunc(func(g *gen.Graph) error {
		for _, t := range g.Nodes {
			for _, f := range t.Fields {
				if err := mapIDField(f); err != nil {
					return fmt.Errorf("%s.%s: %w", t.Name, f.Name, err)
				}
			}
		}
		return next.Generate(g)
	})
}

func mapIDField(f *gen.Field) error {
	name := camel(f.Name)
	if gqlName(name) == name {
		return nil
	}
	ant, err := gqlAnnotation(f.Annotations)
	if err != nil || len(ant.Mapping) > 0 {
		return err
	}
	ant.Mapping = []string{gqlName(name)}
	if f.Annotations == nil {
		f.Annotations = gen.Annotations{}
	}
	f.Annotations[ant.Name()] = ant
	return nil
}

func gqlAnnotation(ants gen.Annotations) (*entgql.Annotation, error) {
	ant := &entgql.Annotation{}
	if err := ant.Decode(ants[ant.Name()]); err != nil {
		return nil, fmt.Errorf("decoding the entgql annotation: %w", err)
	}
	return ant, nil
}

// renameIDs renames the inputs' fields and the arguments entgql named
// without the mapping: where-input predicates (userIdNEQ), mutation inputs'
// edge ids (stageId, leadIds).
func renameIDs(_ *gen.Graph, s *ast.Schema) error {
	for _, def := range s.Types {
		for _, f := range def.Fields {
			if name := gqlName(f.Name); name != f.Name {
				if def.Fields.ForName(name) != nil {
					return fmt.Errorf("%s: renaming %s to %s would hide another field", def.Name, f.Name, name)
				}
				f.Name = name
			}
			for _, a := range f.Arguments {
				a.Name = gqlName(a.Name)
			}
		}
	}
	return nil
}

// describe fills the descriptions entgql leaves empty or generic.
func describe(g *gen.Graph, s *ast.Schema) error {
	for _, t := range g.Nodes {
		ant, err := gqlAnnotation(t.Annotations)
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		name := t.Name
		if ant.Type != "" {
			name = ant.Type
		}
		d := nodeDocs{s: s, t: t, gql: name}
		steps := []func() error{d.object, d.enums, d.connection, d.orderFields, d.where, d.inputs}
		if ant.Skip.Is(entgql.SkipType) {
			steps = []func() error{d.enums} // a skipped type's enums may be other types' fields
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
		}
	}
	describeRoot(s)
	return nil
}

// nodeDocs describes what entgql generated for one ent type.
type nodeDocs struct {
	s   *ast.Schema
	t   *gen.Type
	gql string
}

// object takes the type's description from its schema.Comment annotation.
func (d nodeDocs) object() error {
	def := d.s.Types[d.gql]
	if def == nil {
		return nil
	}
	var c struct{ Text string }
	if raw, ok := d.t.Annotations["Comment"]; ok && def.Description == "" {
		if err := decode(raw, &c); err != nil {
			return fmt.Errorf("decoding schema.Comment: %w", err)
		}
	}
	if c.Text != "" {
		def.Description = c.Text
	}
	// entgql builds a connection edge's field afresh, without the comment.
	for _, e := range d.t.Edges {
		set(def, camel(e.Name), e.Comment())
	}
	return nil
}

// enums describes each enum field's type by the field's comment and each
// value by the field's ValueDocs annotation.
func (d nodeDocs) enums() error {
	obj := d.s.Types[d.gql]
	for _, f := range d.t.Fields {
		if !f.IsEnum() {
			continue
		}
		enumName := d.gql + f.StructField() // entgql's name, when the type itself is skipped
		if obj != nil {
			fd := obj.Fields.ForName(fieldName(f))
			if fd == nil {
				continue
			}
			enumName = fd.Type.Name()
		}
		enum := d.s.Types[enumName]
		if enum == nil || enum.Kind != ast.Enum {
			continue
		}
		if strings.Contains(enum.Description, "is enum for the field") {
			enum.Description = f.Comment()
		}
		var docs map[string]string
		if raw, ok := f.Annotations["ValueDocs"]; ok {
			if err := decode(raw, &docs); err != nil {
				return fmt.Errorf("decoding the ValueDocs of %s: %w", f.Name, err)
			}
		}
		for value, doc := range docs {
			v := enum.EnumValues.ForName(value)
			if v == nil {
				return fmt.Errorf("ValueDocs of %s describe %q, which is not one of its values", f.Name, value)
			}
			v.Description = doc
		}
	}
	return nil
}

// connection describes the type's Relay connection and edge, which entgql
// describes in general terms.
func (d nodeDocs) connection() error {
	thing, things := humanName(d.gql), humanPlural(d.gql)
	if def := d.s.Types[d.gql+"Connection"]; def != nil {
		def.Description = fmt.Sprintf("A page of %s (a Relay connection).", things)
		replace(def, "edges", fmt.Sprintf("The %s of this page, each with its cursor.", things))
		replace(def, "pageInfo", "The cursors of this page's first and last edges, and whether more lie beyond them.")
		replace(def, "totalCount", fmt.Sprintf("How many %s the list has on all pages (those matching where, when given).", things))
	}
	if def := d.s.Types[d.gql+"Edge"]; def != nil {
		def.Description = fmt.Sprintf("One %s of a page, with its cursor.", thing)
		replace(def, "node", fmt.Sprintf("The %s.", thing))
		replace(def, "cursor", fmt.Sprintf("The %s's place in the list: pass it as after or before to page on from it.", thing))
	}
	return nil
}

// orderFields describes the values of the type's order enum.
func (d nodeDocs) orderFields() error {
	enum := d.s.Types[d.gql+"OrderField"]
	if enum == nil {
		return nil
	}
	for _, f := range append([]*gen.Field{d.t.ID}, d.t.Fields...) {
		ant, err := gqlAnnotation(f.Annotations)
		if err != nil {
			return err
		}
		if v := enum.EnumValues.ForName(ant.OrderField); v != nil && v.Description == "" {
			v.Description = fmt.Sprintf("By %s; equal values are ordered by id.", fieldName(f))
		}
	}
	return nil
}

// where describes the type's filter input: every predicate of every field
// and edge.
func (d nodeDocs) where() error {
	def := d.s.Types[d.gql+"WhereInput"]
	if def == nil {
		return nil
	}
	things := humanPlural(d.gql)
	def.Description = fmt.Sprintf("Filters %s: one matches when every predicate given holds. "+
		"Predicates are named after the field and the comparison (createdAtGTE); and, or and not combine filters.", things)
	// entgql describes only each field's first predicate, by its ent name.
	replace(def, "not", "Matches what this filter does not match.")
	replace(def, "and", "Matches when every one of these filters matches.")
	replace(def, "or", "Matches when at least one of these filters matches.")
	for _, f := range append([]*gen.Field{d.t.ID}, d.t.Fields...) {
		for _, op := range f.Ops() {
			name := camel(f.Name)
			if op != gen.EQ {
				name = camel(f.Name + "_" + op.Name())
			}
			replace(def, gqlName(name), predicateDoc(fieldName(f), f.Type.Type, op))
		}
	}
	for _, e := range d.t.Edges {
		has, with := fmt.Sprintf("true matches %s with a %s; false, those without.", things, edgeNoun(e)),
			fmt.Sprintf("Matches %s whose %s matches at least one of these filters.", things, edgeNoun(e))
		if !e.Unique {
			one := strings.ReplaceAll(singular(e.Name), "_", " ")
			has = fmt.Sprintf("true matches %s with at least one %s; false, those with none.", things, one)
			with = fmt.Sprintf("Matches %s with at least one %s matching at least one of these filters.", things, one)
		}
		replace(def, camel("has_"+e.Name), has)
		replace(def, camel("has_"+e.Name+"_with"), with)
	}
	return nil
}

// predicateDoc says when the predicate op on a field of type typ matches.
func predicateDoc(name string, typ field.Type, op gen.Op) string {
	gt, gte, lt, lte := "is greater than", "is at least", "is less than", "is at most"
	if typ == field.TypeTime {
		gt, gte, lt, lte = "is after", "is at or after", "is before", "is at or before"
	}
	doc := map[gen.Op]string{
		gen.EQ:           "equals the value",
		gen.NEQ:          "does not equal the value",
		gen.In:           "is one of the values",
		gen.NotIn:        "is none of the values",
		gen.GT:           gt + " the value",
		gen.GTE:          gte + " the value",
		gen.LT:           lt + " the value",
		gen.LTE:          lte + " the value",
		gen.EqualFold:    "equals the value, ignoring case",
		gen.Contains:     "contains the value (case-sensitive)",
		gen.ContainsFold: "contains the value, ignoring case",
		gen.HasPrefix:    "starts with the value (case-sensitive)",
		gen.HasSuffix:    "ends with the value (case-sensitive)",
	}[op]
	switch op {
	case gen.IsNil:
		return fmt.Sprintf("true matches when %s is null.", name)
	case gen.NotNil:
		return fmt.Sprintf("true matches when %s is not null.", name)
	}
	return fmt.Sprintf("Matches when %s %s.", name, doc)
}

// inputs describes the type's create and update inputs; their fields carry
// the comments of the fields they set.
func (d nodeDocs) inputs() error {
	noun := humanName(d.gql)
	if def := d.s.Types["Create"+d.gql+"Input"]; def != nil {
		replaceGenerated(def, fmt.Sprintf("The fields of a new %s. Optional fields left out take their defaults.", noun))
		d.inputFields(def)
	}
	if def := d.s.Types["Update"+d.gql+"Input"]; def != nil {
		replaceGenerated(def, fmt.Sprintf("Changes to a %s: only the fields given change.", noun))
		d.inputFields(def)
	}
	return nil
}

func (d nodeDocs) inputFields(def *ast.Definition) {
	for _, f := range d.t.Fields {
		name := fieldName(f)
		set(def, "append"+f.StructField(), fmt.Sprintf("Values to add at the end of %s.", name))
		set(def, "clear"+f.StructField(), fmt.Sprintf("true sets %s to null.", name))
	}
	for _, e := range d.t.Edges {
		id := "The id of the " + edgeNoun(e) + "."
		if f := e.Field(); f != nil && f.Comment() != "" {
			id = f.Comment()
		}
		set(def, gqlName(camel(e.Name)+"ID"), id)
		one := singular(e.Name)
		set(def, gqlName(camel(one)+"IDs"), fmt.Sprintf("The ids of the %s.", edgeNoun(e)))
		set(def, gqlName("add"+pascal(one)+"IDs"), fmt.Sprintf("Ids of %s to add.", edgeNoun(e)))
		set(def, gqlName("remove"+pascal(one)+"IDs"), fmt.Sprintf("Ids of %s to remove.", edgeNoun(e)))
		set(def, camel(snake(e.MutationClear())), fmt.Sprintf("true removes the %s.", edgeNoun(e)))
	}
}

// describeRoot describes the Query type and the bounds of every connection.
func describeRoot(s *ast.Schema) {
	if q := s.Types["Query"]; q != nil && q.Description == "" {
		q.Description = "Every read. Lists are Relay connections: first/after pages forwards, last/before backwards, " +
			"at most the page size limit (100 by default) a page. The REST lists' offset pages (page, limit) are here too: " +
			"leadsPage, agentsBoardPage, stagesPage, usersPage, teamsPage and the delivery, request and run logs."
	}
	if c := s.Types["Cursor"]; c != nil {
		c.Description = "An opaque place in a list, as an edge's cursor or pageInfo's startCursor and endCursor give it: " +
			"pass it as after or before to page on from there. It is valid only for the list and order it came from."
	}
	for _, def := range s.Types {
		for _, f := range def.Fields {
			if !strings.HasSuffix(f.Type.Name(), "Connection") {
				continue
			}
			if a := f.Arguments.ForName("first"); a != nil {
				a.Description = "Returns the first n items (after the after cursor, if given): 0 to the page size limit " +
					"(100 by default). Without first or last, a page of that limit is returned."
			}
			if a := f.Arguments.ForName("last"); a != nil {
				a.Description = "Returns the last n items (before the before cursor, if given): 0 to the page size limit (100 by default)."
			}
		}
	}
}

// set gives an undescribed field of def a description.
func set(def *ast.Definition, field, doc string) {
	if f := def.Fields.ForName(field); f != nil && f.Description == "" {
		f.Description = doc
	}
}

// replace sets the description of def's field, whatever entgql gave it.
func replace(def *ast.Definition, field, doc string) {
	if f := def.Fields.ForName(field); f != nil {
		f.Description = doc
	}
}

// replaceGenerated replaces entgql's "… was generated by ent." description.
func replaceGenerated(def *ast.Definition, doc string) {
	if def.Description == "" || strings.Contains(def.Description, "generated by ent") {
		def.Description = doc
	}
}

// edgeNoun names an edge in prose: call_events → call events.
func edgeNoun(e *gen.Edge) string {
	return strings.ReplaceAll(e.Name, "_", " ")
}

// humanName is a type name in prose: PipelineStage → pipeline stage.
func humanName(gqlType string) string {
	var b strings.Builder
	for i, r := range gqlType {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func humanPlural(gqlType string) string { return humanName(plural(gqlType)) }

// decode reads an annotation as the loader left it (decoded JSON).
func decode(raw, v any) error {
	b, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
