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

// checkTags checks every repository that holds an entry: its oci-layout
// file, its index.json, and that each entry's tag points at the manifest
// the catalog pins. It returns the tags of every readable repository.
func (v *registryVerifier) checkTags(ctx context.Context) (map[string][]store.TagEntry, error) {
	fsys := v.layout()
	tags := map[string][]store.TagEntry{}
	bad := map[string]bool{}
	for i := range v.cat.Entries {
		e := &v.cat.Entries[i]
		repo := artifact.Repo(e.ID)
		if _, seen := tags[repo]; !seen && !bad[repo] {
			dir := "extensions/" + repo
			if fsys != nil {
				if b, err := readSmall(fsys, dir+"/oci-layout", 4096); err != nil || strings.TrimSpace(string(b)) != ociLayout {
					msg := "not " + ociLayout
					if err != nil {
						msg = err.Error()
					}
					v.add(Error, RuleLayoutInvalid, dir+"/oci-layout", "", "%s", msg)
				}
			}
			t, err := v.st.Tags(ctx, repo)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				bad[repo] = true
				msg := err.Error()
				if errors.Is(err, fs.ErrNotExist) {
					msg = "missing: the repository has no index.json"
				}
				v.add(Error, RuleLayoutInvalid, dir+"/index.json", "", "%s", msg)
				continue
			}
			tags[repo] = t
		}
		if bad[repo] {
			continue
		}
		want, _ := artifact.Tag(e.Platform, e.Version) // entries validated: never fails
		i := slices.IndexFunc(tags[repo], func(t store.TagEntry) bool { return t.Tag == want })
		ipath := "extensions/" + repo + "/index.json"
		switch {
		case i < 0:
			v.add(Error, RuleTagMissing, ipath, e.String(), "tag %s is not in index.json", want)
		case tags[repo][i].Manifest.Digest != e.ManifestDigest || tags[repo][i].Manifest.Size != e.ManifestSize:
			m := tags[repo][i].Manifest
			v.add(Error, RuleTagMismatch, ipath, e.String(), "tag %s points at %s (%d bytes); the catalog pins %s (%d bytes)", want, m.Digest, m.Size, e.ManifestDigest, e.ManifestSize)
		}
	}
	return tags, nil
}

// checkExtras lists what no entry references: repositories, tags, blobs
// and files the layout has no place for (warnings), and tags that dangle
// (errors: no airvsx operation leaves one, and OCI tools fail on them).
func (v *registryVerifier) checkExtras(ctx context.Context, tags map[string][]store.TagEntry) error {
	fsys := v.layout()
	used := map[string]map[string]bool{} // repo → tags of entries
	for i := range v.cat.Entries {
		e := &v.cat.Entries[i]
		repo := artifact.Repo(e.ID)
		if used[repo] == nil {
			used[repo] = map[string]bool{}
		}
		tag, _ := artifact.Tag(e.Platform, e.Version)
		used[repo][tag] = true
	}
	repos, err := v.st.Repos(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// A registry whose repositories cannot be listed is a problem of
		// the registry, reported like any other, not a run that could not
		// start.
		v.add(Error, RuleLayoutInvalid, "extensions/", "", "cannot list the repositories: %v", err)
	}
	for _, repo := range repos {
		dir := "extensions/" + repo
		if used[repo] == nil {
			v.add(Warning, RuleOrphanRepo, dir+"/", "", "no catalog entry belongs to repository %s", repo)
		}
		t, ok := tags[repo]
		if !ok && used[repo] == nil {
			if t, err = v.st.Tags(ctx, repo); err != nil {
				v.add(Warning, RuleOrphanRepo, dir+"/index.json", "", "unreadable: %v", err)
				continue
			}
			ok = true
		}
		if ok {
			for _, te := range t {
				if used[repo][te.Tag] {
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
			v.walkRepo(fsys, repo)
		}
	}
	if fsys != nil {
		v.walkTop(fsys)
	}
	return nil
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

// walkRepo reports blobs no entry references and files the layout has no
// place for in one repository.
func (v *registryVerifier) walkRepo(fsys fs.FS, repo string) {
	dir := "extensions/" + repo
	refs := v.refs[repo]
	fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			v.add(Warning, RuleExtraFile, p, "", "unreadable: %v", err)
			return nil
		}
		rel := strings.TrimPrefix(p, dir+"/")
		switch {
		case p == dir, rel == "blobs" && d.IsDir(), rel == "blobs/sha256" && d.IsDir():
			return nil
		case (rel == "oci-layout" || rel == "index.json") && d.Type().IsRegular():
			return nil
		case path.Dir(rel) == "blobs/sha256" && d.Type().IsRegular() && store.ValidDigest(index.SHA256Digest(d.Name())):
			if !refs[index.SHA256Digest(d.Name())] {
				v.add(Warning, RuleOrphanBlob, p, "", "no catalog entry's manifest references blob sha256:%s", d.Name())
			}
			return nil
		}
		v.add(Warning, RuleExtraFile, p, "", "%s has no place in the registry layout", describe(d))
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
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
		case (n == "metadata" || n == "extensions" || n == "quarantine") && d.IsDir():
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
