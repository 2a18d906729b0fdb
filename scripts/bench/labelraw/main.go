// Command labelraw is the reference side of scripts/bench/label.sh.
//
//	labelraw input -epd FILE -n N -o DATASET
//	    stores the first N positions of an EPD file as an unlabelled dataset
//	    (dchess ingest --format epd only imports scored EPD);
//	labelraw raw -stockfish PATH -epd FILE -n N -workers W -depth D
//	    drives W Stockfish processes directly over pipes on the same positions,
//	    with the same protocol per position as dchess label (ucinewgame,
//	    isready, position, go depth D), and prints positions per second.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/dchess/dchess/dataset"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: labelraw input|raw [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	epd := fs.String("epd", "", "EPD file")
	n := fs.Int("n", 2000, "positions")
	out := fs.String("o", "", "output dataset (input mode)")
	stockfish := fs.String("stockfish", "/usr/games/stockfish", "engine (raw mode)")
	workers := fs.Int("workers", 2, "engine processes (raw mode)")
	depth := fs.Int("depth", 8, "search depth (raw mode)")
	fs.Parse(os.Args[2:])
	fens, err := readEPD(*epd, *n)
	if err == nil {
		switch os.Args[1] {
		case "input":
			err = writeInput(*out, fens)
		case "raw":
			err = raw(*stockfish, fens, *workers, *depth)
		default:
			err = fmt.Errorf("unknown mode %q", os.Args[1])
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "labelraw:", err)
		os.Exit(1)
	}
}

// readEPD returns the first n positions of an EPD file as FENs.
func readEPD(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var fens []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(fens) < n {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		fens = append(fens, strings.Join(fields[:4], " ")+" 0 1")
	}
	if len(fens) < n {
		return nil, fmt.Errorf("%s has only %d positions, %d wanted", path, len(fens), n)
	}
	return fens, sc.Err()
}

func writeInput(dir string, fens []string) error {
	w, err := dataset.Create(dir, dataset.WriteOptions{Command: os.Args})
	if err != nil {
		return err
	}
	for i, fen := range fens {
		if err := w.Write(&dataset.Record{FEN: fen, Key: dataset.PositionKey(fen), GameID: uint64(i + 1)}); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

type engine struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func start(path string) (*engine, error) {
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	e := &engine{cmd: cmd, in: in, out: bufio.NewScanner(stdout)}
	e.send("uci")
	e.until("uciok")
	e.send("setoption name Threads value 1\nsetoption name Hash value 16\nisready")
	return e, e.until("readyok")
}

func (e *engine) send(s string) { io.WriteString(e.in, s+"\n") }

func (e *engine) until(prefix string) error {
	for e.out.Scan() {
		if strings.HasPrefix(e.out.Text(), prefix) {
			return nil
		}
	}
	return fmt.Errorf("engine output ended before %q", prefix)
}

func raw(path string, fens []string, workers, depth int) error {
	engines := make([]*engine, workers)
	for i := range engines {
		e, err := start(path)
		if err != nil {
			return err
		}
		defer func() { e.send("quit"); e.cmd.Wait() }()
		engines[i] = e
	}
	jobs := make(chan string)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	began := time.Now()
	for _, e := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for fen := range jobs {
				e.send("ucinewgame\nisready")
				if err := e.until("readyok"); err != nil {
					errs <- err
					return
				}
				e.send(fmt.Sprintf("position fen %s\ngo depth %d", fen, depth))
				if err := e.until("bestmove"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for _, fen := range fens {
		select {
		case jobs <- fen:
		case err := <-errs:
			return err
		}
	}
	close(jobs)
	wg.Wait()
	secs := time.Since(began).Seconds()
	fmt.Printf("{\"positions\": %d, \"seconds\": %.3f, \"positions_per_second\": %.1f}\n", len(fens), secs, float64(len(fens))/secs)
	return nil
}
