// Command gitbench writes a directory registry into a git registry
// through the Store interface, as a sync's writes do (every blob put,
// hashed and checked, each entry tagged, the metadata written, one signed
// commit), for scripts/bench-git.sh, which times it against stock git
// add -A && git commit of the same tree.
//
//	go run ./testkit/gitbench -from REG -to PATH.git
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/testkit/synthreg"
)

func main() {
	from := flag.String("from", "", "the directory registry to read")
	to := flag.String("to", "", "the git repository to create")
	flag.Parse()
	if *from == "" || *to == "" {
		fmt.Fprintln(os.Stderr, "usage: gitbench -from REG -to PATH")
		os.Exit(2)
	}
	if err := run(context.Background(), *from, *to); err != nil {
		fmt.Fprintln(os.Stderr, "gitbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, from, to string) error {
	src, err := dirstore.Open(from, dirstore.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer src.Close()
	signer, _, err := synthreg.NewSigner()
	if err != nil {
		return err
	}
	dst, err := gitstore.Open(to, gitstore.Options{Write: true, Create: true, Signer: signer})
	if err != nil {
		return err
	}
	defer dst.Close()
	repos, err := src.Repos(ctx)
	if err != nil {
		return err
	}
	for _, repo := range repos {
		tags, err := src.Tags(ctx, repo)
		if err != nil {
			return err
		}
		for _, t := range tags {
			raw, err := readAll(ctx, src, repo, t.Manifest)
			if err != nil {
				return err
			}
			m, err := artifact.ParseManifest(raw)
			if err != nil {
				return fmt.Errorf("%s:%s: %w", repo, t.Tag, err)
			}
			descs := []store.Descriptor{{Digest: artifact.EmptyConfigDigest, Size: 2}}
			for _, l := range m.Layers {
				descs = append(descs, store.Descriptor{Digest: l.Digest, Size: l.Size})
			}
			for _, d := range descs {
				if err := copyBlob(ctx, src, dst, repo, d); err != nil {
					return err
				}
			}
			if err := dst.PutBlob(ctx, repo, t.Manifest.Digest, t.Manifest.Size, store.BytesContent(raw)); err != nil {
				return err
			}
			if err := dst.Tag(ctx, repo, t.Tag, t.Manifest); err != nil {
				return err
			}
		}
	}
	names, err := src.ListMetadata(ctx)
	if err != nil {
		return err
	}
	for _, n := range names {
		data, err := src.ReadMetadata(ctx, n, 1<<30)
		if err != nil {
			return err
		}
		if err := dst.WriteMetadata(ctx, n, data); err != nil {
			return err
		}
	}
	return dst.Commit(ctx, fmt.Sprintf("gitbench: %d repositories", len(repos)))
}

func readAll(ctx context.Context, s store.Store, repo string, d store.Descriptor) ([]byte, error) {
	rc, err := s.OpenBlob(ctx, repo, d.Digest, d.Size)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// copyBlob streams one blob from src to dst.
func copyBlob(ctx context.Context, src, dst store.Store, repo string, d store.Descriptor) error {
	c, err := store.Reopen(func() (io.ReadCloser, error) { return src.OpenBlob(ctx, repo, d.Digest, d.Size) })
	if err != nil {
		return err
	}
	defer c.Close()
	return dst.PutBlob(ctx, repo, d.Digest, d.Size, c)
}
