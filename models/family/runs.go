package family

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/shipped"
	"github.com/dchess/dchess/search/player"
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

// Resolver is the resolver of bare model names a command sets with
// player.SetModelResolver: ResolveWeights under runsDir, saying to say
// which file a name plays, once for each name and file, since players
// show the name as typed. say may be nil.
func Resolver(runsDir string, say func(format string, args ...any)) func(context.Context, string) (string, error) {
	var mu sync.Mutex
	said := map[string]bool{}
	return func(_ context.Context, family string) (string, error) {
		path, isShipped, err := ResolveWeights(runsDir, family)
		if err != nil || say == nil {
			return path, err
		}
		mu.Lock()
		defer mu.Unlock()
		if said[family+"\x00"+path] {
			return path, nil
		}
		said[family+"\x00"+path] = true
		if isShipped {
			say("%s: weights %s, the ones shipped with dchess: none under %s/ (how they were made: models/shipped/%s.md)\n",
				family, path, runsDir, family)
		} else {
			say("%s: weights %s, the newest under %s/\n", family, path, runsDir)
		}
		return path, nil
	}
}

// PinnedWeights are the weights a bare model name was pinned to by
// PinWeights.
type PinnedWeights struct {
	// Spec is the spec with the weights' path filled in.
	Spec player.Spec
	// Shown names the file to the user: its absolute path, or the shipped
	// weights' place in the repository. "" when the spec named its file.
	Shown string
	// Note says which file is played and where it was found.
	Note string
}

// PinWeights resolves the weights of a bare model name in s once, for a
// player that plays one file all its life (a UCI engine), and says which
// file it took and from where: a match runner starts an engine in a
// folder of its own choosing, whose runs/ decides. A spec that names its
// file, or is no model, comes back as it is.
func PinWeights(runsDir string, s player.Spec) (PinnedWeights, error) {
	if s.Path != "" || !player.NeedsWeights(s.Family) {
		return PinnedWeights{Spec: s}, nil
	}
	path, isShipped, err := ResolveWeights(runsDir, s.Family)
	if err != nil {
		return PinnedWeights{Spec: s}, err
	}
	runs, _ := filepath.Abs(runsDir)
	var pin PinnedWeights
	if isShipped {
		pin.Shown = "models/shipped/" + s.Family + ".dcw"
		pin.Note = fmt.Sprintf(
			"%s: no %s weights under %s, so playing the weights shipped with dchess, %s (how they were made: models/shipped/%s.md); %s:PATH plays a file of your own",
			s.Family, s.Family, runs, pin.Shown, s.Family, s.Family)
	} else {
		pin.Shown, _ = filepath.Abs(path)
		pin.Note = fmt.Sprintf(
			"%s: playing %s, the newest %s weights under %s (the runs/ of the folder the engine was started in); %s:PATH pins a file",
			s.Family, pin.Shown, s.Family, runs, s.Family)
	}
	s.Path = path
	pin.Spec = s
	return pin, nil
}
