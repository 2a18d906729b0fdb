package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/pipeline/evaluate"
)

// evalData scores --data: pair accuracy for a comparator or with --pairs,
// else action accuracy.
func evalData(ctx context.Context, opts *evalOptions, eo evaluate.Options, s *IOStreams) error {
	do := evaluate.DataOptions{Options: eo, Dataset: opts.Data, Steps: opts.Steps, RunsDir: runsDir}
	if opts.Pairs || family.Supports(eo.Player.Family, family.EvalPairs) {
		return evalPairs(ctx, opts, do, s)
	}
	rep, err := evaluate.Data(ctx, do)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(s.Out, rep)
	}
	fmt.Fprintf(s.Out, "%s: action accuracy %.1f%% (%d of %d %s positions play Stockfish's best move), %.1f ms per move\n",
		rep.Player, 100*rep.Accuracy, rep.Correct, rep.Positions, rep.Split, rep.MsPerMove)
	if v := rep.Value; v != nil {
		fmt.Fprintf(s.Out, "static evaluation against Stockfish's win probability: MSE %.5f, sign agreement %.1f%%, within 0.1 %.1f%% (%d positions)\n",
			v.MSE, 100*v.SignAgreement, 100*v.Within01, v.Positions)
		if q := v.Quiet; q != nil {
			fmt.Fprintf(s.Out, "  on the quiet ones (not in check, best move not a capture): MSE %.5f, sign agreement %.1f%%, within 0.1 %.1f%% (%d positions)\n",
				q.MSE, 100*q.SignAgreement, 100*q.Within01, q.Positions)
		}
	}
	if d := rep.Decoding; d != nil {
		printDecoding(s.Out, d)
	}
	if len(rep.Sweep) > 0 {
		return printSweep(s.Out, rep.Sweep)
	}
	return nil
}

func evalPairs(ctx context.Context, opts *evalOptions, do evaluate.DataOptions, s *IOStreams) error {
	rep, err := evaluate.Pairs(ctx, do)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(s.Out, rep)
	}
	ties := ""
	if rep.Ties > 0 {
		ties = fmt.Sprintf("; %d ties scored as half", rep.Ties)
	}
	if rep.Unreadable > 0 {
		s.Infof("%d records skipped: their position or move does not parse\n", rep.Unreadable)
	}
	fmt.Fprintf(s.Out, "%s: pair accuracy %.1f%% (%g of %d %s pairs: one position from a game White won, one from a game Black won%s)\n",
		rep.Player, 100*rep.Accuracy, rep.Correct, rep.Pairs, rep.Split, ties)
	return nil
}

// printDecoding prints the decoder's lines under the accuracy line.
func printDecoding(w io.Writer, d *evaluate.DecodingReport) {
	trivially := ""
	if d.LegalMask {
		trivially = " (trivially: trained with legal_mask, the model's a_i is over the legal moves only)"
	}
	fmt.Fprintf(w, "decoding with T = %d: the unrestricted a_i (argmax over all %d moves) is legal in %.1f%% (%d of %d)%s\n",
		d.Steps, encode.ActionVocab, 100*d.UnrestrictedLegalRate, d.UnrestrictedLegal, d.Positions, trivially)
	fmt.Fprintf(w, "cross-entropy of Stockfish's move over the legal moves: %.3f nats (a uniform choice among them: %.3f)\n",
		d.LegalCrossEntropy, d.UniformLegalCrossEntropy)
	im := d.Imagined
	if im == nil {
		return
	}
	all, given := im.All, im.GivenActionRight
	fmt.Fprintf(w, "imagined s_{i+1} after Stockfish's a_i: %.1f%% of its %d tokens right, whole block exact in %.1f%% (%d of %d)\n",
		100*all.StateTokenAccuracy, encode.StateLen, 100*all.StateExactRate, all.StateExact, all.StatePositions)
	fmt.Fprintf(w, "  when a_i is right: %.1f%% of tokens, exact in %.1f%% (%d of %d)\n",
		100*given.StateTokenAccuracy, 100*given.StateExactRate, given.StateExact, given.StatePositions)
	wrong := given.StateWrong
	fmt.Fprintf(w, "  its wrong tokens: %d on a_i's origin square, %d on its destination, %d on other squares, %d side to move, castling or en passant\n",
		wrong.Origin, wrong.Destination, wrong.OtherSquares, wrong.SideCastlingPassant)
	fmt.Fprintf(w, "imagined a_{i+1}: %.1f%% is Stockfish's second move (%d of %d); when a_i is right: %.1f%% (%d of %d)\n",
		100*all.NextActionAccuracy, all.NextActionCorrect, all.NextActionPositions,
		100*given.NextActionAccuracy, given.NextActionCorrect, given.NextActionPositions)
}

// printSweep prints the --steps table.
func printSweep(w io.Writer, rows []evaluate.DecodingReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "T\taction %\tms/move\tlegal a_i %\ts_{i+1} tokens %\ts_{i+1} exact %\ta_{i+1} %\t")
	for _, d := range rows {
		state, exact, next := "-", "-", "-"
		if im := d.Imagined; im != nil {
			state = fmt.Sprintf("%.1f", 100*im.All.StateTokenAccuracy)
			exact = fmt.Sprintf("%.1f", 100*im.All.StateExactRate)
			next = fmt.Sprintf("%.1f", 100*im.All.NextActionAccuracy)
		}
		fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%.1f\t%s\t%s\t%s\t\n", d.Steps, 100*d.Accuracy, d.MsPerMove,
			100*d.UnrestrictedLegalRate, state, exact, next)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rows) > 0 && rows[0].LegalMask {
		_, err := fmt.Fprintln(w, "legal a_i is 100% by construction: the model was trained with legal_mask")
		return err
	}
	return nil
}

func evalPuzzles(ctx context.Context, opts *evalOptions, eo evaluate.Options, s *IOStreams) error {
	rep, err := evaluate.Puzzles(ctx, opts.Puzzles, eo)
	if err != nil {
		return err
	}
	printSkipped(s, rep.Skipped)
	if opts.JSON {
		return writeJSON(s.Out, rep)
	}
	fmt.Fprintf(s.Out, "%s: solved %d of %d puzzles (%.1f%%), %.1f ms per move\n", rep.Player, rep.Solved, rep.Puzzles, 100*rep.Rate, rep.MsPerMove)
	tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rating\tpuzzles\tsolved\t%\t")
	for _, bk := range rep.Buckets {
		fmt.Fprintf(tw, "%d-%d\t%d\t%d\t%.1f\t\n", bk.From, bk.To(), bk.Puzzles, bk.Solved, 100*bk.Rate)
	}
	return tw.Flush()
}
