package openvsx

// The query endpoint: every version of an extension, with its metadata,
// a page of many versions at a time.

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"github.com/airvsx/airvsx/index"
)

// queryPageSize is the page size asked of /api/-/query (its default).
const queryPageSize = 100

// queryPage is QueryResultJson.
type queryPage struct {
	Offset     int         `json:"offset"`
	TotalSize  int         `json:"totalSize"`
	Extensions []Extension `json:"extensions"`
}

// QueryVersions lists every version of id for every platform with its
// full metadata (ExtensionJson, files included), paging through GET
// /api/-/query?extensionId={ns}.{name}&includeAllVersions=true 100 at a
// time: one request for up to 100 versions, where /version-references
// and ExtensionVersion take one per page and one more per version. Each
// Extension.Raw holds the entry as upstream sent it. Offsets are
// multiples of the page size; if upstream answers shorter pages than
// asked, the page size follows. Duplicates (version, platform) from
// overlapping pages are dropped. It fails beyond MaxVersionReferences, if
// a page brings nothing new before totalSize is reached, or if upstream
// answers for another extension. An extension upstream does not have
// yields an empty list.
func (c *Client) QueryVersions(ctx context.Context, id index.ID) ([]*Extension, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	var out []*Extension
	seen := map[string]bool{}
	size, offset := queryPageSize, 0
	for {
		q := url.Values{}
		q.Set("extensionId", id.Namespace+"."+id.Name)
		q.Set("includeAllVersions", "true")
		q.Set("size", strconv.Itoa(size))
		q.Set("offset", strconv.Itoa(offset))
		u := c.apiURL("-", "query") + "?" + q.Encode()
		var p queryPage
		if _, err := c.getJSON(ctx, u, &p); err != nil {
			return nil, err
		}
		if p.TotalSize > MaxVersionReferences {
			return nil, fmt.Errorf("versions of %s: upstream lists %d, more than %d", id, p.TotalSize, MaxVersionReferences)
		}
		added := 0
		for i := range p.Extensions {
			e := &p.Extensions[i]
			if err := e.check(u, id, "", ""); err != nil {
				return nil, err
			}
			plat, err := e.Platform()
			if err != nil {
				return nil, fmt.Errorf("GET %s: %w", u, err)
			}
			k := e.Version + "@" + string(plat)
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, e)
			added++
		}
		if len(out) > MaxVersionReferences {
			return nil, fmt.Errorf("versions of %s: more than %d", id, MaxVersionReferences)
		}
		if len(out) >= p.TotalSize {
			return out, nil
		}
		if added == 0 {
			return nil, fmt.Errorf("versions of %s: page at offset %d brought nothing new (have %d of %d)", id, offset, len(out), p.TotalSize)
		}
		if len(p.Extensions) < size {
			size = len(p.Extensions) // upstream caps the page size
		}
		offset += len(p.Extensions)
		if offset%size != 0 {
			offset = offset / size * size // keep to multiples of the page size
		}
	}
}
