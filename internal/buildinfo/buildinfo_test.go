package buildinfo

import (
	"runtime/debug"
	"testing"
)

// A build says which it is when no -ldflags set it: the module version of
// a go install, else the commit the binary was built from.
func TestOf(t *testing.T) {
	vcs := func(rev, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}}
	}
	for _, c := range []struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, true, "v1.2.0"},
		{vcs("0123456789abcdef0123", "false"), true, "0123456789ab"},
		{vcs("0123456789abcdef0123", "true"), true, "0123456789ab-dirty"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "dev"},
		{nil, false, "dev"},
	} {
		if got := Of(c.info, c.ok); got != c.want {
			t.Errorf("Of = %q, want %q", got, c.want)
		}
	}
}

func TestVersionPrefersTheStampedOne(t *testing.T) {
	if got := Version("v9.9.9"); got != "v9.9.9" {
		t.Errorf("with -ldflags: %q", got)
	}
	if got, want := Version(""), Of(debug.ReadBuildInfo()); got != want {
		t.Errorf("without -ldflags: %q, want %q", got, want)
	}
}
