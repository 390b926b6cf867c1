package main

import (
	"fmt"
	"path/filepath"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/safefile"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/policies"
)

// readControlFiles reads the admin's own control lists the policy names
// (control.files, relative to the policy file's folder), for sync to
// check and carry.
func readControlFiles(policyFile string, pol *policies.Policy) ([]mirror.ControlFile, error) {
	var out []mirror.ControlFile
	for _, f := range pol.Control.Files {
		path := f
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(policyFile), f)
		}
		data, err := safefile.ReadFile(path, index.MaxControlBytes)
		if err != nil {
			return nil, fmt.Errorf("--policy: control.files: %w (the policy's folder is where relative paths start)", err)
		}
		out = append(out, mirror.ControlFile{Origin: policies.ControlOrigin(f), Source: filepath.Base(f), Data: data})
	}
	return out, nil
}
