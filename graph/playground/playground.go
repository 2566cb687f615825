// Package playground serves GraphiQL, the in-browser GraphQL IDE, wholly
// from files built into the binary: a page of our own (page.html), its
// script and style, and pinned builds of GraphiQL and React (listed in
// assets/README.md). Nothing is loaded from another origin, so the
// playground works offline and behind proxies that block CDNs, and its
// Content-Security-Policy allows this origin only.
//
// It imports no package of this module; the HTTP root routes its paths.
package playground

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// files holds the page and every file it loads. Only scripts and styles
// are embedded: the notices beside them are for readers of the source.
//
//go:embed page.html boot.js page.css assets/*.js assets/*.css
var files embed.FS

const (
	// assetCache lets browsers keep a file for good: its served name
	// carries its content's hash, so a changed file is a new name.
	assetCache = "public, max-age=31536000, immutable"
	// pageCache makes browsers ask again each time (the ETag makes that a
	// 304): the page names the current files.
	pageCache = "no-cache"
	// Policy is the page's Content-Security-Policy: scripts, styles,
	// requests and the subscription websocket ('self' covers ws: and wss:
	// to this origin) only from this origin. Styles may also be inline
	// because GraphiQL's dialogs insert <style> elements; fonts and icons
	// are data: URIs inside GraphiQL's stylesheet. No eval, no frames, no
	// forms, and no other site may frame the page.
	Policy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
		"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

// contentTypes are the types of the files served, by extension.
var contentTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
}

// Config says what the page shows and where it is served.
type Config struct {
	Title string
	// Endpoint is the GraphQL endpoint's path on this origin: queries and
	// mutations are POSTed to it, subscriptions use a websocket to it.
	Endpoint string
	// Path is where the page is served; its files are under Path/assets/.
	Path string
}

// Routes returns every path the playground serves with its handler, for
// GET and HEAD: the page at cfg.Path and each embedded file under
// cfg.Path/assets/ by a name that carries its content's hash. Routing them
// one by one leaves every other path to the router's not-found answer.
//
// It panics if the embedded page cannot be built: the files are part of
// the binary, so that is a defect the package's tests catch.
func Routes(cfg Config) map[string]http.Handler {
	routes, err := build(cfg)
	if err != nil {
		panic(fmt.Sprintf("playground: %v", err))
	}
	return routes
}

func build(cfg Config) (map[string]http.Handler, error) {
	if !onThisOrigin(cfg.Endpoint) || !onThisOrigin(cfg.Path) {
		return nil, fmt.Errorf("the endpoint %q and the path %q must be paths on this origin", cfg.Endpoint, cfg.Path)
	}
	assets, err := loadAssets(path.Join(cfg.Path, "assets"))
	if err != nil {
		return nil, err
	}
	page, err := renderPage(cfg, assets)
	if err != nil {
		return nil, err
	}
	routes := map[string]http.Handler{cfg.Path: page}
	for _, a := range assets {
		routes[a.path] = a
	}
	return routes, nil
}

// onThisOrigin reports whether p is an absolute path, neither a URL nor
// a scheme-relative "//host/..." reference.
func onThisOrigin(p string) bool {
	return strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//")
}

// file is one response the playground serves, fixed at start.
type file struct {
	path    string // as served
	headers map[string]string
	body    []byte
	etag    string
}

func newFile(servedPath, contentType, cache string, body []byte) *file {
	sum := sha256.Sum256(body)
	return &file{
		path: servedPath,
		headers: map[string]string{
			"Content-Type":           contentType,
			"Cache-Control":          cache,
			"X-Content-Type-Options": "nosniff",
		},
		body: body,
		etag: `"` + hex.EncodeToString(sum[:16]) + `"`,
	}
}

// ServeHTTP answers GET and HEAD; ServeContent handles conditional and
// range requests against the ETag.
func (f *file) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for k, v := range f.headers {
		h.Set(k, v)
	}
	h.Set("ETag", f.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}

// loadAssets reads the embedded scripts and styles, keyed by their file
// name, each served under dir by its hashed name.
func loadAssets(dir string) (map[string]*file, error) {
	assets := map[string]*file{}
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == "page.html" {
			return err
		}
		body, err := files.ReadFile(name)
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		base := path.Base(name)
		ctype, ok := contentTypes[path.Ext(base)]
		if !ok {
			return fmt.Errorf("%s: no content type for its extension", name)
		}
		if _, dup := assets[base]; dup {
			return fmt.Errorf("%s: two files of that name", base)
		}
		assets[base] = newFile(path.Join(dir, HashedName(base, body)), ctype, assetCache, body)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("loading the embedded files: %w", err)
	}
	return assets, nil
}

// HashedName is the name a file is served by: name with the first 12 hex
// digits of its content's SHA-256 before the extension
// ("react-18.2.0.production.min.0123456789ab.js").
func HashedName(name string, body []byte) string {
	sum := sha256.Sum256(body)
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:6]) + ext
}

// renderPage fills in page.html once: its content depends on cfg only.
func renderPage(cfg Config, assets map[string]*file) (*file, error) {
	tmpl, err := template.New("page.html").Funcs(template.FuncMap{
		"asset": func(name string) (string, error) {
			a, ok := assets[name]
			if !ok {
				return "", fmt.Errorf("the page names %s, which is not embedded", name)
			}
			return a.path, nil
		},
	}).ParseFS(files, "page.html")
	if err != nil {
		return nil, fmt.Errorf("parsing the page: %w", err)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, cfg); err != nil {
		return nil, fmt.Errorf("rendering the page: %w", err)
	}
	page := newFile(cfg.Path, "text/html; charset=utf-8", pageCache, buf.Bytes())
	page.headers["Content-Security-Policy"] = Policy
	return page, nil
}
