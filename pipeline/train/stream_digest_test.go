package train

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/pgn"
	"github.com/dchess/dchess/models/deepchess"
	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/flow"
	"github.com/dchess/dchess/models/nnue"
	"github.com/dchess/dchess/models/transformer/sequence"
)

// streamGames writes games of random moves, each record with its played
// move, the three moves after it and Stockfish's stand-in PV (the same
// moves), a result drawn per game, and every kind of record a stream skips
// or rejects: unlabelled ones, and ones whose FEN, PV or played move cannot
// be read. 20 % of the games are split off for validation.
func streamGames(t testing.TB, games int) string {
	t.Helper()
	return writeStreamGames(t, games, false)
}

// writeStreamGames writes streamGames' records; with lines, each label also
// has a score that changes along the game and a second line (MultiPV): its
// own best line again with another score, for nnue's children.
func writeStreamGames(t testing.TB, games int, lines bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "games")
	w, err := dataset.Create(dir, dataset.WriteOptions{Shard: 500})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	n := 0
	for g := range games {
		result := []pgn.Result{pgn.WhiteWin, pgn.BlackWin, pgn.Draw}[rng.IntN(3)]
		b := board.New()
		var played []string
		var fens []string
		for range 60 {
			moves := b.LegalMoves()
			if len(moves) == 0 {
				break
			}
			m := moves[rng.IntN(len(moves))]
			fens = append(fens, b.FEN())
			played = append(played, board.UCI(m))
			b.Make(m)
		}
		for ply, fen := range fens {
			line := played[ply:min(ply+4, len(played))]
			r := &dataset.Record{FEN: fen, Key: dataset.PositionKey(fen), Move: line[0], Next: line[1:],
				Result: result, Ply: uint16(ply), GameID: uint64(g + 1),
				Label: &dataset.Label{Status: dataset.LabelOK, BestMove: line[0], PV: line}}
			if lines {
				r.Label.CP = int32(7*ply - 100)
				r.Label.MultiPV = []dataset.PVLine{{CP: int32(50 - 3*ply), PV: line}}
			}
			switch n++; {
			case n%13 == 0:
				r.Label = nil
			case n%17 == 0:
				r.FEN = "8/8/8/8 w - - 0 1"
			case n%19 == 0:
				r.Label.PV = append([]string{"a1a1"}, line[1:]...)
			case n%23 == 0:
				r.Move = "h8h1"
			}
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := dataset.WriteSplit(dir, 0.2, 0, 3); err != nil {
		t.Fatal(err)
	}
	return dir
}

// digestSink hashes what a stream writes: each row's inputs and target
// and each reject, each with the records the stream had counted by then.
// Its one row is reused, as a batch's rows are.
type digestSink struct {
	h             hash.Hash
	streamed      *int64
	ins           [][]float32
	target        []float32
	rows, rejects int
	scratch       [8]byte
}

func newDigestSink(h hash.Hash, streamed *int64, o family.Objective) *digestSink {
	s := &digestSink{h: h, streamed: streamed}
	s.ins, s.target = oneRow(o)
	return s
}

func (s *digestSink) Row() ([][]float32, []float32) { return s.ins, s.target }

func (s *digestSink) Add() error {
	s.rows++
	s.event('A')
	for _, in := range s.ins {
		s.values(in)
	}
	s.values(s.target)
	return nil
}

func (s *digestSink) values(vs []float32) {
	for _, v := range vs {
		binary.LittleEndian.PutUint32(s.scratch[:4], math.Float32bits(v))
		s.h.Write(s.scratch[:4])
	}
}

func (s *digestSink) Reject() {
	s.rejects++
	s.event('R')
}

func (s *digestSink) event(kind byte) {
	s.h.Write([]byte{kind})
	binary.LittleEndian.PutUint64(s.scratch[:], uint64(*s.streamed))
	s.h.Write(s.scratch[:])
}

// TestStreamsWriteTheRowsTheyWrote: the sequence families' and DeepChess's
// streams write the rows, rejects and record counts they wrote at dc1f29b,
// when each record was parsed on the stream's goroutine, and nnue's with
// two lines of four plies of children those it wrote at 594326c, when
// each child's position was parsed from the record's FEN: two shuffled
// epochs and the validation split of each, and the pairs DeepChess
// comparators are scored on, on one core and on three. A row, a reject or
// a count that moves, changes or goes changes the digest.
func TestStreamsWriteTheRowsTheyWrote(t *testing.T) {
	data := streamGames(t, 64)
	ds, err := dataset.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	withLines, err := dataset.Open(writeStreamGames(t, 64, true))
	if err != nil {
		t.Fatal(err)
	}
	flowBoard := func(c *family.Config) {
		fc := c.Model.Settings.(*flow.Config)
		fc.Source, fc.Target, fc.LegalMask = flow.SourceBoard, sequence.TargetGame, false
	}
	mirrored := func(c *family.Config) {
		c.Model.Settings.(*deepchess.SiameseConfig).Tower = []int{8} // as resumed: nothing to load
		c.Data.MirrorPairs = true
	}
	children := func(c *family.Config) {
		nc := c.Model.Settings.(*nnue.Config)
		nc.Children, nc.ChildPlies = 2, 4
	}
	cases := []struct {
		fam     string
		setting func(*family.Config)
		sha256  string // at dc1f29b; nnue's at 594326c
	}{
		{diffusion.PolicyFamily, nil, "c034ee1f5bd7bb05f74b1c81c8c7e8597dd54c8faf5272cd04348bf1760ebed4"},
		{diffusion.Family, nil, "2045836f3bfc7e73ca37ca50ec7e7811d24f58e0aff56ac47373910e9b523dc5"},
		{flow.Family, nil, "ead58b0a0ac4e62ed4ef7dc3040e73e7ea49d21d6a5b7b118ff78ff9342fe6f3"},
		{flow.Family, flowBoard, "ad45c6e0c352af6cdee331071cc91b28b5c0474994224f22763183adbde36561"},
		{deepchess.AutoencoderFamily, nil, "f0b8aae4ff7dbc94a17c7e0443f1a8485c08a7d5cebf0872d3abf92fec4311da"},
		{deepchess.SiameseFamily, mirrored, "78fc891d9ed253e1013d643f167626e41a46e8b521e258344f914943f28b5370"},
		{nnue.Family, children, "0ca2f1df8040724cacfb43dc84877f847796923a2cb65a04530b50dbe21dd053"},
	}
	for _, c := range cases {
		cfg := testConfig(t, c.fam)
		if c.setting != nil {
			c.setting(cfg)
		}
		o, err := cfg.Family().Objective(cfg, family.ObjectiveEnv{})
		if err != nil {
			t.Fatal(err)
		}
		for _, cores := range []int{1, 3} {
			prev := runtime.GOMAXPROCS(cores)
			h := sha256.New()
			var rows, rejects int
			for _, s := range []struct {
				split dataset.Split
				order family.StreamOrder
			}{
				{dataset.Train, family.StreamOrder{Shuffled: true, Epoch: 0}},
				{dataset.Train, family.StreamOrder{Shuffled: true, Epoch: 1}},
				{dataset.Val, family.StreamOrder{}},
			} {
				var streamed int64
				s.order.Streamed = &streamed
				sink := newDigestSink(h, &streamed, o)
				data := ds
				if c.fam == nnue.Family {
					data = withLines
				}
				if err := o.Stream(context.Background(), data, s.split, s.order, sink); err != nil {
					t.Fatal(err)
				}
				h.Write(binary.LittleEndian.AppendUint64(nil, uint64(streamed)))
				rows, rejects = rows+sink.rows, rejects+sink.rejects
			}
			runtime.GOMAXPROCS(prev)
			got := hex.EncodeToString(h.Sum(nil))
			t.Logf("%s on %d cores: %d rows, %d rejects, sha256 %s", cfg.Model.Family, cores, rows, rejects, got)
			if rows < 1000 || rejects == 0 {
				t.Fatalf("%s: %d rows and %d rejects: the records do not exercise the stream", cfg.Model.Family, rows, rejects)
			}
			if got != c.sha256 {
				t.Errorf("%s on %d cores: stream sha256 %s, want %s", cfg.Model.Family, cores, got, c.sha256)
			}
		}
	}

	// The comparison pairs carry each position's FEN as well.
	cfg := testConfig(t, deepchess.SiameseFamily)
	for _, cores := range []int{1, 3} {
		prev := runtime.GOMAXPROCS(cores)
		h := sha256.New()
		pairs, rejects := 0, 0
		err := deepchess.ComparisonPairs(context.Background(), ds, dataset.Val, cfg, func() { rejects++; h.Write([]byte{'R'}) },
			func(first, second *deepchess.PairPosition, whiteFirst bool) error {
				pairs++
				for _, p := range []*deepchess.PairPosition{first, second} {
					for _, word := range p.Packed {
						h.Write(binary.LittleEndian.AppendUint64(nil, word))
					}
					h.Write([]byte(p.FEN + "\n"))
				}
				if whiteFirst {
					h.Write([]byte{1})
				} else {
					h.Write([]byte{0})
				}
				return nil
			})
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		got := hex.EncodeToString(h.Sum(nil))
		t.Logf("comparison pairs on %d cores: %d pairs, %d rejects, sha256 %s", cores, pairs, rejects, got)
		if pairs < 100 || rejects == 0 {
			t.Fatalf("%d comparison pairs and %d rejects: the records do not exercise the pairing", pairs, rejects)
		}
		if want := "f7d18ef231c6f53620bedb3f70b8d41c950ee2074a2cde28a761c330d088edb6"; got != want {
			t.Errorf("comparison pairs on %d cores: sha256 %s, want %s", cores, got, want)
		}
	}
}
