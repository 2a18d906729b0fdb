// Package uci speaks the Universal Chess Interface. The client side (this
// file) drives an external engine process such as Stockfish for labelling
// and for "uci:" players in matches.
package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// StartOptions configure how an engine process is launched and handshaken.
type StartOptions struct {
	// Options are sent as "setoption" after the handshake, in name order.
	// Names match the engine's option list case-insensitively; an unknown
	// name or an out-of-range value is an error.
	Options map[string]string
	Args    []string
	// Env adds variables to the engine's environment (KEY=VALUE).
	Env []string
	// Stderr receives the engine's standard error; nil discards it.
	Stderr io.Writer
	// HandshakeTimeout bounds the wait for "uciok" (default 5 s), so a
	// program that does not speak UCI fails fast instead of hanging. It is
	// the limit for each runnable process per CPU core (this program's
	// engines, or the load average if higher): engines share the cores,
	// and 64 started on 2 cores (match --concurrency 64), or one started
	// beside a dozen busy processes, can take longer than 5 s to start.
	HandshakeTimeout time.Duration
	// ReadyTimeout bounds a wait for "readyok" when the caller's context
	// has no earlier deadline (default 30 s: allocating a large hash is slow).
	ReadyTimeout time.Duration
	// StopTimeout bounds the wait for "bestmove" after "stop" (default 2 s);
	// an engine that misses it is killed.
	StopTimeout time.Duration
	// QuitTimeout is the grace between "quit" and a kill on Close (default 1 s).
	QuitTimeout time.Duration
}

func (o *StartOptions) fillDefaults() {
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = 5 * time.Second
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = 30 * time.Second
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 2 * time.Second
	}
	if o.QuitTimeout <= 0 {
		o.QuitTimeout = time.Second
	}
}

// Option is one entry of the engine's "option name ... type ..." list.
type Option struct {
	Name    string
	Type    string // check, spin, combo, button or string
	Default string
	Min     string
	Max     string
	Vars    []string // the choices of a combo
}

// Position is what "position" sends: a FEN ("" or "startpos" for the
// initial position) and moves in UCI notation played from it.
type Position struct {
	FEN   string
	Moves []string
}

// Limits are the "go" parameters; zero fields are not sent. Times are in
// milliseconds. With no limit at all the engine searches until Stop or the
// context ends.
type Limits struct {
	Depth     int64
	Nodes     int64
	MoveTime  int64
	WTime     int64
	BTime     int64
	WInc      int64
	BInc      int64
	MovesToGo int64
	Infinite  bool
	// MultiPV, when positive, sets the engine's MultiPV option before the search.
	MultiPV int
	// SearchMoves, when not empty, are the only moves the engine may play
	// ("go searchmoves", in UCI notation).
	SearchMoves []string
}

// SearchResult is the outcome of one "go".
type SearchResult struct {
	// BestMove is "" when the engine has no move to make (mate or stalemate).
	BestMove string
	Ponder   string
	// Lines holds one info per multipv line, in multipv order (Lines[0] is
	// the main line): the line's last info with an exact score, or its last
	// bounded one when it never had an exact score.
	Lines []Info
	// Nodes and TimeMs are the largest counts any info line reported.
	Nodes  uint64
	TimeMs int64
	// Depth is the largest depth any scored info line reported, a bound's
	// included: how deep the engine searched, where Lines[0].Depth is the
	// depth of its last exact score. Stockfish 15.1's last iteration can
	// end on a bound ("go depth 8" in a few endgames: depth 7 exact, then
	// depth 8 upperbound, then bestmove).
	Depth int
}

// ExitError reports that the engine process ended. It matches io.EOF under
// errors.Is, since for a caller the engine's output simply stopped.
type ExitError struct {
	Path string
	// Status is what waiting for the process returned (nil for exit code 0).
	Status error
}

func (e *ExitError) Error() string {
	if e.Status == nil {
		return fmt.Sprintf("uci engine %s exited", e.Path)
	}
	return fmt.Sprintf("uci engine %s exited (%v)", e.Path, e.Status)
}

// Is makes errors.Is(err, io.EOF) true for an exited engine.
func (e *ExitError) Is(target error) bool { return target == io.EOF }

func (e *ExitError) Unwrap() error { return e.Status }

// liveEngines counts the engine processes this program has started and not
// yet reaped: the load a starting engine competes with for the CPUs.
var liveEngines atomic.Int64

