// Package buildinfo names the build a dchess binary was made from, for
// dchess version and --version.
package buildinfo

import "runtime/debug"

// Version is stamped, the version the build set with -ldflags (make build
// does), or when that is empty Of what the go command recorded in the
// running binary.
func Version(stamped string) string {
	if stamped != "" {
		return stamped
	}
	return Of(debug.ReadBuildInfo())
}

// Of is the module version and VCS revision the go command records in a
// binary (go install ...@v1.2.0 gives v1.2.0; a build in a checkout gives
// the commit, -dirty when it had changes), or "dev" when neither is known.
// info and ok are what debug.ReadBuildInfo returns.
func Of(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "dev"
	}
	v := info.Main.Version
	if v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += "-dirty"
	}
	return rev
}
