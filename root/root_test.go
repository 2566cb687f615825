package root_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/graph/playground"
	"github.com/lendingpipe/svc/rest/resttest"
)

// embeddedDir is where the playground's files live in the source tree.
const embeddedDir = "../graph/playground"

var (
	// anyOrigin finds a URL with a scheme or a scheme-relative one.
	anyOrigin = regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://|["'(=\s]//`)
	// loads finds what the page loads: scripts and stylesheets.
	loads = regexp.MustCompile(`(?i)\b(?:src|href)\s*=\s*"([^"]*)"`)
	// hashed splits a served name into the embedded name and its hash.
	hashed = regexp.MustCompile(`^(.+)\.([0-9a-f]{12})(\.[a-z]+)$`)
)

// The playground works with no network beyond this server: its page names
// no other origin, allows none in its Content-Security-Policy, and every
// file it loads is served from the binary, byte for byte the file in the
// source tree.
func TestPlaygroundLoadsNothingFromAnotherOrigin(t *testing.T) {
	e := resttest.New(t)
	resp, page := get(t, http.MethodGet, e.Server.URL+"/playground", nil)
	wantHeaders(t, resp, http.StatusOK, map[string]string{
		"Content-Type":           "text/html; charset=utf-8",
		"Cache-Control":          "no-cache",
		"X-Content-Type-Options": "nosniff",
	})
	checkPolicy(t, resp.Header.Get("Content-Security-Policy"))
	if m := anyOrigin.Find(page); m != nil {
		t.Errorf("the page names another origin (%q):\n%s", m, page)
	}
	if !bytes.Contains(page, []byte(`data-endpoint="/graphql"`)) {
		t.Errorf("the page does not point GraphiQL at /graphql:\n%s", page)
	}

	var loaded []string
	for _, m := range loads.FindAllSubmatch(page, -1) {
		ref := string(m[1])
		if ref == "data:," {
			continue // the empty icon: it names no file, so browsers ask for no /favicon.ico
		}
		if !strings.HasPrefix(ref, "/playground/assets/") {
			t.Errorf("the page loads %s, not a file of the playground", ref)
			continue
		}
		loaded = append(loaded, checkAsset(t, e, ref))
	}
	slices.Sort(loaded)
	if embedded := embeddedFiles(t); !slices.Equal(loaded, embedded) {
		t.Errorf("the page loads %v; the embedded files are %v", loaded, embedded)
	}

	// A browser revalidating the page gets a 304; HEAD has the GET's headers.
	resp, _ = get(t, http.MethodGet, e.Server.URL+"/playground", map[string]string{"If-None-Match": resp.Header.Get("ETag")})
	wantHeaders(t, resp, http.StatusNotModified, nil)
	resp, body := get(t, http.MethodHead, e.Server.URL+"/playground", nil)
	wantHeaders(t, resp, http.StatusOK, map[string]string{"Content-Type": "text/html; charset=utf-8"})
	if len(body) != 0 || resp.Header.Get("Content-Security-Policy") != playground.Policy {
		t.Errorf("HEAD: body %q, policy %q", body, resp.Header.Get("Content-Security-Policy"))
	}
}

// checkAsset fetches one file the page loads and returns the name it is
// embedded under.
func checkAsset(t *testing.T, e *resttest.Env, ref string) string {
	t.Helper()
	m := hashed.FindStringSubmatch(path.Base(ref))
	if m == nil {
		t.Errorf("%s: the served name carries no content hash", ref)
		return ""
	}
	name, hash := m[1]+m[3], m[2]
	want := readEmbedded(t, name)
	resp, got := get(t, http.MethodGet, e.Server.URL+ref, nil)
	wantHeaders(t, resp, http.StatusOK, map[string]string{
		"Content-Type":           map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}[m[3]],
		"Cache-Control":          "public, max-age=31536000, immutable",
		"X-Content-Type-Options": "nosniff",
	})
	if !bytes.Equal(got, want) {
		t.Errorf("%s: %d bytes served differ from %s's %d", ref, len(got), name, len(want))
	}
	if sum := sha256.Sum256(want); hex.EncodeToString(sum[:6]) != hash {
		t.Errorf("%s: the name's hash is not %s's content hash", ref, name)
	}
	return name
}