// cpuCount is a variable so that tests can pretend to have one core.
var cpuCount = runtime.NumCPU

// loadAverage is the system's one-minute load average (0 where there is
// none to read): other programs' runnable processes compete with a
// starting engine as this program's do. A variable so that tests can set
// the machine's load.
var loadAverage = func() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return 0
	}
	return v
}

// handshakeDeadline is when a missing "uciok" becomes an error: the
// handshake limit times the most runnable processes per CPU core seen
// since the start (at least one): this program's engines, or the system's
// load average when that is higher (a shared machine's other work). It is
// read again at the deadline, because the engine started first in a match
// is starved by those started after it.
type handshakeDeadline struct {
	start   time.Time
	base    time.Duration
	perCore int64
}

func newHandshakeDeadline(base time.Duration) *handshakeDeadline {
	d := &handshakeDeadline{start: time.Now(), base: base}
	d.update()
	return d
}

// update takes in the current number of engines and returns the deadline,
// which never moves earlier.
func (d *handshakeDeadline) update() time.Time {
	cpus := int64(max(cpuCount(), 1))
	load := int64(math.Ceil(loadAverage() / float64(cpus)))
	d.perCore = max(d.perCore, (liveEngines.Load()+cpus-1)/cpus, load, 1)
	return d.start.Add(d.limit())
}

func (d *handshakeDeadline) limit() time.Duration { return d.base * time.Duration(d.perCore) }

// missed says how long the engine had, and why that long.
func (d *handshakeDeadline) missed() string {
	if d.perCore == 1 {
		return fmt.Sprintf("no uciok within %v (not a UCI engine?)", d.limit())
	}
	return fmt.Sprintf("no uciok within %v (%v for each of %d runnable processes per CPU core; not a UCI engine?)",
		d.limit(), d.base, d.perCore)
}

// maxLineBytes caps one line of engine output; a longer one means the
// program is not a sane UCI engine.
const maxLineBytes = 1 << 20

// Engine is a running UCI engine. Its methods are meant for one goroutine at
// a time, except Stop, which may be called while Go runs.
type Engine struct {
	path    string
	opts    StartOptions
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	writeMu sync.Mutex

	lines   chan string   // engine output, closed at EOF once the process is reaped
	exited  chan struct{} // closed after lines, when exitErr is set
	exitErr error
	discard chan struct{} // closed on Close/kill: the reader drops output instead of blocking

	name, author string
	options      []Option
	multiPV      int
	// broken is set once the engine was killed or exited; later calls return it.
	broken    error
	closeOnce sync.Once
	killOnce  sync.Once
}

// Start launches the engine at path, performs the uci/uciok handshake, sets
// opts.Options and waits for readyok. On any failure the process is killed
// and the error is one line naming the engine.
func Start(ctx context.Context, path string, opts StartOptions) (*Engine, error) {
	opts.fillDefaults()
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("cannot start uci engine %s: is a directory", path)
	}
	cmd := exec.Command(path, opts.Args...)
	if len(opts.Env) > 0 {
		cmd.Env = append(os.Environ(), opts.Env...)
	}
	cmd.Stderr = opts.Stderr
	setProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("cannot start uci engine %s: %w", path, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("cannot start uci engine %s: %w", path, err)
	}
	if err := cmd.Start(); err != nil {
		var pathErr *os.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err
		}
		return nil, fmt.Errorf("cannot start uci engine %s: %w", path, err)
	}
	liveEngines.Add(1) // until readLoop reaps the process
	e := &Engine{
		path:    path,
		opts:    opts,
		cmd:     cmd,
		stdin:   stdin,
		lines:   make(chan string, 256),
		exited:  make(chan struct{}),
		discard: make(chan struct{}),
		multiPV: 1,
	}
	go e.readLoop(stdout)
	if err := e.handshake(ctx); err != nil {
		e.kill()
		return nil, err
	}
	return e, nil
}

func (e *Engine) readLoop(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	for sc.Scan() {
		select {
		case e.lines <- sc.Text():
		case <-e.discard:
		}
	}
	if sc.Err() != nil {
		// Overlong output: stop the process so Wait below returns.
		killProcess(e.cmd)
		_, _ = io.Copy(io.Discard, stdout)
	}
	e.exitErr = e.cmd.Wait()
	liveEngines.Add(-1)
	close(e.lines)
	close(e.exited)
}

