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
// it again to enable it.
func Disable(ctx context.Context, dir string, id index.ID, reason string) error {
	return update(ctx, dir, "disable "+id.String(), func(x *Index) error {
		r := x.Find(id)
		if r == nil {
			return fmt.Errorf("%w in %s", ErrNotInstalled, dir)
		}
		r.Enabled, r.Reason = false, reason
		return nil
	})
}

// MarkActivated records t as the last activation of each of ids that is
// installed (the others are ignored: uninstalled meanwhile).
func MarkActivated(ctx context.Context, dir string, ids []index.ID, t time.Time) error {
	return update(ctx, dir, "record activation", func(x *Index) error {
		for _, id := range ids {
			if r := x.Find(id); r != nil {
				r.LastActivation = t.UTC()
			}
		}
		return nil
	})
}

// update changes installed.json with change, under the lock.
func update(ctx context.Context, dir, what string, change func(*Index) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d, err := openForWrite(dir, false)
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
