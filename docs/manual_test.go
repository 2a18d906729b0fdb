//go:build unix

// Package docs holds the test that runs the manual: every shell block of
// the README and of the guide (docs/guide/*.md) runs on the test data, in
// a folder laid out like a checkout, so the commands the manual shows
// cannot drift from the ones dchess takes; and the test that keeps the
// record's figures out of the manual (figures_test.go).
//
// A block runs as written unless an HTML comment just above its fence says
// otherwise. The comment starts with "<!-- test:" and holds one directive
// a line (the first may follow "test:" on the same line):
//
//	skip (REASON)              the block is not run, for REASON
//	skip "TEXT" (REASON)       its lines holding TEXT are not run
//	set --flag VALUE           every --flag in the block takes VALUE
//	replace "OLD" "NEW"        every OLD in the block becomes NEW
//	before "COMMAND"           COMMAND runs first: what the block expects
//	                           from another page, or data the test makes
//	env NAME=VALUE             the block's commands run with NAME=VALUE
//
// Strings are Go strings ("..." or `...`). Edits apply in the order
// written; each must change something, and each skip must match, so a
// marker cannot outlive the text it was written for. A block without a
// marker runs: a new block is tested from the day it is added.
package docs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dchess/dchess/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.RunRemovingDchess(m)) }

// block is one fenced shell block of a page.
type block struct {
	page   string // path from the repository's root
	n      int    // its number among the page's shell blocks, from 1
	fence  int    // the line of its opening fence, from 1
	lines  []line // its command lines, continuations joined
	marker *marker
}

// line is one command line of a block.
type line struct {
	text string
	at   int // its first line in the page
}

// marker is what the comment above a block says.
type marker struct {
	at         int    // the comment's first line
	skip       string // the reason the whole block is not run
	skipLines  []lineSkip
	directives []directive // set and replace, in order
	before     []string
	env        []string
}

type lineSkip struct{ text, reason string }

type directive struct {
	kind     string // "set" or "replace"
	old, new string // the flag and its value, or the text and its replacement
}

// step is a command the test runs, and where it comes from.
type step struct {
	text   string
	where  string // "README.md:90 (block 2, line 3)"
	env    []string
	before bool // a marker's set-up command, not the block's
}

// manualPages lists the README and the guide's pages.
func manualPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "docs", "guide", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no guide pages: %v", err)
	}
	out := []string{"README.md"}
	for _, p := range pages {
		rel, _ := filepath.Rel(testenv.RepoRoot(), p)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

var fenceRE = regexp.MustCompile("^```+\\s*([A-Za-z]*)")

// shellInfo are the fence languages that are run.
var shellInfo = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}

