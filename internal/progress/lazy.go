package progress

import (
	"io"
	"sync"
)

// Lazy is a reporter made at the first report, which is when library
// calls that count their own work learn the total. It is safe for
// concurrent use.
type Lazy struct {
	mu   sync.Mutex
	w    io.Writer
	opts Options
	r    Reporter
}

// NewLazy returns a Lazy that makes New(w, opts) at the first Set, with
// the total that Set gives in place of opts.Total.
func NewLazy(w io.Writer, opts Options) *Lazy {
	return &Lazy{w: w, opts: opts}
}

// Set reports done of total.
func (l *Lazy) Set(done, total int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.r == nil {
		opts := l.opts
		opts.Total = total
		l.r = New(l.w, opts)
	}
	l.r.Set(done)
}

// reporter is the reporter a report made, or nil.
func (l *Lazy) reporter() Reporter {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r
}

// Finish ends the reporter, if a report made one.
func (l *Lazy) Finish() { l.End(nil) }

// End closes the reporter, if a report made one: done, or stopped by err.
func (l *Lazy) End(err error) {
	if r := l.reporter(); r != nil {
		End(r, err)
	}
}

// Clear takes a drawn bar off the terminal before other output.
func (l *Lazy) Clear() {
	if r := l.reporter(); r != nil {
		r.Clear()
	}
}

// Write clears the bar and writes p to the reporter's writer, so that log
// lines of the job it counts land on lines of their own.
func (l *Lazy) Write(p []byte) (int, error) {
	l.Clear()
	return l.w.Write(p)
}

// End closes r: Finish when err is nil, else Abort.
func End(r Reporter, err error) {
	if err != nil {
		r.Abort()
		return
	}
	r.Finish()
}
