// Package wording holds the test that keeps the repository speaking of the
// project itself: when something was measured or changed is a date or a
// commit, never a numbered period of work or the people at work. A tracked
// line with one of the words below fails here, naming the file and line.
package wording

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

// banned matches the words, case-insensitively and as whole words. Each is
// split in two in this source so that this file does not match itself.
var banned = regexp.MustCompile(`(?i)\b(` + strings.Join([]string{
	"sess" + "ions?",
	"sitt" + "ings?",
	"another engin" + "eers?",
	"other engin" + "eers?",
}, "|") + `)\b`)

// exempt maps a tracked path to why its words may stay: a third-party name
// or text the repository cannot reword.
var exempt = map[string]string{
	// cobra's completion help (how to load completions in a shell), which make
	// docs copies into the generated reference word for word.
	"docs/reference/commands/dchess_completion_bash.md":       "cobra's text",
	"docs/reference/commands/dchess_completion_fish.md":       "cobra's text",
	"docs/reference/commands/dchess_completion_powershell.md": "cobra's text",
	"docs/reference/commands/dchess_completion_zsh.md":        "cobra's text",
}

func TestNoWorkPeriodWords(t *testing.T) {
	git := testenv.Program(t, "git", "apt-get install git")
	root := testenv.RepoRoot()
	_, err := os.Stat(filepath.Join(root, ".git"))
	testenv.Require(t, err == nil, "no .git in "+root+": the tracked files are not known")

	// git grep lists the tracked text files' candidate lines (-I skips
	// binary files) with a loose pattern every git understands; Go's regexp
	// then applies the word boundaries, which git's -E does not have on
	// every platform.
	cmd := exec.Command(git, "grep", "-n", "-I", "-i", "-e", "sess", "-e", "sitt", "-e", "engin")
	cmd.Dir = root
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 && len(out) == 0 {
		return // git grep found nothing
	}
	if err != nil {
		t.Fatalf("git grep: %v", err)
	}
	var found []string
	for _, line := range strings.Split(string(bytes.TrimRight(out, "\n")), "\n") {
		path, _, _ := strings.Cut(line, ":")
		if _, ok := exempt[path]; ok {
			continue
		}
		if banned.MatchString(line) {
			found = append(found, line)
		}
	}
	if len(found) > 0 {
		t.Errorf("%d tracked lines speak of periods of work or the people at work; say when with a date or a commit:\n%s",
			len(found), strings.Join(found, "\n"))
	}
}
