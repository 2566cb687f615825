package console

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
)

// vendorRow is a row of vendor/README.md's table: the file's path under
// vendor/ and its SHA-256 in hex.
var vendorRow = regexp.MustCompile("(?m)^\\| `([^`]+)` \\|.*\\| `([0-9a-f]{64})` \\|")

// Every file under vendor/ is listed in vendor/README.md with its digest,
// and has it: a file swapped, edited, re-minified or added unlisted fails.
func TestVendoredFilesArePinned(t *testing.T) {
	readme, err := os.ReadFile("vendor/README.md")
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]string{}
	for _, m := range vendorRow.FindAllStringSubmatch(string(readme), -1) {
		pinned[m[1]] = m[2]
	}
	if len(pinned) < 4 {
		t.Fatalf("vendor/README.md lists %d files: %v", len(pinned), pinned)
	}
	seen := map[string]bool{}
	err = fs.WalkDir(files, "vendor", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == "vendor/README.md" {
			return err
		}
		rel := strings.TrimPrefix(name, "vendor/")
		want, ok := pinned[rel]
		if !ok {
			t.Errorf("%s is not listed in vendor/README.md", name)
			return nil
		}
		seen[rel] = true
		body, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s has SHA-256 %s, vendor/README.md says %s", name, got, want)
		}
		if strings.Contains(string(body), "https://cdn.") {
			t.Errorf("%s names a CDN", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range pinned {
		if !seen[rel] {
			t.Errorf("vendor/README.md lists %s, which is not in vendor/", rel)
		}
	}
}

// The page names the endpoint and its files by the paths they are served
// at; every response carries the policy; only the vendored files are
// cached for good.
func TestRoutes(t *testing.T) {
	routes := Routes(Config{Title: "T", Path: "/ui", Endpoint: "/api/graphql", Playground: "/ide"})
	rec := httptest.NewRecorder()
	routes["/ui"].ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ui", nil))
	html := rec.Body.String()
	for _, want := range []string{`data-endpoint="/api/graphql"`, `src="/ui/app/main.js"`, `href="/ui/app/style.css"`, `href="/ide"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s:\n%s", want, html)
		}
	}
	if strings.Contains(html, "style=") || strings.Contains(html, "<script>") || strings.Contains(html, "<style") {
		t.Errorf("the page has inline script or style, which its policy refuses:\n%s", html)
	}
	for _, p := range []string{"/ui", "/ui/app/main.js", "/ui/app/screens/board.js", "/ui/app/style.css", "/ui/vendor/graphql-ws-6.4.2/client.js"} {
		h, ok := routes[p]
		if !ok {
			t.Errorf("%s is not routed", p)
			continue
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		hdr := rec.Result().Header
		if rec.Code != http.StatusOK || hdr.Get("Content-Security-Policy") != Policy || hdr.Get("X-Content-Type-Options") != "nosniff" ||
			hdr.Get("Referrer-Policy") != "no-referrer" || hdr.Get("ETag") == "" {
			t.Errorf("%s: %d %v", p, rec.Code, hdr)
		}
		immutable := strings.Contains(hdr.Get("Cache-Control"), "immutable")
		if immutable != strings.HasPrefix(p, "/ui/vendor/") {
			t.Errorf("%s: Cache-Control %q", p, hdr.Get("Cache-Control"))
		}
	}
	if _, ok := routes["/ui/vendor/README.md"]; ok {
		t.Error("vendor/README.md is served")
	}
	rec = httptest.NewRecorder()
	routes["/ui/"].ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ui/", nil))
	if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/ui" {
		t.Errorf("/ui/: %d %v", rec.Code, rec.Header())
	}
}

// Every screen main.js routes to exists, and every screen file is routed.
func TestEveryScreenIsRouted(t *testing.T) {
	main, err := files.ReadFile("app/main.js")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := fs.ReadDir(files, "app/screens")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.Contains(string(main), "import('./screens/"+e.Name()+"')") {
			t.Errorf("app/screens/%s is not in main.js's SCREENS", e.Name())
		}
	}
	for _, m := range regexp.MustCompile(`import\('\./screens/([^']+)'\)`).FindAllStringSubmatch(string(main), -1) {
		if _, err := fs.Stat(files, "app/screens/"+m[1]); err != nil {
			t.Errorf("main.js routes to app/screens/%s: %v", m[1], err)
		}
	}
}

func TestPathsMustBeOnThisOrigin(t *testing.T) {
	for _, cfg := range []Config{
		{Path: "https://example.com/console", Endpoint: "/graphql", Playground: "/playground"},
		{Path: "/console", Endpoint: "//example.com/graphql", Playground: "/playground"},
		{Path: "/console/", Endpoint: "/graphql", Playground: "/playground"},
		{Path: "/console", Endpoint: "/graphql", Playground: "playground"},
	} {
		if _, err := build(cfg); err == nil {
			t.Errorf("%+v was accepted", cfg)
		}
	}
}
