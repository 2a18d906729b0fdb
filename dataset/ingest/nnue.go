package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/binpack"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/pgn"
)

// The NNUE trainers' formats (docs/dataset-format.md): Stockfish's .plain
// text (one "key value" line per field, an entry closed by "e"), its
// compressed .binpack, and bullet's text lines "FEN | score | wdl". plain
// and binpack hold a move, a score and a result from the side to move and
// the game ply; bullet's score and result are White's. Each entry is
// imported as a labelled record: the move becomes the label's best move
// (Stockfish's generators store the search's best move), the depth is
// unknown (0), and a score from dataset.MateThreshold up is a mate.

// EntryError reports a bad entry of a plain or binpack file: its number
// (from 1) and, for plain, its first line.
type EntryError struct {
	Entry  int
	Line   int
	Reason string
}

func (e *EntryError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("entry %d (line %d): %s", e.Entry, e.Line, e.Reason)
	}
	return fmt.Sprintf("entry %d: %s", e.Entry, e.Reason)
}

// maxPlainLines bounds the lines of one plain entry: a file that never
// says "e" is reported in pieces, not read whole into memory.
const maxPlainLines = 64

// chainer gives consecutive entries of one game the same game ID, so a
// dataset split keeps them together: an entry continues the previous one
// when its ply is one more and its result the opposite (what a generator
// writes for the moves of one game, and what every binpack chain is). The
// ID mixes the position key of the game's first entry with the game's
// number in the run, so games that start from the same position still get
// their own IDs, the same in every run over the same inputs.
type chainer struct {
	games      uint64
	game       uint64
	ply        int
	result     int
	haveResult bool
}

// mix is the splitmix64 finalizer.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func (c *chainer) next(fen string, ply int, hasPly bool, result int, hasResult bool) uint64 {
	if !(c.game != 0 && hasPly && hasResult && c.haveResult && ply == c.ply+1 && result == -c.result) {
		c.games++
		c.game = max(mix(positionKey(fen)^mix(c.games)), 1)
	}
	c.ply, c.result, c.haveResult = ply, result, hasPly && hasResult
	return c.game
}

