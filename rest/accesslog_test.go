package rest_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/store"
	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/rest"
	"github.com/lendingpipe/svc/root"
)

// lockedBuffer is a log sink the server's goroutines may share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestAccessLogRedactsPathSecrets drives the responses made before routing
// (and unrouted ones) at the connector and inbound paths through a real
// server, and checks the secret segment never reaches the log.
func TestAccessLogRedactsPathSecrets(t *testing.T) {
	const secret = "{token}" // each case's server makes a real connector token
	big := strings.Repeat("x", 2048)
	cases := []struct {
		name, method, path string
		body               io.Reader
		chunked            bool
		header             map[string]string
		rateLimit          int
		want               int
	}{
		{name: "TooLargeByLength", method: "POST", path: "/v1/dialer/connect/" + secret, body: strings.NewReader(big), want: 413},
		{name: "TooLargeChunked", method: "POST", path: "/v1/dialer/connect/" + secret, body: strings.NewReader(big), chunked: true, want: 413},
		{name: "RateLimited", method: "POST", path: "/v1/dialer/connect/" + secret, body: strings.NewReader("{}"), rateLimit: 1, want: 429},
		{name: "UnsupportedVersion", method: "POST", path: "/v1/dialer/connect/" + secret, body: strings.NewReader("{}"),
			header: map[string]string{rest.APIVersionHeader: "1999-01-01"}, want: 400},
		{name: "OtherMethod", method: "GET", path: "/v1/dialer/connect/" + secret, want: 401},
		{name: "Unrouted", method: "POST", path: "/v1/dialer/connect/" + secret + "/extra", body: strings.NewReader("{}"), want: 401},
		{name: "OtherSpelling", method: "POST", path: "//V1/dialer/Connect/" + secret, body: strings.NewReader("{}"), want: 404},
		{name: "InboundTooLarge", method: "POST", path: "/v1/webhooks/inbound/" + secret, body: strings.NewReader(big), want: 413},
		{name: "InboundVersion", method: "POST", path: "/v1/webhooks/inbound/" + secret, body: strings.NewReader("{}"),
			header: map[string]string{rest.APIVersionHeader: "1999-01-01"}, want: 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			limit := c.rateLimit
			if limit == 0 {
				limit = 1000
			}
			logs := &lockedBuffer{}
			logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			db := storetest.Open(t)
			_, token, err := store.CreateOrganization(context.Background(), db.Client, "Logged Shop")
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(root.Handler(rest.Config{MaxBodyBytes: 1024, RateLimit: limit, RateWindow: time.Minute}, db, logger))
			status := 0
			for range limit + 1 { // a rate limit of n answers 429 to request n+1
				req, err := http.NewRequest(c.method, srv.URL+strings.Replace(c.path, secret, token, 1), c.body)
				if err != nil {
					t.Fatal(err)
				}
				if c.chunked {
					req.ContentLength = -1
					req.Body = io.NopCloser(strings.NewReader(big))
				}
				for k, v := range c.header {
					req.Header.Set(k, v)
				}
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				status = resp.StatusCode
				if c.rateLimit == 0 {
					break
				}
			}
			srv.Close() // waits for the handlers, and so for their log lines
			if status != c.want {
				t.Fatalf("status %d, want %d", status, c.want)
			}
			out := logs.String()
			if !strings.Contains(out, "msg=request") {
				t.Fatalf("no access log line: %q", out)
			}
			if strings.Contains(strings.ToLower(out), strings.ToLower(token)) {
				t.Errorf("the log holds the path secret:\n%s", out)
			}
		})
	}
}
