package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

// module is dchess's module path; a type under it has its source at the
// same path under the repository's root.
const module = "github.com/dchess/dchess"

// declaration is a struct type's source: its fields and its doc comment.
type declaration struct {
	st  *ast.StructType
	doc string
}

// sources reads the struct types of the module's packages from the
// repository's source, one package folder at a time.
type sources struct {
	root string
	pkgs map[string]map[string]declaration // by import path, then type name
}

func newSources(root string) *sources {
	return &sources{root: root, pkgs: map[string]map[string]declaration{}}
}

// structOf returns the declaration of the named struct type t.
func (s *sources) structOf(t reflect.Type) (declaration, error) {
	rel, ok := strings.CutPrefix(t.PkgPath(), module)
	if !ok || t.Name() == "" {
		return declaration{}, fmt.Errorf("%s is not a named type of %s: its fields' comments cannot be read", t, module)
	}
	types, ok := s.pkgs[t.PkgPath()]
	if !ok {
		var err error
		if types, err = parseStructs(filepath.Join(s.root, filepath.FromSlash(strings.TrimPrefix(rel, "/")))); err != nil {
			return declaration{}, err
		}
		s.pkgs[t.PkgPath()] = types
	}
	d, ok := types[t.Name()]
	if !ok {
		return declaration{}, fmt.Errorf("%s: no struct type %s in the source (run from the repository's root)", t.PkgPath(), t.Name())
	}
	return d, nil
}

// parseStructs parses the non-test Go files of a package folder and
// returns its struct types by name.
func parseStructs(dir string) (map[string]declaration, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the source (run from the repository's root): %w", err)
	}
	fset := token.NewFileSet()
	types := map[string]declaration{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.TYPE {
				continue
			}
			for _, spec := range gen.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				doc := ts.Doc
				if doc == nil && !gen.Lparen.IsValid() {
					doc = gen.Doc
				}
				if _, seen := types[ts.Name.Name]; !seen {
					types[ts.Name.Name] = declaration{st: st, doc: commentText(doc)}
				}
			}
		}
	}
	return types, nil
}

// inlineStruct is the struct type a field's type spells out in place
// (struct{...} or []struct{...}), nil for a named type.
func inlineStruct(expr ast.Expr) *ast.StructType {
	for {
		switch e := expr.(type) {
		case *ast.StructType:
			return e
		case *ast.ArrayType:
			expr = e.Elt
		case *ast.StarExpr:
			expr = e.X
		default:
			return nil
		}
	}
}

// commentText is a comment group as one line.
func commentText(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}

// astField returns the index of the field called name in st, -1 if none.
func astField(st *ast.StructType, name string) int {
	for i, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.Name == name {
				return i
			}
		}
	}
	return -1
}

// fieldComment is what the source says a field means: its doc comment
// and its line comment; for a field with neither, the doc comment of the
// fields declared with it, when that comment names it ("InputMin and
// InputMax are ..."), by its Go name or a key of several words
// (min_lr_ratio: a key such as heads is also a word of the text). ""
// when nothing says.
func fieldComment(st *ast.StructType, name, key string) string {
	i := astField(st, name)
	if i < 0 {
		return ""
	}
	f := st.Fields.List[i]
	if own := strings.TrimSpace(commentText(f.Doc) + " " + commentText(f.Comment)); own != "" {
		return own
	}
	for j := i - 1; j >= 0; j-- {
		g := st.Fields.List[j]
		if g.Doc == nil && g.Comment == nil {
			continue
		}
		if doc := commentText(g.Doc); doc != "" && (nameWord(name).MatchString(doc) || strings.Contains(key, "_") && nameWord(key).MatchString(doc)) {
			return doc
		}
		break
	}
	return ""
}

// nameWord matches name as a word of its own, not part of a longer
// identifier or a qualified name (Transformer.LegalMask) or a call.
func nameWord(name string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^.\w])(` + regexp.QuoteMeta(name) + `)($|[^\w(])`)
}

// keyed rewrites the Go names of fields in a comment as the keys a config
// file writes ("MaxSteps stops" becomes "`max_steps` stops"): a name of
// several words (MaxSteps) wherever it stands, and any name at the start
// of a sentence, where Go's comments name their field. A one-word name
// inside a sentence is left alone, as it may be a word of the text (the
// Stockfish of label.stockfish's neighbours).
func keyed(text string, keys map[string]string) string {
	names := make([]string, 0, len(keys))
	for name := range keys {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		key := "`" + keys[name] + "`"
		if camel(name) {
			text = nameWord(name).ReplaceAllString(text, "${1}"+key+"${3}")
			continue
		}
		text = sentenceStart(name).ReplaceAllString(text, "${1}"+key+"${3}")
	}
	return text
}

// camel says whether a Go name joins several words (MaxSteps, BalanceCP).
func camel(name string) bool {
	return len(name) > 1 && strings.ToUpper(name) != name && strings.ContainsAny(name[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}

// sentenceStart matches name as the first word of a sentence or clause.
func sentenceStart(name string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[.;:] )(` + regexp.QuoteMeta(name) + `)($|[^\w(])`)
}
