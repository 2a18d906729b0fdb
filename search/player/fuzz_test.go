package player

import (
	"reflect"
	"testing"
)

// FuzzParseSpec: no string panics the spec parser, an error is one line,
// and a spec that parses writes (String) a canonical form that parses back
// to the same family, path, settings and name.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"heuristic", "heuristic:depth=4", "heuristic:depth=4,hash=16,name=H", "cnn:runs/cnn/model.dcw?depth=3",
		"uci:/usr/games/stockfish?UCI_LimitStrength=true&UCI_Elo=1500&name=SF", "random:seed=1",
		"experience:exp.db?fallback=heuristic%3Adepth%3D2&learn=true", "", ":", "a:b?c", "x:?=&=", "heuristic:name=a%0Ab",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseSpec(s)
		if err != nil {
			for _, c := range err.Error() {
				if c == '\n' {
					t.Fatalf("a two-line error for %q: %v", s, err)
				}
			}
			return
		}
		again, err := ParseSpec(spec.String())
		if err != nil {
			t.Fatalf("%q parsed, but its String %q does not: %v", s, spec.String(), err)
		}
		if again.Family != spec.Family || again.Path != spec.Path || again.Name != spec.Name ||
			!reflect.DeepEqual(again.Settings, spec.Settings) {
			t.Fatalf("%q -> %q -> %+v, want %+v", s, spec.String(), again, spec)
		}
	})
}