func (e *Engine) handshake(ctx context.Context) error {
	deadline := newHandshakeDeadline(e.opts.HandshakeTimeout)
	if err := e.send("uci"); err != nil {
		return fmt.Errorf("%w during the uci handshake", err)
	}
	for {
		hctx, cancel := context.WithDeadline(ctx, deadline.update())
		line, err := e.readLine(hctx)
		cancel()
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				if time.Now().Before(deadline.update()) {
					continue // more engines started meanwhile
				}
				return fmt.Errorf("uci engine %s: %s", e.path, deadline.missed())
			}
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("%w during the uci handshake", err)
			}
			return fmt.Errorf("uci engine %s: handshake: %w", e.path, err)
		}
		switch {
		case line == "uciok":
			names := make([]string, 0, len(e.opts.Options))
			for name := range e.opts.Options {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				if err := e.SetOption(name, e.opts.Options[name]); err != nil {
					return err
				}
			}
			return e.IsReady(ctx)
		case strings.HasPrefix(line, "id name "):
			e.name = strings.TrimSpace(strings.TrimPrefix(line, "id name "))
		case strings.HasPrefix(line, "id author "):
			e.author = strings.TrimSpace(strings.TrimPrefix(line, "id author "))
		case strings.HasPrefix(line, "option "):
			if opt, ok := parseOption(line); ok {
				e.options = append(e.options, opt)
			}
		}
	}
}

// parseOption reads "option name N type T [default D] [min m] [max M] [var V]...".
// Names and defaults may contain spaces, so fields run to the next keyword.
func parseOption(line string) (Option, bool) {
	tok := strings.Fields(line)
	var opt Option
	key := ""
	var val []string
	flush := func() {
		v := strings.Join(val, " ")
		switch key {
		case "name":
			opt.Name = v
		case "type":
			opt.Type = v
		case "default":
			opt.Default = v
		case "min":
			opt.Min = v
		case "max":
			opt.Max = v
		case "var":
			opt.Vars = append(opt.Vars, v)
		}
		val = val[:0]
	}
	for _, t := range tok[1:] {
		switch t {
		case "name", "type", "default", "min", "max", "var":
			// "name" only starts a field once; later it may be part of a default.
			if key == "" || t != "name" {
				flush()
				key = t
				continue
			}
		}
		val = append(val, t)
	}
	flush()
	return opt, opt.Name != "" && opt.Type != ""
}

// Name returns the engine's "id name", or its path when it sent none.
func (e *Engine) Name() string {
	if e.name != "" {
		return e.name
	}
	return e.path
}

// Author returns the engine's "id author".
func (e *Engine) Author() string { return e.author }

// Options returns the option list the engine announced.
func (e *Engine) Options() []Option { return e.options }

// SetOption sends "setoption". The name is matched case-insensitively
// against the engine's options and the value checked against its type, so a
// typo in a player spec is an error rather than silently ignored.
func (e *Engine) SetOption(name, value string) error {
	if e.broken != nil {
		return e.broken
	}
	var opt *Option
	for i := range e.options {
		if strings.EqualFold(e.options[i].Name, name) {
			opt = &e.options[i]
			break
		}
	}
	if opt == nil {
		names := make([]string, len(e.options))
		for i, o := range e.options {
			names[i] = o.Name
		}
		return fmt.Errorf("uci engine %s has no option %q (it has: %s)", e.Name(), name, strings.Join(names, ", "))
	}
	if strings.ContainsAny(value, "\r\n") {
		return fmt.Errorf("uci option %s: value contains a line break", opt.Name)
	}
	switch strings.ToLower(opt.Type) {
	case "spin":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return fmt.Errorf("uci option %s wants an integer, got %q", opt.Name, value)
		}
		lo, errLo := strconv.ParseInt(opt.Min, 10, 64)
		hi, errHi := strconv.ParseInt(opt.Max, 10, 64)
		if errLo == nil && errHi == nil && (n < lo || n > hi) {
			return fmt.Errorf("uci option %s: %d is outside %d..%d", opt.Name, n, lo, hi)
		}
	case "check":
		if value != "true" && value != "false" {
			return fmt.Errorf("uci option %s wants true or false, got %q", opt.Name, value)
		}
	case "combo":
		found := false
		for _, v := range opt.Vars {
			if strings.EqualFold(v, value) {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("uci option %s wants one of %s, got %q", opt.Name, strings.Join(opt.Vars, ", "), value)
		}
	case "button":
		return e.send("setoption name " + opt.Name)
	}
	if err := e.send("setoption name " + opt.Name + " value " + value); err != nil {
		return err
	}
	if strings.EqualFold(opt.Name, "MultiPV") {
		e.multiPV, _ = strconv.Atoi(value)
	}
	return nil
}

