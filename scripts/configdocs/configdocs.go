package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dchess/dchess/configs"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/models/families"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/pipeline"
)

// referenceDir is where the generated config reference is checked in,
// relative to the repository's root.
const referenceDir = "docs/reference/config"

// regenerate is the command that rewrites the checked-in reference;
// TestConfigReferenceIsUpToDate names it when the pages drifted.
const regenerate = "go run ./scripts/configdocs --out " + referenceDir

// header starts every generated page.
const header = "<!-- Generated from the code's default configs and field comments by `" + regenerate + "`: do not edit by hand. -->\n\n"

// row is one key of a config.
type row struct {
	key, typ, def, bounds, meaning string
}

// section is a part of a page: the keys at the top level, or one
// mapping or list of the config with what it is.
type section struct {
	title, meaning string
	rows           []row
}

// walker makes the rows of a config's keys, and collects what keeps them
// from being complete: a key no comment explains, an integer without a
// bound.
type walker struct {
	src      *sources
	bounds   family.Bounds
	problems []string
}

func (w *walker) problem(format string, args ...any) {
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
}

// yamlKey is a field's key in a config file ("" for none), as the
// config readers read it.
func yamlKey(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return strings.ToLower(f.Name)
	}
	return name
}

// keysOf maps the Go names of t's fields that are keys to their keys.
func keysOf(t reflect.Type) map[string]string {
	keys := map[string]string{}
	for i := 0; i < t.NumField(); i++ {
		if key := yamlKey(t.Field(i)); key != "" {
			keys[t.Field(i).Name] = key
		}
	}
	return keys
}

func join(prefix, key string) string {
	if prefix == "" || strings.HasSuffix(prefix, ".") {
		return prefix + key
	}
	return prefix + "." + key
}

// elemType is t without its list and pointer.
func elemType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Slice || t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// structDecl is the source of a struct type, named or spelt out in the
// field that has it.
func (w *walker) structDecl(t reflect.Type, field *ast.Field) (declaration, bool) {
	if t.Name() == "" {
		if st := inlineStruct(field.Type); st != nil {
			return declaration{st: st}, true
		}
		w.problem("%s: no source for its struct type", t)
		return declaration{}, false
	}
	d, err := w.src.structOf(t)
	if err != nil {
		w.problem("%v", err)
		return declaration{}, false
	}
	return d, true
}

// rows are the rows of every key of the struct t, whose value is v and
// whose source is st, under the bound key bkey ("conv[]") shown as path
// ("model.conv[]").
func (w *walker) rows(t reflect.Type, v reflect.Value, st *ast.StructType, owner, bkey, path string) []row {
	if t.Name() != "" {
		owner = t.String()
	}
	var out []row
	siblings := keysOf(t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := yamlKey(f)
		if key == "" {
			continue
		}
		if strings.Contains(f.Tag.Get("yaml"), ",inline") {
			w.problem("%s.%s: inline fields are not documented yet", owner, f.Name)
			continue
		}
		out = append(out, w.field(owner, f, v.Field(i), st, siblings, join(bkey, key), join(path, key))...)
	}
	return out
}

// field is the row of one key, then those of the keys it holds; owner
// names the struct that has the field (pipeline.RunConfig.Label for one
// spelt out in place).
func (w *walker) field(owner string, f reflect.StructField, v reflect.Value, st *ast.StructType, siblings map[string]string, bkey, path string) []row {
	i := astField(st, f.Name)
	if i < 0 {
		w.problem("%s.%s: not found in the source", owner, f.Name)
		return nil
	}
	elem := elemType(f.Type)
	names := map[string]string{}
	var inner declaration
	if elem.Kind() == reflect.Struct {
		var ok bool
		if inner, ok = w.structDecl(elem, st.Fields.List[i]); !ok {
			return nil
		}
		names = keysOf(elem)
	}
	for name, key := range siblings {
		names[name] = key
	}
	meaning := fieldComment(st, f.Name, yamlKey(f))
	if meaning == "" {
		meaning = inner.doc
	}
	if meaning == "" {
		w.problem("%s: no comment says what it means (comment the field %s.%s)", path, owner, f.Name)
	}
	r := row{key: path, meaning: keyed(meaning, names)}
	switch f.Type.Kind() {
	case reflect.Struct:
		r.typ = "mapping"
		return append([]row{r}, w.rows(f.Type, v, inner.st, owner+"."+f.Name, bkey, path)...)
	case reflect.Slice:
		r.typ = "list of " + typeName(elem, true)
		r.def = render(v)
		r.bounds = w.listBounds(bkey, elem)
		out := []row{r}
		if elem.Kind() == reflect.Struct {
			out = append(out, w.rows(elem, reflect.Zero(elem), inner.st, owner+"."+f.Name, bkey+"[]", path+"[]")...)
		}
		return out
	}
	r.typ = typeName(f.Type, false)
	r.def = render(v)
	if isInt(f.Type) {
		r.bounds = w.intBounds(bkey)
	}
	return []row{r}
}

