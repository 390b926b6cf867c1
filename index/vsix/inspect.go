package vsix

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/safefile"
)

// Inspection is everything airvsx can say about one .vsix file without
// trusting it: the facts of its manifests, its files, and every problem.
// It is the model of "airvsx inspect" and encodes to its --json output.
type Inspection struct {
	File   string `json:"file"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`

	ID            string          `json:"id,omitempty"`
	Version       string          `json:"version,omitempty"`
	Platform      index.Platform  `json:"platform,omitempty"`
	PreRelease    bool            `json:"preRelease"`
	DisplayName   string          `json:"displayName,omitempty"`
	Description   string          `json:"description,omitempty"`
	Engine        string          `json:"engine,omitempty"`
	Main          string          `json:"main,omitempty"`
	Browser       string          `json:"browser,omitempty"`
	Activation    []InspectEvent  `json:"activationEvents"`
	Contributions []string        `json:"contributions"` // contribution kinds present
	Commands      []Command       `json:"commands,omitempty"`
	Languages     []Language      `json:"languages,omitempty"`
	Dependencies  []string        `json:"extensionDependencies"`
	ExtensionPack []string        `json:"extensionPack"`
	ExtensionKind []string        `json:"extensionKind,omitempty"`
	Declared      []string        `json:"declaredCapabilities"`
	Unknown       []string        `json:"unknownCapabilities,omitempty"` // declared keys airvsx does not know: denied
	Detected      []index.Finding `json:"detectedCapabilities"`
	// APIMembers lists, sorted, the names of module vscode the package's
	// JavaScript names: "Top" (vscode.Uri) or "Top.member"
	// (vscode.window.createWebviewPanel), read statically from its
	// JavaScript files as Detect reads them, bundles included (see
	// apiScanner.scan for what is recognized; minified bundles show little), at
	// most MaxAPIMembers. Not all are API names: hostlaunch/vscodeapi
	// tells which are, and which the host implements.
	APIMembers []string      `json:"apiMembers"`
	Assets     Assets        `json:"-"`
	Files      []InspectFile `json:"files"`
	Problems   []Problem     `json:"problems"`
}

// InspectEvent is one activation event, explicit or implied by a
// contribution, and whether VS Code documents its kind.
type InspectEvent struct {
	Event    string `json:"event"`
	Known    bool   `json:"known"`
	Implicit bool   `json:"implicit,omitempty"`
}

// InspectFile is one archive entry.
type InspectFile struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
	Dir  bool   `json:"dir,omitempty"`
}

// Err returns a *ProblemsError naming the file when the inspection found
// errors (not warnings), and nil otherwise.
func (in *Inspection) Err() error {
	r := Report{Problems: in.Problems}
	err := r.Err()
	var pe *ProblemsError
	if errors.As(err, &pe) {
		pe.Name = in.File
	}
	return err
}

// Inspect opens the .vsix at path, checks it against every archive rule,
// reads and cross-checks its manifests and detects capabilities.
//
// A file that cannot be read gives an error. Anything wrong with the
// content (not a zip, a broken rule, disagreeing manifests) is recorded in
// the Inspection's Problems; Inspection.Err reports whether any is an error.
func Inspect(ctx context.Context, path string, opts Options) (*Inspection, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in := &Inspection{
		File:          path,
		Activation:    []InspectEvent{},
		Contributions: []string{},
		Dependencies:  []string{},
		ExtensionPack: []string{},
		Declared:      []string{},
		Detected:      []index.Finding{},
		APIMembers:    []string{},
		Files:         []InspectFile{},
		Problems:      []Problem{},
	}
	lim, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	size, sum, err := hashFile(ctx, path, lim.MaxArchiveBytes)
	if err != nil {
		return nil, err
	}
	in.Size, in.SHA256 = size, sum

	a, err := Open(path, opts)
	if err != nil {
		var pe *ProblemsError
		if errors.As(err, &pe) {
			in.Problems = append(in.Problems, pe.Problems...)
			return in, nil
		}
		return nil, err
	}
	defer a.Close()
	for _, e := range a.Entries() {
		in.Files = append(in.Files, InspectFile{Name: e.Name, Size: e.Size, Dir: e.Dir})
	}

	pkg := ReadPackage(a)
	in.Problems = append(in.Problems, pkg.Report.Problems...)
	if !pkg.ID.IsZero() {
		in.ID = pkg.ID.String()
	}
	if pkg.Version != nil {
		in.Version = pkg.Version.Original()
	}
	in.Platform = pkg.Platform
	in.PreRelease = pkg.PreRelease
	in.Assets = pkg.Assets
	for _, c := range pkg.Declared {
		in.Declared = append(in.Declared, string(c))
	}
	for _, f := range pkg.Detected {
		in.Detected = append(in.Detected, index.Finding(f))
	}
	in.APIMembers = append(in.APIMembers, pkg.APIMembers...)
	if m := pkg.Manifest; m != nil {
		in.DisplayName, in.Description = m.DisplayName, m.Description
		in.Engine = m.Engines["vscode"]
		in.Main, in.Browser = m.Main, m.Browser
		for _, e := range m.Activation() {
			in.Activation = append(in.Activation, InspectEvent{Event: e.Raw, Known: e.Known, Implicit: e.Implicit})
		}
		in.Contributions = append(in.Contributions, m.Contributes.Kinds...)
		in.Commands, in.Languages = m.Contributes.Commands, m.Contributes.Languages
		in.Dependencies = append(in.Dependencies, m.ExtensionDependencies...)
		in.ExtensionPack = append(in.ExtensionPack, m.ExtensionPack...)
		in.ExtensionKind = m.ExtensionKind
		in.Unknown = m.Capabilities.Unknown
	}
	return in, nil
}

// hashFile returns the size and lowercase hex sha256 of the regular file
// at path, streaming it and stopping when ctx is done. A file of more than
// max bytes is not read: its sum is "" (Open then reports its size).
func hashFile(ctx context.Context, path string, max int64) (int64, string, error) {
	f, fi, err := safefile.Open(path, -1)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	if fi.Size() > max {
		return fi.Size(), "", nil
	}
	h := sha256.New()
	buf := make([]byte, 1<<20)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, "", err
		}
		k, err := f.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, "", fmt.Errorf("read %s: %w", path, err)
		}
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
