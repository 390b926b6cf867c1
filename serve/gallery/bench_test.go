package gallery

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
)

// benchCatalog generates a catalog of n entries shaped like Open VSX's
// (as verify/internal/benchreg sizes registries: about ten packages an
// extension): n/10 extensions of 200 publishers; one in ten is built
// for three platforms (three versions each, plus one more), the others
// have ten universal versions, the newest of one in five a
// pre-release. Names, descriptions, categories and tags come from fixed
// vocabularies with a fixed seed, so runs compare.
func benchCatalog(n int) *index.Catalog {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("%c%c%cword%d", 'a'+rng.IntN(26), 'a'+rng.IntN(26), 'a'+rng.IntN(26), i)
	}
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	cats := []string{"Programming Languages", "Snippets", "Linters", "Themes", "Debuggers", "Formatters", "Keymaps", "SCM Providers", "Other", "Extension Packs", "Language Packs", "Data Science", "Machine Learning", "Visualization", "Notebooks", "Education", "Testing"}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	cat := &index.Catalog{Format: index.CatalogFormat, Serial: 1, Created: base}
	for x := 0; len(cat.Entries) < n; x++ {
		id := index.ID{Namespace: fmt.Sprintf("pub%03d", x%200), Name: fmt.Sprintf("ext-%05d-%s", x, vocab[x%len(vocab)])}
		e := index.Entry{
			ID: id, Platform: index.Universal,
			ManifestDigest: "sha256:" + strings.Repeat("a", 64), ManifestSize: 500,
			VsixSHA256: strings.Repeat("b", 64), VsixSize: 1 << 20,
			Engine: "^1.80.0", DisplayName: words(3), Description: words(12),
			Categories: []string{cats[rng.IntN(len(cats))]},
			Tags:       []string{vocab[rng.IntN(300)], vocab[rng.IntN(300)], vocab[rng.IntN(300)]},
			Repository: "https://github.com/" + id.Namespace + "/" + id.Name + ".git",
			Upstream:   index.Signature{Signed: x%2 == 0, KeyID: "k"},
		}
		if x%2 != 0 {
			e.Upstream.KeyID = ""
		}
		day := rng.IntN(700)
		if x%10 == 0 {
			for v := 0; v < 3; v++ {
				for _, p := range []index.Platform{index.LinuxX64, index.DarwinArm64, index.Win32X64} {
					b := e
					b.Version, b.Platform, b.Published = fmt.Sprintf("1.%d.0", v), p, base.AddDate(0, 0, day+v)
					cat.Entries = append(cat.Entries, b)
				}
			}
			b := e
			b.Version, b.Published = "0.9.0", base.AddDate(0, 0, day-1)
			cat.Entries = append(cat.Entries, b)
			continue
		}
		for v := 0; v < 10; v++ {
			b := e
			b.Version, b.Published = fmt.Sprintf("1.0.%d", v), base.AddDate(0, 0, day+v)
			b.PreRelease = v == 9 && x%5 == 1
			cat.Entries = append(cat.Entries, b)
		}
	}
	cat.Entries = cat.Entries[:n]
	cat.Normalize()
	return cat
}

// BenchmarkNew indexes a generated 50,000-entry catalog; heap-MB is
// what the index keeps (beyond the catalog it was built from).
func BenchmarkNew(b *testing.B) {
	cat := benchCatalog(50000)
	b.ReportAllocs()
	for b.Loop() {
		New(cat)
	}
	b.StopTimer()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ix := New(cat)
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MB")
	runtime.KeepAlive(ix)
}

// benchQueries are the bodies VS Code sends most (testdata/vscode),
// over the generated catalog.
func benchQueries(cat *index.Catalog) map[string]string {
	var some []string
	for i := 0; i < 50; i++ {
		some = append(some, crit(7, cat.Entries[i*1000].ID.String()))
	}
	first := cat.Entries[0].ID
	return map[string]string{
		"search-word":      body(950, 0, 50, 1, crit(10, strings.Fields(cat.Entries[777].DisplayName)[0])),
		"search-prefix":    body(950, 0, 50, 1, crit(10, "ab")),
		"search-two-words": body(950, 0, 50, 1, crit(10, strings.Join(strings.Fields(cat.Entries[1234].Description)[:2], " "))),
		"search-publisher": body(950, 0, 50, 1, crit(10, `publisher:"`+first.Namespace+`"`)),
		"category":         body(950, 0, 50, 1, crit(5, "themes")),
		"popular":          body(950, 4, 50, 1),
		"popular-page-100": body(950, 4, 50, 100),
		"target-platform":  body(950, 1, 50, 10, `{"filterType":8,"value":"linux-x64"}`),
		"get-one":          body(950, 0, 1, 1, crit(7, first.String())),
		"get-batch-50":     body(950, 0, 50, 1, some...),
		"all-versions":     body(439, 0, 1, 1, crit(4, ExtensionUUID(first))),
	}
}

// BenchmarkQuery answers each body (ParseQuery and Query, as the server
// does) over the generated 50,000-entry catalog.
func BenchmarkQuery(b *testing.B) {
	cat := benchCatalog(50000)
	ix := New(cat)
	for name, q := range benchQueries(cat) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var size int
			for b.Loop() {
				pq, err := ParseQuery(strings.NewReader(q))
				if err != nil {
					b.Fatal(err)
				}
				out, err := ix.Query(pq, testBase)
				if err != nil {
					b.Fatal(err)
				}
				size = len(out)
			}
			b.ReportMetric(float64(size), "resp-bytes")
		})
	}
}

// BenchmarkQueryParallel answers the search VS Code sends when one types
// a word, from GOMAXPROCS goroutines: queries/s on this machine's cores.
func BenchmarkQueryParallel(b *testing.B) {
	cat := benchCatalog(50000)
	ix := New(cat)
	q := benchQueries(cat)["search-word"]
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			pq, err := ParseQuery(strings.NewReader(q))
			if err != nil {
				b.Error(err)
				return
			}
			if _, err := ix.Query(pq, testBase); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkLatest(b *testing.B) {
	cat := benchCatalog(50000)
	ix := New(cat)
	id := cat.Entries[0].ID
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := ix.Latest(id.Namespace, id.Name, "", testBase); !ok {
			b.Fatal("not found")
		}
	}
}
