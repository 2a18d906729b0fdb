// Package jobarray splits one job's work among the tasks of a cluster job
// array (Kubernetes Indexed Jobs, Slurm job arrays, AWS and Google Cloud
// Batch arrays) and names, checks and finds what the tasks write.
//
// A shard here is one task's share of a job, not a dataset's record file.
// Task i of n is the Spec {Index: i, Count: n}; it is given as --shard i/n,
// or as --shard auto/n, which reads i from the variable the batch system
// sets (IndexVars). Work is assigned deterministically, so the shards are
// disjoint, together complete, and the same on every run and machine:
//
//   - positions by a hash of their position key (Spec.Owns), so duplicates
//     of a position meet in one shard;
//   - numbered items such as a match's game pairs by index, dealt round
//     robin after a shuffle seeded by the job (Split, Spec.Indices), so
//     every task gets the same amount of work and no ordered slice of an
//     opening book.
//
// Task i of n with output NAME writes Name(NAME, spec), e.g.
// NAME-0003-of-0064, with an Info recording how it was made; Find and
// Complete list a job's outputs and name the missing ones, and
// Info.Differences names what makes two shards inconsistent.
//
// A command that plays games (match, and likewise self-play) shards them
// as search/match.RunShard does: hash its settings (Hash), take the task's
// pairs (Spec.Indices over the number of pairs, seeded by Seed of that
// hash), play their games with match.Config.GameNumbers so each keeps the
// opening, colours and seed it has in the whole run, and write Name(out,
// spec) with an Info, finishing with WriteFileAtomic. A command over a
// dataset's positions keeps the records its Spec.Owns, in input order, as
// dataset/label does, and dataset.MergeShards joins them.
package jobarray

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Spec is one task's place in a job array: Index of Count, from 0. The zero
// Spec, like any with Count 1, is the whole job.
type Spec struct {
	Index int
	Count int
	// From names the environment variable the index was read from, "" when
	// it was given explicitly.
	From string
}

// IndexVars are the variables --shard auto/n reads the task index from, in
// this order: Kubernetes Indexed Jobs, Slurm job arrays, AWS Batch array
// jobs and Google Cloud Batch.
var IndexVars = []string{"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX", "BATCH_TASK_INDEX"}

// indexVarSystems says which batch system sets each of IndexVars, and how
// to make it number tasks from 0, for error messages.
var indexVarSystems = map[string]string{
	"JOB_COMPLETION_INDEX":      "Kubernetes: completionMode: Indexed with completions: %d",
	"SLURM_ARRAY_TASK_ID":       "Slurm: sbatch --array=0-%d",
	"AWS_BATCH_JOB_ARRAY_INDEX": "AWS Batch: arrayProperties size %d",
	"BATCH_TASK_INDEX":          "Google Cloud Batch: taskCount %d",
}

// String is "i/n", as --shard takes it.
func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, max(s.Count, 1)) }

// Whole says whether the spec covers the whole job (count 0 or 1).
func (s Spec) Whole() bool { return s.Count <= 1 }

// Parse reads "i/n" or "auto/n". For auto, getenv (os.Getenv when nil)
// supplies the first of IndexVars that is set.
func Parse(text string, getenv func(string) string) (Spec, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	index, count, ok := strings.Cut(strings.TrimSpace(text), "/")
	n, err := strconv.Atoi(count)
	if !ok || err != nil {
		return Spec{}, fmt.Errorf("%q is not i/n or auto/n (task 3 of 64 is 3/64; tasks count from 0)", text)
	}
	if n < 1 {
		return Spec{}, fmt.Errorf("%q: the number of tasks must be at least 1", text)
	}
	if index != "auto" {
		i, err := strconv.Atoi(index)
		if err != nil {
			return Spec{}, fmt.Errorf("%q is not i/n or auto/n (task 3 of 64 is 3/64; tasks count from 0)", text)
		}
		if i < 0 || i >= n {
			return Spec{}, fmt.Errorf("%q: the task index must be 0..%d", text, n-1)
		}
		return Spec{Index: i, Count: n}, nil
	}
	for _, name := range IndexVars {
		value := strings.TrimSpace(getenv(name))
		if value == "" {
			continue
		}
		i, err := strconv.Atoi(value)
		if err != nil || i < 0 || i >= n {
			return Spec{}, fmt.Errorf("%s=%s is not a task index of 0..%d (%s)", name, value, n-1,
				fmt.Sprintf(indexVarSystems[name], taskArg(name, n)))
		}
		return Spec{Index: i, Count: n, From: name}, nil
	}
	return Spec{}, fmt.Errorf("%q: none of %s is set; run it as a job array task or give the index (3/%d)",
		text, strings.Join(IndexVars, ", "), n)
}

// taskArg is the number a batch system's setting takes for n tasks: Slurm
// wants the last index, the others the count.
func taskArg(name string, n int) int {
	if name == "SLURM_ARRAY_TASK_ID" {
		return n - 1
	}
	return n
}

