package transfer

import (
	"errors"
	"fmt"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
)

// checkSpace compares what the plan writes with the destination's free
// space, before anything is written: a USB stick that fills up half-way
// costs the time of the copy and tells the operator nothing they could
// not have been told first. A destination that cannot say is not
// checked. A dry run records both figures and refuses nothing.
func (c *copier) checkSpace() error {
	space := c.opts.FreeSpace
	if sp, ok := store.As[store.FreeSpacer](c.dst); ok {
		space = sp.FreeSpace
	}
	if space == nil {
		return nil
	}
	free, block, err := space()
	if errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("copy to %s: %w", c.opts.Dest, err)
	}
	c.rep.DestFree, c.rep.Needs = free, c.plan.needs(block)
	if c.opts.DryRun || c.rep.Needs <= free {
		return nil
	}
	return fmt.Errorf("copy: %s has %s free; the copy needs about %s (%d files, %s): free some space there, or copy to a larger place; nothing was copied: %w",
		c.opts.Dest, index.FormatBytes(free), index.FormatBytes(c.rep.Needs), c.rep.Files(), index.FormatBytes(c.rep.Bytes), ErrNoSpace)
}

// dirEntryBytes is about what a directory entry of a blob takes (ext4:
// 8 bytes and the name, rounded up to 4).
const dirEntryBytes = 80

// needs is about how much of a file system with blocks of block bytes
// the plan writes: every blob, manifest and metadata file in whole
// blocks, a block for each tag (an index.json written again) and for each
// repository's layout files and directories.
func (p *plan) needs(block int64) int64 {
	block = max(block, 1)
	whole := func(n int64) int64 { return (n + block - 1) / block * block }
	var n int64
	repos := map[string]bool{}
	for _, b := range p.blobs {
		n += whole(b.size)
		repos[b.repo] = true
	}
	for _, m := range p.manifests {
		n += whole(int64(len(m.data)))
	}
	for _, m := range p.meta {
		n += whole(m.size)
	}
	// oci-layout, index.json and three directories per repository, and
	// the registry's own directories (extensions, metadata and below).
	n += int64(len(p.tags)+5*len(repos)+4) * block
	// A directory grows by an entry for each new file (a blob's name is
	// 64 hex digits).
	n += int64(len(p.blobs)+len(p.manifests)+len(p.meta)) * dirEntryBytes
	return n
}
