// Package uciengine is the engine side of UCI: it lets any GUI or match
// tool drive a dchess player (heuristic, a learned model, even another
// UCI engine) over standard input and output.
package uciengine

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/winprob"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/player"
)

// Options announced to the GUI. Hash reaches players that take hash=
// (searching players, UCI engines); Depth caps every search, 0 is no cap.
const (
	defaultHashMB = 16
	maxHashMB     = 4096
	maxDepth      = 64
	// Move Overhead, in milliseconds: kept back from the clock for the
	// time a move takes to reach it (search.DefaultMoveOverhead unless set).
	maxMoveOverheadMS = 5000
	// MultiPV: lines reported an iteration; more than any position has
	// moves (218) means every move.
	maxMultiPV = 500
)

// Config is what Run says about the engine besides its player.
type Config struct {
	Version string
	// Weights names the weights file the player plays, for "id name",
	// when the spec's own path is not the name to show (shipped weights
	// live in a cache; their name is models/shipped/FAMILY.dcw).
	Weights string
	// Notes are sent as "info string" lines once, before the first
	// "readyok" or search: which weights a bare family name took and
	// from where.
	Notes []string
}

// Engine runs one UCI conversation.
type Engine struct {
	spec      player.Spec
	cfg       Config
	notesSent bool
	out       io.Writer
	outMu     sync.Mutex

	hashMB   int
	hashSet  bool
	depthCap int
	threads  int // Threads as set, 0 until set
	// moveOverhead is Move Overhead as set, 0 until set.
	moveOverhead time.Duration
	// showWDL is UCI_ShowWDL: info lines with a score also carry "wdl".
	showWDL bool
	// multiPV is MultiPV, 0 until set.
	multiPV int
	// oneLineSaid is set once the GUI was told that its player reports
	// one line whatever MultiPV says.
	oneLineSaid bool

	p     player.Player
	dirty bool // options changed since p was made
	pos   player.Position
	// badPosition is why the last "position" was refused; until the next
	// valid one, "go" answers no move rather than one for an older position.
	badPosition error

	cancel context.CancelFunc
	done   chan struct{}
}

// Run reads UCI commands from in until "quit" or end of input, which is
// taken as "quit", and answers on out. Errors in commands are reported as
// "info string" lines, as GUIs expect; Run itself fails only when out
// cannot be written.
func Run(ctx context.Context, in io.Reader, out io.Writer, spec player.Spec, version string) error {
	return RunWith(ctx, in, out, spec, Config{Version: version})
}

// RunWith is Run with the engine's description in cfg.
func RunWith(ctx context.Context, in io.Reader, out io.Writer, spec player.Spec, cfg Config) error {
	e := &Engine{spec: spec, cfg: cfg, out: out, hashMB: defaultHashMB}
	defer e.close()
	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		// Lines of any length, as Stockfish reads them: UCI sets no limit,
		// and "position startpos moves ..." grows with the game.
		r := bufio.NewReader(in)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				select {
				case lines <- strings.TrimRight(line, "\r\n"):
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				readErr <- err
				close(lines)
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			e.stopSearch()
			return nil
		case line, ok := <-lines:
			if !ok {
				// End of input is "quit", as in Stockfish: the GUI is gone,
				// and a search it cannot read (go depth 40, say) would run
				// on as an orphan. The stopped search still sends bestmove.
				e.stopSearch()
				return <-readErr
			}
			if quit := e.handle(ctx, line); quit {
				return nil
			}
		}
	}
}

func (e *Engine) close() {
	e.stopSearch()
	if e.p != nil {
		e.p.Close()
	}
}

func (e *Engine) send(format string, args ...any) {
	e.outMu.Lock()
	defer e.outMu.Unlock()
	fmt.Fprintf(e.out, format+"\n", args...)
}

