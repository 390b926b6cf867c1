package dirstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// ociLayout is the content of every layout's oci-layout file.
const ociLayout = `{"imageLayoutVersion":"1.0.0"}`

// ensureLayout makes repo an OCI image layout if it is not one yet:
// oci-layout, then an empty index.json (whose presence makes the
// repository exist).
//
// The two files are made durable as a blob is (syncDirty), with the
// repository's first tag at the latest, not each with two fsyncs as it is
// written: a copy making two hundred repositories made eight hundred. A
// crash before then can leave either empty, and an empty one is written
// anew here: oci-layout's content never changes, and an empty index.json
// names no tag, so nothing is lost.
func (d *dirStore) ensureLayout(ctx context.Context, repo string) error {
	if _, ok := d.layouts.Load(repo); ok {
		return nil
	}
	defer d.repos.lock(repo)()
	dir := repoDir(repo)
	// absent, or empty (as a crash can leave a file written here)
	stat := func(name string) (absent, empty bool) {
		fi, err := d.root.Lstat(dir + "/" + name)
		return err != nil, err == nil && fi.Mode().IsRegular() && fi.Size() == 0
	}
	indexAbsent, indexEmpty := stat(ocispec.ImageIndexFile)
	layoutAbsent, layoutEmpty := stat(ocispec.ImageLayoutFile)
	// A repository with an index.json and no oci-layout is left as it
	// is: damage for verify to report and copy --repair to mend.
	index := indexAbsent || indexEmpty
	layout := layoutEmpty || index && layoutAbsent
	if !index && !layout {
		d.layouts.Store(repo, struct{}{})
		return nil
	}
	if err := d.root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, data []byte) error {
		return d.writeDeferred(ctx, d.dirAt(dir), name, bytes.NewReader(data), nil)
	}
	if layout {
		if err := write(ocispec.ImageLayoutFile, []byte(ociLayout)); err != nil {
			return err
		}
	}
	if index {
		data, err := artifact.EncodeIndex(nil)
		if err != nil {
			return err
		}
		if err := write(ocispec.ImageIndexFile, data); err != nil {
			return err
		}
	}
	d.layouts.Store(repo, struct{}{})
	return nil
}

// readIndex reads repo's index.json; fs.ErrNotExist when the repository
// does not exist.
func (d *dirStore) readIndex(repo string) ([]store.TagEntry, error) {
	name := repoDir(repo) + "/" + ocispec.ImageIndexFile
	data, err := d.readRegularCached(name, artifact.MaxIndexBytes)
	if err != nil {
		return nil, err
	}
	tags, err := artifact.DecodeIndex(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", name, store.ErrDamagedLayout, err)
	}
	return tags, nil
}