// IsReady sends "isready" and waits for "readyok". Without a deadline on ctx
// it waits at most StartOptions.ReadyTimeout; an engine that misses the
// deadline is killed, since it can no longer be trusted to be in sync.
func (e *Engine) IsReady(ctx context.Context) error {
	if e.broken != nil {
		return e.broken
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.opts.ReadyTimeout)
		defer cancel()
	}
	if err := e.send("isready"); err != nil {
		return err
	}
	for {
		line, err := e.readLine(ctx)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				e.kill()
				err = fmt.Errorf("uci engine %s: no readyok: %w", e.path, err)
			}
			e.broken = err
			return err
		}
		if line == "readyok" {
			return nil
		}
	}
}

// NewGame sends "ucinewgame", which clears the engine's hash and history so
// that a search does not depend on earlier ones, then waits for readyok.
func (e *Engine) NewGame(ctx context.Context) error {
	if e.broken != nil {
		return e.broken
	}
	if err := e.send("ucinewgame"); err != nil {
		return err
	}
	return e.IsReady(ctx)
}

// Go sets up pos, searches it within lim and returns the engine's verdict.
// onInfo, if not nil, sees every info line as it arrives. When ctx ends
// first, Go sends "stop" and returns what the engine had with ctx's error;
// an engine that then does not answer within StopTimeout is killed.
func (e *Engine) Go(ctx context.Context, pos Position, lim Limits, onInfo func(Info)) (SearchResult, error) {
	if e.broken != nil {
		return SearchResult{}, e.broken
	}
	if lim.MultiPV > 0 && lim.MultiPV != e.multiPV {
		if err := e.SetOption("MultiPV", strconv.Itoa(lim.MultiPV)); err != nil {
			return SearchResult{}, err
		}
	}
	posCmd, err := positionCommand(pos)
	if err != nil {
		return SearchResult{}, err
	}
	if err := e.send(posCmd, goCommand(lim)); err != nil {
		return SearchResult{}, err
	}
	var acc searchAccumulator
	readCtx := ctx
	var stopErr error
	for {
		line, err := e.readLine(readCtx)
		if err != nil {
			if stopErr == nil && ctx.Err() != nil && !errors.Is(err, io.EOF) {
				// Ask for the move; give the engine StopTimeout to answer.
				stopErr = ctx.Err()
				var cancel context.CancelFunc
				readCtx, cancel = context.WithTimeout(context.Background(), e.opts.StopTimeout)
				defer cancel()
				sendErr := e.send("stop")
				if sendErr == nil {
					continue
				}
				err = sendErr
			}
			if !errors.Is(err, io.EOF) {
				e.kill()
				err = fmt.Errorf("uci engine %s did not answer stop within %v and was killed: %w", e.path, e.opts.StopTimeout, stopErr)
			}
			e.broken = err
			return acc.result(), err
		}
		if strings.HasPrefix(line, "info") {
			if info, ok := ParseInfo(line); ok {
				acc.add(info)
				if onInfo != nil {
					onInfo(info)
				}
			}
			continue
		}
		if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == "bestmove" {
			res := acc.result()
			res.BestMove = noMove(fields[1])
			if len(fields) >= 4 && fields[2] == "ponder" {
				res.Ponder = noMove(fields[3])
			}
			if stopErr != nil {
				return res, fmt.Errorf("search stopped early: %w", stopErr)
			}
			return res, nil
		}
	}
}

// noMove maps the engines' spellings of "no legal move" to "".
func noMove(m string) string {
	if m == "(none)" || m == "0000" || m == "none" {
		return ""
	}
	return m
}

// Stop asks a running search to finish; Go then returns its result.
func (e *Engine) Stop() error { return e.send("stop") }

// Close sends "quit", waits QuitTimeout for the process to exit, then kills
// it. It is safe to call more than once.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		_ = e.send("quit")
		e.writeMu.Lock()
		_ = e.stdin.Close()
		e.writeMu.Unlock()
		e.signalDiscard()
		timer := time.NewTimer(e.opts.QuitTimeout)
		defer timer.Stop()
		select {
		case <-e.exited:
		case <-timer.C:
			e.kill()
		}
		if e.broken == nil {
			e.broken = fmt.Errorf("uci engine %s is closed", e.path)
		}
	})
	return nil
}

