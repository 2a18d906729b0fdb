package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/progress"
	"github.com/spf13/cobra"
)

func init() { register(newDatasetCmd) }

func newDatasetCmd(s *IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dataset",
		Short: "Inspect, split, export and verify datasets",
		Long: `A dataset is a folder with a manifest.json and binary shards of records, written by
dchess ingest and dchess label. These commands read it, split it by game, export it
to JSON lines or CSV, and check it for damage. The format is in docs/dataset-format.md.`,
		Example: `  dchess dataset info data/games
  dchess dataset split data/labelled --val 0.05 --test 0.05 --seed 1
  dchess dataset export data/labelled --format csv --split test -o test.csv
  dchess dataset verify data/labelled
  dchess dataset merge data/labelled -o data/labelled-all`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("dataset needs a subcommand: info, split, export, verify or merge (see dchess dataset --help)")
		},
	}
	cmd.AddCommand(newDatasetInfoCmd(s), newDatasetSplitCmd(s), newDatasetExportCmd(s), newDatasetVerifyCmd(s), newDatasetMergeCmd(s))
	return cmd
}

// datasetArg checks that a dataset command got exactly one folder.
func datasetArg(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("%s needs exactly one DATASET folder, got %d arguments", cmd.CommandPath(), len(args))
	}
	return nil
}

// ---- info ----

type datasetInfoOptions struct {
	Dir  string
	JSON bool
}

