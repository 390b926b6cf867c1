// Package taskfile checks the repository's Taskfile against the code.
package taskfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)

// TestFuzzTaskListsEveryTarget: `task fuzz` runs every fuzz target in
// the package that holds it (a target that moved, or a new one, is not
// silently left out).
func TestFuzzTaskListsEveryTarget(t *testing.T) {
	root := filepath.Join("..", "..")
	task, err := os.ReadFile(filepath.Join(root, "Taskfile.yml"))
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(task), "\n  fuzz:\n")
	if start < 0 {
		t.Fatal("Taskfile.yml has no fuzz task")
	}
	section := string(task[start:])
	if end := strings.Index(section[1:], "\n  bench:"); end >= 0 {
		section = section[:end+1]
	}
	found := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		dir := "./" + filepath.ToSlash(rel) + "/"
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
			found++
			name := m[1]
			if !regexp.MustCompile(`\b`+name+`\b`).MatchString(section) || !strings.Contains(section, dir) {
				t.Errorf("%s (in %s) is not run by task fuzz: add it with the package %s", name, p, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no fuzz target found: the walk is broken")
	}
}
