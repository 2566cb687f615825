package console_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// allowDownloads saves the tab's downloads in a fresh folder, returned.
func allowDownloads(t *testing.T, ctx context.Context) string {
	t.Helper()
	dir := t.TempDir()
	on := true
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, EventsEnabled: &on,
		BrowserContextID: chromedp.FromContext(ctx).BrowserContextID,
	}); err != nil {
		t.Fatalf("allowing downloads: %v", err)
	}
	return dir
}

// downloaded waits for the one file saved in dir and returns its name and
// CSV records.
func downloaded(t *testing.T, dir string) (string, [][]string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		// Chromium writes <name>.crdownload until the file is whole.
		if len(entries) == 1 && !strings.HasSuffix(entries[0].Name(), ".crdownload") {
			raw, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
			if err != nil {
				t.Fatal(err)
			}
			records, err := csv.NewReader(strings.NewReader(string(raw))).ReadAll()
			if err != nil {
				t.Fatalf("the download is not CSV: %v", err)
			}
			return entries[0].Name(), records
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no file was downloaded")
	return "", nil
}

// The board's "Export CSV" downloads a file whose rows are the leads the
// board shows under its filters, signed in with a key (fetched with it
// and saved from memory) or as a person (the browser's own download,
// with the session's cookie).
func TestBoardExport(t *testing.T) {
	for _, how := range []string{"key", "session"} {
		t.Run(how, func(t *testing.T) {
			env := serve(t)
			seedLeads(t, env, 90) // every column shows all its leads once filtered
			ctx := newBrowser(t)
			if how == "key" {
				signIn(t, ctx, env, env.Key)
			} else {
				u := env.NewPerson(env.Org.ID, "Eve", "Export", "admin", personPassword)
				run(t, ctx, chromedp.Navigate(env.Server.URL+"/console"))
				passwordSignIn(t, ctx, u.Email, personPassword)
				// A person lands on their day; the board is a click away.
				run(t, ctx, evalVoid(`location.hash = '#/board'`))
			}
			dir := allowDownloads(t, ctx)
			waitBoard(t, ctx)
			waitFor(t, ctx, `document.querySelector('.card') !== null`)
			// Filter the board, and wait for its columns to answer.
			source := eval[string](t, ctx, `document.querySelector('.board-filters select[name="source"] option:nth-child(2)').value`)
			run(t, ctx, evalVoid(fmt.Sprintf(`(() => { const s = document.querySelector('.board-filters select[name="source"]');
				s.value = %q; s.dispatchEvent(new Event('change')); })()`, source)))
			waitBoard(t, ctx)
			waitFor(t, ctx, `[...document.querySelectorAll('.load-more')].every(b => b.hidden)`)
			board := eval[[]string](t, ctx, `[...document.querySelectorAll('.card')].map(c => c.dataset.id)`)
			if len(board) == 0 {
				t.Fatalf("no lead from source %s on the board", source)
			}
			total := eval[float64](t, ctx, `[...document.querySelectorAll('.board-column .board-count')].reduce((n, c) => n + Number(c.textContent.replace(/,/g, '')), 0)`)
			if int(total) != len(board) {
				t.Fatalf("the board counts %v leads and shows %d", total, len(board))
			}

			run(t, ctx, chromedp.Click(chromedp.CSS(`.screen-head button.export`)))
			name, records := downloaded(t, dir)
			if !strings.HasPrefix(name, "leads-") || !strings.HasSuffix(name, ".csv") {
				t.Errorf("the file is named %q, want leads-<date>.csv", name)
			}
			if len(records) == 0 || records[0][0] != "id" {
				t.Fatalf("the file has no header row: %v", records)
			}
			col := slices.Index(records[0], "source")
			var ids []string
			for _, r := range records[1:] {
				ids = append(ids, r[0])
				if r[col] != source {
					t.Errorf("row %s has source %s, want the board's filter %s", r[0], r[col], source)
				}
			}
			slices.Sort(ids)
			slices.Sort(board)
			if !slices.Equal(ids, board) {
				t.Errorf("the file's %d rows differ from the board's %d leads", len(ids), len(board))
			}
			if msg := eval[string](t, ctx, `document.getElementById('errors').textContent`); msg != "" {
				t.Errorf("the page shows an error: %s", msg)
			}

			// Searched, the board and the export agree again: the same
			// full-text search beside the same filters.
			word := eval[string](t, ctx, `document.querySelector('.card .card-title').textContent.split(/[^A-Za-z0-9]+/).filter(Boolean)[0]`)
			run(t, ctx, chromedp.SendKeys(chromedp.CSS(`.board-filters input[name="search"]`), word))
			waitFor(t, ctx, fmt.Sprintf(`new URLSearchParams(location.hash.split('?')[1] || '').get('q') === %q`, word))
			waitBoard(t, ctx)
			waitFor(t, ctx, `[...document.querySelectorAll('.load-more')].every(b => b.hidden)`)
			searched := eval[[]string](t, ctx, `[...document.querySelectorAll('.card')].map(c => c.dataset.id)`)
			if len(searched) == 0 || len(searched) > len(board) {
				t.Fatalf("searching %q shows %d of the filter's %d leads", word, len(searched), len(board))
			}
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			run(t, ctx, chromedp.Click(chromedp.CSS(`.screen-head button.export`)))
			_, records = downloaded(t, dir)
			ids = ids[:0]
			for _, r := range records[1:] {
				ids = append(ids, r[0])
			}
			slices.Sort(ids)
			slices.Sort(searched)
			if !slices.Equal(ids, searched) {
				t.Errorf("searching %q, the file's %d rows differ from the board's %d leads", word, len(ids), len(searched))
			}
		})
	}
}
