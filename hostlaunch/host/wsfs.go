package host

// The workspace file broker: workspace.fs in the host is a request to
// the launcher, which serves the workspace folders through os.Root, so
// no ".." and no symbolic link leads an extension out of them.

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/airvsx/airvsx/internal/safefile"
)

// maxFSFile caps a file read or written through workspace.fs: its base64
// must fit in one message.
const maxFSFile = 8 << 20

// fsRequest is the params of an "fs/…" request.
type fsRequest struct {
	Extension string `json:"extension"`
	Path      string `json:"path"`
	Data      string `json:"data,omitempty"` // base64, writeFile
	Recursive bool   `json:"recursive,omitempty"`
}

// fsStat is vscode.FileStat.
type fsStat struct {
	Type  int   `json:"type"`
	Size  int64 `json:"size"`
	MTime int64 `json:"mtime"`
	CTime int64 `json:"ctime"`
}

// vscode.FileType values.
const (
	fileTypeFile    = 1
	fileTypeDir     = 2
	fileTypeSymlink = 64
)

// workspaceFS serves the "fs/…" requests over the workspace folders.
type workspaceFS struct {
	folders []string // absolute, cleaned
	mu      sync.Mutex
	roots   map[string]*os.Root
}

func newWorkspaceFS(folders []string) *workspaceFS {
	w := &workspaceFS{roots: map[string]*os.Root{}}
	for _, f := range folders {
		if abs, err := filepath.Abs(f); err == nil {
			w.folders = append(w.folders, filepath.Clean(abs))
		}
	}
	return w
}

// close releases the folders' roots.
func (w *workspaceFS) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.roots {
		r.Close()
	}
	w.roots = map[string]*os.Root{}
}

// resolve returns the root of the workspace folder that holds path, and
// path relative to it.
func (w *workspaceFS) resolve(ext, path string) (*os.Root, string, error) {
	if !filepath.IsAbs(path) {
		return nil, "", fmt.Errorf("workspace.fs: %q is not an absolute path", path)
	}
	path = filepath.Clean(path)
	for _, f := range w.folders {
		rel, err := filepath.Rel(f, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		r := w.roots[f]
		if r == nil {
			if r, err = os.OpenRoot(f); err != nil {
				return nil, "", fmt.Errorf("workspace.fs: open workspace folder %s: %w", f, err)
			}
			w.roots[f] = r
		}
		return r, rel, nil
	}
	return nil, "", fmt.Errorf("workspace.fs: %s is outside the workspace folders; %s would need the fsWide capability, which the broker does not grant", path, ext)
}

// fileData is a file's content, which serveFS sends encoded as it goes.
type fileData []byte

// serve runs one request and returns its result; a file read is held in
// t (the flow control) first.
func (w *workspaceFS) serve(method string, raw json.RawMessage, t *ticket) (any, error) {
	var req fsRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("workspace.fs: bad request: %w", err)
	}
	root, rel, err := w.resolve(req.Extension, req.Path)
	if err != nil {
		return nil, err
	}
	switch method {
	case "fs/readFile":
		// Held before it is read: its size as it is now (what it grows by
		// meanwhile is held after).
		var size int64
		if fi, err := root.Lstat(rel); err == nil && fi.Mode().IsRegular() {
			size = min(fi.Size(), maxFSFile)
		}
		if err := t.grow(size); err != nil {
			return nil, err
		}
		// Never a FIFO or device (the broker must not block), never a
		// final symbolic link, at most maxFSFile bytes.
		b, err := safefile.ReadIn(root, rel, maxFSFile)
		if err != nil {
			return nil, fmt.Errorf("workspace.fs: %w", err)
		}
		if more := int64(len(b)) - size; more > 0 {
			if err := t.grow(more); err != nil {
				return nil, err
			}
		}
		return fileData(b), nil
	case "fs/writeFile":
		b, err := base64.StdEncoding.DecodeString(req.Data)
		if err != nil {
			return nil, fmt.Errorf("workspace.fs: bad content: %w", err)
		}
		if len(b) > maxFSFile {
			return nil, fmt.Errorf("workspace.fs: %d bytes is more than the %d workspace.fs writes", len(b), maxFSFile)
		}
		if fi, err := root.Lstat(rel); err == nil && !fi.Mode().IsRegular() {
			// Never open a FIFO or device for writing (it could block the
			// broker), nor write through a symbolic link.
			return nil, fmt.Errorf("workspace.fs: %w", &safefile.NotRegularError{Path: rel, Mode: fi.Mode()})
		}
		return nil, root.WriteFile(rel, b, 0o644)
	case "fs/stat":
		fi, err := root.Lstat(rel)
		if err != nil {
			return nil, err
		}
		return statOf(fi), nil
	case "fs/readDirectory":
		d, err := root.Open(rel)
		if err != nil {
			return nil, err
		}
		defer d.Close()
		entries, err := d.ReadDir(-1)
		if err != nil {
			return nil, err
		}
		out := make([][2]any, 0, len(entries))
		for _, e := range entries {
			out = append(out, [2]any{e.Name(), fileType(e.Type())})
		}
		return out, nil
	case "fs/createDirectory":
		return nil, root.MkdirAll(rel, 0o755)
	case "fs/delete":
		if req.Recursive {
			return nil, root.RemoveAll(rel)
		}
		return nil, root.Remove(rel)
	}
	return nil, fmt.Errorf("workspace.fs: no method %s", method)
}

func statOf(fi fs.FileInfo) fsStat {
	ms := fi.ModTime().UnixMilli()
	return fsStat{Type: fileType(fi.Mode().Type()), Size: fi.Size(), MTime: ms, CTime: ms}
}

func fileType(m fs.FileMode) int {
	switch {
	case m&fs.ModeSymlink != 0:
		return fileTypeSymlink
	case m.IsDir():
		return fileTypeDir
	case m.IsRegular(), m.Type() == 0:
		return fileTypeFile
	}
	return 0
}

// fsError is the message an extension sees: the path as it gave it,
// never the launcher's internals.
func fsError(err error) string {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	if safefile.Escapes(err) {
		return "workspace.fs: " + pe.Path + " leads out of the workspace (a symbolic link or ..): refused; it would need the fsWide capability"
	}
	return "workspace.fs: " + pe.Op + " " + pe.Path + ": " + pe.Err.Error()
}
