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

// Bounds of a snapshot's cache of gallery answers: a body of at most
// maxCachedQueryBody bytes whose answer is at most maxCachedQueryAnswer
// bytes is kept, maxCachedQueryBytes of answers (and their gzip) in all.
// Editors send the same few bodies again and again (VS Code's opening
// "popular" list, its check for updates of what is installed), each
// answer of a page of 50 extensions about 160 KB of JSON.
const (
	maxCachedQueryBody   = 8 << 10
	maxCachedQueryAnswer = 1 << 20
	maxCachedQueryBytes  = 16 << 20
)

// queryCache keeps a snapshot's gallery answers by base URL and query
// body: in one snapshot a body always gets the same answer. It is
// emptied when full, so memory stays bounded whatever is asked.
type queryCache struct {
	mu    sync.Mutex
	m     map[string]*answer
	bytes int
}

// key returns the cache key of body asked at base, and false when the
// body is too large to keep.
func (c *queryCache) key(base string, body []byte) (string, bool) {
	if len(body) > maxCachedQueryBody {
		return "", false
	}
	return base + "\x00" + string(body), true
}

func (c *queryCache) get(key string) *answer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

// put keeps b, the answer to key, when it is small enough, and returns
// it as an answer either way.
func (c *queryCache) put(key string, b []byte) *answer {
	a := &answer{json: b}
	if len(b) > maxCachedQueryAnswer {
		return a
	}
	// The answer and, once asked, its gzip (at most as large).
	cost := len(key) + 2*len(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.bytes+cost > maxCachedQueryBytes {
		c.m, c.bytes = make(map[string]*answer), 0
	}
	c.m[key] = a
	c.bytes += cost
	return a
}
