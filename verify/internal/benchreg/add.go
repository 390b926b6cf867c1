package benchreg

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
)

// Add adds o.Entries entries of new extensions to the registry Make made
// at dir (numbered from first, so first must be past the entries it
// holds) and signs the next catalog serial, chained to the current one,
// with the key at keyPrefix.key: what a sync that found them upstream
// would sign. o.Signed is not supported (the registry's upstream key is
// not kept).
func Add(ctx context.Context, dir, keyPrefix string, first int, o Options) error {
	if o.Entries <= 0 || o.Signed {
		return fmt.Errorf("benchmark registry %s: add: want a number of unsigned entries", dir)
	}
	o.defaults()
	pemKey, err := os.ReadFile(keyPrefix + ".key")
	if err != nil {
		return err
	}
	signer, err := trust.ParseSigner(keyPrefix+".key", pemKey, nil)
	if err != nil {
		return err
	}
	st, err := dirstore.Open(dir, dirstore.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	prev, tr, err := trust.ReadOwnCatalog(ctx, st)
	if err != nil {
		return fmt.Errorf("benchmark registry %s: %w", dir, err)
	}
	m := &maker{o: o, first: first}
	if o.Size > maxInMemory {
		if m.tmp, err = os.MkdirTemp(filepath.Dir(dir), "benchreg-tmp-"); err != nil {
			return err
		}
		defer os.RemoveAll(m.tmp)
	}
	lw, err := openLayoutWriter(dir)
	if err != nil {
		return err
	}
	defer lw.Close()
	entries, err := makeEntries(ctx, lw, m)
	if err != nil {
		return fmt.Errorf("benchmark registry %s: %w", dir, err)
	}
	if err := lw.Close(); err != nil {
		return err
	}
	cat := *prev
	cat.Serial, cat.Previous, cat.Created = prev.Serial+1, tr.CatalogDigest, o.Now
	cat.Entries = append(append(make([]index.Entry, 0, len(prev.Entries)+len(entries)), prev.Entries...), entries...)
	index.SortEntries(cat.Entries)
	cat.Shards = nil
	cat.ShardDigits = index.ShardDigitsFor(len(cat.Entries), prev.ShardDigits)
	if err := cat.Validate(); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	now := o.Now
	if _, err := trust.PublishCatalog(ctx, trust.Metadata(ctx, st), &cat, signer, trust.PublishOptions{Now: func() time.Time { return now }}); err != nil {
		return err
	}
	return st.Close()
}
