package install

import (
	"context"
	"fmt"
	"time"

	"github.com/airvsx/airvsx/index"
)

// Disable marks the installed extension id disabled, with reason, in
// DIR/installed.json (under the directory's lock): what the host does to
// an extension whose activation keeps crashing it. Its files stay; install
// it again to enable it. Like every write of installed.json it seals
// every record (see Load; opts.StateDir holds the key, made if missing).
func Disable(ctx context.Context, dir string, id index.ID, reason string, opts DirOptions) error {
	return update(ctx, dir, opts, "disable "+id.String(), func(x *Index) error {
		r := x.Find(id)
		if r == nil {
			return fmt.Errorf("%w in %s", ErrNotInstalled, dir)
		}
		r.Enabled, r.Reason = false, reason
		return nil
	})
}

// MarkActivated records t as the last activation of each of ids that is
// installed (the others are ignored: uninstalled meanwhile), sealing
// every record as Disable does.
func MarkActivated(ctx context.Context, dir string, ids []index.ID, t time.Time, opts DirOptions) error {
	return update(ctx, dir, opts, "record activation", func(x *Index) error {
		for _, id := range ids {
			if r := x.Find(id); r != nil {
				r.LastActivation = t.UTC()
			}
		}
		return nil
	})
}

// update changes installed.json with change, under the lock.
func update(ctx context.Context, dir string, opts DirOptions, what string, change func(*Index) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d, err := openForWrite(ctx, dir, false, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer d.close()
	if err := change(d.idx); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := d.writeIndex(d.idx); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
