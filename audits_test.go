package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// auditRow is a row of docs/api.md's table of the graphql-http SHOULD
// audits the server does not pass: | 572B | ... |.
var auditRow = regexp.MustCompile(`(?m)^\| ([0-9A-Z]{4}) \|`)

// TestGraphQLAuditAllowListIsDocumented: the SHOULD audits CI lets fail
// (.ci/graphql-http/should-allow.txt) are exactly the ones docs/api.md
// lists with their reasons, so neither can change without the other.
func TestGraphQLAuditAllowListIsDocumented(t *testing.T) {
	list, err := os.ReadFile(".ci/graphql-http/should-allow.txt")
	if err != nil {
		t.Fatal(err)
	}
	var allowed []string
	for _, line := range strings.Split(string(list), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if fields := strings.Fields(line); len(fields) > 0 {
			allowed = append(allowed, fields[0])
		}
	}
	doc, err := os.ReadFile("docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	// Only the GraphQL-over-HTTP section's table counts: other tables of
	// the document (the websocket's close codes) have four-character rows too.
	_, section, found := strings.Cut(string(doc), "\n### GraphQL over HTTP\n")
	if !found {
		t.Fatal(`docs/api.md has no "### GraphQL over HTTP" section`)
	}
	if end := strings.Index(section, "\n#"); end >= 0 {
		section = section[:end]
	}
	var documented []string
	for _, m := range auditRow.FindAllStringSubmatch(section, -1) {
		documented = append(documented, m[1])
	}
	slices.Sort(allowed)
	slices.Sort(documented)
	if len(allowed) == 0 || !slices.Equal(allowed, documented) {
		t.Errorf("should-allow.txt lists %v, docs/api.md documents %v: list each allowed audit in both", allowed, documented)
	}
}