func newDatasetInfoCmd(s *IOStreams) *cobra.Command {
	opts := &datasetInfoOptions{}
	cmd := &cobra.Command{
		Use:   "info DATASET",
		Short: "Show a dataset's counts, splits, label coverage, score histogram and sources",
		Example: `  dchess dataset info data/labelled
  dchess dataset info data/labelled --json | jq .splits`,
		Args: datasetArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runDatasetInfo(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON object")
	return cmd
}

// datasetInfoJSON is the --json output of dataset info.
type datasetInfoJSON struct {
	Dataset       string               `json:"dataset"`
	FormatVersion int                  `json:"format_version"`
	CreatedAt     time.Time            `json:"created_at"`
	Records       int64                `json:"records"`
	Games         int64                `json:"games"`
	Labelled      int64                `json:"labelled"`
	Failed        int64                `json:"failed"`
	Duplicates    int64                `json:"duplicates_dropped"`
	LabelCoverage float64              `json:"label_coverage"`
	Split         *dataset.SplitInfo   `json:"split"`
	Splits        map[string]int64     `json:"splits"`
	SplitGames    map[string]int64     `json:"split_games"`
	Histogram     datasetHistogramJSON `json:"histogram"`
	Sources       []dataset.Source     `json:"sources"`
	Command       []string             `json:"command"`
	Settings      map[string]any       `json:"settings"`
	Shards        int                  `json:"shards"`
	Bytes         int64                `json:"bytes"`
}

type datasetHistogramJSON struct {
	EdgesCP     []int32          `json:"edges_cp"`
	Buckets     []datasetBucket  `json:"buckets"`
	MateFor     int64            `json:"mate_for"`
	MateAgainst int64            `json:"mate_against"`
	Counts      map[string]int64 `json:"counts"`
}

type datasetBucket struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

func datasetInfoOf(d *dataset.Dataset) datasetInfoJSON {
	m := d.Manifest()
	c := m.Counts
	info := datasetInfoJSON{
		Dataset: d.Dir(), FormatVersion: m.FormatVersion, CreatedAt: m.CreatedAt,
		Records: c.Records, Games: c.Games, Labelled: c.Labelled, Failed: c.Failed, Duplicates: c.Duplicates,
		Split: m.Split, Sources: m.Sources, Command: m.Command, Settings: m.Settings, Shards: len(m.Shards),
	}
	if c.Records > 0 {
		info.LabelCoverage = float64(c.Labelled) / float64(c.Records)
	}
	// An unsplit dataset is all train, as SplitOf says.
	records, games := dataset.SplitCounts{Train: c.Records}, dataset.SplitCounts{Train: c.Games}
	if m.Split != nil {
		records, games = m.Split.Records, m.Split.Games
	}
	info.Splits = map[string]int64{"train": records.Train, "val": records.Val, "test": records.Test}
	info.SplitGames = map[string]int64{"train": games.Train, "val": games.Val, "test": games.Test}
	h := m.Histogram
	info.Histogram = datasetHistogramJSON{EdgesCP: h.EdgesCP, MateFor: h.MateFor, MateAgainst: h.MateAgainst,
		Counts: map[string]int64{}}
	for i, name := range h.BucketNames() {
		if i < len(h.Counts) {
			info.Histogram.Buckets = append(info.Histogram.Buckets, datasetBucket{name, h.Counts[i]})
			info.Histogram.Counts[name] = h.Counts[i]
		}
	}
	info.Histogram.Counts["mate_for"] = h.MateFor
	info.Histogram.Counts["mate_against"] = h.MateAgainst
	for _, sh := range m.Shards {
		info.Bytes += sh.Bytes
	}
	return info
}

func runDatasetInfo(ctx context.Context, opts *datasetInfoOptions, s *IOStreams) error {
	d, err := dataset.Open(opts.Dir)
	if err != nil {
		return err
	}
	info := datasetInfoOf(d)
	if opts.JSON {
		return writeJSON(s.Out, info)
	}
	w := s.Out
	fmt.Fprintf(w, "dataset    %s (format %d, made %s)\n", info.Dataset, info.FormatVersion, info.CreatedAt.Format(time.RFC3339))
	fmt.Fprintf(w, "records    %s from %s games", datasetCount(info.Records), datasetCount(info.Games))
	if info.Duplicates > 0 {
		fmt.Fprintf(w, " (%s duplicates dropped)", datasetCount(info.Duplicates))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "labelled   %s (%.1f%%), failed %s\n", datasetCount(info.Labelled), 100*info.LabelCoverage, datasetCount(info.Failed))
	if info.Split == nil {
		fmt.Fprintf(w, "splits     none: every record is train (dchess dataset split %s --val 0.05 --test 0.05)\n", info.Dataset)
	} else {
		fmt.Fprintf(w, "splits     seed %d, val %g, test %g\n", info.Split.Seed, info.Split.Val, info.Split.Test)
		for _, name := range []string{"train", "val", "test"} {
			fmt.Fprintf(w, "  %-8s %12s records %10s games\n", name, datasetCount(info.Splits[name]), datasetCount(info.SplitGames[name]))
		}
	}
	h := info.Histogram
	scored := h.MateFor + h.MateAgainst
	for _, b := range h.Buckets {
		scored += b.Count
	}
	if scored > 0 {
		fmt.Fprintln(w, "scores     centipawns from the side to move")
		rows := append([]datasetBucket{{"mated", h.MateAgainst}}, h.Buckets...)
		rows = append(rows, datasetBucket{"mates", h.MateFor})
		for _, b := range rows {
			bar := strings.Repeat("#", int(40*b.Count/scored))
			fmt.Fprintf(w, "  %-12s %12s %5.1f%% %s\n", b.Name, datasetCount(b.Count), 100*float64(b.Count)/float64(scored), bar)
		}
	}
	fmt.Fprintf(w, "shards     %d files, %s\n", info.Shards, datasetBytes(info.Bytes))
	if len(info.Command) > 0 {
		fmt.Fprintf(w, "made by    %s\n", strings.Join(info.Command, " "))
	}
	for i, src := range info.Sources {
		label := "sources"
		if i > 0 {
			label = ""
		}
		sum := src.SHA256
		if len(sum) > 16 {
			sum = sum[:16]
		}
		fmt.Fprintf(w, "%-10s %s (%s, sha256 %s)\n", label, src.Path, datasetBytes(src.Bytes), sum)
	}
	return nil
}

// datasetCount writes n with thousands separators.
func datasetCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func datasetBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// ---- split ----

type datasetSplitOptions struct {
	Dir  string
	Val  float64
	Test float64
	Seed uint64
	JSON bool
}

func newDatasetSplitCmd(s *IOStreams) *cobra.Command {
	opts := &datasetSplitOptions{}
	cmd := &cobra.Command{
		Use:   "split DATASET",
		Short: "Split a dataset by game into train, val and test",
		Long: `split assigns every game (never single positions) to train, val or test by hashing
its game ID with the seed, and records the split and its counts in the manifest.
Records are not moved, so splitting again with other fractions or another seed is cheap.`,
		Example: `  dchess dataset split data/labelled --val 0.05 --test 0.05 --seed 1
  dchess dataset split data/labelled --val 0 --test 0   # undo: everything train`,
		Args: datasetArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runDatasetSplit(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().Float64Var(&opts.Val, "val", 0.05, "fraction of games for validation")
	cmd.Flags().Float64Var(&opts.Test, "test", 0.05, "fraction of games for test")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "seed of the game hash that assigns splits")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the split counts as JSON")
	return cmd
}

func runDatasetSplit(ctx context.Context, opts *datasetSplitOptions, s *IOStreams) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"--val", opts.Val}, {"--test", opts.Test}} {
		if !(f.v >= 0 && f.v <= 1) {
			return usagef("%s %v must be a fraction between 0 and 1", f.name, f.v)
		}
	}
	if opts.Val+opts.Test > 1 {
		return usagef("--val %v plus --test %v is more than 1", opts.Val, opts.Test)
	}
	m, err := dataset.WriteSplitContext(ctx, opts.Dir, opts.Val, opts.Test, opts.Seed)
	if err != nil {
		return err
	}
	sp := m.Split
	if opts.JSON {
		return writeJSON(s.Out, map[string]any{
			"dataset": opts.Dir, "seed": sp.Seed, "val": sp.Val, "test": sp.Test,
			"splits":      map[string]int64{"train": sp.Records.Train, "val": sp.Records.Val, "test": sp.Records.Test},
			"split_games": map[string]int64{"train": sp.Games.Train, "val": sp.Games.Val, "test": sp.Games.Test},
		})
	}
	fmt.Fprintf(s.Out, "split %s by game with seed %d\n", opts.Dir, sp.Seed)
	for _, sl := range []dataset.Split{dataset.Train, dataset.Val, dataset.Test} {
		fmt.Fprintf(s.Out, "  %-6s %12s records %10s games\n", sl, datasetCount(sp.Records.Of(sl)), datasetCount(sp.Games.Of(sl)))
	}
	return nil
}