// checkPolicy holds the Content-Security-Policy to this origin: each
// source is 'self' or 'none', except inline styles and data: fonts and
// images, which GraphiQL's stylesheet and dialogs use.
func checkPolicy(t *testing.T, policy string) {
	t.Helper()
	directives := map[string][]string{}
	for _, d := range strings.Split(policy, ";") {
		if f := strings.Fields(d); len(f) > 0 {
			directives[f[0]] = f[1:]
		}
	}
	extra := map[string][]string{"style-src": {"'unsafe-inline'"}, "img-src": {"data:"}, "font-src": {"data:"}}
	for name, sources := range directives {
		for _, s := range sources {
			if s != "'self'" && s != "'none'" && !slices.Contains(extra[name], s) {
				t.Errorf("Content-Security-Policy %s allows %s: %q", name, s, policy)
			}
		}
	}
	for _, name := range []string{"default-src", "script-src", "connect-src", "frame-ancestors", "base-uri"} {
		if len(directives[name]) == 0 {
			t.Errorf("Content-Security-Policy lacks %s: %q", name, policy)
		}
	}
	if !slices.Equal(directives["default-src"], []string{"'none'"}) {
		t.Errorf("Content-Security-Policy default-src is %v, want 'none'", directives["default-src"])
	}
}

// `GET /` sends a browser to the console; other methods there are
// answered in the error envelope.
func TestRootRedirectsToTheConsole(t *testing.T) {
	e := resttest.New(t)
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		resp, _ := get(t, method, e.Server.URL+"/", nil)
		wantHeaders(t, resp, http.StatusFound, map[string]string{"Location": "/console"})
		resp, _ = get(t, method, e.Server.URL+"/console/", nil)
		wantHeaders(t, resp, http.StatusMovedPermanently, map[string]string{"Location": "/console"})
	}
	resp, err := e.Server.Client().Get(e.Server.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/console" {
		t.Errorf("following / ends at %s with %d", resp.Request.URL, resp.StatusCode)
	}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		for _, p := range []string{"/", "/playground", "/console", "/console/app/main.js"} {
			r := e.Do(resttest.Request{Method: method, Path: p})
			if code, _ := r.Error(); r.Status != http.StatusMethodNotAllowed || code != "METHOD_NOT_ALLOWED" {
				t.Errorf("%s %s: %d %s, want 405 in the error envelope", method, p, r.Status, r.Raw)
			}
		}
	}
	for _, p := range []string{"/playground/", "/playground/assets/graphiql.min.js", "/playground/assets/README.md",
		"/console/vendor/README.md", "/console/app/nothing.js", "/console/index.html"} {
		if r := e.Get(p, ""); r.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d %s, want 404", p, r.Status, r.Raw)
		}
	}
}

// The playground sends the key the console stores: both name the same
// sessionStorage entry.
func TestThePlaygroundReadsTheConsolesKey(t *testing.T) {
	keyJS, err := os.ReadFile("../console/app/key.js")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(keyJS), "STORAGE_KEY = '"+playground.KeyStorage+"'") {
		t.Errorf("console/app/key.js does not store the key under %q, the name the playground reads", playground.KeyStorage)
	}
}

// rawClient follows no redirect, sends Accept-Encoding only as a test sets
// it, and hands back the bytes as they came over the wire, undecoded.
var rawClient = &http.Client{
	Transport:     &http.Transport{DisableCompression: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// get makes a request with rawClient.
func get(t *testing.T, method, url string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading: %v", method, url, err)
	}
	return resp, body
}

func wantHeaders(t *testing.T, resp *http.Response, status int, headers map[string]string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("%s %s: status %d, want %d", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, status)
	}
	for k, want := range headers {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s %s: %s is %q, want %q", resp.Request.Method, resp.Request.URL.Path, k, got, want)
		}
	}
}

// embeddedFiles lists the scripts and styles in the source tree beside the
// page and under assets/, by name.
func embeddedFiles(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, pattern := range []string{"*.js", "*.css", "assets/*.js", "assets/*.css"} {
		found, err := filepath.Glob(filepath.Join(embeddedDir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			names = append(names, filepath.Base(f))
		}
	}
	slices.Sort(names)
	if len(names) < 6 {
		t.Fatalf("only %v found under %s", names, embeddedDir)
	}
	return names
}

func readEmbedded(t *testing.T, name string) []byte {
	t.Helper()
	for _, dir := range []string{embeddedDir, filepath.Join(embeddedDir, "assets")} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			return b
		}
	}
	t.Fatalf("%s is not in the source tree", name)
	return nil
}
