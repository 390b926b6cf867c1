package openvsx

// The ETag cache: conditional GETs of JSON answered from memory on a 304.

import (
	"bytes"
	"sync"
)

// etagCache keeps the last body of each JSON URL with its ETag, so a 304
// can be answered from memory. It holds at most maxCacheBytes.
type etagCache struct {
	mu    sync.Mutex
	m     map[string]*cacheEntry
	bytes int
}

type cacheEntry struct {
	etag string
	body []byte
}

// maxCacheBytes bounds the ETag cache.
const maxCacheBytes = 32 << 20

func (c *etagCache) get(key string) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

func (c *etagCache) put(key, etag string, body []byte) {
	if len(body) > maxCacheBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*cacheEntry{}
	}
	if old := c.m[key]; old != nil {
		c.bytes -= len(old.body)
		delete(c.m, key)
	}
	for k, e := range c.m { // evict arbitrary entries until the body fits
		if c.bytes+len(body) <= maxCacheBytes {
			break
		}
		c.bytes -= len(e.body)
		delete(c.m, k)
	}
	c.m[key] = &cacheEntry{etag: etag, body: bytes.Clone(body)}
	c.bytes += len(body)
}