// ---- export ----

type datasetExportOptions struct {
	Dir    string
	Format string
	Output string
	Split  string
	Force  bool
}

func newDatasetExportCmd(s *IOStreams) *cobra.Command {
	opts := &datasetExportOptions{}
	cmd := &cobra.Command{
		Use:   "export DATASET",
		Short: "Write a dataset's records as JSON lines or CSV",
		Long: `export writes records in stored order. jsonl gives one object per record with every
field, the label included (null when unlabelled); csv gives the columns
fen,move,result,ply,cp,mate,win_prob,best_move,pv (pv moves separated by spaces,
label columns empty when unlabelled). With -o the file appears only when complete.`,
		Example: `  dchess dataset export data/labelled > all.jsonl
  dchess dataset export data/labelled --format csv --split test -o test.csv
  dchess dataset export data/labelled --format csv -o all.csv --force`,
		Args: datasetArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runDatasetExport(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "jsonl", "output format: jsonl or csv")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "-", "output file (- for standard output)")
	cmd.Flags().StringVar(&opts.Split, "split", "all", "records of one split only: train, val, test or all")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace the -o file if it exists")
	return cmd
}

// datasetRecordJSON is one line of a jsonl export. Keys and game IDs are
// hex strings because JSON numbers lose 64-bit integers in many readers.
type datasetRecordJSON struct {
	FEN      string            `json:"fen"`
	Key      string            `json:"key"`
	Move     string            `json:"move"`
	Next     []string          `json:"next"`
	Result   string            `json:"result"`
	Ply      uint16            `json:"ply"`
	WhiteElo uint16            `json:"white_elo"`
	BlackElo uint16            `json:"black_elo"`
	GameID   string            `json:"game_id"`
	Split    string            `json:"split"`
	Label    *datasetLabelJSON `json:"label"`
}

