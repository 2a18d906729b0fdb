package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExperienceBuildAndStats(t *testing.T) {
	dir := t.TempDir()
	pgnPath := filepath.Join(dir, "g.pgn")
	os.WriteFile(pgnPath, []byte("[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n"+
		"[Result \"1/2-1/2\"]\n\n1. e4 c5 1/2-1/2\n\n[Result \"*\"]\n\n1. d4 *\n"), 0o644)
	db := filepath.Join(dir, "exp.db")
	s, out, _ := playStreams("[Result \"0-1\"]\n\n1. d4 d5 0-1\n")
	if err := runCLI(s, "experience", "build", pgnPath, "-", "--db", db, "--json", "-q"); err != nil {
		t.Fatal(err)
	}
	var build map[string]any
	if err := json.Unmarshal(out.Bytes(), &build); err != nil || build["games"] != 3.0 || build["skipped"] != 1.0 {
		t.Fatalf("build summary %s (%v)", out, err)
	}
	s, out, _ = playStreams("")
	if err := runCLI(s, "experience", "stats", "--db", db); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"3 games (1-0 1, 0-1 1, 1/2-1/2 1; 0 learnt in play), 10 moves", "e4", "d4"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stats lack %q:\n%s", want, out)
		}
	}
	// The same inputs again add nothing and say so; --again counts them twice.
	s, out, _ = playStreams("[Result \"0-1\"]\n\n1. d4 d5 0-1\n")
	if err := runCLI(s, "experience", "build", pgnPath, "-", "--db", db, "-q"); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "is in the tree already") != 2 || !strings.Contains(out.String(), "added 0 games") {
		t.Errorf("rebuild said:\n%s", out)
	}
	s, out, _ = playStreams("")
	if err := runCLI(s, "experience", "build", pgnPath, "--db", db, "--again", "-q"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "added 2 games") || !strings.Contains(out.String(), "now counts its games 2 times") {
		t.Errorf("build --again said:\n%s", out)
	}
	s, _, _ = playStreams("")
	if err := runCLI(s, "experience", "stats", "--db", filepath.Join(dir, "missing.db")); err == nil {
		t.Error("stats of a missing file succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); !os.IsNotExist(err) {
		t.Error("stats created a database")
	}
	s, _, _ = playStreams("")
	if err := runCLI(s, "experience", "build", pgnPath); err == nil || !strings.Contains(err.Error(), "--db") {
		t.Errorf("build without --db: %v", err)
	}
}
