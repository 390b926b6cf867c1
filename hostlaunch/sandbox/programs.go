package sandbox

import "path/filepath"

// programConfigs are the system configuration files that a program the
// spawn broker may start needs to do its real job, by the program's base
// name (symbolic links resolved): read only, and nothing else of /etc.
// git, for example, reads its system configuration (safe.directory,
// core settings an admin sets for every user) and its templates; without
// them every command but --version fails.
var programConfigs = map[string][]string{
	"git": {"/etc/gitconfig", "/usr/share/git-core"},
}

// programConfig is the configuration the program at path reads (nil for
// a program not listed in programConfigs).
func programConfig(path string) []string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	return programConfigs[filepath.Base(path)]
}