type datasetLabelJSON struct {
	Status   string              `json:"status"`
	CP       int32               `json:"cp"`
	Mate     int32               `json:"mate"`
	WinProb  float32             `json:"win_prob"`
	BestMove string              `json:"best_move"`
	PV       []string            `json:"pv"`
	Depth    uint16              `json:"depth"`
	Nodes    uint64              `json:"nodes"`
	Engine   string              `json:"engine"`
	MultiPV  []datasetPVLineJSON `json:"multipv"`
	Error    string              `json:"error,omitempty"`
}

type datasetPVLineJSON struct {
	CP   int32    `json:"cp"`
	Mate int32    `json:"mate"`
	PV   []string `json:"pv"`
}

func datasetLabelStatus(s dataset.LabelStatus) string {
	switch s {
	case dataset.LabelOK:
		return "ok"
	case dataset.LabelFailed:
		return "failed"
	}
	return strconv.Itoa(int(s))
}

func datasetRecordToJSON(r *dataset.Record, split dataset.Split) datasetRecordJSON {
	out := datasetRecordJSON{
		FEN: r.FEN, Key: fmt.Sprintf("%016x", r.Key), Move: r.Move, Next: r.Next, Result: r.Result.String(),
		Ply: r.Ply, WhiteElo: r.WhiteElo, BlackElo: r.BlackElo, GameID: fmt.Sprintf("%016x", r.GameID), Split: split.String(),
	}
	if out.Next == nil {
		out.Next = []string{}
	}
	if l := r.Label; l != nil {
		lj := &datasetLabelJSON{Status: datasetLabelStatus(l.Status), CP: l.CP, Mate: l.Mate, WinProb: l.WinProb,
			BestMove: l.BestMove, PV: l.PV, Depth: l.Depth, Nodes: l.Nodes, Engine: l.Engine, Error: l.Error,
			MultiPV: []datasetPVLineJSON{}}
		if lj.PV == nil {
			lj.PV = []string{}
		}
		for _, line := range l.MultiPV {
			pv := line.PV
			if pv == nil {
				pv = []string{}
			}
			lj.MultiPV = append(lj.MultiPV, datasetPVLineJSON{CP: line.CP, Mate: line.Mate, PV: pv})
		}
		out.Label = lj
	}
	return out
}

var datasetCSVHeader = []string{"fen", "move", "result", "ply", "cp", "mate", "win_prob", "best_move", "pv"}

// datasetCSVRow gives the label columns only for a successful label; cp is
// empty for a mate score and mate empty for a centipawn score.
func datasetCSVRow(r *dataset.Record) []string {
	row := []string{r.FEN, r.Move, r.Result.String(), strconv.Itoa(int(r.Ply)), "", "", "", "", ""}
	if l := r.Label; l != nil && l.Status == dataset.LabelOK {
		if l.Mate != 0 {
			row[5] = strconv.Itoa(int(l.Mate))
		} else {
			row[4] = strconv.Itoa(int(l.CP))
		}
		row[6] = strconv.FormatFloat(float64(l.WinProb), 'g', -1, 32)
		row[7] = l.BestMove
		row[8] = strings.Join(l.PV, " ")
	}
	return row
}

