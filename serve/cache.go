package serve

import (
	"bytes"
	"compress/gzip"
	"sync"
)

// maxCachedAnswers bounds a snapshot's answer cache (about 2 KB an
// extension JSON: some 16 MB at most).
const maxCachedAnswers = 8192

// answer is one encoded JSON answer, and its gzip once asked for.
type answer struct {
	json []byte
	once sync.Once
	gz   []byte
}

// gzipped returns the answer compressed, made on first use.
func (a *answer) gzipped() []byte {
	a.once.Do(func() {
		var buf bytes.Buffer
		z := gzipPool.Get().(*gzip.Writer)
		z.Reset(&buf)
		z.Write(a.json)
		z.Close()
		gzipPool.Put(z)
		a.gz = buf.Bytes()
	})
	return a.gz
}

// answerCache keeps a snapshot's encoded answers by base URL and path:
// in one snapshot a path always gets the same answer. It is emptied
// when full, so memory stays bounded on any catalog.
type answerCache struct {
	mu sync.Mutex
	m  map[string]*answer
}

func (c *answerCache) get(key string) *answer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

func (c *answerCache) put(key string, b []byte) *answer {
	a := &answer{json: b}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedAnswers {
		c.m = make(map[string]*answer)
	}
	c.m[key] = a
	return a
}