// CheckLayout checks repo's layout files as verify does: oci-layout holds
// {"imageLayoutVersion":"1.0.0"} and index.json decodes strictly. A
// damaged one is an error wrapping ErrDamagedLayout; a repository with
// neither file, one wrapping fs.ErrNotExist.
func (d *dirStore) CheckLayout(ctx context.Context, repo string) error {
	if err := store.CheckRepo(repo); err != nil {
		return fmt.Errorf("check layout: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.checkLayout(repo)
}

func (d *dirStore) checkLayout(repo string) error {
	dir := repoDir(repo)
	layout, lerr := readRegular(d.root, dir+"/"+ocispec.ImageLayoutFile, 4096)
	_, ierr := d.readIndex(repo)
	switch {
	case errors.Is(lerr, fs.ErrNotExist) && errors.Is(ierr, fs.ErrNotExist):
		return fmt.Errorf("layout of %s: %w", repo, fs.ErrNotExist)
	case lerr != nil:
		return fmt.Errorf("%s/%s: %w: %w", dir, ocispec.ImageLayoutFile, store.ErrDamagedLayout, lerr)
	case strings.TrimSpace(string(layout)) != ociLayout:
		return fmt.Errorf("%s/%s: %w: want %s", dir, ocispec.ImageLayoutFile, store.ErrDamagedLayout, ociLayout)
	case errors.Is(ierr, fs.ErrNotExist), errors.Is(ierr, store.ErrTooLarge):
		return fmt.Errorf("%s/%s: %w: %w", dir, ocispec.ImageIndexFile, store.ErrDamagedLayout, ierr)
	}
	return ierr
}

// ReplaceLayout replaces a repository's damaged layout files (airvsx copy
// --repair): both files are kept in the quarantine with reason (never
// deleted), then oci-layout and an empty index.json are written, durably.
// The caller tags the repository's manifests again. A layout that is
// intact or absent is an error: ReplaceLayout never touches a good one.
// It returns where the damaged files went
// ("quarantine/damaged-layout-<pub>.<name>[.N]").
func (d *dirStore) ReplaceLayout(ctx context.Context, repo, reason string) (string, error) {
	if err := store.CheckRepo(repo); err != nil {
		return "", fmt.Errorf("replace layout: %w", err)
	}
	if err := d.writable(); err != nil {
		return "", fmt.Errorf("replace layout of %s: %w", repo, err)
	}
	defer d.repos.lock(repo)()
	d.layouts.Delete(repo)
	damage := d.checkLayout(repo)
	if damage == nil {
		return "", fmt.Errorf("replace layout of %s: it is intact; nothing to replace", repo)
	}
	if !errors.Is(damage, store.ErrDamagedLayout) {
		return "", fmt.Errorf("replace layout of %s: %w", repo, damage)
	}
	dir := repoDir(repo)
	files := map[string]io.Reader{}
	for _, name := range []string{ocispec.ImageLayoutFile, ocispec.ImageIndexFile} {
		f, err := openRegular(d.root, dir+"/"+name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("replace layout of %s: keep %s: %w", repo, name, err)
		}
		defer f.Close()
		files[name] = f // whole: nothing is lost
	}
	qname := "damaged-layout-" + strings.ReplaceAll(repo, "/", ".")
	qname = qname[:min(len(qname), store.MaxQuarantineName)]
	loc, err := d.Quarantine(ctx, qname, fmt.Sprintf("%s (%s): %v", reason, dir, damage), files)
	if err != nil {
		return "", fmt.Errorf("replace layout of %s: keep the damaged files: %w", repo, err)
	}
	if err := d.writeBytes(ctx, dir, ocispec.ImageLayoutFile, []byte(ociLayout)); err != nil {
		return loc, fmt.Errorf("replace layout of %s: %w", repo, err)
	}
	if err := d.writeIndex(ctx, repo, nil); err != nil {
		return loc, fmt.Errorf("replace layout of %s: %w", repo, err)
	}
	return loc, nil
}

// writeIndex replaces repo's index.json atomically. The caller holds
// repo's lock (d.repos).
func (d *dirStore) writeIndex(ctx context.Context, repo string, tags []store.TagEntry) error {
	data, err := artifact.EncodeIndex(tags)
	if err != nil {
		return err
	}
	return d.writeBytes(ctx, repoDir(repo), ocispec.ImageIndexFile, data)
}

// Tag points tag at a manifest already stored in repo, rewriting index.json
// atomically. The descriptor's annotations are kept in index.json.
func (d *dirStore) Tag(ctx context.Context, repo, tag string, m store.Descriptor) error {
	if err := artifact.CheckTagTarget(ctx, d, repo, m); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	// The blobs the manifest names are durable before the tag is.
	if err := d.syncDirty(repoDir(repo)); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	// A repository whose blobs are there but whose layout files are not
	// (lost since; the first blob makes them) gets them again.
	if err := d.ensureLayout(ctx, repo); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	defer d.repos.lock(repo)()
	return artifact.TagIndex(ctx, repo, tag, m, d.readIndex, d.writeIndex)
}

// Tags lists repo's tags from its index.json (read strictly, at most
// MaxIndexBytes).
func (d *dirStore) Tags(ctx context.Context, repo string) ([]store.TagEntry, error) {
	return artifact.TagsFromIndex(ctx, repo, d.readIndex)
}

// Untag removes tag from repo's index.json atomically.
func (d *dirStore) Untag(ctx context.Context, repo, tag string) error {
	defer d.repos.lock(repo)()
	return artifact.UntagIndex(ctx, repo, tag, d.readIndex, d.writeIndex)
}

// Repos lists the repositories under extensions/ that have an index.json.
// Entries that are not valid repository names are skipped (temp files
// silently, anything else with a warning).
//
// The index.json of each is looked for on every CPU at once: a registry
// may hold 200,000 repositories, and each look is a few system calls.
func (d *dirStore) Repos(ctx context.Context) ([]string, error) {
	dirs, err := artifact.ReposFromDirs(ctx, d.log, d.listDir, func(string) bool { return true })
	if err != nil {
		return nil, err
	}
	has := make([]bool, len(dirs))
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), len(dirs)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(dirs) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				ns, name, _ := strings.Cut(dirs[i], "/")
				fi, err := d.lstatUnder(extensionsDir+"/"+ns, name+"/"+ocispec.ImageIndexFile)
				has[i] = err == nil && fi.Mode().IsRegular()
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("repos: %w", err)
	}
	repos := dirs[:0]
	for i, repo := range dirs {
		if has[i] {
			repos = append(repos, repo)
		}
	}
	return repos, nil
}

// listDir lists dir for ReposFromDirs, leaving out temp files.
func (d *dirStore) listDir(dir string) ([]artifact.DirEntry, error) {
	entries, err := fs.ReadDir(newRootFS(d.root), dir)
	if err != nil {
		return nil, err
	}
	var out []artifact.DirEntry
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tempPrefix) {
			out = append(out, artifact.DirEntry{Name: e.Name(), IsDir: e.IsDir()})
		}
	}
	return out, nil
}