// mix is SplitMix64's finaliser: it spreads keys and indices that are
// close or structured over all 64 bits.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// KeyShard is the shard of count that owns a position key. It depends on
// the key alone, so every copy of a position lands in the same shard.
func KeyShard(key uint64, count int) int {
	if count <= 1 {
		return 0
	}
	hi, _ := bits.Mul64(mix(key), uint64(count))
	return int(hi)
}

// Owns says whether the position with this key is the spec's to process.
func (s Spec) Owns(key uint64) bool { return s.Whole() || KeyShard(key, s.Count) == s.Index }

// Split deals the items 0..total-1 to count shards: shuffled by seed, then
// round robin, so shard sizes differ by at most one. Each shard's indices
// are in increasing order.
func Split(total, count int, seed uint64) [][]int {
	count = max(count, 1)
	order := make([]int, total)
	rank := make([]uint64, total)
	for i := range order {
		order[i] = i
		rank[i] = mix(seed ^ mix(uint64(i)))
	}
	sort.Slice(order, func(a, b int) bool {
		ra, rb := rank[order[a]], rank[order[b]]
		return ra < rb || (ra == rb && order[a] < order[b])
	})
	out := make([][]int, count)
	for k, i := range order {
		out[k%count] = append(out[k%count], i)
	}
	for _, list := range out {
		slices.Sort(list)
	}
	return out
}

// Indices are the items of 0..total-1 that the spec owns under Split.
func (s Spec) Indices(total int, seed uint64) []int {
	if s.Whole() {
		all := make([]int, total)
		for i := range all {
			all[i] = i
		}
		return all
	}
	return Split(total, s.Count, seed)[s.Index]
}

// Hash is the SHA-256 (hex) of settings as JSON, whose map keys Go's
// encoder sorts, so equal settings hash equally on every machine.
func Hash(settings any) string {
	data, err := json.Marshal(settings)
	if err != nil {
		// Settings are plain values; anything else is a programming error.
		panic("shard: settings do not encode as JSON: " + err.Error())
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Seed turns a settings hash into a seed for Split, so a job's assignment
// follows from its settings.
func Seed(settingsHash string) uint64 {
	v, _ := strconv.ParseUint(settingsHash[:min(16, len(settingsHash))], 16, 64)
	return v
}

// Name is the output of one task: base-0003-of-0064. Indices are padded to
// at least four digits and to the width of the count.
func Name(base string, s Spec) string {
	count := max(s.Count, 1)
	width := max(4, len(strconv.Itoa(count)))
	return fmt.Sprintf("%s-%0*d-of-%0*d", filepath.Clean(base), width, s.Index, width, count)
}

var nameSuffix = regexp.MustCompile(`^-([0-9]{4,})-of-([0-9]{4,})$`)

// Found is one task output on disk.
type Found struct {
	Path string
	Spec Spec
}

// Find lists the outputs named base-IIII-of-NNNN beside base, files or
// folders, ordered by count and index. Temporary and .partial names do not
// match.
func Find(base string) ([]Found, error) {
	base = filepath.Clean(base)
	dir, prefix := filepath.Dir(base), filepath.Base(base)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("looking for shards of %s: %w", base, err)
	}
	var found []Found
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		m := nameSuffix.FindStringSubmatch(rest)
		if m == nil {
			continue
		}
		i, err1 := strconv.Atoi(m[1])
		n, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil || n < 1 || i >= n {
			continue
		}
		found = append(found, Found{Path: filepath.Join(dir, e.Name()), Spec: Spec{Index: i, Count: n}})
	}
	sort.Slice(found, func(a, b int) bool {
		fa, fb := found[a].Spec, found[b].Spec
		return fa.Count < fb.Count || (fa.Count == fb.Count && fa.Index < fb.Index)
	})
	return found, nil
}

// Complete checks that found holds every task of one job exactly once and
// returns the number of tasks. Its errors name the missing shards (and a
// .partial folder beside one, the trace of an unfinished run) or the
// shards of another job.
func Complete(base string, found []Found) (int, error) {
	base = filepath.Clean(base)
	if len(found) == 0 {
		return 0, fmt.Errorf("no shards named %s-NNNN-of-NNNN in %s", filepath.Base(base), filepath.Dir(base))
	}
	count := found[0].Spec.Count
	for _, f := range found[1:] {
		if f.Spec.Count != count {
			return 0, fmt.Errorf("shards of different jobs: %s is one of %d, %s one of %d; move one set away",
				filepath.Base(found[0].Path), count, filepath.Base(f.Path), f.Spec.Count)
		}
	}
	have := make([]bool, count)
	for _, f := range found {
		have[f.Spec.Index] = true
	}
	var missing []string
	var unfinished []string
	var indices []string
	for i, ok := range have {
		if ok {
			continue
		}
		name := Name(base, Spec{Index: i, Count: count})
		if len(missing) < 10 {
			missing = append(missing, filepath.Base(name))
			indices = append(indices, strconv.Itoa(i))
			if _, err := os.Stat(name + ".partial"); err == nil {
				unfinished = append(unfinished, filepath.Base(name)+".partial")
			}
		} else if len(missing) == 10 {
			missing = append(missing, "...")
		}
	}
	if len(missing) == 0 {
		return count, nil
	}
	absent := 0
	for _, ok := range have {
		if !ok {
			absent++
		}
	}
	msg := fmt.Sprintf("missing %d of %d shards: %s; run task %s of %d again", absent, count,
		strings.Join(missing, ", "), strings.Join(indices, ", "), count)
	if len(unfinished) > 0 {
		msg += fmt.Sprintf(" (unfinished runs left %s)", strings.Join(unfinished, ", "))
	}
	return 0, errors.New(msg)
}

