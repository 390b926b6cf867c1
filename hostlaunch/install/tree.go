package install

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/index"
)

// TreeHash hashes the files of an extension's folder: every regular file
// below it, by slash-separated path relative to the folder, sorted
// bytewise; one line "<sha256 hex>  <path>\n" per file (the format of
// sha256sum); the tree hash is "sha256:" and the hex sha256 of those lines.
// Directories count only through the files in them. From a shell:
//
//	cd DIR/FOLDER && find . -type f -printf '%P\n' | LC_ALL=C sort |
//	    xargs -d '\n' sha256sum | sha256sum
//
// Anything but a regular file or a directory (a symlink, a device) is an
// error: extraction never creates one.
func TreeHash(dir string) (string, []FileHash, error) {
	files, odd, err := hashTree(dir)
	if err != nil {
		return "", nil, err
	}
	if len(odd) > 0 {
		return "", nil, fmt.Errorf("%s: %s is not a regular file or a directory", dir, odd[0])
	}
	return treeHashOf(files), files, nil
}

// treeHashOf hashes a sorted file list as TreeHash describes.
func treeHashOf(files []FileHash) string {
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s  %s\n", f.SHA256, f.Path)
	}
	return index.DigestOfSum(h.Sum(nil))
}

// hashTree lists and hashes the regular files below dir, opened through
// os.OpenRoot so that nothing outside dir is read, sorted by path; odd
// lists what is neither a regular file nor a directory.
func hashTree(dir string) (files []FileHash, odd []string, err error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	fsys := root.FS()
	buf := make([]byte, 64<<10)
	var h hash.Hash = sha256.New()
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			odd = append(odd, p)
			return nil
		}
		f, err := fsys.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			odd = append(odd, p)
			return nil
		}
		h.Reset()
		if _, err := io.CopyBuffer(h, f, buf); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		files = append(files, FileHash{Path: p, SHA256: hex.EncodeToString(h.Sum(nil))})
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("hash %s: %w", dir, err)
	}
	slices.SortFunc(files, func(a, b FileHash) int { return strings.Compare(a.Path, b.Path) })
	return files, odd, nil
}

// treeChange compares the folder dir with the files recorded at install
// and returns "" when they match, or what changed, naming the first file
// (by path) that differs: "extension.js changed", "x.js added",
// "y.js removed", "z is not a regular file".
func treeChange(dir string, want []FileHash) (string, error) {
	got, odd, err := hashTree(dir)
	if err != nil {
		return "", err
	}
	if len(odd) > 0 {
		return odd[0] + " is not a regular file", nil
	}
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || i < len(want) && want[i].Path < got[j].Path:
			return want[i].Path + " removed", nil
		case i == len(want) || got[j].Path < want[i].Path:
			return got[j].Path + " added", nil
		case want[i].SHA256 != got[j].SHA256:
			return want[i].Path + " changed", nil
		}
		i++
		j++
	}
	return "", nil
}

// validTreePath reports whether p is a clean, local, slash-separated path
// with no control characters: what extraction can produce.
func validTreePath(p string) bool {
	if p == "" || p == "." || path.Clean(p) != p || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "../") || p == ".." {
		return false
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f || c == '\\' {
			return false
		}
	}
	return true
}
