package playground

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pinned are the published builds' SHA-256 digests, the ones gqlgen's
// GraphiQL page names in its integrity attributes (and assets/README.md
// lists): a file swapped, edited or re-minified fails here.
var pinned = map[string]string{
	"graphiql-4.1.2.min.js":              "hnImuor1znlJkD/FOTL3jayfS/xsyNoP04abi8bFJWs=",
	"graphiql-4.1.2.min.css":             "MEh+B2NdMSpj9kexQNN3QKc8UzMrCXW/Sx/phcpuyIU=",
	"react-18.2.0.production.min.js":     "S0lp+k7zWUMk2ixteM6HZvu8L9Eh//OVrt+ZfbCpmgY=",
	"react-dom-18.2.0.production.min.js": "IXWO0ITNDjfnNXIu5POVfqlgYoop36bDzhodR6LW5Pc=",
}

func TestThirdPartyFilesArePinned(t *testing.T) {
	names, err := filepath.Glob("assets/*")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, name := range names {
		base := filepath.Base(name)
		if base == "README.md" || base == ".gitattributes" {
			continue
		}
		want, ok := pinned[base]
		if !ok {
			t.Errorf("%s is not pinned: add its digest here and a row to assets/README.md", name)
			continue
		}
		seen++
		body, err := files.ReadFile("assets/" + base)
		if err != nil {
			t.Fatalf("%s is not embedded: %v", base, err)
		}
		sum := sha256.Sum256(body)
		if got := base64.StdEncoding.EncodeToString(sum[:]); got != want {
			t.Errorf("%s has SHA-256 %s, want the published build's %s", base, got, want)
		}
		if strings.Contains(string(body), "https://cdn.") {
			t.Errorf("%s names a CDN", base)
		}
	}
	if seen != len(pinned) {
		t.Errorf("%d of the %d pinned files are in assets/", seen, len(pinned))
	}
	readme, err := os.ReadFile("assets/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, digest := range pinned {
		if !strings.Contains(string(readme), "`"+name+"`") || !strings.Contains(string(readme), digest) {
			t.Errorf("assets/README.md does not list %s with its digest", name)
		}
	}
}

// Every route is under the configured path, the page names each file by
// the route it is served at, and a file's name changes with its content.
func TestRoutesFollowTheConfiguredPath(t *testing.T) {
	routes := Routes(Config{Title: "T", Endpoint: "/api/graphql", Path: "/ide"})
	page, ok := routes["/ide"]
	if !ok {
		t.Fatalf("no page at /ide: %v", routes)
	}
	rec := httptest.NewRecorder()
	page.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ide", nil))
	html := rec.Body.String()
	if !strings.Contains(html, `data-endpoint="/api/graphql"`) {
		t.Errorf("the page does not name its endpoint:\n%s", html)
	}
	for route := range routes {
		if route == "/ide" {
			continue
		}
		if !strings.HasPrefix(route, "/ide/assets/") || !strings.Contains(html, `"`+route+`"`) {
			t.Errorf("%s is not a file the page loads from /ide/assets/", route)
		}
	}
	if len(routes) != 1+len(pinned)+2 { // the page, the third-party files, boot.js and page.css
		t.Errorf("%d routes: %v", len(routes), routes)
	}
	if a, b := HashedName("boot.js", []byte("a")), HashedName("boot.js", []byte("b")); a == b || !strings.HasPrefix(a, "boot.") || !strings.HasSuffix(a, ".js") {
		t.Errorf("hashed names %s and %s", a, b)
	}
}

func TestTheEndpointMustBeOnThisOrigin(t *testing.T) {
	for _, cfg := range []Config{
		{Endpoint: "https://api.example.com/graphql", Path: "/playground"},
		{Endpoint: "//api.example.com/graphql", Path: "/playground"},
		{Endpoint: "/graphql", Path: "playground"},
	} {
		if _, err := build(cfg); err == nil {
			t.Errorf("%+v was accepted", cfg)
		}
	}
}

// The page tells boot.js where the console keeps the key and where a
// reader signs in, so the playground can send that key or point there.
func TestThePageNamesTheSignIn(t *testing.T) {
	routes := Routes(Config{Title: "T", Endpoint: "/graphql", Path: "/playground", SignIn: "/ui"})
	rec := httptest.NewRecorder()
	routes["/playground"].ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/playground", nil))
	html := rec.Body.String()
	for _, want := range []string{`data-sign-in="/ui"`, `data-key-storage="` + KeyStorage + `"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s:\n%s", want, html)
		}
	}
	boot, err := files.ReadFile("boot.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sessionStorage", "dataset.keyStorage", "wsConnectionParams", "'Bearer ' + key"} {
		if !strings.Contains(string(boot), want) {
			t.Errorf("boot.js lacks %s", want)
		}
	}
}