func (e *Engine) handle(ctx context.Context, line string) (quit bool) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return false
	}
	switch fields[0] {
	case "uci":
		e.send("id name %s", e.idName())
		e.send("id author the dchess authors")
		e.send("option name Hash type spin default %d min 1 max %d", defaultHashMB, maxHashMB)
		e.send("option name Depth type spin default 0 min 0 max %d", maxDepth)
		e.send("option name Threads type spin default 1 min 1 max %d", search.MaxThreads)
		e.send("option name Move Overhead type spin default %d min 1 max %d", search.DefaultMoveOverhead.Milliseconds(), maxMoveOverheadMS)
		e.send("option name UCI_ShowWDL type check default false")
		e.send("option name MultiPV type spin default 1 min 1 max %d", maxMultiPV)
		e.send("uciok")
	case "isready":
		e.sendNotes()
		if e.searching() {
			e.send("readyok")
			return false
		}
		if err := e.ensurePlayer(ctx); err != nil {
			e.sayInfo("%v", err)
		}
		e.send("readyok")
	case "setoption":
		e.setOption(fields[1:])
	case "ucinewgame":
		e.stopSearch()
		e.pos, e.badPosition = player.Position{}, nil
		if err := e.ensurePlayer(ctx); err != nil {
			e.sayInfo("%v", err)
			return false
		}
		if err := e.p.NewGame(ctx); err != nil {
			e.sayInfo("%v", err)
		}
	case "position":
		e.stopSearch()
		pos, err := parsePosition(fields[1:])
		if err != nil {
			// The refused position is not replaced by the previous one or
			// the start position: the GUI believes it sent this game, so a
			// move for any other would be played as a wrong or illegal
			// move. "go" answers bestmove 0000 until a valid position.
			e.badPosition = err
			e.sayInfo("%v", err)
			return false
		}
		e.pos, e.badPosition = pos, nil
	case "go":
		e.stopSearch()
		e.sendNotes()
		if e.badPosition != nil {
			e.sayInfo("no move: the last position was refused (%v)", e.badPosition)
			e.send("bestmove 0000")
			return false
		}
		lim, waitForStop, err := parseGo(fields[1:])
		if err != nil {
			e.sayInfo("%v", err)
			e.send("bestmove 0000")
			return false
		}
		if len(lim.SearchMoves) > 0 {
			lim.SearchMoves = e.legalSearchMoves(lim.SearchMoves)
		}
		lim.MoveOverhead = e.moveOverhead
		if e.depthCap > 0 && (lim.Depth == 0 || lim.Depth > e.depthCap) {
			lim.Depth = e.depthCap
		}
		if err := e.ensurePlayer(ctx); err != nil {
			e.sayInfo("%v", err)
			e.send("bestmove 0000")
			return false
		}
		lim.MultiPV = e.multiPV
		if lim.MultiPV > 1 && !e.oneLineSaid && !reportsLines(e.p) {
			e.oneLineSaid = true
			e.sayInfo("%s reports one line: MultiPV applies to players that search with an evaluator", e.p.Name())
		}
		e.startSearch(ctx, lim, waitForStop)
	case "stop":
		e.stopSearch()
	case "ponderhit":
		// Pondering is not supported; the search already runs as "go".
	case "quit":
		e.stopSearch()
		return true
	default:
		e.sayInfo("unknown command %q", fields[0])
	}
	return false
}

// idName is "dchess", the player and the version; a player with weights
// is named by family and settings (or name=), the weights file in
// brackets: "dchess nnue (models/shipped/nnue.dcw) v1.2".
func (e *Engine) idName() string {
	unpathed := e.spec
	unpathed.Path = ""
	name := unpathed.DisplayName()
	if w := cmp.Or(e.cfg.Weights, e.spec.Path); w != "" {
		name += " (" + w + ")"
	}
	return strings.TrimSpace("dchess " + name + " " + e.cfg.Version)
}

// sendNotes sends Config.Notes, once.
func (e *Engine) sendNotes() {
	if e.notesSent {
		return
	}
	e.notesSent = true
	for _, n := range e.cfg.Notes {
		e.sayInfo("%s", n)
	}
}

// maxInfoBytes caps an "info string" text. Messages quote what the GUI
// sent, and echoing an over-long line back could break a GUI that reads
// lines into a fixed buffer (dchess's own client refuses 1 MiB).
const maxInfoBytes = 1024

// sayInfo sends a message as one "info string" line, cut to maxInfoBytes.
func (e *Engine) sayInfo(format string, args ...any) {
	text := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	if len(text) > maxInfoBytes {
		cut := maxInfoBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "..."
	}
	e.send("info string %s", text)
}

