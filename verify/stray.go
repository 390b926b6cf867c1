package verify

import (
	"context"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/trust"
)

// maxStrayNamed is how many stray metadata files the report names one by
// one; the rest are counted in one more problem.
const maxStrayNamed = 20

// checkStray reports the files in metadata/ that the verified chain does
// not name (trust.Trusted.Names), in any store: a directory's metadata/,
// a git commit's tree under metadata/, an OCI registry's metadata
// manifest. No signature covers them and nothing reads them, but a copy
// would otherwise carry them as part of a signed registry. Unless
// NoReadData, an older catalog whose bytes are not the digest its name
// says is one too. Warnings: the signed registry itself is intact.
func (v *registryVerifier) checkStray(ctx context.Context) error {
	if v.chain == nil {
		return nil
	}
	names, err := v.st.ListMetadata(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		v.add(Warning, RuleStrayFile, "metadata/", "", "cannot list: %v", err)
		return nil
	}
	n := 0
	for _, name := range names {
		if v.chain.Names(name) && v.catalogNamed(ctx, name) {
			continue
		}
		n++
		if n <= maxStrayNamed {
			v.add(Warning, RuleStrayFile, "metadata/"+name, "", "the signed metadata does not name this file: no signature covers it")
		}
	}
	if n > maxStrayNamed {
		v.add(Warning, RuleStrayFile, "metadata/", "", "%d more files the signed metadata does not name (%d in all)", n-maxStrayNamed, n)
	}
	return nil
}

// catalogNamed reports whether a metadata file the chain names is what
// its name says: a catalog other than the current one (which the chain
// checked) must hash to the digest in its name, checked unless
// NoReadData. A catalog that cannot be read is not.
func (v *registryVerifier) catalogNamed(ctx context.Context, name string) bool {
	if !strings.HasPrefix(name, "targets/") || "metadata/"+name == v.catPath || v.opts.NoReadData {
		return true
	}
	data, err := v.st.ReadMetadata(ctx, name, index.MaxCatalogBytes)
	return err == nil && trust.ContentNamed(name, data)
}
