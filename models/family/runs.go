package family

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/shipped"
)

// Files of a run folder.
const (
	ModelFile  = "model.dcw"
	ConfigFile = "config.yaml"
)

// DefaultRunsDir is where runs go unless told otherwise.
const DefaultRunsDir = "runs"

// DefaultRunDir names a new run: runs/<family>-<timestamp>.
func DefaultRunDir(runsDir, family string, now time.Time) string {
	return filepath.Join(runsDir, family+"-"+now.Format("20060102-150405"))
}

// NewestWeights finds the most recently written model.dcw of family in the
// run folders under runsDir (runs/<name>/model.dcw), the weights a bare
// player name such as "cnn" means.
func NewestWeights(runsDir, family string) (string, error) {
	entries, err := os.ReadDir(runsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var newest string
	var newestTime time.Time
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		path := filepath.Join(runsDir, e.Name(), ModelFile)
		st, err := os.Stat(path)
		if err != nil || (newest != "" && !st.ModTime().After(newestTime)) {
			continue
		}
		f, err := dcw.Read(path)
		if err != nil || f.Family != family {
			continue
		}
		newest, newestTime = path, st.ModTime()
	}
	if newest == "" {
		return "", noWeightsError(runsDir, family)
	}
	return newest, nil
}

// WeightsOf lists the .dcw files of the run folders under runsDir
// (runs/<name>/*.dcw: model.dcw, best.dcw...) whose family is family,
// sorted; checkpoints name their family "checkpoint/<family>" and are left
// out. Only each file's head is read.
func WeightsOf(runsDir, family string) []string {
	files, _ := filepath.Glob(filepath.Join(runsDir, "*", "*.dcw"))
	var out []string
	for _, path := range files {
		if fam, err := dcw.ReadFamily(path); err == nil && fam == family {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}

// noWeightsError says how a new user makes the first weights of family:
// the family's first short run and the data it needs.
func noWeightsError(runsDir, family string) error {
	f, err := Lookup(family)
	if err != nil {
		return fmt.Errorf("no exported %s weights under %s/: %w", family, runsDir, err)
	}
	msg := fmt.Sprintf("no exported %s weights under %s/: train a first short run, which writes them there, with `%s` on a dataset of %s", family, runsDir, f.FirstRun, f.Data)
	if f.Player != nil {
		msg += fmt.Sprintf("; or name weights you have: %s:PATH/model.dcw", family)
	}
	return errors.New(msg)
}

// ResolveWeights finds the weights a bare family name means: the newest
// export under runsDir, else the weights shipped with dchess. shipped says
// the second was taken, so the caller can say so.
func ResolveWeights(runsDir, family string) (path string, isShipped bool, err error) {
	path, err = NewestWeights(runsDir, family)
	if err == nil {
		return path, false, nil
	}
	if !slices.Contains(shipped.Families(), family) {
		return "", false, err
	}
	path, serr := shipped.Path(family)
	if serr != nil {
		return "", false, serr
	}
	return path, true, nil
}
