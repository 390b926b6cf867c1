package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/index"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// ociLayout is the content of every repository's oci-layout file.
const ociLayout = `{"imageLayoutVersion":"1.0.0"}`

// checkTags checks one repository that holds entries (all of its
// entries): its oci-layout file, its index.json, and that each entry's
// tag points at the manifest the catalog pins. It returns the
// repository's tags, and whether they could be read. It is safe to call
// from several goroutines at once.
func (v *registryVerifier) checkTags(ctx context.Context, fsys fs.FS, repo string, entries []index.Entry) ([]store.TagEntry, bool) {
	dir := "extensions/" + repo
	if fsys != nil {
		if b, err := v.readRepoFile(fsys, repo, "oci-layout", 4096); err != nil || strings.TrimSpace(string(b)) != ociLayout {
			msg := "not " + ociLayout
			if err != nil {
				msg = err.Error()
			}
			v.add(Error, RuleLayoutInvalid, dir+"/oci-layout", "", "%s", msg)
		}
	}
	tags, err := v.st.Tags(ctx, repo)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false
		}
		msg := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			msg = "missing: the repository has no index.json"
		}
		v.add(Error, RuleLayoutInvalid, dir+"/index.json", "", "%s", msg)
		return nil, false
	}
	ipath := dir + "/index.json"
	for i := range entries {
		e := &entries[i]
		want, _ := artifact.Tag(e.Platform, e.Version) // entries validated: never fails
		i := slices.IndexFunc(tags, func(t store.TagEntry) bool { return t.Tag == want })
		switch {
		case i < 0:
			v.add(Error, RuleTagMissing, ipath, e.String(), "tag %s is not in index.json", want)
		case tags[i].Manifest.Digest != e.ManifestDigest || tags[i].Manifest.Size != e.ManifestSize:
			m := tags[i].Manifest
			v.add(Error, RuleTagMismatch, ipath, e.String(), "tag %s points at %s (%d bytes); the catalog pins %s (%d bytes)", want, m.Digest, m.Size, e.ManifestDigest, e.ManifestSize)
		}
	}
	return tags, true
}

// repoExtras lists what no entry references in one repository, once its
// entries are checked (checkRepos) or, for a repository without entries,
// at the end (finishExtras): its tags t (read when ok) that are no
// entry's (used) are warnings, or errors when they dangle (no airvsx
// operation leaves one, and OCI tools fail on them); then its files
// (walkRepo), those whose digests are not in refs, the blobs its entries
// reference, being orphans.
func (v *registryVerifier) repoExtras(ctx context.Context, fsys fs.FS, repo string, t []store.TagEntry, ok bool, used, refs map[string]bool) {
	dir := "extensions/" + repo
	if ok {
		for _, te := range t {
			if used[te.Tag] {
				continue
			}
			size, err := v.st.StatBlob(ctx, repo, te.Manifest.Digest)
			if err != nil || size != te.Manifest.Size {
				v.add(Error, RuleTagDangling, dir+"/index.json", "", "tag %s points at manifest %s (%d bytes), which is missing or of another size", te.Tag, te.Manifest.Digest, te.Manifest.Size)
				continue
			}
			v.add(Warning, RuleOrphanTag, dir+"/index.json", "", "tag %s (%s) belongs to no catalog entry: it is not signed", te.Tag, te.Manifest.Digest)
		}
	}
	if fsys != nil {
		v.walkRepo(fsys, repo, refs)
	}
}

// layout returns the store's file tree (store.LayoutFS), whose layout
// (oci-layout files, files that have no place) the verifier checks, or nil
// for a store that keeps none.
func (v *registryVerifier) layout() fs.FS {
	if l, ok := store.As[store.LayoutFS](v.st); ok {
		return l.FS()
	}
	return nil
}

// repoTree is a store that opens one repository's directory as its own
// file tree (dirstore.Store.RepoFS): the files of its LayoutFS under
// extensions/<repo>, read faster, since each path is resolved from the
// repository's directory.
type repoTree interface {
	RepoFS(repo string) (fs.FS, func(), error)
}

// inRepo runs read over repo's files: through the store's RepoFS, with
// root ".", when it has one and read succeeds there, else through the
// registry's tree fsys, with root extensions/<repo>, so that a problem
// is reported as reading the registry's tree reports it. read reports
// whether it succeeded.
func (v *registryVerifier) inRepo(fsys fs.FS, repo string, read func(fsys fs.FS, root string) bool) {
	if rt, ok := store.As[repoTree](v.st); ok {
		if sub, release, err := rt.RepoFS(repo); err == nil {
			ok := read(sub, ".")
			release()
			if ok {
				return
			}
		}
	}
	read(fsys, "extensions/"+repo)
}

