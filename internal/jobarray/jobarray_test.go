package jobarray

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestParse(t *testing.T) {
	good := map[string]struct {
		text string
		env  map[string]string
		want Spec
	}{
		"explicit":              {"3/64", nil, Spec{Index: 3, Count: 64}},
		"whole":                 {"0/1", nil, Spec{Index: 0, Count: 1}},
		"spaces":                {" 2/3 ", nil, Spec{Index: 2, Count: 3}},
		"kubernetes":            {"auto/8", map[string]string{"JOB_COMPLETION_INDEX": "5"}, Spec{Index: 5, Count: 8, From: "JOB_COMPLETION_INDEX"}},
		"slurm":                 {"auto/8", map[string]string{"SLURM_ARRAY_TASK_ID": "7"}, Spec{Index: 7, Count: 8, From: "SLURM_ARRAY_TASK_ID"}},
		"aws":                   {"auto/8", map[string]string{"AWS_BATCH_JOB_ARRAY_INDEX": "0"}, Spec{Index: 0, Count: 8, From: "AWS_BATCH_JOB_ARRAY_INDEX"}},
		"gcp":                   {"auto/8", map[string]string{"BATCH_TASK_INDEX": "1"}, Spec{Index: 1, Count: 8, From: "BATCH_TASK_INDEX"}},
		"kubernetes wins":       {"auto/8", map[string]string{"SLURM_ARRAY_TASK_ID": "7", "JOB_COMPLETION_INDEX": "2"}, Spec{Index: 2, Count: 8, From: "JOB_COMPLETION_INDEX"}},
		"explicit ignores envs": {"1/2", map[string]string{"JOB_COMPLETION_INDEX": "0"}, Spec{Index: 1, Count: 2}},
	}
	for name, c := range good {
		got, err := Parse(c.text, env(c.env))
		if err != nil || got != c.want {
			t.Errorf("%s: Parse(%q) = %+v, %v; want %+v", name, c.text, got, err, c.want)
		}
	}
	bad := map[string]struct {
		text string
		env  map[string]string
		want string
	}{
		"index too large": {"64/64", nil, "0..63"},
		"negative":        {"-1/4", nil, "0..3"},
		"no count":        {"3", nil, "not i/n"},
		"zero count":      {"0/0", nil, "at least 1"},
		"garbage":         {"a/b", nil, "not i/n"},
		"no variable":     {"auto/4", nil, "JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID"},
		"slurm from 1":    {"auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "4"}, "SLURM_ARRAY_TASK_ID=4 is not a task index of 0..3 (Slurm: sbatch --array=0-3)"},
		"not a number":    {"auto/4", map[string]string{"JOB_COMPLETION_INDEX": "x"}, "completions: 4"},
	}
	for name, c := range bad {
		if _, err := Parse(c.text, env(c.env)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Parse(%q) error %v, want one containing %q", name, c.text, err, c.want)
		}
	}
}

// TestKeyAssignment checks that every key has exactly one owner, that
// owners are stable (pinned values) and that keys spread evenly.
func TestKeyAssignment(t *testing.T) {
	const count, keys = 8, 80_000
	hits := make([]int, count)
	for k := uint64(0); k < keys; k++ {
		key := k * 0x100000001b3 // nearby keys, as FNV keys of similar FENs may be
		owners := 0
		for i := range count {
			if (Spec{Index: i, Count: count}).Owns(key) {
				owners++
				hits[i]++
			}
		}
		if owners != 1 {
			t.Fatalf("key %x has %d owners", key, owners)
		}
	}
	for i, h := range hits {
		if h < keys/count*95/100 || h > keys/count*105/100 {
			t.Errorf("shard %d owns %d of %d keys", i, h, keys)
		}
	}
	// The assignment is part of the output format: a change would make
	// shards written before it disagree with shards written after.
	pinned := map[uint64]int{0: 7, 1: 4, 0xcbf29ce484222325: 6, 0xffffffffffffffff: 7}
	for key, want := range pinned {
		if got := KeyShard(key, 8); got != want {
			t.Errorf("KeyShard(%#x, 8) = %d, want %d", key, got, want)
		}
	}
	if !(Spec{}).Owns(12345) || !(Spec{Count: 1}).Owns(12345) {
		t.Error("the whole job does not own every key")
	}
}

// TestSplitIsDisjointCompleteBalancedAndStable checks the index
// assignment's properties over many sizes.
func TestSplitIsDisjointCompleteBalancedAndStable(t *testing.T) {
	for _, total := range []int{0, 1, 2, 7, 64, 100, 1001} {
		for _, count := range []int{1, 2, 3, 8, 64, 200} {
			parts := Split(total, count, 42)
			if len(parts) != count {
				t.Fatalf("Split(%d, %d) has %d parts", total, count, len(parts))
			}
			seen := make([]bool, total)
			for i, part := range parts {
				if len(part) < total/count || len(part) > (total+count-1)/count {
					t.Fatalf("Split(%d, %d): shard %d has %d items", total, count, i, len(part))
				}
				for j, x := range part {
					if j > 0 && part[j-1] >= x {
						t.Fatalf("Split(%d, %d): shard %d not increasing: %v", total, count, i, part)
					}
					if seen[x] {
						t.Fatalf("Split(%d, %d): item %d dealt twice", total, count, x)
					}
					seen[x] = true
				}
				if got := (Spec{Index: i, Count: count}).Indices(total, 42); !reflect.DeepEqual(got, part) && len(part) > 0 {
					t.Fatalf("Indices(%d) of %d/%d = %v, Split gives %v", total, i, count, got, part)
				}
			}
			for x, ok := range seen {
				if !ok {
					t.Fatalf("Split(%d, %d): item %d dealt to no shard", total, count, x)
				}
			}
			if !reflect.DeepEqual(parts, Split(total, count, 42)) {
				t.Fatalf("Split(%d, %d) changed between calls", total, count)
			}
		}
	}
	want := [][]int{{2, 3, 7, 8}, {0, 5, 9}, {1, 4, 6}}
	if got := Split(10, 3, 1); !reflect.DeepEqual(got, want) {
		t.Errorf("Split(10, 3, 1) = %v, want %v (the assignment is part of the output format)", got, want)
	}
	if reflect.DeepEqual(Split(100, 4, 1), Split(100, 4, 2)) {
		t.Error("the seed does not change the assignment")
	}
	if got := (Spec{}).Indices(3, 9); !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Errorf("the whole job's indices are %v", got)
	}
}