// Input is a file or dataset a shard was made from.
type Input struct {
	Path string `json:"path"`
	// SHA256 is the file's SHA-256, or for a dataset folder the hash of its
	// manifest's shard checksums.
	SHA256 string `json:"sha256"`
}

// Info is what a shard output records about how it was made, so a merge
// can tell the shards of one job from a mix.
type Info struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// IndexFrom is the environment variable the index was read from, ""
	// when --shard gave it.
	IndexFrom string   `json:"index_from,omitempty"`
	Command   []string `json:"command"`
	// Settings are what the output depends on, input hashes included;
	// SettingsHash is Hash(Settings). Paths are kept out of them (they are
	// in Inputs), so tasks that mount the data elsewhere still agree.
	Settings     map[string]any `json:"settings"`
	SettingsHash string         `json:"settings_hash"`
	Inputs       []Input        `json:"inputs"`
	// Engines are the engines' own names ("Stockfish 15.1"), Bench a
	// signature of their search (a bench node count) where one exists.
	Engines []string `json:"engines"`
	Bench   string   `json:"bench,omitempty"`
	Host    string   `json:"host,omitempty"`
}

// NewInfo fills in the fields common to every shard: the spec, the
// settings and their hash, and the host name.
func NewInfo(s Spec, command []string, settings map[string]any) Info {
	host, _ := os.Hostname()
	return Info{Index: s.Index, Count: max(s.Count, 1), IndexFrom: s.From, Command: command,
		Settings: settings, SettingsHash: Hash(settings), Inputs: []Input{}, Engines: []string{}, Host: host}
}

// Spec is the task this info belongs to.
func (in Info) Spec() Spec { return Spec{Index: in.Index, Count: in.Count} }

// Differences names what differs between two shards of one job: settings
// (by key), engines and bench signature. Index and command may differ.
func (in Info) Differences(other Info) []string {
	var diffs []string
	if in.Count != other.Count {
		diffs = append(diffs, fmt.Sprintf("one of %d tasks, not %d", other.Count, in.Count))
	}
	if in.SettingsHash != other.SettingsHash {
		keys := map[string]bool{}
		for k := range in.Settings {
			keys[k] = true
		}
		for k := range other.Settings {
			keys[k] = true
		}
		var names []string
		for k := range keys {
			a, _ := json.Marshal(in.Settings[k])
			b, _ := json.Marshal(other.Settings[k])
			if string(a) != string(b) {
				names = append(names, fmt.Sprintf("%s %s, not %s", k, b, a))
			}
		}
		sort.Strings(names)
		if len(names) == 0 {
			names = []string{fmt.Sprintf("settings hash %.12s, not %.12s", other.SettingsHash, in.SettingsHash)}
		}
		diffs = append(diffs, names...)
	}
	if !slices.Equal(in.Engines, other.Engines) {
		diffs = append(diffs, fmt.Sprintf("engines %q, not %q", other.Engines, in.Engines))
	}
	if in.Bench != other.Bench {
		diffs = append(diffs, fmt.Sprintf("bench %q, not %q", other.Bench, in.Bench))
	}
	return diffs
}

// Consistent checks a job's shard infos (in task order, with their output
// names) against the first: each must be the task its name says and match
// the first in settings, engines and bench. The error names the first
// shard that does not and what differs.
func Consistent(names []string, infos []Info) error {
	for i, in := range infos {
		if in.Index != i || in.Count != len(infos) {
			return fmt.Errorf("%s says it is task %d/%d, but its name says %d/%d", names[i], in.Index, in.Count, i, len(infos))
		}
		if i == 0 {
			continue
		}
		if diffs := infos[0].Differences(in); len(diffs) > 0 {
			return fmt.Errorf("%s does not match %s: %s", names[i], names[0], strings.Join(diffs, "; "))
		}
	}
	return nil
}

// InfoFrom decodes an Info stored as a generic JSON value (a dataset
// manifest's settings hold it as a map).
func InfoFrom(v any) (Info, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return Info{}, err
	}
	var in Info
	if err := json.Unmarshal(data, &in); err != nil {
		return Info{}, err
	}
	if in.Count < 1 || in.SettingsHash == "" {
		return Info{}, errors.New("no shard information")
	}
	return in, nil
}

// FileSHA256 hashes a file's contents.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
