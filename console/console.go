// Package console serves the web console: one page (index.html) and the
// plain ES modules, stylesheet and pinned third-party files it loads, all
// built into the binary. The console's only data source is the GraphQL
// endpoint; the page names it, and app/api.js talks to it with the API key
// the reader signs in with (kept in the tab's sessionStorage).
//
// The modules import each other by relative names, so each file is served
// at its own path under the console's (/console/app/main.js), revalidated
// by its ETag; the third-party files under vendor/ sit in folders named for
// their versions and are cached for good. Every response carries Policy.
//
// It imports no package of this module but the internal/webpage leaf; the
// HTTP root routes its paths.
package console

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/lendingpipe/svc/internal/webpage"
)

// files holds the page and everything it loads. vendor/README.md is for
// readers of the source and is not served.
//
//go:embed index.html app vendor
var files embed.FS

// Policy is the Content-Security-Policy of the page and of every file:
// scripts, styles, fonts, requests and the subscription websocket ('self'
// covers ws: and wss: to this origin) from this origin only, no inline
// script or style attribute, no eval, no frames, no forms posted anywhere,
// and no other site may frame the console. Charts draw on canvases and may
// export them as blob: or data: images.
const Policy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// headers go with every response of the console.
var headers = map[string]string{
	"Content-Security-Policy": Policy,
	"Referrer-Policy":         "no-referrer",
}

// Config says where the console is served and what it talks to.
type Config struct {
	Title string
	// Path is where the page is served; its files are under Path/.
	Path string
	// Endpoint is the GraphQL endpoint's path on this origin.
	Endpoint string
	// Playground is the GraphQL playground's path, linked from the page.
	Playground string
	// SSO says the server offers single sign-on (/auth/oidc/start): the
	// sign-in form then shows "Sign in with SSO".
	SSO bool
}

// Routes returns every path the console serves with its handler, for GET
// and HEAD: the page at cfg.Path, a redirect from cfg.Path/ to it, and each
// embedded file at cfg.Path/<its name in this folder>. Routing them one by
// one leaves every other path to the router's not-found answer.
//
// It panics if the embedded page cannot be built: the files are part of
// the binary, so that is a defect the package's tests catch.
func Routes(cfg Config) map[string]http.Handler {
	routes, err := build(cfg)
	if err != nil {
		panic(fmt.Sprintf("console: %v", err))
	}
	return routes
}

func build(cfg Config) (map[string]http.Handler, error) {
	for _, p := range []string{cfg.Path, cfg.Endpoint, cfg.Playground} {
		if !webpage.OnThisOrigin(p) || strings.HasSuffix(p, "/") {
			return nil, fmt.Errorf("the path %q, the endpoint %q and the playground %q must be paths on this origin, without a trailing slash",
				cfg.Path, cfg.Endpoint, cfg.Playground)
		}
	}
	routes := map[string]http.Handler{}
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == "index.html" || path.Ext(name) == ".md" {
			return err
		}
		body, err := files.ReadFile(name)
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		ctype, ok := webpage.ContentType(name)
		if !ok {
			return fmt.Errorf("%s: no content type for its extension", name)
		}
		// A vendored file's folder names its version; the console's own
		// modules keep their names across changes, so browsers revalidate.
		cache := webpage.Revalidate
		if strings.HasPrefix(name, "vendor/") {
			cache = webpage.Immutable
		}
		served := cfg.Path + "/" + name
		routes[served] = webpage.NewFile(served, ctype, cache, body, headers)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("loading the embedded files: %w", err)
	}
	page, err := renderPage(cfg)
	if err != nil {
		return nil, err
	}
	routes[cfg.Path] = page
	routes[cfg.Path+"/"] = http.RedirectHandler(cfg.Path, http.StatusMovedPermanently)
	return routes, nil
}

// renderPage fills in index.html once: its content depends on cfg only.
func renderPage(cfg Config) (*webpage.File, error) {
	tmpl, err := template.ParseFS(files, "index.html")
	if err != nil {
		return nil, fmt.Errorf("parsing the page: %w", err)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, cfg); err != nil {
		return nil, fmt.Errorf("rendering the page: %w", err)
	}
	return webpage.NewFile(cfg.Path, "text/html; charset=utf-8", webpage.Revalidate, buf.Bytes(), headers), nil
}
