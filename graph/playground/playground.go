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
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"

	"github.com/lendingpipe/svc/internal/webpage"
)

// files holds the page and every file it loads. Only scripts and styles
// are embedded: the notices beside them are for readers of the source.
//
//go:embed page.html boot.js page.css assets/*.js assets/*.css
var files embed.FS

const (
	// Policy is the page's Content-Security-Policy: scripts, styles,
	// requests and the subscription websocket ('self' covers ws: and wss:
	// to this origin) only from this origin. Styles may also be inline
	// because GraphiQL's dialogs insert <style> elements; fonts and icons
	// are data: URIs inside GraphiQL's stylesheet. No eval, no frames, no
	// forms, and no other site may frame the page.
	Policy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
		"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	// KeyStorage is the name under which the console keeps the API key in
	// the browser's sessionStorage (console/app/key.js names it too): the
	// playground sends that key, so signing in on the console signs in here.
	KeyStorage = "svc.console.apiKey"
)

// Config says what the page shows and where it is served.
type Config struct {
	Title string
	// Endpoint is the GraphQL endpoint's path on this origin: queries and
	// mutations are POSTed to it, subscriptions use a websocket to it.
	Endpoint string
	// Path is where the page is served; its files are under Path/assets/.
	Path string
	// SignIn is the path of the page where a reader signs in (the
	// console); the playground points there when no key is stored.
	SignIn string
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
	if cfg.SignIn == "" {
		cfg.SignIn = "/console"
	}
	if !webpage.OnThisOrigin(cfg.Endpoint) || !webpage.OnThisOrigin(cfg.Path) || !webpage.OnThisOrigin(cfg.SignIn) {
		return nil, fmt.Errorf("the endpoint %q, the path %q and the sign-in page %q must be paths on this origin", cfg.Endpoint, cfg.Path, cfg.SignIn)
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
		routes[a.Path] = a
	}
	return routes, nil
}

// loadAssets reads the embedded scripts and styles, keyed by their file
// name, each served under dir by its hashed name.
func loadAssets(dir string) (map[string]*webpage.File, error) {
	assets := map[string]*webpage.File{}
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == "page.html" {
			return err
		}
		body, err := files.ReadFile(name)
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		base := path.Base(name)
		ctype, ok := webpage.ContentType(base)
		if !ok {
			return fmt.Errorf("%s: no content type for its extension", name)
		}
		if _, dup := assets[base]; dup {
			return fmt.Errorf("%s: two files of that name", base)
		}
		assets[base] = webpage.NewFile(path.Join(dir, HashedName(base, body)), ctype, webpage.Immutable, body, nil)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("loading the embedded files: %w", err)
	}
	return assets, nil
}

// HashedName is the name a file is served by: name with the first 12 hex
// digits of its content's SHA-256 before the extension
// ("react-18.2.0.production.min.0123456789ab.js"). Its served name carries
// its content's hash, so a changed file is a new name and browsers may
// keep each for good.
func HashedName(name string, body []byte) string { return webpage.HashedName(name, body) }

// renderPage fills in page.html once: its content depends on cfg only.
func renderPage(cfg Config, assets map[string]*webpage.File) (*webpage.File, error) {
	tmpl, err := template.New("page.html").Funcs(template.FuncMap{
		"keyStorage": func() string { return KeyStorage },
		"asset": func(name string) (string, error) {
			a, ok := assets[name]
			if !ok {
				return "", fmt.Errorf("the page names %s, which is not embedded", name)
			}
			return a.Path, nil
		},
	}).ParseFS(files, "page.html")
	if err != nil {
		return nil, fmt.Errorf("parsing the page: %w", err)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, cfg); err != nil {
		return nil, fmt.Errorf("rendering the page: %w", err)
	}
	// The page names the current files, so browsers ask for it again each
	// time.
	return webpage.NewFile(cfg.Path, "text/html; charset=utf-8", webpage.Revalidate, buf.Bytes(),
		map[string]string{"Content-Security-Policy": Policy}), nil
}
