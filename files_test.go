package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lendingpipe/svc/internal/store/storetest"
	"github.com/lendingpipe/svc/rest/resttest"
)

// The running server sweeps its file store every SVC_STORAGE_SWEEP: a
// stored file no document names and older than the interval goes; a
// document's file, however old, stays and still downloads.
func TestServerSweepsUnnamedFiles(t *testing.T) {
	exe := buildBinary(t)
	addr := freeAddr(t)
	base := "http://" + addr
	files := filepath.Join(t.TempDir(), "files")
	env := []string{"SVC_ADDR=" + addr, "SVC_DATABASE_URL=" + storetest.URL(t), "SVC_STORAGE_URL=" + files, "SVC_STORAGE_SWEEP=1s"}
	startServe(t, exe, env)
	waitUp(t, base+"/readyz")
	key, _ := newOrgKey(t, exe, env)

	var lead struct {
		Data struct{ ID string } `json:"data"`
	}
	if code := getJSON(t, "POST", base+"/v1/leads", key, `{"businessName":"Sweep Test LLC"}`, &lead); code != http.StatusCreated {
		t.Fatalf("creating a lead: %d", code)
	}
	body, ct, err := resttest.MultipartBody(`mutation($r: ID!, $f: Upload!) { uploadDocument(recordId: $r, file: $f) { id } }`,
		map[string]any{"r": lead.Data.ID}, resttest.File{Var: "f", Name: "statement.pdf", Content: []byte("%PDF-1.4\n% kept\n")})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", ct)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var up struct {
		Data struct {
			UploadDocument struct{ ID string } `json:"uploadDocument"`
		} `json:"data"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&up)
	resp.Body.Close()
	if up.Data.UploadDocument.ID == "" {
		t.Fatalf("uploading: %d", resp.StatusCode)
	}

	// Age every stored file, and add one no document names.
	orphan := filepath.Join(files, "documents", "0193b6a4-2f1c-7d2e-9a41-5c3f8e2b7a10")
	if err := os.WriteFile(orphan, []byte("left by an upload that never committed"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	stored, _ := filepath.Glob(filepath.Join(files, "documents", "*"))
	if len(stored) != 2 {
		t.Fatalf("stored files %v, want the document's and the orphan", stored)
	}
	for _, f := range stored {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(orphan); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the unnamed file is still there after 10 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	req, _ = http.NewRequest("GET", base+"/v1/documents/"+up.Data.UploadDocument.ID+"/content", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the document's download after the sweep: %d", resp.StatusCode)
	}
}
