package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/internal/chess/pgn"
)

// bigIDDataset writes a dataset of four games whose ids are above 2^53,
// where a JSON number loses digits in jq, and splits it with a seed that
// has to place a game by hand (a few games leave a requested split empty).
func bigIDDataset(t *testing.T) (dir string, ids map[uint64]bool) {
	t.Helper()
	var recs []*dataset.Record
	ids = map[uint64]bool{}
	for i := range 20 {
		id := 0xfedcba9876543210 + uint64(i/5)*0x1111
		ids[id] = true
		fen := fmt.Sprintf("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 %d", i+1)
		recs = append(recs, &dataset.Record{FEN: fen, Move: "e2e4", Result: pgn.WhiteWin, Ply: uint16(i % 5), GameID: id, Key: dataset.PositionKey(fen)})
	}
	dir = datasettest.Write(t, filepath.Join(t.TempDir(), "ds"), dataset.WriteOptions{Command: []string{"dchess", "test"}}, recs)
	for seed := uint64(1); seed <= 50; seed++ {
		m, err := dataset.WriteSplit(dir, 0.1, 0.1, seed)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Split.Placed) > 0 {
			return dir, ids
		}
	}
	t.Fatal("no seed placed a game: the test does not reach a game id in the JSON")
	return "", nil
}

// The reported bug: a 64-bit game id in dataset info --json was a number,
// which jq rounds. It is a string now, 16 hex digits as dataset export
// writes game_id, and its split is named as export names it.
func TestDatasetInfoJSONWritesGameIDsAsStrings(t *testing.T) {
	dir, ids := bigIDDataset(t)
	s, out, _ := testDatasetStreams()
	if err := runCLI(s, "dataset", "info", dir, "--json"); err != nil {
		t.Fatal(err)
	}
	var info struct {
		Split struct {
			Placed []struct {
				Game  any `json:"game"`
				Split any `json:"split"`
			} `json:"placed"`
		} `json:"split"`
	}
	if err := json.Unmarshal(out.Bytes(), &info); err != nil || len(info.Split.Placed) == 0 {
		t.Fatalf("info --json: %v\n%s", err, out)
	}
	s, export, _ := testDatasetStreams()
	if err := runCLI(s, "dataset", "export", dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range info.Split.Placed {
		game, ok := p.Game.(string)
		var id uint64
		if ok {
			_, err := fmt.Sscanf(game, "%016x", &id)
			ok = err == nil && len(game) == 16 && ids[id]
		}
		if !ok {
			t.Errorf("placed game %#v is not one of the dataset's ids in 16 hex digits", p.Game)
		}
		if !bytes.Contains(export.Bytes(), []byte(`"game_id":"`+game+`"`)) {
			t.Errorf("placed game %s is not a game_id of the export", game)
		}
		if p.Split != "val" && p.Split != "test" {
			t.Errorf("placed game %s in split %#v, want val or test by name", game, p.Split)
		}
	}
	if strings.Contains(out.String(), fmt.Sprint(uint64(0xfedcba9876543210))) {
		t.Errorf("info --json writes a game id as a number:\n%s", out)
	}
}