func runDatasetExport(ctx context.Context, opts *datasetExportOptions, s *IOStreams) error {
	if opts.Format != "jsonl" && opts.Format != "csv" {
		return usagef("--format %q: want jsonl or csv", opts.Format)
	}
	split, err := dataset.ParseSplit(opts.Split)
	if err != nil {
		return usagef("--split: %v", err)
	}
	d, err := dataset.Open(opts.Dir)
	if err != nil {
		return err
	}
	if split != dataset.AllSplits && d.Manifest().Split == nil && split != dataset.Train {
		return fmt.Errorf("dataset %s is not split, so its %s split is empty (run: dchess dataset split %s)", opts.Dir, split, opts.Dir)
	}

	var out io.Writer = s.Out
	var file *os.File
	if opts.Output != "-" && opts.Output != "" {
		if err := dataset.CheckOutputFile(opts.Output, opts.Force); err != nil {
			return err
		}
		// Write beside the target and rename at the end, so an interrupted
		// export never leaves a file that looks complete.
		file, err = os.CreateTemp(filepath.Dir(opts.Output), "."+filepath.Base(opts.Output)+".tmp-")
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		// CreateTemp makes the file 0600; the export is an ordinary file.
		if err := file.Chmod(0o644); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		defer func() {
			if file != nil {
				file.Close()
				os.Remove(file.Name())
			}
		}()
		out = file
	}
	bw := bufio.NewWriterSize(out, 1<<20)

	m := d.Manifest()
	total := m.Counts.Records
	if split != dataset.AllSplits && m.Split != nil {
		total = m.Split.Records.Of(split)
	}
	bar := s.Progress("export", total, "records")
	var count int64
	tick := func() {
		count++
		if count%4096 == 0 {
			bar.Add(4096)
		}
	}

	switch opts.Format {
	case "jsonl":
		enc := json.NewEncoder(bw)
		err = d.Scan(ctx, split, func(r *dataset.Record) error {
			tick()
			return enc.Encode(datasetRecordToJSON(r, d.SplitOf(r.GameID)))
		})
	case "csv":
		cw := csv.NewWriter(bw)
		if err = cw.Write(datasetCSVHeader); err == nil {
			err = d.Scan(ctx, split, func(r *dataset.Record) error {
				tick()
				return cw.Write(datasetCSVRow(r))
			})
		}
		cw.Flush()
		if err == nil {
			err = cw.Error()
		}
	}
	bar.Finish()
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("export interrupted after %d records; nothing was written to %s", count, opts.Output)
		}
		return fmt.Errorf("export: %w", err)
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if err := os.Rename(file.Name(), opts.Output); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		file = nil
		s.Infof("exported %s records to %s\n", datasetCount(count), opts.Output)
	}
	return nil
}

// ---- verify ----

type datasetVerifyOptions struct {
	Dir  string
	JSON bool
}