func (e *Engine) setOption(args []string) {
	// setoption name <name...> [value <value...>]
	var name, value []string
	target := &name
	for i, tok := range args {
		switch {
		case i == 0 && tok == "name":
			continue
		case tok == "value" && target == &name:
			target = &value
			continue
		}
		*target = append(*target, tok)
	}
	optName := strings.Join(name, " ")
	v := strings.Join(value, " ")
	switch strings.ToLower(optName) {
	case "hash":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxHashMB {
			e.sayInfo("Hash wants 1..%d, got %q", maxHashMB, v)
			return
		}
		e.hashMB, e.hashSet, e.dirty = n, true, true
	case "depth":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxDepth {
			e.sayInfo("Depth wants 0..%d, got %q", maxDepth, v)
			return
		}
		e.depthCap = n
	case "threads":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > search.MaxThreads {
			e.send("info string Threads wants 1..%d, got %q", search.MaxThreads, v)
			return
		}
		e.threads, e.dirty = n, true
	case "multipv":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxMultiPV {
			e.sayInfo("MultiPV wants 1..%d, got %q", maxMultiPV, v)
			return
		}
		e.multiPV = n
	case "move overhead":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxMoveOverheadMS {
			e.sayInfo("Move Overhead wants 1..%d (ms), got %q", maxMoveOverheadMS, v)
			return
		}
		e.moveOverhead = time.Duration(n) * time.Millisecond
	case "uci_showwdl":
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			e.showWDL = true
		case "false":
			e.showWDL = false
		default:
			e.sayInfo("UCI_ShowWDL wants true or false, got %q", v)
		}
	default:
		e.sayInfo("unknown option %q", optName)
	}
}

// ensurePlayer makes the player, again after an option that shapes it
// changed. Hash and Threads go to players that take hash= and threads=;
// for the others they are ignored, as UCI allows.
func (e *Engine) ensurePlayer(ctx context.Context) error {
	if e.p != nil && !e.dirty {
		return nil
	}
	if e.p != nil {
		e.p.Close()
		e.p = nil
	}
	var (
		p   player.Player
		err error
	)
	if e.hashSet || e.threads > 0 {
		spec := e.spec
		if e.hashSet {
			spec = spec.With("hash", strconv.Itoa(e.hashMB))
		}
		if e.threads > 0 {
			spec = spec.With("threads", strconv.Itoa(e.threads))
		}
		p, err = player.NewFromSpec(ctx, spec)
	}
	if p == nil {
		p, err = player.NewFromSpec(ctx, e.spec)
	}
	if err != nil {
		return err
	}
	e.p, e.dirty = p, false
	return nil
}

func (e *Engine) searching() bool {
	if e.done == nil {
		return false
	}
	select {
	case <-e.done:
		return false
	default:
		return true
	}
}

func (e *Engine) startSearch(ctx context.Context, lim player.Limits, waitForStop bool) {
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	e.cancel, e.done = cancel, done
	start := time.Now()
	// The search goroutine reads its own copy: a setoption during the
	// search then changes the next search, not this one's lines.
	wdl := e.showWDL
	numbered := lim.MultiPV > 1 && reportsLines(e.p)
	// last is the last info line sent with a pv, of line 1 when the
	// player reports several; only the search goroutine reads and writes
	// it (OnInfo runs inside Move).
	var last player.Info
	lim.OnInfo = func(in player.Info) {
		if len(in.PV) > 0 && in.MultiPV <= 1 {
			last = in
		}
		e.sendInfo(in, true, wdl, start)
	}
	p, pos := e.p, player.Position{StartFEN: e.pos.StartFEN, Moves: append([]string(nil), e.pos.Moves...)}
	go func() {
		defer close(done)
		mi, err := p.Move(sctx, pos, lim)
		if waitForStop {
			// "go infinite" must not answer before "stop", even when the
			// search ran out of depth.
			<-sctx.Done()
		}
		if err != nil {
			e.sayInfo("%v", err)
			e.send("bestmove 0000")
			return
		}
		if len(lim.SearchMoves) > 0 && !slices.Contains(lim.SearchMoves, mi.Move) {
			e.sayInfo("%s cannot keep to searchmoves; it played its own choice", p.Name())
		}
		e.sendFinalInfo(mi, last, wdl, numbered, start)
		if len(mi.PV) >= 2 && mi.PV[0] == mi.Move {
			e.send("bestmove %s ponder %s", mi.Move, mi.PV[1])
			return
		}
		e.send("bestmove %s", mi.Move)
	}()
}

