package ingest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/pgn"
)

// skipKind says why a game or line produced no records.
type skipKind uint8

const (
	kept skipKind = iota
	skipMalformed
	skipIllegal
	skipFiltered
	skipVariant
)

// gameConverter turns parsed games into records. Each worker owns one, so
// its scratch buffers are reused without locking.
type gameConverter struct {
	opts *Options
	// The tag filters, parsed once (Options.Check has vetted them).
	timeControls TimeControls
	terminations terminations
	start        *board.Board
	// warn is the last game's note about a comment it could not read.
	warn  error
	moves []board.Move
	// keep holds the move indexes of the positions that passed the
	// filters, ends the end of each one's FEN in fens; chosen indexes keep.
	keep   []int
	ends   []int
	chosen []int
	fens   []byte
	uci    []byte
	// castle (K=1, Q=2, k=4, q=8) and ep (0: none) follow the game so the
	// FEN can be written from bitboards; see appendFEN.
	castle uint8
	ep     uint8
}

func newGameConverter(opts *Options) *gameConverter {
	tc, _ := ParseTimeControls(opts.TimeControl)
	return &gameConverter{opts: opts, timeControls: tc, terminations: parseTerminations(opts.Termination), start: board.New()}
}

// keepGame applies the filters on a game's tags.
func (c *gameConverter) keepGame(g *pgn.Game, whiteElo, blackElo uint16) bool {
	o := c.opts
	if o.MinElo > 0 && (int(whiteElo) < o.MinElo || int(blackElo) < o.MinElo) {
		return false
	}
	if o.MaxElo > 0 && (whiteElo == 0 || blackElo == 0 || int(whiteElo) > o.MaxElo || int(blackElo) > o.MaxElo) {
		return false
	}
	if c.timeControls != nil && !c.timeControls.Match(g.Tag("TimeControl")) {
		return false
	}
	return c.terminations.match(g.Tag("Termination"))
}

// convert returns the records of one game, or why it has none.
func (c *gameConverter) convert(g *pgn.Game) ([]dataset.Record, skipKind, error) {
	o := c.opts
	c.warn = nil
	whiteElo, blackElo := elo(g.Tag("WhiteElo")), elo(g.Tag("BlackElo"))
	if !c.keepGame(g, whiteElo, blackElo) {
		return nil, skipFiltered, nil
	}
	var b *board.Board
	if fen := g.StartFEN(); fen != "" {
		var err error
		if b, err = board.FromFEN(fen); err != nil {
			return nil, skipMalformed, &pgn.Error{Game: g.Number, Line: g.Line, Reason: "bad FEN tag: " + err.Error()}
		}
	} else {
		// Games from the standard start reuse one board: taking the moves
		// back afterwards is cheaper than allocating a board and its
		// history for every game.
		b = c.start
		defer func() {
			for range c.moves {
				b.Unmake()
			}
		}()
	}
	// Ply counts from the game's real start, so a game set up at move 30
	// starts at ply 58 or 59 and the ply filters mean the same thing for it.
	firstPly := 2 * (b.FullmoveNumber() - 1)
	if b.SideToMove() == board.Black {
		firstPly++
	}
	c.startState(b, g.StartFEN() != "")

	// One pass: every move must be legal, or the whole game is skipped;
	// the FEN of each position that passes the ply and capture filters is
	// written as we go (one string for the whole game, sliced per record).
	n := len(g.Moves)
	c.moves, c.keep, c.fens, c.ends = c.moves[:0], c.keep[:0], c.fens[:0], c.ends[:0]
	for i, san := range g.Moves {
		m, err := b.ParseSAN(san)
		if err != nil {
			return nil, skipIllegal, &pgn.Error{Game: g.Number, Line: int(g.MoveLines[i]), Reason: fmt.Sprintf("illegal SAN %q", san)}
		}
		c.moves = append(c.moves, m)
		ply := firstPly + i
		if ply >= o.MinPly && (o.MaxPly == 0 || ply <= o.MaxPly) && !(o.SkipCaptures && b.IsCapture(m)) {
			c.fens = c.appendFEN(c.fens, b)
			c.ends = append(c.ends, len(c.fens))
			c.keep = append(c.keep, i)
		}
		c.makeMove(b, m)
	}
	if len(c.keep) == 0 {
		return nil, skipFiltered, nil
	}
	fens := string(c.fens)
	// chosen indexes c.keep (and c.ends); the per-game sample picks some.
	chosen := c.chosen[:0]
	for j := range c.keep {
		chosen = append(chosen, j)
	}
	gameID := GameID(g)
	if k := o.PositionsPerGame; k > 0 && len(chosen) > k {
		rng := rand.New(rand.NewPCG(o.Seed, gameID))
		for i := 0; i < k; i++ {
			j := i + rng.IntN(len(chosen)-i)
			chosen[i], chosen[j] = chosen[j], chosen[i]
		}
		chosen = chosen[:k]
		sort.Ints(chosen)
	}
	c.chosen = chosen

	// All UCI moves go into one string too.
	c.uci = c.uci[:0]
	for _, m := range c.moves {
		c.uci = appendUCI(c.uci, m)
	}
	ucis := string(c.uci)
	moveStr := make([]string, n)
	off := 0
	for i, m := range c.moves {
		l := 4
		if m.Promote() != 0 {
			l = 5
		}
		moveStr[i] = ucis[off : off+l]
		off += l
	}

	result := g.Result
	if result == pgn.ResultUnknown {
		result = pgn.ParseResult(g.Tag("Result"))
	}
	recs := make([]dataset.Record, len(chosen))
	for j, k := range chosen {
		i := c.keep[k]
		from := 0
		if k > 0 {
			from = c.ends[k-1]
		}
		fen := fens[from:c.ends[k]]
		end := min(i+1+o.Horizon, n)
		r := &recs[j]
		r.FEN = fen
		r.Key = positionKey(fen)
		r.Move = moveStr[i]
		r.Next = moveStr[i+1 : end : end]
		r.Result = result
		r.Ply = uint16(min(firstPly+i, 65535))
		r.WhiteElo, r.BlackElo = whiteElo, blackElo
		r.GameID = gameID
		if g.Comments != nil {
			c.fromComments(g, r, i, (firstPly+i)%2 == 0)
		}
	}
	return recs, kept, nil
}

