// Package filestoretest starts an S3-compatible server in the test's
// process (gofakes3, in memory), so the s3:// path of the file store is
// tested against a real S3 protocol peer rather than a stand-in of ours.
package filestoretest

import (
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// S3 starts an S3 server holding one empty bucket and answers the file
// store URL that reaches it. It sets the AWS credential variables the
// store reads, so the test may not run in parallel with others.
func S3(tb testing.TB, bucket string) string {
	tb.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		tb.Fatalf("creating bucket %s: %v", bucket, err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	tb.Cleanup(srv.Close)
	if t, ok := tb.(interface{ Setenv(k, v string) }); ok {
		t.Setenv("AWS_ACCESS_KEY_ID", "test")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	}
	q := url.Values{"endpoint": {srv.URL}, "region": {"us-east-1"}, "use_path_style": {"true"}, "disable_https": {"true"}}
	return "s3://" + bucket + "?" + q.Encode()
}
