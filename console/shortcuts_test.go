package console

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

var (
	// screenRow is an entry of SCREENS in app/main.js: route, title, nav.
	screenRow = regexp.MustCompile(`\{ route: '([^']+)', title: '([^']+)', nav: (true|false)`)
	// goShortcut is a "g" shortcut of SHORTCUTS in app/shortcuts.js: its
	// letter and its route.
	goShortcut = regexp.MustCompile(`\{ keys: \['g', '(.)'\], label: '[^']*', go: '([^']+)' \}`)
	// docsGoRow is a "g" row of docs/console.md's shortcuts table.
	docsGoRow = regexp.MustCompile("(?m)^\\| `g` `(.)` \\| ([^|]+) \\|$")
)

// Every screen the nav links to has one "g" shortcut, every "g" shortcut
// goes to a screen, and docs/console.md's table lists each with the
// screen's title: a screen added to one place and not the others fails.
func TestShortcutsMatchScreensAndDocs(t *testing.T) {
	mainJS, err := files.ReadFile("app/main.js")
	if err != nil {
		t.Fatal(err)
	}
	shortcutsJS, err := files.ReadFile("app/shortcuts.js")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := os.ReadFile("../docs/console.md")
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{} // route -> title, of the nav's screens
	for _, m := range screenRow.FindAllStringSubmatch(string(mainJS), -1) {
		if m[3] == "true" {
			titles[m[1]] = m[2]
		}
	}
	if len(titles) < 10 {
		t.Fatalf("found %d nav screens in app/main.js: %v", len(titles), titles)
	}
	byLetter := map[string]string{} // letter -> route
	byRoute := map[string]string{}  // route -> letter
	for _, m := range goShortcut.FindAllStringSubmatch(string(shortcutsJS), -1) {
		letter, route := m[1], m[2]
		if prev, ok := byLetter[letter]; ok {
			t.Errorf("g %s goes to both %s and %s", letter, prev, route)
		}
		byLetter[letter] = route
		if _, ok := titles[route]; !ok {
			t.Errorf("g %s goes to %s, which is no screen of the nav", letter, route)
		}
		byRoute[route] = letter
	}
	for route, title := range titles {
		if _, ok := byRoute[route]; !ok {
			t.Errorf("the %s screen (%s) has no g shortcut", title, route)
		}
	}
	documented := map[string]string{} // letter -> what the docs call it
	for _, m := range docsGoRow.FindAllStringSubmatch(string(docs), -1) {
		documented[m[1]] = strings.TrimSpace(m[2])
	}
	for letter, route := range byLetter {
		if got, want := documented[letter], titles[route]; got != want {
			t.Errorf("docs/console.md's shortcuts table says g %s is %q, want %q", letter, got, want)
		}
	}
	for letter := range documented {
		if _, ok := byLetter[letter]; !ok {
			t.Errorf("docs/console.md's shortcuts table lists g %s, which app/shortcuts.js does not have", letter)
		}
	}
}
