package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeOutputsAreIgnored runs over every code example in the README
// and the guide (docs/guide) and checks that the files and folders it writes into the checkout are in
// .gitignore, so trying the examples leaves git status clean.
func TestReadmeOutputsAreIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	output := regexp.MustCompile(`(?:^|\s)(?:-o|--out|--pgn|--db)[ =]("[^"]*"|\S+)`)
	var paths []string
	for _, line := range readmeCodeLines(t) {
		for _, m := range output.FindAllStringSubmatch(line, -1) {
			p := strings.Trim(m[1], `"'`)
			// Outside the checkout, placeholders, and the tuner's Go output.
			if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "..") || strings.ContainsAny(p, "$<>") || strings.HasSuffix(p, ".go") || p == "-" {
				continue
			}
			paths = append(paths, p)
		}
	}
	paths = append(paths, "play.pgn", "quickstart/report.md") // play's default --pgn; the quickstart's out:
	if len(paths) < 10 {
		t.Fatalf("found only %d output paths in the README: %v", len(paths), paths)
	}
	for _, p := range paths {
		cmd := exec.Command("git", "check-ignore", "-q", "--no-index", p)
		cmd.Dir = "../.."
		if err := cmd.Run(); err != nil {
			t.Errorf("README example output %s is not in .gitignore", p)
		}
	}
}

// readmeCodeLines returns the lines of the code blocks of the README and
// of every page of the guide.
func readmeCodeLines(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/guide/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no guide pages: %v", err)
	}
	var lines []string
	for _, page := range append([]string{"../../README.md"}, pages...) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		inCode := false
		for _, line := range strings.Split(string(text), "\n") {
			if strings.HasPrefix(line, "```") {
				inCode = !inCode
			} else if inCode {
				lines = append(lines, line)
			}
		}
	}
	return lines
}
