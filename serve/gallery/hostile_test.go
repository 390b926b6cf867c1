package gallery

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
)

// TestHostileQueries answers the most expensive queries the bounds let
// through over a generated 50,000-entry catalog: each must be answered
// or refused, within a page's worth of output, and not take long.
func TestHostileQueries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 50,000-entry catalog; run without -short")
	}
	cat := benchCatalog(50000)
	ix := New(cat)
	var uuids, names []string
	for i := 0; i < MaxCriteria-2; i++ {
		id := cat.Entries[(i*37)%len(cat.Entries)].ID
		uuids = append(uuids, crit(4, ExtensionUUID(id)))
		names = append(names, crit(7, id.String()))
	}
	tests := []struct {
		name    string
		body    string
		refused bool
	}{
		{"every version of a thousand extensions", body(0x1|0x2|0x10|0x80, 2, MaxPageSize, 1), true},
		{"latest of a thousand extensions", body(950, 2, MaxPageSize, 1), false},
		{"last page", body(950, 1, MaxPageSize, 5), false},
		{"page past the end", body(950, 1, MaxPageSize, MaxPageNumber), false},
		{"a thousand UUIDs", body(950, 0, MaxPageSize, 1, uuids...), false},
		{"a thousand names sorted", body(950, 2, MaxPageSize, 1, names...), false},
		{"sixteen one-letter prefixes", body(950, 0, MaxPageSize, 1, crit(10, strings.Repeat("a b c d e f g h i j k l m n o p ", 1)[:31])), false},
		{"one-letter prefix, all sorted", body(950, 0, MaxPageSize, 1, crit(10, "a")), false},
		{"every category", body(950, 1, MaxPageSize, 1, crit(5, "Themes"), crit(5, "Snippets"), crit(5, "Other"), crit(5, "Linters")), false},
		{"platform walk to the end", body(950, 2, MaxPageSize, 5, `{"filterType":8,"value":"alpine-arm64"}`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery(strings.NewReader(tt.body))
			if err != nil {
				t.Fatalf("ParseQuery: %v", err)
			}
			start := time.Now()
			out, err := ix.Query(q, testBase)
			took := time.Since(start)
			if tt.refused {
				if !errors.Is(err, ErrTooLarge) || !errors.Is(err, ErrBadQuery) {
					t.Fatalf("answered (%d bytes, err %v); want it refused as too large", len(out), err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Query: %v", err)
			}
			if len(out) > 16<<20 {
				t.Errorf("%d bytes", len(out))
			}
			// Generous: the machine is shared; a real regression (work
			// in the catalog's size per word or per criterion squared)
			// takes far longer.
			if took > 2*time.Second {
				t.Errorf("took %v", took)
			}
			t.Logf("%d bytes in %v", len(out), took)
		})
	}
}

// TestConcurrentQueries runs queries and Latest from many goroutines
// over one Index (run with -race).
func TestConcurrentQueries(t *testing.T) {
	ix := New(testCatalog())
	bodies := []string{
		body(950, 0, 50, 1, crit(10, "python")),
		body(950, 0, 50, 1, crit(10, "rust")),
		body(439, 0, 3, 1, crit(7, "ms-python.python"), crit(7, "rust-lang.rust-analyzer")),
		body(950, 1, 2, 2, `{"filterType":8,"value":"linux-x64"}`),
	}
	want := make([]string, len(bodies))
	for i, b := range bodies {
		q, _ := ParseQuery(strings.NewReader(b))
		out, _ := ix.Query(q, testBase)
		want[i] = string(out)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for i := 0; i < 200; i++ {
				k := (g + i) % len(bodies)
				q, err := ParseQuery(strings.NewReader(bodies[k]))
				if err != nil {
					errs <- err
					return
				}
				out, _ := ix.Query(q, testBase)
				if string(out) != want[k] {
					errs <- fmt.Errorf("goroutine %d: query %d answered differently", g, k)
					return
				}
				if _, ok := ix.Latest("ms-python", "python", "", testBase); !ok {
					errs <- fmt.Errorf("Latest failed")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestOneHugeExtensionAnswered checks that the response cap never
// refuses one extension's versions: VS Code needs them all to find a
// compatible one (getCompatibleExtension).
func TestOneHugeExtensionAnswered(t *testing.T) {
	cat := &index.Catalog{}
	for v := 0; v < 1400; v++ {
		for _, p := range index.Platforms[2:] {
			e := build("big.one", fmt.Sprintf("1.%d.0", v), p, 1)
			e.Upstream.Signed = true
			cat.Entries = append(cat.Entries, e)
		}
	}
	cat.Entries = append(cat.Entries, build("small.other", "1.0.0", index.Universal, 1))
	cat.Normalize()
	ix := New(cat)
	q, err := ParseQuery(strings.NewReader(body(439, 0, 1, 1, crit(7, "big.one"))))
	if err != nil {
		t.Fatal(err)
	}
	out, err := ix.Query(q, testBase)
	if err != nil {
		t.Fatalf("one extension of %d builds refused: %v", len(cat.Entries)-1, err)
	}
	if len(out) <= MaxResponseBytes {
		t.Fatalf("%d bytes: the test no longer passes the cap", len(out))
	}
	q, _ = ParseQuery(strings.NewReader(body(439, 0, 2, 1, crit(7, "big.one"), crit(7, "small.other"))))
	if _, err := ix.Query(q, testBase); !errors.Is(err, ErrTooLarge) {
		t.Errorf("two extensions over the cap: %v, want ErrTooLarge", err)
	}
}
