package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The documents' examples are run, so that one which drifts from the
// server fails the build instead of a reader. A fenced block is marked by
// words after its language, which GitHub does not show:
//
//	```sh example                  run it; every curl must answer 2xx
//	```sh example status=422       every curl of the block must answer 422
//	```sh example prints=TEXT      and its output must contain TEXT (no spaces)
//	```graphql example             POST it to /graphql with $KEY; no errors
//	```sh no-run: REASON           a command a reader may paste that is not run here
//
// A file's examples run in document order in one bash session (set -euo
// pipefail), so ids kept in shell variables carry from one block to the
// next, as they do for a reader pasting into one terminal. The session
// starts with an environment holding little more than PATH: an example that
// uses a variable no earlier example set fails. The one thing a reader
// fills in is the reader's own: a document sets each once, as
// `export SVC=http://localhost:8080` (the default address), `export
// KEY=svc_live_...` (the key the first start prints) and `export
// RECEIVER=https://...` (a webhook receiver); the test runs those lines with
// its server's address, the key its server printed and a receiver of its
// own. Everything else runs as written.

// docFiles are the documents whose blocks are checked and run.
func docFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.md", "docs/*.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

// docBlock is one fenced block of a document.
type docBlock struct {
	file  string
	line  int // of the block's first line of content
	lang  string
	lines []string

	example bool   // run it
	status  string // every curl's expected status: "2xx", or a code
	prints  string // text its output must contain
	noRun   string // why a pastable command is not run
}

func (b docBlock) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// shellLangs are the languages of blocks a reader pastes into a shell (a
// fence without a language is one until it says otherwise).
var shellLangs = map[string]bool{"": true, "sh": true, "bash": true, "shell": true, "console": true, "zsh": true}

// parseDocBlocks reads a document's fenced blocks and their marks.
func parseDocBlocks(file, text string) ([]docBlock, error) {
	var blocks []docBlock
	var cur *docBlock
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if cur != nil {
			if trimmed == "```" {
				blocks = append(blocks, *cur)
				cur = nil
			} else {
				cur.lines = append(cur.lines, line)
			}
			continue
		}
		if !strings.HasPrefix(trimmed, "```") {
			continue
		}
		b := docBlock{file: file, line: i + 2, status: "2xx"}
		if err := b.parseInfo(strings.TrimPrefix(trimmed, "```")); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, i+1, err)
		}
		cur = &b
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: the block is never closed", file, cur.line-1)
	}
	return blocks, nil
}

// parseInfo reads the info string of a fence: the language, then marks.
func (b *docBlock) parseInfo(info string) error {
	lang, rest, _ := strings.Cut(strings.TrimSpace(info), " ")
	b.lang = lang
	rest = strings.TrimSpace(rest)
	if reason, ok := strings.CutPrefix(rest, "no-run"); ok {
		b.noRun = strings.TrimSpace(strings.TrimLeft(reason, ":="))
		if b.noRun == "" {
			return fmt.Errorf("no-run needs a reason: %q", info)
		}
		return nil
	}
	for _, word := range strings.Fields(rest) {
		switch key, value, _ := strings.Cut(word, "="); key {
		case "example":
			b.example = true
		case "status":
			if _, err := strconv.Atoi(value); err != nil || len(value) != 3 {
				return fmt.Errorf("status must be an HTTP status code: %q", info)
			}
			b.status = value
		case "prints":
			b.prints = value
		default:
			return fmt.Errorf("unknown mark %q in %q (example, status=, prints=, no-run: REASON)", word, info)
		}
	}
	if (b.status != "2xx" || b.prints != "") && !b.example {
		return fmt.Errorf("status= and prints= mark examples: %q", info)
	}
	if b.example && b.lang != "sh" && b.lang != "bash" && b.lang != "graphql" {
		return fmt.Errorf("only sh, bash and graphql blocks run: %q", info)
	}
	return nil
}

// readerValue matches a line that sets one of the reader's own values.
var readerValue = regexp.MustCompile(`^export (SVC|KEY|RECEIVER)=(\S*)`)

// checkBlock refuses what would let an example escape the run or run
// against something other than the test's server.
func checkBlock(b docBlock) []string {
	var problems []string
	text := strings.Join(b.lines, "\n")
	switch {
	case b.example || b.noRun != "":
	case b.lang == "graphql":
		problems = append(problems, b.where()+": a GraphQL block is marked neither `example` nor `no-run: REASON`")
	case shellLangs[b.lang] && strings.Contains(text, "curl"):
		problems = append(problems, b.where()+": a shell block with curl is marked neither `example` nor `no-run: REASON` (a block that shows output is `text`)")
	}
	if !b.example {
		return problems
	}
	for i, line := range b.lines {
		at := fmt.Sprintf("%s:%d", b.file, b.line+i)
		m := readerValue.FindStringSubmatch(line)
		switch {
		case m != nil && m[1] == "SVC" && m[2] != "http://localhost:8080":
			problems = append(problems, at+": SVC is the default address, http://localhost:8080")
		case m != nil && m[1] == "KEY" && !strings.HasPrefix(m[2], "svc_live_"):
			problems = append(problems, at+": KEY stands for the printed API key, svc_live_...")
		case m != nil && m[1] == "RECEIVER" && !strings.HasPrefix(m[2], "https://"):
			problems = append(problems, at+": RECEIVER is an https URL (a reader's receiver)")
		case m == nil && strings.Contains(line, "localhost:8080"):
			problems = append(problems, at+": an example reaches the server through $SVC, not localhost:8080")
		}
	}
	return problems
}

// TestDocsExamples runs every example of the documents against a real
// server started as a reader starts it: the built binary, `svc serve` in an
// empty directory, which creates svc.db and the demo organization. It is
// always SQLite, whichever database the suite runs on: that is what the
// documents start, and each file gets a fresh server of its own.
func TestDocsExamples(t *testing.T) {
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the documents' examples are shell commands and need %s, which is not installed", tool)
		}
	}
	runnable := map[string][]docBlock{}
	for _, file := range docFiles(t) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := parseDocBlocks(file, string(text))
		if err != nil {
			t.Error(err)
			continue
		}
		for _, b := range blocks {
			for _, p := range checkBlock(b) {
				t.Error(p)
			}
			if b.example {
				runnable[file] = append(runnable[file], b)
			}
		}
	}
	if t.Failed() {
		return
	}
	for _, tool := range []string{"jq", "openssl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the documents' examples use %s (the README says so), which is not installed", tool)
		}
	}
	exe := buildBinary(t)
	for file, blocks := range runnable {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			runDocExamples(t, exe, file, blocks)
		})
	}
}

// docsReceiver is a webhook receiver for the documents' subscriptions.
type docsReceiver struct {
	*httptest.Server
	signed atomic.Int64
}

func newDocsReceiver(t *testing.T) *docsReceiver {
	r := &docsReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost && strings.HasPrefix(req.Header.Get("X-Webhook-Signature"), "sha256=") {
			r.signed.Add(1)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

// runDocExamples starts a server for one document and runs its examples.
func runDocExamples(t *testing.T, exe, file string, blocks []docBlock) {
	started := time.Now()
	dir := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(dir, "svc")); err != nil {
		t.Fatal(err)
	}
	receiver := newDocsReceiver(t)
	base, key := startDocsServer(t, dir)
	values := map[string]string{"SVC": base, "KEY": key, "RECEIVER": receiver.URL + "/hook"}
	script, lineOf := docScript(blocks, values)
	out, err := runDocSession(t, dir, script)
	checkDocSession(t, file, blocks, lineOf, out, err)
	if usesReaderValue(blocks, "RECEIVER") {
		waitForDelivery(t, file, receiver)
	}
	graphql := 0
	for _, b := range blocks {
		if b.lang == "graphql" {
			graphql++
		}
	}
	t.Logf("%s: %d examples (%d shell, %d GraphQL) ran in %s",
		file, len(blocks), len(blocks)-graphql, graphql, time.Since(started).Round(time.Millisecond))
}

// runDocSession runs script with bash in dir and returns what it printed.
// The script lives outside dir, which holds only what a reader's would:
// svc and its database.
func runDocSession(t *testing.T, dir, script string) (string, error) {
	t.Helper()
	scriptFile := filepath.Join(t.TempDir(), "examples.sh")
	if err := os.WriteFile(scriptFile, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", scriptFile)
	cmd.Dir, cmd.Env = dir, minimalEnv(dir)
	// Its own process group, so that a timeout also ends what it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the examples did not finish in time:\n%s", out)
	}
	return string(out), err
}

// checkDocSession fails the test at the first example that failed, naming
// its block and the line of the failing command, with what it printed; and
// at every example whose output lacks what it must print.
func checkDocSession(t *testing.T, file string, blocks []docBlock, lineOf []int, out string, err error) {
	t.Helper()
	outputs, failure := splitDocOutput(out)
	var exit *exec.ExitError
	if failure == nil && errors.As(err, &exit) {
		// bash stopped without the trap (an unset variable, a syntax
		// error): the block that was running is the one at fault.
		failure = &docFailure{block: len(outputs) - 1, code: exit.ExitCode()}
	} else if err != nil && failure == nil {
		t.Fatalf("%s: bash: %v\n%s", file, err, out)
	}
	for i, b := range blocks {
		got := bashLines.ReplaceAllStringFunc(outputs[i], func(m string) string {
			n, _ := strconv.Atoi(bashLines.FindStringSubmatch(m)[1])
			return fmt.Sprintf("%s:%d: ", file, docLine(lineOf, n, b.line))
		})
		switch {
		case failure != nil && failure.block == i:
			t.Fatalf("%s: the example failed (exit %d) in the command that ends at %s:%d; it printed:\n%s",
				b.where(), failure.code, file, docLine(lineOf, failure.line, b.line), got)
		case b.prints != "" && !strings.Contains(got, b.prints):
			t.Errorf("%s: the example's output does not contain %q:\n%s", b.where(), b.prints, got)
		case testing.Verbose():
			t.Logf("%s printed:\n%s", b.where(), got) // what a reader sees
		}
	}
	if _, finished := outputs[len(blocks)]; failure != nil || !finished {
		t.Fatalf("%s: the session stopped outside its examples (%v):\n%s", file, err, out)
	}
}

// startDocsServer runs `svc serve` in dir as a reader's first start (no
// SVC_DATABASE_URL: it creates svc.db and the demo organization), with the
// development settings that let it deliver webhooks to a local receiver,
// and returns its address and the demo key it printed.
func startDocsServer(t *testing.T, dir string) (base, key string) {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(filepath.Join(dir, "svc"), "serve")
	cmd.Dir = dir
	cmd.Env = append(minimalEnv(dir), "SVC_ADDR="+addr, "SVC_WEBHOOK_ALLOW_HTTP=true", "SVC_WEBHOOK_ALLOW_PRIVATE=true")
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	waitFor(t, &stdout, "Try: curl")
	m := regexp.MustCompile(`API key \(shown once\): (\S+)`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("the first start printed no API key:\n%s\n%s", stdout.String(), stderr.String())
	}
	return "http://" + addr, m[1]
}

// minimalEnv is what a session needs to find its tools, and no more: no
// SVC_* setting, no variable the examples might use unset, and a home
// without the developer's ~/.curlrc.
func minimalEnv(home string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	if v := os.Getenv("TMPDIR"); v != "" {
		env = append(env, "TMPDIR="+v)
	}
	return env
}

// docPrelude starts every session. curl is the reader's curl plus a check
// of the status (-q: no ~/.curlrc), so a request the server refuses fails
// the example with the answer shown, instead of passing with an error body.
// A GraphQL block is posted as a reader's playground would send it.
const docPrelude = `set -euo pipefail
trap 'echo "::failed $? $LINENO"' ERR
__doc_block() { echo "::block $1"; __doc_status=$2; }
curl() {
  local out code rc=0
  out=$(command curl -q -w '\n%{http_code}' "$@") || rc=$?
  code=${out##*$'\n'}
  out=${out%$'\n'*}
  if [[ -n $out && $out != "$code" ]]; then printf '%s' "$out"; fi
  if (( rc != 0 )); then echo "curl exited $rc" >&2; return "$rc"; fi
  if [[ $__doc_status == 2xx && $code != 2?? ]] || [[ $__doc_status != 2xx && $code != "$__doc_status" ]]; then
    echo "HTTP $code, want $__doc_status: curl $*" >&2
    return 22
  fi
}
__doc_graphql() {
  local body out rc=0
  body=$(jq -Rs '{query: .}')
  out=$(curl -s "$SVC/graphql" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' --data-binary "$body") || rc=$?
  printf '%s\n' "$out"
  if (( rc != 0 )); then return "$rc"; fi
  if jq -e 'has("errors")' <<<"$out" >/dev/null; then echo "the GraphQL answer has errors" >&2; return 1; fi
}
`

// docScript is one session running blocks in order, and the document line
// of each of its lines (0 for those the test adds).
func docScript(blocks []docBlock, values map[string]string) (string, []int) {
	var s strings.Builder
	lineOf := []int{0} // bash counts from 1
	add := func(line string, docLine int) {
		s.WriteString(line + "\n")
		lineOf = append(lineOf, docLine)
	}
	for _, line := range strings.Split(strings.TrimSuffix(docPrelude, "\n"), "\n") {
		add(line, 0)
	}
	for i, b := range blocks {
		add(fmt.Sprintf("__doc_block %d %s", i, b.status), 0)
		if b.lang == "graphql" {
			add("__doc_graphql <<'__DOC_GRAPHQL__'", 0)
		}
		for j, line := range b.lines {
			if m := readerValue.FindStringSubmatch(line); m != nil {
				line = "export " + m[1] + "='" + values[m[1]] + "'"
			}
			add(line, b.line+j)
		}
		if b.lang == "graphql" {
			add("__DOC_GRAPHQL__", 0)
		}
	}
	add(fmt.Sprintf("__doc_block %d 2xx", len(blocks)), 0)
	return s.String(), lineOf
}

// docLine is the document line of a script line, or the block's first
// line when the script line is not one of the document's.
func docLine(lineOf []int, scriptLine, blockLine int) int {
	if scriptLine > 0 && scriptLine < len(lineOf) && lineOf[scriptLine] > 0 {
		return lineOf[scriptLine]
	}
	return blockLine
}

// bashLines finds bash's own messages, which name a line of the script.
var bashLines = regexp.MustCompile(`\S*examples\.sh: line (\d+): `)

// docFailure is where a session stopped: the block, the script line, the
// exit status.
type docFailure struct{ block, line, code int }

// splitDocOutput cuts a session's output at its block marks.
func splitDocOutput(out string) (map[int]string, *docFailure) {
	outputs := map[int]string{}
	block := -1
	var failure *docFailure
	var cur strings.Builder
	flush := func() {
		if block >= 0 {
			outputs[block] = cur.String()
		}
		cur.Reset()
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if n, ok := strings.CutPrefix(line, "::block "); ok {
			flush()
			block, _ = strconv.Atoi(n)
			continue
		}
		if f, ok := strings.CutPrefix(line, "::failed "); ok && failure == nil {
			failure = &docFailure{block: block}
			_, _ = fmt.Sscan(f, &failure.code, &failure.line)
			continue
		}
		cur.WriteString(line + "\n")
	}
	flush()
	return outputs, failure
}

// usesReaderValue reports whether a file sets the reader's value name.
func usesReaderValue(blocks []docBlock, name string) bool {
	for _, b := range blocks {
		for _, line := range b.lines {
			if m := readerValue.FindStringSubmatch(line); m != nil && m[1] == name {
				return true
			}
		}
	}
	return false
}

// waitForDelivery holds a document that subscribes its receiver to what it
// says: a signed delivery arrives.
func waitForDelivery(t *testing.T, file string, r *docsReceiver) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.signed.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s subscribes a receiver, but no signed delivery reached it", file)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDocsExampleMarks holds the guards to what they promise: a pastable
// request cannot escape the run unmarked, a typo in a mark is refused, and
// an example cannot reach a server other than the test's.
func TestDocsExampleMarks(t *testing.T) {
	fence := "```"
	for _, c := range []struct {
		name, doc, want string // want: a problem naming this, or "" for none
	}{
		{"RunnableShell", fence + "sh example\ncurl -s $SVC/v1/leads\n" + fence, ""},
		{"ShownOutput", fence + "text\nTry: curl -s http://localhost:8080/v1/leads\n" + fence, ""},
		{"NotRunWithReason", fence + "sh no-run: starts a second server\ncurl -s $SVC/status\n" + fence, ""},
		{"CommandWithoutCurl", fence + "sh\ngo build -tags sqlite_fts5 -o svc .\n" + fence, ""},
		{"UnmarkedCurl", fence + "sh\ncurl -s $SVC/v1/leads\n" + fence, "marked neither"},
		{"UnlabelledCurl", fence + "\ncurl -s $SVC/v1/leads\n" + fence, "marked neither"},
		{"UnmarkedGraphQL", fence + "graphql\n{ leads { totalCount } }\n" + fence, "marked neither"},
		{"NotRunWithoutReason", fence + "sh no-run\ncurl -s $SVC/status\n" + fence, "needs a reason"},
		{"MisspeltMark", fence + "sh exmaple\ncurl -s $SVC/status\n" + fence, `unknown mark "exmaple"`},
		{"BadStatus", fence + "sh example status=4xx\ncurl -s $SVC/status\n" + fence, "HTTP status code"},
		{"PrintsWithoutExample", fence + "sh prints=ok\necho ok\n" + fence, "mark examples"},
		{"RunnableJSON", fence + "json example\n{}\n" + fence, "only sh, bash and graphql"},
		{"Unclosed", fence + "sh example\ncurl -s $SVC/status\n", "never closed"},
		{"FixedAddress", fence + "sh example\ncurl -s http://localhost:8080/status\n" + fence, "through $SVC"},
		{"OtherDefaultAddress", fence + "sh example\nexport SVC=http://localhost:9090\n" + fence, "default address"},
		{"KeyPlaceholder", fence + "sh example\nexport KEY=my-key\n" + fence, "svc_live_"},
		{"PlainHTTPReceiver", fence + "sh example\nexport RECEIVER=http://localhost:9000/hook\n" + fence, "https URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var problems []string
			blocks, err := parseDocBlocks("doc.md", "Some prose.\n\n"+c.doc+"\n")
			if err != nil {
				problems = append(problems, err.Error())
			}
			for _, b := range blocks {
				problems = append(problems, checkBlock(b)...)
			}
			got := strings.Join(problems, "\n")
			switch {
			case c.want == "" && got != "":
				t.Errorf("refused: %s", got)
			case c.want != "" && !strings.Contains(got, c.want):
				t.Errorf("problems %q, want one saying %q", got, c.want)
			case c.want != "" && !strings.Contains(got, "doc.md:"):
				t.Errorf("problems %q do not name the file and line", got)
			}
		})
	}
}

// TestDocScriptSetsReadersValues checks the one rewrite the run makes: the
// reader's own values, and nothing else, with every line still mapped to
// its place in the document.
func TestDocScriptSetsReadersValues(t *testing.T) {
	blocks, err := parseDocBlocks("doc.md", "```sh example\nexport SVC=http://localhost:8080\nexport KEY=svc_live_...   # paste it\necho \"$SVC $KEY\"\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	script, lineOf := docScript(blocks, map[string]string{"SVC": "http://127.0.0.1:1", "KEY": "svc_live_k"})
	lines := strings.Split(script, "\n")
	for n, want := range map[int]string{2: "export SVC='http://127.0.0.1:1'", 3: "export KEY='svc_live_k'", 4: `echo "$SVC $KEY"`} {
		i := scriptLineOf(lineOf, n)
		if i < 0 || lines[i-1] != want {
			t.Errorf("doc.md:%d runs as %q, want %q", n, lines[max(i-1, 0)], want)
		}
	}
}

// scriptLineOf is the script line (counted from 1) that runs document line n.
func scriptLineOf(lineOf []int, n int) int {
	for i, l := range lineOf {
		if l == n && i > 0 {
			return i
		}
	}
	return -1
}
