// Package sitetest builds synthetic signed registries for the site's tests
// and benchmark: straight through the store API and trust.PublishCatalog, with
// no upstream and no sync, so that ten thousand extensions take seconds.
package sitetest

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/testkit/synthreg"
)

// Extension is one synthetic package: one entry of the catalog.
type Extension struct {
	ID          index.ID
	Version     string
	Platform    index.Platform // default universal
	PreRelease  bool
	Published   time.Time
	DisplayName string
	Description string
	Categories  []string
	Tags        []string
	Readme      []byte            // extension/README.md, also the readme layer
	Files       map[string][]byte // more files, by path inside the vsix ("extension/images/a.png")
	Icon        []byte            // the icon layer (and extension/icon.png), when set
	License     []byte            // the licence layer (and extension/LICENSE), when set
	Declared    index.CapabilitySet
	Detected    []index.Finding
	Repository  string
	// Local, when set, marks the entry as added by hand (airvsx add).
	Local *index.LocalAddition
}

// Options configure Build. The zero value works.
type Options struct {
	// Now is when the catalog is signed; default time.Now.
	Now time.Time
	// Workers is how many entries are stored at once; default GOMAXPROCS.
	Workers int
	// Serial is the catalog's serial; default 1. Building again into the
	// same directory with a higher one makes the next catalog of that
	// registry (a sync's change).
	Serial int64
}

// NewSigner returns a fresh ECDSA P-256 signer and its public key PEM
// (synthreg.NewSigner: no scrypt, so it is cheap).
func NewSigner() (signature.SignerVerifier, []byte, error) { return synthreg.NewSigner() }

// Build creates a registry in dir holding exts, signs its catalog with
// signer and returns the catalog.
func Build(ctx context.Context, dir string, exts []Extension, signer signature.Signer, opts Options) (*index.Catalog, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	return synthreg.Build(ctx, dir, synthreg.Options{
		Entries: len(exts), Workers: opts.Workers, Signer: signer, Now: opts.Now,
		Catalog: index.Catalog{Serial: opts.Serial, Created: opts.Now.UTC().Truncate(time.Second), Upstream: "https://open-vsx.example"},
	}, func(ctx context.Context, st store.Store, i int) (index.Entry, error) { return put(ctx, st, &exts[i]) })
}

// Add stores exts in the registry in dir that Build made (cat is its
// catalog), appends their entries to cat with the next serial and signs
// it: what a sync that adds packages changes. It changes cat.
func Add(ctx context.Context, dir string, cat *index.Catalog, exts []Extension, signer signature.Signer, opts Options) error {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	st, err := dirstore.Open(dir, dirstore.Options{})
	if err != nil {
		return fmt.Errorf("synthetic registry: %w", err)
	}
	defer st.Close()
	for i := range exts {
		e, err := put(ctx, st, &exts[i])
		if err != nil {
			return fmt.Errorf("synthetic registry %s: %w", dir, err)
		}
		cat.Entries = append(cat.Entries, e)
	}
	cat.Serial++
	cat.Created = opts.Now.UTC().Truncate(time.Second)
	if err := cat.Validate(); err != nil {
		return fmt.Errorf("synthetic registry %s: catalog: %w", dir, err)
	}
	now := opts.Now
	if _, err := trust.PublishCatalog(ctx, trust.Metadata(ctx, st), cat, signer, trust.PublishOptions{Now: func() time.Time { return now }}); err != nil {
		return fmt.Errorf("synthetic registry %s: %w", dir, err)
	}
	return nil
}