// sendFinalInfo makes the move played the first of the last pv sent (of
// line 1 when the lines are numbered, as with MultiPV), with its score: a
// search that is stopped (by "stop", the clock or a node limit) may play a
// root move of its cut-off iteration that beat the last finished one, and
// a player may report no progress at all. GUIs and match runners take the
// last pv's score as the played move's (for adjudication too), so when the
// last info line does not show the move played, with the score it was
// played for, one more line does.
func (e *Engine) sendFinalInfo(mi player.MoveInfo, last player.Info, wdl, numbered bool, start time.Time) {
	pv := mi.PV
	if len(pv) == 0 || pv[0] != mi.Move {
		pv = []string{mi.Move}
	}
	if len(last.PV) > 0 && last.PV[0] == mi.Move && (!mi.HasScore || last.Score == mi.Score && last.Mate == mi.Mate) {
		return
	}
	final := player.Info{Depth: mi.Depth, Score: mi.Score, Mate: mi.Mate, Nodes: mi.Nodes, PV: pv}
	if numbered {
		final.MultiPV = 1 // among numbered lines, the move played is line 1
	}
	e.sendInfo(final, mi.HasScore, wdl, start)
}

// reportsLines says whether p reports several lines when MultiPV asks.
func reportsLines(p player.Player) bool {
	r, ok := player.Unwrap(p).(player.LinesReporter)
	return ok && r.ReportsLines()
}

// legalSearchMoves returns the moves of "go searchmoves" that are legal in
// the position, and reports the others; when none is, every move is
// searched, as in Stockfish.
func (e *Engine) legalSearchMoves(moves []string) []string {
	b, err := player.Board(e.pos)
	if err != nil {
		return nil
	}
	var legal, bad []string
	for _, m := range moves {
		if mv, err := b.ParseUCI(m); err == nil {
			legal = append(legal, board.UCI(mv))
		} else {
			bad = append(bad, m)
		}
	}
	switch {
	case len(legal) == 0:
		e.sayInfo("searchmoves: no legal move in %q; searching every move", strings.Join(moves, " "))
	case len(bad) > 0:
		e.sayInfo("searchmoves: %q not legal here, left out", strings.Join(bad, " "))
	}
	return legal
}

// stopSearch ends a running search and waits for its bestmove line.
func (e *Engine) stopSearch() {
	if e.cancel == nil {
		return
	}
	e.cancel()
	<-e.done
	e.cancel, e.done = nil, nil
}

// sendInfo sends one "info" line; hasScore false leaves the score out
// (a player with no evaluation). wdl adds "wdl W D L" after the score:
// wins, draws and losses per mille for the side to move, from dchess's
// own mapping of centipawns to a win probability and its draw model
// (internal/chess/winprob.WDL).
func (e *Engine) sendInfo(in player.Info, hasScore, wdl bool, start time.Time) {
	elapsed := in.Time
	if elapsed <= 0 {
		elapsed = time.Since(start)
	}
	ms := max(elapsed.Milliseconds(), 0)
	nps := int64(0)
	if elapsed > 0 {
		nps = int64(float64(in.Nodes) / elapsed.Seconds())
	}
	line := "info"
	if in.Depth > 0 {
		line += fmt.Sprintf(" depth %d", in.Depth)
	}
	if in.SelDepth > 0 {
		line += fmt.Sprintf(" seldepth %d", in.SelDepth)
	}
	if in.MultiPV > 0 {
		line += fmt.Sprintf(" multipv %d", in.MultiPV)
	}
	if hasScore {
		if in.Mate != 0 {
			line += fmt.Sprintf(" score mate %d", in.Mate)
		} else {
			line += fmt.Sprintf(" score cp %d", in.Score)
		}
		if wdl {
			w, d, l := winprob.WDL(in.Score, in.Mate)
			line += fmt.Sprintf(" wdl %d %d %d", w, d, l)
		}
	}
	line += fmt.Sprintf(" nodes %d nps %d time %d", in.Nodes, nps, ms)
	if in.HashFull > 0 {
		line += fmt.Sprintf(" hashfull %d", in.HashFull)
	}
	if len(in.PV) > 0 {
		line += " pv " + strings.Join(in.PV, " ")
	}
	e.send("%s", line)
}