func newDatasetVerifyCmd(s *IOStreams) *cobra.Command {
	opts := &datasetVerifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify DATASET",
		Short: "Check every shard's size, SHA-256 and record checksums",
		Long: `verify reads every shard in full and checks it against the manifest. It exits
non-zero naming each damaged shard file.`,
		Example: `  dchess dataset verify data/labelled
  dchess dataset verify data/labelled --json`,
		Args: datasetArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runDatasetVerify(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON (the exit status still says damaged)")
	return cmd
}

type datasetDamageJSON struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

func runDatasetVerify(ctx context.Context, opts *datasetVerifyOptions, s *IOStreams) error {
	d, err := dataset.Open(opts.Dir)
	if err != nil {
		return err
	}
	m := d.Manifest()
	bar := s.Progress("verify", int64(len(m.Shards)), "shards")
	damaged := []datasetDamageJSON{}
	var total int64
	for _, sh := range m.Shards {
		if err := d.VerifyShard(ctx, sh); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			damaged = append(damaged, datasetDamageJSON{File: filepath.Join(opts.Dir, sh.File), Error: err.Error()})
		}
		total += sh.Records
		bar.Add(1)
	}
	bar.Finish()
	var problems []string
	if err := d.CheckCounts(); err != nil {
		problems = append(problems, err.Error())
	}
	if opts.JSON {
		if err := writeJSON(s.Out, map[string]any{
			"dataset": opts.Dir, "ok": len(damaged) == 0 && len(problems) == 0, "shards": len(m.Shards),
			"records": total, "damaged": damaged, "problems": problems,
		}); err != nil {
			return err
		}
	} else {
		for _, dmg := range damaged {
			fmt.Fprintf(s.Out, "DAMAGED %s\n", dmg.Error)
		}
		for _, p := range problems {
			fmt.Fprintf(s.Out, "PROBLEM %s\n", p)
		}
	}
	if len(damaged) > 0 {
		files := make([]string, len(damaged))
		for i, dmg := range damaged {
			files[i] = dmg.File
		}
		return fmt.Errorf("dataset %s: %d of %d shards damaged: %s", opts.Dir, len(damaged), len(m.Shards), strings.Join(files, ", "))
	}
	if len(problems) > 0 {
		return errors.New(problems[0])
	}
	if !opts.JSON {
		fmt.Fprintf(s.Out, "ok: %d shards, %s records verified in %s\n", len(m.Shards), datasetCount(total), opts.Dir)
	}
	return nil
}

// ---- merge ----

type datasetMergeOptions struct {
	Base    string
	Output  string
	Input   string
	Force   bool
	JSON    bool
	Command []string
}

func newDatasetMergeCmd(s *IOStreams) *cobra.Command {
	opts := &datasetMergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge NAME -o DATASET",
		Short: "Join the task shards of a sharded label run (NAME-0000-of-0064 ...) into one dataset",
		Long: `merge joins the datasets that "dchess label --shard i/n -o NAME" wrote, NAME-IIII-of-NNNN,
into one. Every task must be there and come from the same job: same settings hash, input,
engine and bench signature; otherwise merge writes nothing and names the missing or
mismatched shard. It reads the input dataset again to put the records back in its order,
so the result is what one unsharded run writes; --input gives it if it has moved.`,
		Example: `  dchess dataset merge data/labelled -o data/labelled-all
  dchess dataset merge /shared/labels -o /shared/labels-all --input /shared/games --json
  dchess dataset merge data/labelled -o data/labelled-all --force`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("dataset merge needs exactly one NAME (the -o the tasks were given), got %d arguments", len(args))
			}
			opts.Base = args[0]
			opts.Command = os.Args
			return runDatasetMerge(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "merged dataset to write")
	cmd.Flags().StringVar(&opts.Input, "input", "", "the dataset the shards were labelled from (default: the path they recorded)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace the output dataset if it exists")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object")
	return cmd
}

func runDatasetMerge(ctx context.Context, opts *datasetMergeOptions, s *IOStreams) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Output == "" {
		return usagef("dataset merge needs an output dataset (-o)")
	}
	var bar progress.Reporter
	sum, err := dataset.MergeShards(ctx, dataset.MergeOptions{Base: opts.Base, Output: opts.Output, Input: opts.Input, Command: opts.Command, Force: opts.Force,
		Progress: func(done, total int64) {
			if bar == nil {
				bar = s.Progress("merge", total, "records")
			}
			bar.Set(done)
		}})
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(s.Out, sum)
	}
	fmt.Fprintf(s.Out, "merged %d shards of %s into %s: %s records (%s labelled, %s failed) in the order of %s; %.1f s\n",
		sum.Shards, opts.Base, sum.Output, datasetCount(sum.Records), datasetCount(sum.Labelled), datasetCount(sum.Failed), sum.Input, sum.Seconds)
	return nil
}