func TestHashIgnoresMapOrderAndSeedFollowsIt(t *testing.T) {
	a := map[string]any{"nodes": 2000, "depth": 0, "inputs": []string{"ab"}}
	b := map[string]any{"inputs": []string{"ab"}, "depth": 0, "nodes": 2000}
	if Hash(a) != Hash(b) {
		t.Fatal("equal settings hash differently")
	}
	if Hash(a) == Hash(map[string]any{"nodes": 2001, "depth": 0, "inputs": []string{"ab"}}) {
		t.Fatal("different settings hash equally")
	}
	if Seed(Hash(a)) == 0 || Seed(Hash(a)) != Seed(Hash(b)) {
		t.Fatal("seed does not follow the hash")
	}
}

func TestNamesFindAndComplete(t *testing.T) {
	if got := Name("out/labels", Spec{Index: 3, Count: 64}); got != filepath.Join("out", "labels-0003-of-0064") {
		t.Errorf("Name = %q", got)
	}
	if got := Name("x", Spec{Index: 12, Count: 12345}); got != "x-00012-of-12345" {
		t.Errorf("Name = %q", got)
	}
	if got := Name("x", Spec{}); got != "x-0000-of-0001" {
		t.Errorf("Name of the whole job = %q", got)
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "labels")
	for _, i := range []int{0, 2, 3} {
		os.Mkdir(Name(base, Spec{Index: i, Count: 4}), 0o755)
	}
	// Neither a journal, a temporary folder nor another base is a shard.
	os.Mkdir(Name(base, Spec{Index: 1, Count: 4})+".partial", 0o755)
	os.Mkdir(filepath.Join(dir, ".labels-0001-of-0004.tmp-1234"), 0o755)
	os.Mkdir(filepath.Join(dir, "labels2-0001-of-0004"), 0o755)
	found, err := Find(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 3 || found[1].Spec != (Spec{Index: 2, Count: 4}) || found[1].Path != Name(base, Spec{Index: 2, Count: 4}) {
		t.Fatalf("Find = %+v", found)
	}
	_, err = Complete(base, found)
	want := "missing 1 of 4 shards: labels-0001-of-0004; run task 1 of 4 again (unfinished runs left labels-0001-of-0004.partial)"
	if err == nil || err.Error() != want {
		t.Fatalf("Complete error %v, want %q", err, want)
	}
	os.Mkdir(Name(base, Spec{Index: 1, Count: 4}), 0o755)
	found, _ = Find(base)
	if n, err := Complete(base, found); n != 4 || err != nil {
		t.Fatalf("Complete = %d, %v", n, err)
	}
	os.Mkdir(Name(base, Spec{Index: 0, Count: 2}), 0o755)
	found, _ = Find(base)
	if _, err := Complete(base, found); err == nil || !strings.Contains(err.Error(), "labels-0000-of-0002 is one of 2, labels-0000-of-0004 one of 4") {
		t.Fatalf("mixed jobs: %v", err)
	}
	if _, err := Complete(filepath.Join(dir, "none"), nil); err == nil || !strings.Contains(err.Error(), "no shards named none-NNNN-of-NNNN") {
		t.Fatalf("no shards: %v", err)
	}
}

func TestConsistentNamesTheOddShard(t *testing.T) {
	settings := func(nodes int) map[string]any { return map[string]any{"nodes": nodes, "input": "abc"} }
	infos := make([]Info, 3)
	names := make([]string, 3)
	for i := range infos {
		infos[i] = NewInfo(Spec{Index: i, Count: 3}, []string{"dchess"}, settings(2000))
		infos[i].Engines = []string{"Stockfish 15.1"}
		names[i] = fmt.Sprintf("l-%04d-of-0003", i)
	}
	if err := Consistent(names, infos); err != nil {
		t.Fatal(err)
	}
	odd := infos[2]
	infos[2] = NewInfo(Spec{Index: 2, Count: 3}, []string{"dchess"}, settings(3000))
	infos[2].Engines = []string{"Stockfish 16"}
	err := Consistent(names, infos)
	want := `l-0002-of-0003 does not match l-0000-of-0003: nodes 3000, not 2000; engines ["Stockfish 16"], not ["Stockfish 15.1"]`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
	infos[2] = odd
	infos[1].Index = 2
	if err := Consistent(names, infos); err == nil || !strings.Contains(err.Error(), "l-0001-of-0003 says it is task 2/3") {
		t.Fatalf("misnamed shard: %v", err)
	}
	back, err := InfoFrom(map[string]any{"index": 1, "count": 3, "settings_hash": "ab", "engines": []any{"x"}})
	if err != nil || back.Index != 1 || back.Engines[0] != "x" {
		t.Fatalf("InfoFrom = %+v, %v", back, err)
	}
	if _, err := InfoFrom(map[string]any{"nodes": 3}); err == nil {
		t.Fatal("InfoFrom accepted settings without shard information")
	}
}
