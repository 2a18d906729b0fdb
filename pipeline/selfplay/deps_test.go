package selfplay

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

// TestImportsNothingOfPipeline keeps the direction of the split (#54):
// `pipeline run` calls self-play, never the other way, so neither this
// package nor anything it imports, however deep, may import package
// pipeline. Today such an import is also a cycle the compiler refuses;
// the test keeps the rule once `pipeline run` leaves package pipeline and
// the cycle would be gone.
func TestImportsNothingOfPipeline(t *testing.T) {
	goTool := testenv.Program(t, "go", "the go command lists the imports; put it on PATH")
	const pipeline = "github.com/dchess/dchess/pipeline"
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("go list -deps: %v\n%s", err, exit.Stderr)
	}
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, pipeline+"/selfplay") {
		t.Fatalf("go list -deps does not list the package itself: %q", deps)
	}
	if slices.Contains(deps, pipeline) {
		t.Fatalf("%s/selfplay imports %s (directly or through another package); pipeline imports it, not the other way", pipeline, pipeline)
	}
}
