package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/internal/enum"
	"github.com/lendingpipe/svc/internal/viewer"
)

// docs/api.md's roles table says what viewer.RoleScopes gives each role,
// for every role a user may hold.
func TestRolesTableMatchesScopes(t *testing.T) {
	text, err := os.ReadFile("docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(text), "### Roles\n")
	if !ok {
		t.Fatal("docs/api.md has no Roles section")
	}
	section, _, _ = strings.Cut(section, "\n### ")
	row := regexp.MustCompile("(?m)^\\| `([a-z]+)` \\| (.+) \\|$")
	documented := map[string][]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		var scopes []string
		for _, s := range strings.Split(m[2], ", ") {
			scopes = append(scopes, strings.Trim(s, "`"))
		}
		documented[m[1]] = scopes
	}
	for _, role := range enum.UserRoles {
		if !slices.Equal(documented[role], viewer.RoleScopes[role]) {
			t.Errorf("role %s: docs/api.md says %v, the code gives %v", role, documented[role], viewer.RoleScopes[role])
		}
	}
	if len(documented) != len(enum.UserRoles) {
		t.Errorf("docs/api.md lists %d roles, users may hold %d", len(documented), len(enum.UserRoles))
	}
}
