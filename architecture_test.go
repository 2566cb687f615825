package main

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/lendingpipe/svc"

// layer ranks a package of this module: a package may import its own layer
// and the ones below it, never one above.
func layer(pkg string) int {
	p := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	top, _, _ := strings.Cut(p, "/")
	switch {
	case p == "":
		return 5 // main: configuration, wiring, commands
	case top == "rest":
		return 4 // the /v1 adapter
	case p == "webhooks/autorun":
		return 3 // the automation runner: a client of the operations, as REST is
	case top == "graph":
		return 3 // GraphQL: the operations
	case top == "webhooks", top == "dialer":
		return 2 // delivery, signing, inbound; the dialer's rules
	case top == "ent":
		return 1 // schemas, rules, hooks, generated code, leaf packages
	}
	return 0
}

// knownUpward are the upward imports that remain; the list may only
// shrink, and the test fails when one of them is gone so that it does.
var knownUpward = map[string]bool{
	"ent/schema -> webhooks": true,
}

// TestImportsPointDown fails when a package imports one of a layer above
// its own (main > rest > graph and the automation runner > webhooks and
// dialer > ent), so that a reader knows where a rule lives from its folder.
func TestImportsPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "sqlite_fts5", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		from := fields[0]
		for _, to := range fields[1:] {
			if !strings.HasPrefix(to, module) || layer(to) <= layer(from) {
				continue
			}
			edge := strings.TrimPrefix(from, module+"/") + " -> " + strings.TrimPrefix(to, module+"/")
			seen[edge] = true
			if !knownUpward[edge] {
				t.Errorf("%s imports upward (layer %d -> %d)", edge, layer(from), layer(to))
			}
		}
	}
	for edge := range knownUpward {
		if !seen[edge] {
			t.Errorf("%s no longer imports upward: remove it from knownUpward", edge)
		}
	}
}