// readPage reads a page's shell blocks and their markers.
func readPage(page string) ([]block, error) {
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), page))
	if err != nil {
		return nil, err
	}
	text := strings.Split(string(data), "\n")
	var (
		blocks  []block
		pending *marker
		n       int
	)
	for i := 0; i < len(text); i++ {
		raw := text[i]
		if strings.HasPrefix(strings.TrimSpace(raw), "<!-- test") {
			start := i
			body := strings.TrimPrefix(strings.TrimSpace(raw), "<!-- test")
			if !strings.HasPrefix(body, ":") {
				return nil, fmt.Errorf("%s:%d: a marker starts with \"<!-- test:\"", page, i+1)
			}
			body = body[1:]
			for !strings.Contains(body, "-->") {
				if i++; i == len(text) {
					return nil, fmt.Errorf("%s:%d: the marker does not end (-->)", page, start+1)
				}
				body += "\n" + text[i]
			}
			body, rest, _ := strings.Cut(body, "-->")
			if strings.TrimSpace(rest) != "" {
				return nil, fmt.Errorf("%s:%d: text after the marker's -->", page, i+1)
			}
			m, err := parseMarker(body)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", page, start+1, err)
			}
			m.at = start + 1
			if i+1 >= len(text) || !fenceRE.MatchString(text[i+1]) || !shellInfo[fenceRE.FindStringSubmatch(text[i+1])[1]] {
				return nil, fmt.Errorf("%s:%d: a marker must stand on the line just above a shell block's fence (```sh)", page, start+1)
			}
			pending = m
			continue
		}
		f := fenceRE.FindStringSubmatch(raw)
		if f == nil {
			continue
		}
		// A fenced block: find its end.
		fence := i
		var body []string
		for i++; i < len(text) && !strings.HasPrefix(text[i], "```"); i++ {
			body = append(body, text[i])
		}
		if !shellInfo[f[1]] {
			continue
		}
		n++
		b := block{page: page, n: n, fence: fence + 1, marker: pending}
		pending = nil
		joined, at := "", 0
		for j, l := range body {
			if joined == "" {
				at = fence + 2 + j
			}
			if strings.HasSuffix(l, "\\") {
				joined += l + "\n"
				continue
			}
			joined += l
			if s := strings.TrimSpace(joined); s != "" && !strings.HasPrefix(s, "#") {
				b.lines = append(b.lines, line{text: joined, at: at})
			}
			joined = ""
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// parseMarker reads a marker's directives.
func parseMarker(body string) (*marker, error) {
	m := &marker{}
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		word, rest, _ := strings.Cut(l, " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "skip":
			if strings.HasPrefix(rest, "(") {
				reason, err := parseReason(rest)
				if err != nil {
					return nil, err
				}
				m.skip = reason
				continue
			}
			text, rest, err := quoted(rest)
			if err != nil {
				return nil, fmt.Errorf("skip: %v", err)
			}
			reason, err := parseReason(rest)
			if err != nil {
				return nil, err
			}
			m.skipLines = append(m.skipLines, lineSkip{text, reason})
		case "set":
			flag, value, ok := strings.Cut(rest, " ")
			value = strings.TrimSpace(value)
			if !ok || !strings.HasPrefix(flag, "-") || value == "" || strings.Contains(value, " ") {
				return nil, fmt.Errorf("set wants a flag and one value: %q", l)
			}
			m.directives = append(m.directives, directive{"set", flag, value})
		case "replace":
			old, rest, err := quoted(rest)
			if err != nil {
				return nil, fmt.Errorf("replace: %v", err)
			}
			repl, rest, err := quoted(rest)
			if err != nil || rest != "" || old == "" {
				return nil, fmt.Errorf("replace wants two strings: %q", l)
			}
			m.directives = append(m.directives, directive{"replace", old, repl})
		case "before":
			cmd, rest, err := quoted(rest)
			if err != nil || rest != "" {
				return nil, fmt.Errorf("before wants one string: %q", l)
			}
			m.before = append(m.before, cmd)
		case "env":
			if name, _, ok := strings.Cut(rest, "="); !ok || name == "" || strings.Contains(rest, " ") {
				return nil, fmt.Errorf("env wants NAME=VALUE: %q", l)
			}
			m.env = append(m.env, rest)
		default:
			return nil, fmt.Errorf("unknown directive %q (skip, set, replace, before, env)", word)
		}
	}
	if m.skip != "" && (len(m.skipLines) > 0 || len(m.directives) > 0 || len(m.before) > 0 || len(m.env) > 0) {
		return nil, errors.New("a skipped block takes no other directive")
	}
	return m, nil
}

// quoted reads a Go string at the start of s and returns it and what follows.
func quoted(s string) (string, string, error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", fmt.Errorf("want a quoted string at %q", s)
	}
	v, _ := strconv.Unquote(q)
	return v, strings.TrimSpace(s[len(q):]), nil
}

func parseReason(s string) (string, error) {
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") || len(strings.TrimSpace(s[1:len(s)-1])) == 0 {
		return "", fmt.Errorf("want a reason in parentheses, not %q", s)
	}
	return strings.TrimSpace(s[1 : len(s)-1]), nil
}

// steps turns a block into the commands to run, and says which lines are
// not run and why; an edit that changes nothing or a skip that matches no
// line is an error.
func (b block) steps() (run []step, skipped []string, err error) {
	where := func(i int, l line) string {
		return fmt.Sprintf("%s:%d (block %d, line %d)", b.page, l.at, b.n, i+1)
	}
	m := b.marker
	if m == nil {
		m = &marker{}
	}
	if m.skip != "" {
		return nil, []string{fmt.Sprintf("%s:%d (block %d): %s", b.page, b.fence, b.n, m.skip)}, nil
	}
	for i, c := range m.before {
		run = append(run, step{text: c, where: fmt.Sprintf("%s:%d (block %d, before %d)", b.page, m.at, b.n, i+1), env: m.env, before: true})
	}
	used := make([]bool, len(m.skipLines))
	var keep []int
lines:
	for i, l := range b.lines {
		for k, s := range m.skipLines {
			if strings.Contains(l.text, s.text) {
				used[k] = true
				skipped = append(skipped, where(i, l)+": "+s.reason)
				continue lines
			}
		}
		keep = append(keep, i)
	}
	for k, s := range m.skipLines {
		if !used[k] {
			return nil, nil, fmt.Errorf("%s:%d: skip %q matches no line of block %d", b.page, m.at, s.text, b.n)
		}
	}
	texts := make([]string, len(b.lines))
	for _, i := range keep {
		texts[i] = b.lines[i].text
	}
	for _, d := range m.directives {
		changed := false
		for _, i := range keep {
			var edited string
			switch d.kind {
			case "replace":
				edited = strings.ReplaceAll(texts[i], d.old, d.new)
			case "set":
				edited = setFlag(texts[i], d.old, d.new)
			}
			changed = changed || edited != texts[i]
			texts[i] = edited
		}
		if !changed {
			return nil, nil, fmt.Errorf("%s:%d: %s %q %q changes nothing in block %d", b.page, m.at, d.kind, d.old, d.new, b.n)
		}
	}
	for _, i := range keep {
		run = append(run, step{text: texts[i], where: where(i, b.lines[i]), env: m.env})
	}
	return run, skipped, nil
}