// parsePosition reads "startpos [moves ...]" or "fen F1..F6 [moves ...]"
// and checks every move, so an illegal one is reported at once rather
// than as a failed search.
func parsePosition(args []string) (player.Position, error) {
	var pos player.Position
	if len(args) == 0 {
		return pos, fmt.Errorf("position: want startpos or fen")
	}
	rest := args[1:]
	switch args[0] {
	case "startpos":
	case "fen":
		n := 0
		for n < len(rest) && rest[n] != "moves" {
			n++
		}
		if n == 0 {
			// An empty StartFEN means the start position to player.Board,
			// so a missing FEN would silently become the start position.
			return pos, fmt.Errorf("position fen: the FEN is missing")
		}
		pos.StartFEN = strings.Join(rest[:n], " ")
		rest = rest[n:]
	default:
		return pos, fmt.Errorf("position: want startpos or fen, got %q", args[0])
	}
	if len(rest) > 0 {
		if rest[0] != "moves" {
			return pos, fmt.Errorf("position: unexpected %q", rest[0])
		}
		pos.Moves = rest[1:]
	}
	if _, err := player.Board(pos); err != nil {
		return player.Position{}, fmt.Errorf("position: %v", err)
	}
	return pos, nil
}

// goKeywords are the parameters of "go", which end a searchmoves list.
var goKeywords = map[string]bool{"searchmoves": true, "ponder": true, "wtime": true, "btime": true,
	"winc": true, "binc": true, "movestogo": true, "depth": true, "nodes": true, "mate": true,
	"movetime": true, "infinite": true}

// parseGo reads the "go" parameters. A bare "go" searches until "stop" but
// answers as soon as the search ends; only "go infinite" holds its answer
// back until "stop".
func parseGo(args []string) (lim player.Limits, waitForStop bool, err error) {
	for i := 0; i < len(args); i++ {
		key := args[i]
		switch key {
		case "infinite":
			lim.Infinite, waitForStop = true, true
			continue
		case "ponder":
			continue
		case "searchmoves":
			// Moves up to the next parameter: UCI puts searchmoves last,
			// but GUIs differ.
			for i+1 < len(args) && !goKeywords[args[i+1]] {
				i++
				lim.SearchMoves = append(lim.SearchMoves, args[i])
			}
			continue
		}
		if i+1 >= len(args) {
			return lim, false, fmt.Errorf("go: %s needs a value", key)
		}
		n, err := strconv.ParseInt(args[i+1], 10, 64)
		if err != nil {
			return lim, false, fmt.Errorf("go: %s %q is not a number", key, args[i+1])
		}
		i++
		ms := time.Duration(n) * time.Millisecond
		switch key {
		case "depth":
			lim.Depth = int(min(max(n, 1), maxDepth))
		case "nodes":
			lim.Nodes = max(n, 1)
		case "movetime":
			lim.MoveTime = max(ms, time.Millisecond)
		case "wtime":
			lim.WTime = max(ms, time.Millisecond) // a flagged clock still needs a move
		case "btime":
			lim.BTime = max(ms, time.Millisecond)
		case "winc":
			lim.WInc = ms
		case "binc":
			lim.BInc = ms
		case "movestogo":
			lim.MovesToGo = int(n)
		case "mate":
			// No mate search: a depth of twice the moves finds short mates.
			lim.Depth = int(min(max(2*n, 1), maxDepth))
		default:
			return lim, false, fmt.Errorf("go: unknown parameter %q", key)
		}
	}
	if lim.Depth == 0 && lim.Nodes == 0 && lim.MoveTime == 0 && lim.WTime == 0 && lim.BTime == 0 {
		lim.Infinite = true
	}
	return lim, waitForStop, nil
}