// readRepoFile reads repo's file name (readSmall).
func (v *registryVerifier) readRepoFile(fsys fs.FS, repo, name string, max int64) (b []byte, err error) {
	v.inRepo(fsys, repo, func(fsys fs.FS, root string) bool {
		b, err = readSmall(fsys, path.Join(root, name), max)
		return err == nil
	})
	return b, err
}

// walkRepo reports blobs no entry references (refs holds those entries
// do) and files the layout has no place for in one repository.
func (v *registryVerifier) walkRepo(fsys fs.FS, repo string, refs map[string]bool) {
	dir := "extensions/" + repo
	var probs []Problem
	add := func(rule Rule, p, format string, args ...any) {
		probs = append(probs, newProblem(Warning, rule, p, "", fmt.Sprintf(format, args...), fixFor(rule)))
	}
	v.inRepo(fsys, repo, func(fsys fs.FS, root string) bool {
		probs = probs[:0]
		ok := true
		fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			rel := ""
			if p != root {
				rel = strings.TrimPrefix(p, root+"/")
				if root == "." {
					rel = p
				}
			}
			full := dir
			if rel != "" {
				full = dir + "/" + rel
			}
			if err != nil {
				if root == "." {
					ok = false // read again from the registry's tree
					return fs.SkipAll
				}
				add(RuleExtraFile, full, "unreadable: %v", err)
				return nil
			}
			switch {
			case rel == "", rel == "blobs" && d.IsDir(), rel == "blobs/sha256" && d.IsDir():
				return nil
			case (rel == "oci-layout" || rel == "index.json") && d.Type().IsRegular():
				return nil
			case path.Dir(rel) == "blobs/sha256" && d.Type().IsRegular() && store.ValidDigest(index.SHA256Digest(d.Name())):
				if !refs[index.SHA256Digest(d.Name())] {
					add(RuleOrphanBlob, full, "no catalog entry's manifest references blob sha256:%s", d.Name())
				}
				return nil
			}
			add(RuleExtraFile, full, "%s has no place in the registry layout", describe(d))
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		})
		return ok
	})
	v.mu.Lock()
	v.rep.Problems = append(v.rep.Problems, probs...)
	v.mu.Unlock()
}

// walkTop reports files at the top of the registry and of extensions/
// that the layout has no place for.
func (v *registryVerifier) walkTop(fsys fs.FS) {
	top, err := fs.ReadDir(fsys, ".")
	if err != nil {
		v.add(Error, RuleLayoutInvalid, ".", "", "cannot list the registry: %v", err)
	}
	for _, d := range top {
		switch n := d.Name(); {
		case n == artifact.MarkerFile && d.Type().IsRegular():
		case (n == "metadata" || n == "extensions" || n == "quarantine" || n == "pending") && d.IsDir():
		default:
			v.add(Warning, RuleExtraFile, n, "", "%s has no place in the registry layout", describe(d))
		}
	}
	nss, err := fs.ReadDir(fsys, "extensions")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		v.add(Error, RuleLayoutInvalid, "extensions/", "", "cannot list: %v", err)
	}
	for _, ns := range nss {
		p := "extensions/" + ns.Name()
		if !ns.IsDir() {
			v.add(Warning, RuleExtraFile, p, "", "%s has no place in the registry layout", describe(ns))
			continue
		}
		names, err := fs.ReadDir(fsys, p)
		if err != nil {
			v.add(Error, RuleLayoutInvalid, p+"/", "", "cannot list: %v", err)
		}
		for _, n := range names {
			repo := ns.Name() + "/" + n.Name()
			if v.x.listed[repo] {
				continue // a repository the store lists: walked by walkRepo
			}
			if n.IsDir() && store.CheckRepo(repo) == nil {
				if _, err := fs.Lstat(fsys, "extensions/"+repo+"/index.json"); err == nil {
					continue // a repository: walked by walkRepo
				}
			}
			v.add(Warning, RuleExtraFile, p+"/"+n.Name(), "", "%s is not a repository (no valid name or no index.json)", describe(n))
		}
	}
}

func describe(d fs.DirEntry) string {
	switch {
	case d.IsDir():
		return "directory"
	case d.Type().IsRegular():
		return "file"
	case d.Type()&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// readSmall reads a regular file of at most max bytes without following a
// final symlink.
func readSmall(fsys fs.FS, name string, max int64) ([]byte, error) {
	fi, err := fs.Lstat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, max)
	}
	return b, nil
}
