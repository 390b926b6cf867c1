package gitstore

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/airvsx/airvsx/internal/safefile"
)

// The identity of commits when neither the options nor git's
// configuration give one.
const (
	DefaultName  = "airvsx"
	DefaultEmail = "airvsx@localhost"
)

// identity returns the author and committer: the options', else git's
// user.name and user.email (the repository's config, then the user's
// ~/.gitconfig and $XDG_CONFIG_HOME/git/config), else the default.
func (s *gitStore) identity() (name, email string) {
	name, email = s.opts.Name, s.opts.Email
	files := []string{filepath.Join(s.gitDir, "config")}
	if home, err := os.UserHomeDir(); err == nil {
		files = append(files, filepath.Join(home, ".gitconfig"))
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	for _, f := range files {
		if name != "" && email != "" {
			break
		}
		data, err := safefile.ReadFile(f, 1<<20)
		if err != nil {
			continue
		}
		cfg := config.New()
		if err := config.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
			s.log.Warn("git config does not parse; ignored", "path", f, "err", err)
			continue
		}
		user := cfg.Section("user")
		if name == "" {
			name = user.Option("name")
		}
		if email == "" {
			email = user.Option("email")
		}
	}
	if name == "" {
		name = DefaultName
	}
	if email == "" {
		email = DefaultEmail
	}
	return name, email
}