// setFlag gives every "flag V" and "flag=V" in s the value v.
func setFlag(s, flag, v string) string {
	re := regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(flag) + `(=|\s+)("[^"]*"|'[^']*'|[^\s"']+)`)
	return re.ReplaceAllString(s, "${1}"+flag+"${2}"+v)
}

// TestManualMarkers reads every page's blocks and markers: a marker that
// is malformed, stands above no shell block, or no longer matches the
// block's text fails here, in -short too.
func TestManualMarkers(t *testing.T) {
	var blocks, markers int
	for _, page := range manualPages(t) {
		bs, err := readPage(page)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, b := range bs {
			blocks++
			if b.marker != nil {
				markers++
			}
			if _, _, err := b.steps(); err != nil {
				t.Error(err)
			}
		}
	}
	if blocks < 20 {
		t.Errorf("found only %d shell blocks in the README and the guide", blocks)
	}
	t.Logf("%d shell blocks, %d with a marker", blocks, markers)
}

// TestMarkerDirectives: the edits a marker makes.
func TestMarkerDirectives(t *testing.T) {
	m, err := parseMarker(` set --depth 1
replace "--tc 10+0.1" "--depth 1"
skip "lichess_db" (needs a Lichess dump)
before "printf 'x' > a.txt"
env JOB_COMPLETION_INDEX=0`)
	if err != nil {
		t.Fatal(err)
	}
	b := block{page: "p.md", n: 1, marker: m, lines: []line{
		{text: "dchess label --depth 8 --pv 4", at: 3},
		{text: "dchess ingest lichess_db.pgn.zst", at: 4},
		{text: "dchess match --depth=12 --tc 10+0.1 -o x", at: 5},
	}}
	run, skipped, err := b.steps()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range run {
		got = append(got, s.text+" @ "+s.where)
	}
	want := []string{
		"printf 'x' > a.txt @ p.md:0 (block 1, before 1)",
		"dchess label --depth 1 --pv 4 @ p.md:3 (block 1, line 1)",
		"dchess match --depth=1 --depth 1 -o x @ p.md:5 (block 1, line 3)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0], "(block 1, line 2): needs a Lichess dump") {
		t.Errorf("skipped %q", skipped)
	}
	for _, bad := range []string{"skip", "skip needs a dump", `replace "a"`, "set --depth", "frobnicate x", "skip (x)\nset --depth 1", "env X"} {
		if _, err := parseMarker(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	m, _ = parseMarker(`replace "--nodes 5" "--depth 1"`)
	if _, _, err := (block{page: "p.md", n: 1, marker: m, lines: []line{{text: "dchess label --depth 8"}}}).steps(); err == nil {
		t.Error("an edit that changes nothing: no error")
	}
}

// checkoutCopies are the folders of the repository the blocks read, copied
// into the test's checkout.
var checkoutCopies = []string{"configs", "docs/results", "scripts/cluster"}

// TestManualCommands runs every shell block of the README and the guide,
// page by page in parallel, each page's blocks in order in a fresh
// checkout-like folder with ../shared/data beside it and dchess on PATH,
// each command line with bash -e. It needs Stockfish (every page but
// uci.md labels with it or plays it) and the shared data, and skips
// without them, except under CI=true. A failure names the page, its line,
// the block and the command as run, with the end of what it printed.
func TestManualCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the manual's commands: minutes")
	}
	bash := testenv.Program(t, "bash", "apt-get install bash")
	stockfish := testenv.Stockfish(t)
	shared := testenv.SharedData(t, "")
	dchess := testenv.Dchess(t)
	type page struct {
		name   string
		blocks []block
	}
	var pages []page
	for _, p := range manualPages(t) {
		bs, err := readPage(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(bs) > 0 {
			pages = append(pages, page{p, bs})
		}
	}
	var runBlocks, skipBlocks, runLines, setups, skipLines atomic.Int64
	start := time.Now()
	t.Run("pages", func(t *testing.T) {
		for _, p := range pages {
			t.Run(filepath.Base(p.name), func(t *testing.T) {
				t.Parallel()
				root := t.TempDir()
				checkout := filepath.Join(root, "checkout")
				for _, dir := range []string{checkout, filepath.Join(root, "shared"), filepath.Join(root, "home")} {
					if err := os.MkdirAll(dir, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.Symlink(shared, filepath.Join(root, "shared", "data")); err != nil {
					t.Fatal(err)
				}
				for _, dir := range checkoutCopies {
					if err := os.CopyFS(filepath.Join(checkout, dir), os.DirFS(filepath.Join(testenv.RepoRoot(), dir))); err != nil {
						t.Fatal(err)
					}
				}
				env := append(withoutTaskIndex(os.Environ()),
					"PATH="+filepath.Dir(dchess)+string(os.PathListSeparator)+os.Getenv("PATH"),
					"HOME="+filepath.Join(root, "home"),
					"XDG_CACHE_HOME="+filepath.Join(root, "home", ".cache"),
					"DCHESS_STOCKFISH="+stockfish)
				for _, b := range p.blocks {
					run, skipped, err := b.steps()
					if err != nil {
						t.Fatal(err)
					}
					for _, s := range skipped {
						t.Logf("skipped %s", s)
					}
					if len(run) == 0 {
						skipBlocks.Add(1)
						continue
					}
					runBlocks.Add(1)
					skipLines.Add(int64(len(skipped)))
					for _, s := range run {
						text := strings.ReplaceAll(s.text, "/usr/games/stockfish", stockfish)
						if prog := missingProgram(bash, text); prog != "" {
							t.Logf("skipped %s: %s is not installed", s.where, prog)
							skipLines.Add(1)
							continue
						}
						took, out, err := runStep(bash, checkout, slices.Concat(env, s.env), text)
						if err != nil {
							t.Fatalf("%s: %s: %v\n%s\n(a marker above the block scales it down or skips it: docs/manual_test.go)",
								s.where, strings.ReplaceAll(text, "\\\n", " "), err, tail(out, 40))
						}
						if s.before {
							setups.Add(1)
						} else {
							runLines.Add(1)
						}
						t.Logf("%s: %.1fs: %s", s.where, took.Seconds(), firstLine(text))
					}
				}
			})
		}
	})
	t.Logf("ran %d blocks (%d commands, after %d set-up commands), skipped %d blocks and %d commands, in %.0fs",
		runBlocks.Load(), runLines.Load(), setups.Load(), skipBlocks.Load(), skipLines.Load(), time.Since(start).Seconds())
}

// withoutTaskIndex leaves out the job-array index variables dchess reads
// (--shard auto/n), so that only a marker's env sets them.
func withoutTaskIndex(env []string) []string {
	var out []string
	for _, kv := range env {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX", "BATCH_TASK_INDEX":
		default:
			out = append(out, kv)
		}
	}
	return out
}

// stepTimeout bounds one command: the blocks run at test sizes in seconds.
const stepTimeout = 3 * time.Minute

// runStep runs text with bash -e in dir, its standard input
// empty, and returns how long it took and what it printed.
func runStep(bash, dir string, env []string, text string) (time.Duration, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-e", "-c", text)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("still running after %v", stepTimeout)
	} else if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		err = fmt.Errorf("exit %d", ee.ExitCode())
	}
	return time.Since(start), out.String(), err
}

// missingProgram returns the first word of text when it names a program
// other than dchess that is not installed (sqlite3, say), else "".
func missingProgram(bash, text string) string {
	word, _, _ := strings.Cut(strings.TrimLeft(text, "( "), " ")
	if word == "dchess" || strings.ContainsAny(word, "/=$") {
		return ""
	}
	if exec.Command(bash, "-c", "command -v "+word).Run() != nil {
		return word
	}
	return ""
}

func firstLine(s string) string {
	l, _, more := strings.Cut(s, "\n")
	if more {
		l += " ..."
	}
	return l
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[... %d lines]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
