package graph_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/lendingpipe/svc/graph"
)

// servedSchema is the schema the /graphql endpoint serves.
func servedSchema() *ast.Schema {
	return graph.NewExecutableSchema(graph.Config{}).Schema()
}

// builtin tells GraphQL's own types, which the spec describes.
func builtin(d *ast.Definition) bool {
	switch d.Name {
	case "String", "Int", "Float", "Boolean", "ID":
		return true
	}
	return strings.HasPrefix(d.Name, "__")
}

// schemaName is a named thing of a schema a client writes or reads:
// "Type", "Type.field", "Type.field(arg)" or "Enum.VALUE".
type schemaName struct {
	path, name, description string
}

// schemaNames lists every type, field, argument, input field and enum value
// of s, GraphQL's own excepted.
func schemaNames(s *ast.Schema) []schemaName {
	var out []schemaName
	for _, d := range s.Types {
		if builtin(d) {
			continue
		}
		out = append(out, schemaName{d.Name, d.Name, d.Description})
		for _, f := range d.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			out = append(out, schemaName{d.Name + "." + f.Name, f.Name, f.Description})
			for _, a := range f.Arguments {
				out = append(out, schemaName{d.Name + "." + f.Name + "(" + a.Name + ")", a.Name, a.Description})
			}
		}
		for _, v := range d.EnumValues {
			out = append(out, schemaName{d.Name + "." + v.Name, "", v.Description})
		}
	}
	return out
}

// idAcronym is "ID" after the start of a name (userID, leadIDs, stageIDNEQ):
// GraphQL spells ids as the REST attributes do (userId, leadIds).
var idAcronym = regexp.MustCompile(`[a-z0-9]ID`)

func goSpelledIDs(s *ast.Schema) []string {
	var bad []string
	for _, n := range schemaNames(s) {
		if idAcronym.MatchString(n.name) {
			bad = append(bad, n.path)
		}
	}
	slices.Sort(bad)
	return bad
}

func undocumented(s *ast.Schema) []string {
	var bad []string
	for _, n := range schemaNames(s) {
		if strings.TrimSpace(n.description) == "" {
			bad = append(bad, n.path)
		}
	}
	slices.Sort(bad)
	return bad
}

// One naming convention: every field, argument and input field spells an
// id as userId, never userID.
func TestSchemaSpellsIdsAsREST(t *testing.T) {
	if bad := goSpelledIDs(servedSchema()); len(bad) > 0 {
		t.Errorf("%d names spell ID as an acronym after their start (write userId, leadIds):\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// Every type, field, argument, input field and enum value a dashboard
// developer reads has a description.
func TestSchemaIsDocumented(t *testing.T) {
	s := servedSchema()
	if bad := undocumented(s); len(bad) > 0 {
		t.Errorf("%d of %d schema names have no description:\n%s", len(bad), len(schemaNames(s)), strings.Join(bad, "\n"))
	}
}

// The two checks find what they look for.
func TestSchemaChecksCatchOffenders(t *testing.T) {
	s := gqlparser.MustLoadSchema(&ast.Source{Name: "bad.graphql", Input: `
		"Documented."
		type Query {
			"Documented."
			lead(leadID: ID!, "Documented." id: ID): Lead
		}
		type Lead {
			"Documented."
			stageID: ID
			"Documented."
			stageIdNEQ: ID
		}
		"Documented."
		enum Kind { "Documented." A B }
		"Documented."
		input Filter { "Documented." userIDs: [ID!] }`})
	if got, want := goSpelledIDs(s), []string{"Filter.userIDs", "Lead.stageID", "Query.lead(leadID)"}; !slices.Equal(got, want) {
		t.Errorf("goSpelledIDs = %v, want %v", got, want)
	}
	if got, want := undocumented(s), []string{"Kind.B", "Lead", "Query.lead(leadID)"}; !slices.Equal(got, want) {
		t.Errorf("undocumented = %v, want %v", got, want)
	}
}