func isInt(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// typeName is how a page calls a key's type.
func typeName(t reflect.Type, plural bool) string {
	name := ""
	switch {
	case isInt(t):
		name = "integer"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		name = "number"
	case t.Kind() == reflect.Bool:
		name = "boolean"
	case t.Kind() == reflect.String:
		name = "string"
	case t.Kind() == reflect.Struct:
		name = "mapping"
	default:
		name = t.Kind().String()
	}
	if plural {
		name += "s"
	}
	return name
}

// intBounds is an integer key's range, "" for a seed.
func (w *walker) intBounds(bkey string) string {
	if family.Unbounded(bkey) {
		return ""
	}
	b, ok := w.bounds[bkey]
	if !ok {
		w.problem("%s: an integer without a bound", bkey)
		return ""
	}
	return span(b)
}

// listBounds is a list's length range and, for integers, their range.
func (w *walker) listBounds(bkey string, elem reflect.Type) string {
	b, ok := w.bounds[bkey]
	if !ok {
		w.problem("%s: a list without a bound on its length", bkey)
		return ""
	}
	s := "length " + span(b)
	if isInt(elem) {
		e, ok := w.bounds[bkey+"[]"]
		if !ok {
			w.problem("%s[]: a list of integers without a bound on them", bkey)
			return s
		}
		s += ", each " + span(e)
	}
	return s
}

func span(b family.Bound) string { return number(b.Min) + ".." + number(b.Max) }

// number writes large round bounds as powers: 10^15, 2^40.
func number(n int64) string {
	if n >= 1_000_000 {
		k, m := 0, n
		for m%10 == 0 {
			m /= 10
			k++
		}
		if m == 1 {
			return "10^" + strconv.Itoa(k)
		}
		if n&(n-1) == 0 {
			k = 0
			for m = n; m > 1; m >>= 1 {
				k++
			}
			return "2^" + strconv.Itoa(k)
		}
	}
	return strconv.FormatInt(n, 10)
}

// render writes a value as YAML on one line, in backquotes.
func render(v reflect.Value) string {
	var n yaml.Node
	if err := n.Encode(v.Interface()); err != nil {
		return "(" + err.Error() + ")"
	}
	var flow func(n *yaml.Node)
	flow = func(n *yaml.Node) {
		if n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode {
			n.Style = yaml.FlowStyle
		}
		for _, c := range n.Content {
			flow(c)
		}
	}
	flow(&n)
	out, err := yaml.Marshal(&n)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return "`" + strings.Join(strings.Fields(string(out)), " ") + "`"
}

// sections groups rows by the top-level key that holds them: the keys at
// the top level first, then each mapping and list in the struct's order.
func sections(rows []row) []section {
	top := section{title: "Keys at the top level"}
	var out []section
	for _, r := range rows {
		head, _, nested := strings.Cut(strings.ReplaceAll(r.key, "[]", ""), ".")
		switch {
		case nested:
			out[len(out)-1].rows = append(out[len(out)-1].rows, r)
		case r.typ == "mapping":
			out = append(out, section{title: head, meaning: r.meaning})
		case r.typ == "list of mappings":
			out = append(out, section{title: head, meaning: r.meaning, rows: []row{r}})
		default:
			top.rows = append(top.rows, r)
		}
	}
	return append([]section{top}, out...)
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", "\n", " ").Replace(s)
}

func writeSections(b *bytes.Buffer, secs []section) {
	for _, s := range secs {
		if len(s.rows) == 0 {
			continue
		}
		title := s.title
		if title != "Keys at the top level" {
			title = "`" + title + "`"
		}
		fmt.Fprintf(b, "\n## %s\n\n", title)
		if s.meaning != "" && s.rows[0].key != s.title {
			fmt.Fprintf(b, "%s\n\n", cell(s.meaning))
		}
		b.WriteString("| key | type | default | bounds | meaning |\n|---|---|---|---|---|\n")
		for _, r := range s.rows {
			fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", r.key, r.typ, r.def, r.bounds, cell(r.meaning))
		}
	}
}

// trainingPage is the page of a family's training config.
func trainingPage(src *sources, name string) ([]byte, []string, error) {
	f, err := family.Lookup(name)
	if err != nil {
		return nil, nil, err
	}
	c, err := family.DefaultConfig(name)
	if err != nil {
		return nil, nil, err
	}
	t := reflect.TypeOf(*c)
	decl, err := src.structOf(t)
	if err != nil {
		return nil, nil, err
	}
	w := &walker{src: src, bounds: family.SharedBounds()}
	v := reflect.ValueOf(c).Elem()
	var rows []row
	siblings := keysOf(t)
	modelType := reflect.TypeOf(family.ModelSection{})
	for i := 0; i < t.NumField(); i++ {
		field := t.Field(i)
		key := yamlKey(field)
		if key == "" {
			continue
		}
		if field.Type != modelType {
			rows = append(rows, w.field(t.String(), field, v.Field(i), decl.st, siblings, key, key)...)
			continue
		}
		rows = append(rows, w.model(t, field, decl.st, siblings, c, f)...)
	}
	var b bytes.Buffer
	b.WriteString(header)
	fmt.Fprintf(&b, "# `dchess train --model %s`: the config's keys\n\n", name)
	fmt.Fprintf(&b, "%s: %s. It trains on %s.\n\n", name, cell(f.Description), cell(f.Data))
	fmt.Fprintf(&b, "Every key of a training config of %s, with the default `dchess train --model %s` uses for a key the config leaves out", name, name)
	if _, err := configs.Read(name); err == nil {
		fmt.Fprintf(&b, " (the code's default config, which [configs/%s.yaml](../../../configs/%s.yaml) writes out in full)", name, name)
	}
	b.WriteString(". A key not listed is an error. " + boundsNote + "\n")
	writeSections(&b, sections(rows))
	writeMetrics(&b, w, name, f.Metrics)
	return b.Bytes(), w.problems, nil
}

// writeMetrics is the section on the figures a run of the family reports,
// from its registration, so that a figure's meaning is written where it is
// declared; a figure without one is a problem, as an unexplained key is.
func writeMetrics(b *bytes.Buffer, w *walker, name string, metrics []family.MetricInfo) {
	b.WriteString("\n## What a run reports\n\n" +
		"The figures of `metrics.jsonl`'s epoch lines, besides the counts, " +
		"times and training compute every family's lines carry ([docs/training.md](../../training.md), \"Metrics\"):\n\n" +
		"| figure | meaning |\n|---|---|\n")
	for _, m := range metrics {
		if m.Meaning == "" {
			w.problem("%s: the figure %s has no meaning (fill its MetricInfo.Meaning in the family's registration)", name, m.Name)
		}
		var names []string
		for _, n := range strings.Split(m.Name, ",") {
			names = append(names, "`"+strings.TrimSpace(n)+"`")
		}
		fmt.Fprintf(b, "| %s | %s |\n", strings.Join(names, ", "), cell(m.Meaning))
	}
}

// boundsNote says what the bounds column holds.
const boundsNote = "The bounds are checked when the config is loaded: an integer's range, a list's length " +
	"and, for a list of integers, the range of each; the other rules (a name from a set, a rate above 0) " +
	"are in the meaning or in the one-line error the loader prints."

// model is the rows of the model section: its family, then the family's
// own keys with their bounds.
func (w *walker) model(parent reflect.Type, field reflect.StructField, st *ast.StructType, siblings map[string]string, c *family.Config, f *family.Family) []row {
	meaning := fieldComment(st, field.Name, yamlKey(field))
	if meaning == "" {
		w.problem("model: no comment says what it means (comment the field %s.%s)", parent, field.Name)
	}
	rows := []row{{key: "model", typ: "mapping", meaning: keyed(meaning, siblings)}}
	section, err := w.src.structOf(field.Type)
	if err != nil {
		w.problem("%v", err)
		return rows
	}
	family := fieldComment(section.st, "Family", "family")
	if family == "" {
		w.problem("model.family: no comment says what it means (comment the field %s.Family)", field.Type)
	}
	rows = append(rows, row{key: "model.family", typ: "string", def: render(reflect.ValueOf(c.Model.Family)), meaning: keyed(family, map[string]string{"Family": "family"})})
	settings := reflect.ValueOf(c.Model.Settings)
	for settings.Kind() == reflect.Pointer || settings.Kind() == reflect.Interface {
		settings = settings.Elem()
	}
	decl, err := w.src.structOf(settings.Type())
	if err != nil {
		w.problem("%v", err)
		return rows
	}
	bounds := w.bounds
	w.bounds = f.Bounds
	rows = append(rows, w.rows(settings.Type(), settings, decl.st, "", "", "model.")...)
	w.bounds = bounds
	return rows
}

// pipelinePage is the page of a `dchess pipeline run` config.
func pipelinePage(src *sources) ([]byte, []string, error) {
	var c pipeline.RunConfig
	t := reflect.TypeOf(c)
	decl, err := src.structOf(t)
	if err != nil {
		return nil, nil, err
	}
	w := &walker{src: src, bounds: pipeline.RunBounds()}
	rows := w.rows(t, reflect.ValueOf(c), decl.st, "", "", "")
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString("# `dchess pipeline run`: the config's keys\n\n")
	b.WriteString("Every key of the config of `dchess pipeline run CONFIG.yaml` ([configs/quickstart.yaml](../../../configs/quickstart.yaml) is one): " +
		"self-play, ingest, label, split, train, export, experience, evaluate and tournament, all under `out`. " +
		"A run config has no defaults of its own: a key the config leaves out is the zero value shown (0, \"\", false, an empty list), " +
		"and the keys the meaning calls required, or whose bounds leave out 0, must be given. " +
		"A key not listed is an error. Each training's own settings are a training config (`train[].config`), " +
		"whose keys are on the family's page ([README.md](README.md)). " + boundsNote + "\n")
	writeSections(&b, sections(rows))
	return b.Bytes(), w.problems, nil
}

// indexPage lists the pages and says how they are made.
func indexPage(names []string) []byte {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString("# Config reference\n\n")
	b.WriteString("Every key of dchess's YAML configs, with its type, its default, its bounds and what it means: " +
		"one page per model family for `dchess train --model FAMILY --config FILE.yaml`, which also says what each figure a run of the family reports means, " +
		"and one for `dchess pipeline run CONFIG.yaml`.\n\n")
	b.WriteString("| page | config |\n|---|---|\n")
	for _, name := range names {
		f, _ := family.Lookup(name)
		fmt.Fprintf(&b, "| [%s](%s) | `dchess train --model %s`: %s |\n", pageName(name), pageName(name), name, cell(f.Description))
	}
	b.WriteString("| [pipeline.md](pipeline.md) | `dchess pipeline run`: the end-to-end run |\n")
	b.WriteString("\n## How it is made\n\n" +
		"The pages are generated from the code, from the repository's root:\n\n    " + regenerate + "\n\n" +
		"(`make docs` runs it too.) A training key's default is the family's default config (`family.DefaultConfig`, " +
		"the config `dchess train` reads a `--config` over); its bounds are those the config loader checks " +
		"(models/family's shared bounds and the family's registration, pipeline's for a run config); " +
		"its meaning is the Go doc comment of the struct field that holds it, read from the source. " +
		"A field without a comment of its own takes the comment of the fields declared with it when that comment names it " +
		"(\"InputMin and InputMax are mapped to -1 and 1\"), with the fields' Go names written as their keys.\n\n" +
		"A key whose field no comment explains, or an integer without a bound, stops the generator with a list of them, " +
		"so a new field says what it means before it is documented. " +
		"`TestConfigReferenceIsUpToDate` in scripts/configdocs fails when the checked-in pages differ from what the code generates, " +
		"and names the command above.\n")
	return b.Bytes()
}

func pageName(familyName string) string { return "train-" + familyName + ".md" }

// generate makes every page of the reference by file name, from the
// source under root; the problems are the keys it cannot document.
func generate(root string) (map[string][]byte, error) {
	families.RegisterAll()
	src := newSources(root)
	pages := map[string][]byte{}
	var problems []string
	names := family.Names()
	for _, name := range names {
		page, p, err := trainingPage(src, name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		pages[pageName(name)] = page
		for _, line := range p {
			if strings.HasPrefix(line, "model.") && !strings.Contains(line, "no comment says") {
				line = "train --model " + name + ": " + line
			}
			problems = append(problems, line)
		}
	}
	page, p, err := pipelinePage(src)
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	pages["pipeline.md"] = page
	for _, line := range p {
		problems = append(problems, "pipeline run: "+line)
	}
	pages["README.md"] = indexPage(names)
	if len(problems) > 0 {
		problems = dedupe(problems)
		return nil, fmt.Errorf("%d of the configs' keys cannot be documented:\n\t%s", len(problems), strings.Join(problems, "\n\t"))
	}
	return pages, nil
}

// dedupe sorts lines and drops repeats (a shared key reported once per family).
func dedupe(lines []string) []string {
	sort.Strings(lines)
	out := lines[:0]
	for i, l := range lines {
		if i == 0 || l != lines[i-1] {
			out = append(out, l)
		}
	}
	return out
}

// write writes the pages into dir and removes the Markdown files there
// that are no page any more: the folder is the generator's alone.
func write(root, dir string) error {
	pages, err := generate(root)
	if err != nil {
		return err
	}
	isPage := func(name string) bool { return strings.HasSuffix(name, ".md") }
	if err := safefile.WriteFiles(dir, pages, isPage); err != nil {
		return fmt.Errorf("writing the reference: %w", err)
	}
	return nil
}