func (e *Engine) signalDiscard() {
	select {
	case <-e.discard:
	default:
		close(e.discard)
	}
}

// kill ends the process (and its process group) and waits for the reader to
// reap it, so no goroutine or zombie outlives the Engine.
func (e *Engine) kill() {
	e.killOnce.Do(func() {
		select {
		case <-e.exited:
			// Already reaped: its pid (and group id) may belong to another process now.
		default:
			killProcess(e.cmd)
		}
		_ = e.stdin.Close()
	})
	e.signalDiscard()
	<-e.exited
}

func (e *Engine) readLine(ctx context.Context) (string, error) {
	select {
	case line, ok := <-e.lines:
		if !ok {
			return "", &ExitError{Path: e.path, Status: e.exitErr}
		}
		return line, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// send writes commands, one per line, in a single write.
func (e *Engine) send(cmds ...string) error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	_, err := io.WriteString(e.stdin, strings.Join(cmds, "\n")+"\n")
	if err == nil {
		return nil
	}
	// A write fails when the engine is gone; report its exit, not EPIPE.
	select {
	case <-e.exited:
		return &ExitError{Path: e.path, Status: e.exitErr}
	case <-time.After(100 * time.Millisecond):
		return fmt.Errorf("uci engine %s: write: %w", e.path, err)
	}
}

func positionCommand(pos Position) (string, error) {
	if strings.ContainsAny(pos.FEN, "\r\n") {
		return "", errors.New("uci position: FEN contains a line break")
	}
	var b strings.Builder
	if pos.FEN == "" || pos.FEN == "startpos" {
		b.WriteString("position startpos")
	} else {
		b.WriteString("position fen " + strings.TrimSpace(pos.FEN))
	}
	if len(pos.Moves) > 0 {
		b.WriteString(" moves")
		for _, m := range pos.Moves {
			if m == "" || strings.ContainsAny(m, " \t\r\n") {
				return "", fmt.Errorf("uci position: bad move %q", m)
			}
			b.WriteString(" " + m)
		}
	}
	return b.String(), nil
}

func goCommand(lim Limits) string {
	var b strings.Builder
	b.WriteString("go")
	for _, f := range []struct {
		key string
		v   int64
	}{
		{"depth", lim.Depth}, {"nodes", lim.Nodes}, {"movetime", lim.MoveTime},
		{"wtime", lim.WTime}, {"btime", lim.BTime}, {"winc", lim.WInc}, {"binc", lim.BInc},
		{"movestogo", lim.MovesToGo},
	} {
		if f.v > 0 {
			b.WriteString(" " + f.key + " " + strconv.FormatInt(f.v, 10))
		}
	}
	if lim.Infinite {
		b.WriteString(" infinite")
	}
	if len(lim.SearchMoves) > 0 {
		b.WriteString(" searchmoves " + strings.Join(lim.SearchMoves, " "))
	}
	return b.String()
}

// searchAccumulator keeps, per multipv line, the last exact and the last
// scored info, because the final info of a stopped iteration is often only
// a bound.
type searchAccumulator struct {
	exact   map[int]Info
	last    map[int]Info
	nodes   uint64
	timeMs  int64
	depth   int
	maxLine int
}

func (a *searchAccumulator) add(info Info) {
	a.nodes = max(a.nodes, info.Nodes)
	a.timeMs = max(a.timeMs, info.TimeMs)
	if info.Score.Kind == ScoreNone {
		return
	}
	a.depth = max(a.depth, info.Depth)
	if a.last == nil {
		a.exact, a.last = map[int]Info{}, map[int]Info{}
	}
	a.last[info.MultiPV] = info
	if info.Score.Bound == BoundExact {
		a.exact[info.MultiPV] = info
	}
	a.maxLine = max(a.maxLine, info.MultiPV)
}

func (a *searchAccumulator) result() SearchResult {
	res := SearchResult{Nodes: a.nodes, TimeMs: a.timeMs, Depth: a.depth}
	for k := 1; k <= a.maxLine; k++ {
		if info, ok := a.exact[k]; ok {
			res.Lines = append(res.Lines, info)
		} else if info, ok := a.last[k]; ok {
			res.Lines = append(res.Lines, info)
		}
	}
	return res
}