func put(ctx context.Context, st store.Store, x *Extension) (index.Entry, error) {
	if x.Platform == "" {
		x.Platform = index.Universal
	}
	if x.Published.IsZero() {
		x.Published = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	pkg, _ := json.Marshal(map[string]any{
		"name": x.ID.Name, "publisher": x.ID.Namespace, "version": x.Version,
		"displayName": x.DisplayName, "description": x.Description,
		"engines": map[string]string{"vscode": "^1.80.0"}, "categories": x.Categories,
	})
	files := map[string][]byte{"extension/package.json": pkg, "extension.vsixmanifest": []byte(vsixtest.VSIXManifest(x.ID.Namespace, x.ID.Name, x.Version))}
	if x.Readme != nil {
		files["extension/README.md"] = x.Readme
	}
	if x.Icon != nil {
		files["extension/icon.png"] = x.Icon
	}
	if x.License != nil {
		files["extension/LICENSE"] = x.License
	}
	for k, v := range x.Files {
		files[k] = v
	}
	vsixBytes, err := zipFiles(files)
	if err != nil {
		return index.Entry{}, err
	}
	a := synthreg.NewArtifact(st, x.ID)
	if err := a.Add(ctx, artifact.RoleVsix, fmt.Sprintf("%s-%s.vsix", x.ID, x.Version), vsixBytes); err != nil {
		return index.Entry{}, err
	}
	if err := a.Add(ctx, artifact.RoleManifest, "package.json", pkg); err != nil {
		return index.Entry{}, err
	}
	if x.Readme != nil {
		if err := a.Add(ctx, artifact.RoleReadme, "README.md", x.Readme); err != nil {
			return index.Entry{}, err
		}
	}
	if x.Icon != nil {
		if err := a.Add(ctx, artifact.RoleIcon, "icon.png", x.Icon); err != nil {
			return index.Entry{}, err
		}
	}
	if x.License != nil {
		if err := a.Add(ctx, artifact.RoleLicense, "LICENSE", x.License); err != nil {
			return index.Entry{}, err
		}
	}
	sum := index.SHA256Hex(vsixBytes)
	m, err := a.Put(ctx, artifact.ArtifactInfo{ID: x.ID, Version: x.Version, Platform: x.Platform, PreRelease: x.PreRelease,
		Created: x.Published, UpstreamSHA256: sum})
	if err != nil {
		return index.Entry{}, err
	}
	return index.Entry{
		ID: x.ID, Version: x.Version, Platform: x.Platform, PreRelease: x.PreRelease, Published: x.Published.UTC(),
		ManifestDigest: m.Digest, ManifestSize: m.Size,
		VsixSHA256: sum, VsixSize: int64(len(vsixBytes)),
		Upstream:    index.Signature{},
		DisplayName: x.DisplayName, Description: x.Description, Categories: x.Categories, Tags: x.Tags,
		Engine: "^1.80.0", DeclaredCapabilities: x.Declared, DetectedCapabilities: x.Detected,
		License: "MIT", Repository: x.Repository, Local: x.Local,
	}, nil
}

// zipFiles makes a zip of files, names in sorted order, fixed times.
func zipFiles(files map[string][]byte) ([]byte, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate, Modified: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(files[n]); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// PNG is a valid 1×1 PNG image.
var PNG = func() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.NRGBA{R: 200, G: 80, B: 20, A: 255})
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return buf.Bytes()
}()

// Synthetic returns n extensions with versions each, deterministic for a
// seed: varied names, publishers, categories, tags, capabilities and
// README text of about readmeBytes bytes.
func Synthetic(n, versions, readmeBytes int, seed uint64) []Extension {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	cats := []string{"Programming Languages", "Snippets", "Linters", "Themes", "Debuggers", "Formatters", "Keymaps", "SCM Providers", "Other", "Extension Packs", "Language Packs", "Data Science", "Machine Learning", "Visualization", "Notebooks", "Education", "Testing"}
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu lint format debug test build deploy cloud docker python rust go java kotlin swift ruby node deno yaml json toml markdown preview theme icon snippet git remote server client")
	pick := func() string { return words[r.IntN(len(words))] }
	sentence := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = pick()
		}
		return strings.Join(w, " ")
	}
	var out []Extension
	for i := range n {
		ns := fmt.Sprintf("pub%d", i%(n/10+1))
		name := fmt.Sprintf("%s-%s-%d", pick(), pick(), i)
		id := index.ID{Namespace: ns, Name: name}
		var readme strings.Builder
		fmt.Fprintf(&readme, "# %s\n\n", name)
		for readme.Len() < readmeBytes {
			fmt.Fprintf(&readme, "## %s\n\n%s.\n\n- %s\n- `%s`\n\n", sentence(2), sentence(20), sentence(6), sentence(1))
		}
		var declared index.CapabilitySet
		var detected []index.Finding
		switch i % 7 {
		case 1:
			declared = index.CapabilitySet{index.Network}
		case 2:
			detected = []index.Finding{{Kind: "spawn", File: "extension/out/main.js", Trigger: `require("child_process")`}}
		}
		c := []string{cats[i%len(cats)]}
		tags := []string{pick(), pick()}
		for v := range versions {
			out = append(out, Extension{
				ID: id, Version: fmt.Sprintf("1.%d.0", v),
				Published:   time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i*versions+v) * time.Minute),
				DisplayName: strings.ToUpper(name[:1]) + name[1:], Description: sentence(12),
				Categories: c, Tags: tags, Readme: []byte(readme.String()),
				Declared: declared, Detected: detected,
				Repository: "https://example.com/" + ns + "/" + name,
			})
		}
	}
	return out
}
