package player

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Spec is a parsed player SPEC: a family with an optional path and
// settings. The forms are
//
//	heuristic                          family only
//	heuristic:depth=4,hash=64          family and settings
//	cnn:runs/cnn/model.dcw             family and path
//	cnn:runs/cnn/model.dcw?depth=3     both
//	uci:/usr/games/stockfish?UCI_LimitStrength=true&UCI_Elo=1500
//
// Settings are separated by "," or "&"; values may be %-escaped. The
// setting name= overrides the display name in every family.
type Spec struct {
	Raw      string
	Family   string
	Path     string
	Settings map[string]string
	// Name is the display name from name=, "" when not given; for a bare
	// model name whose weights ResolveWeights filled in, the spec as typed.
	Name string
}

// SpecError is a SPEC that cannot be played as written: malformed, an
// unknown family or setting, a setting's bad value, or a file it names
// that does not exist. It is the caller's mistake, found before any game,
// and commands report it as a usage error; any other error making a player
// is a failure (weights that cannot be read, an engine that does not start).
type SpecError struct{ Err error }

func (e *SpecError) Error() string { return e.Err.Error() }
func (e *SpecError) Unwrap() error { return e.Err }

// SpecErrorf formats a *SpecError, for families outside this package too.
func SpecErrorf(format string, args ...any) error {
	return &SpecError{Err: fmt.Errorf(format, args...)}
}

// ParseSpec reads a player SPEC. Errors are one line that quotes the spec.
func ParseSpec(s string) (Spec, error) {
	raw := strings.TrimSpace(s)
	spec := Spec{Raw: raw, Settings: map[string]string{}}
	if raw == "" {
		return Spec{}, SpecErrorf("empty player spec (want e.g. heuristic, heuristic:depth=4, uci:/usr/games/stockfish)")
	}
	family, rest, _ := strings.Cut(raw, ":")
	if !isIdentifier(family) {
		return Spec{}, SpecErrorf("player spec %q: %q is not a player name (letters, digits, - and _)", raw, family)
	}
	spec.Family = strings.ToLower(family)
	path, query, hasQuery := strings.Cut(rest, "?")
	if !hasQuery && looksLikeSettings(rest) {
		path, query = "", rest
	}
	// Spaces around a path are a slip of typing, never part of a file name
	// dchess would find.
	spec.Path = strings.TrimSpace(path)
	if query != "" {
		for _, field := range strings.FieldsFunc(query, func(r rune) bool { return r == ',' || r == '&' }) {
			key, value, ok := strings.Cut(field, "=")
			if !ok || !isIdentifier(key) {
				return Spec{}, SpecErrorf("player spec %q: setting %q is not key=value", raw, field)
			}
			if unescaped, err := url.PathUnescape(value); err == nil {
				value = unescaped
			}
			if strings.EqualFold(key, "name") {
				if value == "" {
					return Spec{}, SpecErrorf("player spec %q: empty name=", raw)
				}
				// The name goes into PGN tags, where the standard allows no
				// control character; a newline there breaks every reader.
				if strings.IndexFunc(value, unicode.IsControl) >= 0 {
					return Spec{}, SpecErrorf("player spec %q: name= holds a control character (newline, tab...); give a name of printable characters", raw)
				}
				spec.Name = value
				continue
			}
			if _, dup := spec.Settings[key]; dup {
				return Spec{}, SpecErrorf("player spec %q: setting %s given twice", raw, key)
			}
			spec.Settings[key] = value
		}
	}
	return spec, nil
}

// looksLikeSettings tells "depth=4,nodes=100" (settings) from a path: each
// field is key=value with a key of letters and digits, where a path would
// have a separator before its first "=". A value may be a path of its
// own: proposer=policy:runs/policy/model.dcw.
func looksLikeSettings(s string) bool {
	if s == "" {
		return false
	}
	for _, field := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '&' }) {
		key, _, ok := strings.Cut(field, "=")
		if !ok || !isIdentifier(key) {
			return false
		}
	}
	return true
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// String is the spec in canonical form (settings sorted, name= last),
// which ParseSpec reads back to an equal Spec.
func (s Spec) String() string {
	var b strings.Builder
	b.WriteString(s.Family)
	keys := s.settingKeys()
	if s.Path == "" && len(keys) == 0 && s.Name == "" {
		return b.String()
	}
	b.WriteByte(':')
	b.WriteString(s.Path)
	if len(keys) == 0 && s.Name == "" {
		if looksLikeSettings(s.Path) {
			// A path such as "depth=4" keeps the '?' that makes it one.
			b.WriteByte('?')
		}
		return b.String()
	}
	sep := ","
	if s.Path != "" {
		b.WriteByte('?')
		sep = "&"
	}
	for i, k := range keys {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(k + "=" + url.PathEscape(s.Settings[k]))
	}
	if s.Name != "" {
		if len(keys) > 0 {
			b.WriteString(sep)
		}
		b.WriteString("name=" + url.PathEscape(s.Name))
	}
	return b.String()
}

// DisplayName is the name= override, or the spec without it.
func (s Spec) DisplayName() string {
	if s.Name != "" {
		return s.Name
	}
	unnamed := s
	unnamed.Name = ""
	return unnamed.String()
}

func (s Spec) settingKeys() []string {
	keys := make([]string, 0, len(s.Settings))
	for k := range s.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// With returns a copy of s with one setting replaced, as UCI engine mode
// does when a GUI changes the Hash option.
func (s Spec) With(key, value string) Spec {
	out := s
	out.Settings = make(map[string]string, len(s.Settings)+1)
	for k, v := range s.Settings {
		out.Settings[k] = v
	}
	out.Settings[key] = value
	return out
}

// CheckSettings fails on a setting not in allowed, naming the ones that are.
func (s Spec) CheckSettings(allowed ...string) error {
	for _, k := range s.settingKeys() {
		found := false
		for _, a := range allowed {
			if strings.EqualFold(k, a) {
				found = true
			}
		}
		if !found {
			want := "none"
			if len(allowed) > 0 {
				want = strings.Join(allowed, ", ")
			}
			return SpecErrorf("player %s: unknown setting %q (settings: %s, name)", s.Family, k, want)
		}
	}
	return nil
}

// Int reads an integer setting, def when absent.
func (s Spec) Int(key string, def int64) (int64, error) {
	v, ok := s.lookup(key)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, SpecErrorf("player %s: %s=%q is not a non-negative integer", s.Family, key, v)
	}
	return n, nil
}

// Get reads a string setting, def when absent.
func (s Spec) Get(key, def string) string {
	if v, ok := s.lookup(key); ok {
		return v
	}
	return def
}

func (s Spec) lookup(key string) (string, bool) {
	for k, v := range s.Settings {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return "", false
}

// SplitList splits a comma-separated list of specs, as --players takes it.
// A piece that is only key=value continues the spec before it, so
// "heuristic:depth=2,nodes=500,random" is two specs.
func SplitList(s string) []string {
	var specs []string
	for _, piece := range strings.Split(s, ",") {
		piece = strings.TrimSpace(piece)
		if piece == "" {
			continue
		}
		key, _, isSetting := strings.Cut(piece, "=")
		if isSetting && len(specs) > 0 && isIdentifier(key) && strings.Contains(specs[len(specs)-1], ":") {
			specs[len(specs)-1] += "," + piece
			continue
		}
		specs = append(specs, piece)
	}
	return specs
}