// pgnEngine names the labels read from [%eval] comments.
const pgnEngine = "import:pgn"

// fromComments fills in what the comments say about record r, the
// position before move i: the clock after move i ([%clk] of move i: the
// mover's time left) and the label ([%eval] of move i-1, which scores the
// position after it, this one, from White's point of view). The first
// comment it cannot read becomes the game's warning.
func (c *gameConverter) fromComments(g *pgn.Game, r *dataset.Record, i int, whiteToMove bool) {
	if i > 0 {
		e, ok, err := pgn.CommentEval(g.Comments[i-1])
		if err != nil {
			c.warnComment(g, i-1, err)
		} else if ok {
			if !whiteToMove {
				e.CP, e.Mate = -e.CP, -e.Mate
			}
			r.Label = &dataset.Label{
				Status:  dataset.LabelOK,
				CP:      e.CP,
				Mate:    e.Mate,
				WinProb: dataset.WinProbability(e.CP, e.Mate),
				Depth:   uint16(min(e.Depth, 65535)),
				Engine:  pgnEngine,
			}
		}
	}
	if d, ok, err := pgn.CommentClock(g.Comments[i]); err != nil {
		c.warnComment(g, i, err)
	} else if ok {
		r.ClockMS = uint32(min(max(d.Milliseconds(), 1), math.MaxUint32))
	}
}

func (c *gameConverter) warnComment(g *pgn.Game, i int, err error) {
	if c.warn == nil {
		c.warn = &pgn.Error{Game: g.Number, Line: int(g.MoveLines[i]), Reason: fmt.Sprintf("comment after %s: %v; left out", g.Moves[i], err)}
	}
}

// elo reads a rating tag; missing or unreadable ratings are 0.
func elo(s string) uint16 {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0
	}
	return uint16(min(n, 65535))
}

// GameID hashes a game's tags and moves (FNV-1a, 64 bits); positions of one
// game share it and splits are made by it. The tags that say when the game
// was played are left out: self-play writes the day and the clock into them,
// and a run repeated from the same seed must split its games the same way on
// any day.
func GameID(g *pgn.Game) uint64 {
	h := uint64(fnvOffset)
	for _, t := range g.Tags {
		if whenTags[t.Name] {
			continue
		}
		h = fnvString(h, t.Name)
		h = fnvByte(h, 0)
		h = fnvString(h, t.Value)
		h = fnvByte(h, 0)
	}
	for _, m := range g.Moves {
		h = fnvString(h, m)
		h = fnvByte(h, 0)
	}
	return h
}

// whenTags are the tags GameID leaves out: the PGN standard's date and time
// tags and those cutechess-cli (and dchess's matches) add.
var whenTags = map[string]bool{
	"Date": true, "Time": true, "UTCDate": true, "UTCTime": true,
	"GameStartTime": true, "GameEndTime": true, "GameDuration": true,
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

func fnvByte(h uint64, c byte) uint64 {
	h ^= uint64(c)
	return h * fnvPrime
}

// positionKey equals dataset.PositionKey for the canonical FENs the board
// writes (single spaces): FNV-1a over the first four fields, without the
// allocations of splitting the string.
func positionKey(fen string) uint64 {
	h := uint64(fnvOffset)
	spaces := 0
	for i := 0; i < len(fen); i++ {
		c := fen[i]
		if c == ' ' {
			spaces++
			if spaces == 4 {
				break
			}
		}
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// appendUCI writes a move in UCI notation ("e2e4", "e7e8q").
func appendUCI(buf []byte, m board.Move) []byte {
	from, to := m.From(), m.To()
	buf = append(buf, 'a'+from%8, '1'+from/8, 'a'+to%8, '1'+to/8)
	switch board.Piece(m.Promote()) {
	case board.Knight:
		buf = append(buf, 'n')
	case board.Bishop:
		buf = append(buf, 'b')
	case board.Rook:
		buf = append(buf, 'r')
	case board.Queen:
		buf = append(buf, 'q')
	}
	return buf
}
