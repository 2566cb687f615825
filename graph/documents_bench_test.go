package graph_test

import (
	"bytes"
	"net/http"
	"runtime"
	"testing"

	"github.com/lendingpipe/svc/rest/resttest"
)

// BenchmarkUploadDocument uploads a 25 MiB file (the default limit)
// through real HTTP: the multipart transport spools it to disk and the
// flow streams it to the file store, so the heap stays far below the
// file's size (peak-heap-MiB).
func BenchmarkUploadDocument(b *testing.B) {
	e := resttest.New(b)
	lead := e.Post("/v1/leads", e.Key, map[string]any{"businessName": "Bench Co"}).Data()["id"].(string)
	content := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("0123456789abcdef"), (25<<20)/16-1)...)
	body, contentType, err := resttest.MultipartBody(`mutation($r: ID!, $file: Upload!) { uploadDocument(recordId: $r, file: $file) { id } }`,
		map[string]any{"r": lead}, resttest.File{Var: "file", Name: "big.pdf", Content: content})
	if err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	peak := uint64(0)
	b.SetBytes(int64(len(content)))
	b.ResetTimer()
	for range b.N {
		req, _ := http.NewRequest("POST", e.Server.URL+"/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Authorization", "Bearer "+e.Key)
		resp, err := e.Server.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
		runtime.ReadMemStats(&after)
		peak = max(peak, after.HeapInuse)
	}
	b.StopTimer()
	// The request body (held by the benchmark as the client) is 25 MiB of
	// this; the server's share is the rest.
	b.ReportMetric(float64(peak-min(peak, before.HeapInuse))/(1<<20), "heap-growth-MiB")
}
