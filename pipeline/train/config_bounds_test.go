package train

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dchess/dchess/internal/testenv"
	"github.com/dchess/dchess/models/family"
)

// sizeNodes finds, in a config's YAML, every integer scalar and every
// list, by the key an error names them with ("model.conv[0].filters").
func sizeNodes(n *yaml.Node, path string, ints, lists map[string]*yaml.Node) {
	switch n.Kind {
	case yaml.DocumentNode:
		sizeNodes(n.Content[0], path, ints, lists)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if path != "" {
				key = path + "." + key
			}
			sizeNodes(n.Content[i+1], key, ints, lists)
		}
	case yaml.SequenceNode:
		lists[path] = n
		for i, c := range n.Content {
			sizeNodes(c, fmt.Sprintf("%s[%d]", path, i), ints, lists)
		}
	case yaml.ScalarNode:
		if n.ShortTag() == "!!int" {
			ints[path] = n
		}
	}
}

// fillEmptyLists gives each empty list of v one entry, so that the test
// reaches its entries' keys too.
func fillEmptyLists(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			fillEmptyLists(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillEmptyLists(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Len() == 0 {
			one := reflect.MakeSlice(v.Type(), 1, 1)
			if e := one.Index(0); e.CanInt() {
				e.SetInt(8)
			}
			v.Set(one)
		}
		for i := 0; i < v.Len(); i++ {
			fillEmptyLists(v.Index(i))
		}
	}
}

// The reported bug: a cnn config with `filters: 100000000` grew to 3.5 GB
// and died with a Go stack trace. Every integer key of every family's
// config but the seed, and every list's length, has a bound checked when
// the config is loaded: set to an absurd value, each is a one-line error
// naming the key, its value and its bound, never a panic or an allocation.
func TestEverySizeIsBounded(t *testing.T) {
	for _, fam := range family.Names() {
		t.Run(fam, func(t *testing.T) {
			def, err := family.DefaultConfig(fam)
			if err != nil {
				t.Fatal(err)
			}
			fillEmptyLists(reflect.ValueOf(def.Model.Settings))
			data, err := def.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			var root yaml.Node
			if err := yaml.Unmarshal(data, &root); err != nil {
				t.Fatal(err)
			}
			ints, lists := map[string]*yaml.Node{}, map[string]*yaml.Node{}
			sizeNodes(&root, "", ints, lists)
			if _, err := family.ParseConfig(data, fam); err != nil {
				t.Fatalf("the default config with its empty lists filled: %v", err)
			}
			load := func() error {
				data, err := yaml.Marshal(&root)
				if err != nil {
					t.Fatal(err)
				}
				_, err = family.ParseConfig(data, fam)
				return err
			}
			refused := func(what string, want ...string) {
				t.Helper()
				err := load()
				if err == nil || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s: got %v, want a one-line error", what, err)
					return
				}
				for _, w := range want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s: %v\nwant %q in it", what, err, w)
					}
				}
			}
			sizes := 0
			for key, n := range ints {
				was := n.Value
				// A float key written without a fraction reads as an
				// integer in YAML: the decoder's error on a word tells
				// the Go type.
				n.Value, n.Tag = "word", "!!str"
				err := load()
				n.Value, n.Tag = was, "!!int"
				if err == nil || !strings.Contains(err.Error(), "into int") || key == "seed" {
					continue
				}
				sizes++
				for _, absurd := range []string{"1000000000000000000", "-1000000000000000000"} {
					n.Value = absurd
					refused(key+": "+absurd, "config: "+key+" "+absurd+" is out of bounds: it must be in ")
				}
				n.Value = was
			}
			for key, n := range lists {
				was := n.Content
				n.Content = make([]*yaml.Node, 1000)
				for i := range n.Content {
					n.Content[i] = was[0]
				}
				refused(key+" of 1000 entries", "config: "+key+" lists 1000 entries, out of bounds: it takes ")
				n.Content = was
			}
			if sizes < 8 {
				t.Fatalf("found only %d integer keys and %d lists", sizes, len(lists))
			}
		})
	}
}

// Sizes within their bounds can still make a model no machine of 24 GiB
// trains: the config is refused when loaded, saying what it would need.
// (nnue's bounds keep every config of it well below.)
func TestModelsBeyondMemoryAreRefused(t *testing.T) {
	widths := func(w string, n int) string { return "[" + strings.TrimSuffix(strings.Repeat(w+", ", n), ", ") + "]" }
	big := strings.Repeat("    - {filters: 4096, kernel: 3, pad: 1, pool: 0, pool_stride: 0}\n", 16)
	transformer := "model:\n  dim: 4096\n  heads: 4\n  layers: 64\n  mlp: 16384\n"
	cases := map[string]string{
		"ann":         "model:\n  hidden: " + widths("65536", 8) + "\n",
		"cnn":         "model:\n  conv:\n" + big,
		"autoencoder": "model:\n  layers: " + widths("65536", 4) + "\n",
		"siamese":     "model:\n  head: " + widths("65536", 4) + "\n",
		"diffusion":   transformer,
		"policy":      transformer,
		"flow":        transformer,
	}
	for fam, yml := range cases {
		_, err := family.ParseConfig([]byte(yml), fam)
		if err == nil || !strings.Contains(err.Error(), "GiB") || !strings.Contains(err.Error(), "above the bound of 24 GiB") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want a one-line error on the memory it needs", fam, err)
		}
	}
}

// Every training config dchess ships, the quickstart's included, stays
// within the bounds.
func TestShippedConfigsAreWithinBounds(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "configs", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	top, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(), "configs", "*.yaml"))
	loaded := 0
	for _, path := range append(files, top...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "\nmodel:") && !strings.HasPrefix(string(data), "model:") {
			continue // a pipeline config
		}
		if _, err := family.ParseConfig(data, ""); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		loaded++
	}
	if loaded < 20 {
		t.Fatalf("loaded only %d configs", loaded)
	}
}