// plainSplitter cuts a .plain file into batches of entries, each unit the
// lines of one entry up to its "e".
func plainSplitter(in io.Reader, ch *chainer) splitFunc {
	br := bufio.NewReaderSize(in, 1<<20)
	lineNo, entry := 0, 0
	return func(b *batch) error {
		b.text = make([]byte, 0, batchBytes+batchBytes/4)
		for len(b.units) < linesPerBatch && len(b.text) < batchBytes {
			u := unit{start: len(b.text)}
			lines := 0
			var fen string
			var ply, result int
			var hasPly, hasResult bool
			var err error
			for !u.closed && lines < maxPlainLines {
				var line []byte
				line, err = br.ReadSlice('\n')
				if err == bufio.ErrBufferFull {
					// No field is a megabyte long: drop the line, report the entry.
					for err == bufio.ErrBufferFull {
						_, err = br.ReadSlice('\n')
					}
					lineNo++
					u.tooLong, line = true, nil
					if lines == 0 {
						u.line = lineNo
					}
					lines++
				}
				if len(line) == 0 {
					if err != nil {
						break
					}
					continue
				}
				lineNo++
				t := bytes.TrimSpace(line)
				if lines == 0 && len(t) == 0 {
					u.start = len(b.text)
					if err != nil {
						break
					}
					continue
				}
				if lines == 0 {
					u.line = lineNo
				}
				lines++
				b.text = append(b.text, line...)
				if line[len(line)-1] != '\n' {
					b.text = append(b.text, '\n')
				}
				key, val, _ := bytes.Cut(t, []byte(" "))
				val = bytes.TrimSpace(val)
				switch string(key) {
				case "e":
					u.closed = true
				case "fen":
					fen = string(val)
				case "ply":
					n, perr := strconv.Atoi(string(val))
					ply, hasPly = n, perr == nil
				case "result":
					n, perr := strconv.Atoi(string(val))
					result, hasResult = n, perr == nil
				}
				if err != nil {
					break
				}
			}
			if lines > 0 {
				entry++
				u.number = entry
				u.end = len(b.text)
				if fen != "" {
					u.game = ch.next(fen, ply, hasPly, result, hasResult)
				}
				b.units = append(b.units, u)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// binpackSplitter decodes a binpack (a chain's entries depend on the
// previous ones, so this is sequential) and hands each entry on as the
// text of a plain entry. A damaged file gives one bad unit that says
// where, and the entries before it.
func binpackSplitter(in io.Reader, ch *chainer) splitFunc {
	r := binpack.NewReader(in)
	entry := 0
	return func(b *batch) error {
		b.text = make([]byte, 0, batchBytes+batchBytes/4)
		for len(b.units) < linesPerBatch && len(b.text) < batchBytes {
			e, err := r.Next()
			if err == io.EOF {
				return io.EOF
			}
			entry++
			u := unit{start: len(b.text), number: entry}
			if err != nil {
				if !errors.Is(err, binpack.ErrCorrupt) {
					return err
				}
				u.bad = err.Error()
				u.end = u.start
				b.units = append(b.units, u)
				return io.EOF
			}
			b.text = append(b.text, e.String()...)
			u.end = len(b.text)
			u.closed = true
			u.game = ch.next(e.FEN, int(e.Ply), true, int(e.Result), true)
			b.units = append(b.units, u)
		}
		return nil
	}
}

// resultFromSideToMove turns 1, 0 or -1 for the side to move into a game
// result.
func resultFromSideToMove(res int, stm board.Color) pgn.Result {
	if stm == board.Black {
		res = -res
	}
	switch res {
	case 1:
		return pgn.WhiteWin
	case -1:
		return pgn.BlackWin
	}
	return pgn.Draw
}

// nnueScore reads a score of the NNUE formats into p.
func nnueScore(p *parsed, s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("bad score %q", s)
	}
	if n > dataset.MateScore || n < -dataset.MateScore {
		// Stockfish writes 32002 (VALUE_NONE) for a position it did not score.
		return fmt.Errorf("score %d is outside ±%d: not a score", n, dataset.MateScore)
	}
	p.cp, p.mate = dataset.LabelFromNNUEScore(n)
	return nil
}

// parsePlain reads the lines of one plain entry. fen, move, score and
// result are required; ply defaults to the FEN's; other keys are ignored,
// as Stockfish's reader does.
func parsePlain(text string, closed bool) (*parsed, error) {
	if !closed {
		return nil, fmt.Errorf(`entry not closed by an "e" line`)
	}
	var fen, move, score, result, ply string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		key, val, _ := strings.Cut(line, " ")
		val = strings.TrimSpace(val)
		switch key {
		case "fen":
			fen = val
		case "move":
			move = val
		case "score":
			score = val
		case "ply":
			ply = val
		case "result":
			result = val
		}
	}
	for _, f := range []struct{ name, val string }{{"fen", fen}, {"move", move}, {"score", score}, {"result", result}} {
		if f.val == "" {
			return nil, fmt.Errorf("no %s line", f.name)
		}
	}
	b, err := board.FromFEN(fen)
	if err != nil {
		return nil, err
	}
	p := &parsed{board: b, ply: binpack.PlyOf(b)}
	if err := nnueScore(p, score); err != nil {
		return nil, err
	}
	res, err := strconv.Atoi(result)
	if err != nil || res < -1 || res > 1 {
		return nil, fmt.Errorf("result %q: want 1, 0 or -1", result)
	}
	p.result = resultFromSideToMove(res, b.SideToMove())
	if ply != "" {
		if p.ply, err = strconv.Atoi(ply); err != nil || p.ply < 0 || p.ply > 65535 {
			return nil, fmt.Errorf("bad ply %q", ply)
		}
	}
	pv, err := uciLine(b, []string{move})
	if err != nil {
		return nil, err
	}
	p.pv, p.bestMove = pv, pv[0]
	return p, nil
}

// parseBullet reads a line "FEN | score | wdl": the score in centipawns
// and the result (1.0, 0.5 or 0.0) both from White's view.
func parseBullet(line string) (*parsed, error) {
	parts := strings.Split(line, "|")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%d fields, want 3: FEN | score | wdl", len(parts))
	}
	b, err := board.FromFEN(strings.TrimSpace(parts[0]))
	if err != nil {
		return nil, err
	}
	p := &parsed{board: b, ply: binpack.PlyOf(b)}
	if err := nnueScore(p, strings.TrimSpace(parts[1])); err != nil {
		return nil, err
	}
	wdl := strings.TrimSpace(parts[2])
	switch v, err := strconv.ParseFloat(wdl, 64); {
	case err != nil:
		return nil, fmt.Errorf("bad result %q: want 1.0, 0.5 or 0.0", wdl)
	case v == 1:
		p.result = pgn.WhiteWin
	case v == 0.5:
		p.result = pgn.Draw
	case v == 0:
		p.result = pgn.BlackWin
	default:
		return nil, fmt.Errorf("result %q: want 1.0, 0.5 or 0.0", wdl)
	}
	return p, nil
}
