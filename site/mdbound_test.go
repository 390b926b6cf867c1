package site

import (
	"bytes"
	"fmt"
	"html"
	"strings"
	"testing"
	"time"
)

// repeatTo is unit repeated to at most n bytes, after head and before
// tail (both counted).
func repeatTo(n int, head, unit, tail string) string {
	k := max(0, (n-len(head)-len(tail))/len(unit))
	return head + strings.Repeat(unit, k) + tail
}

// pathological are Markdown shapes that made goldmark (or anything
// before the shape scan) superlinear, after cmark's pathological tests
// and the reports of issue 9; each makes a document of n bytes.
var pathological = []struct {
	name string
	make func(n int) string
}{
	{"unclosed links [a](", func(n int) string { return repeatTo(n, "", "[a](", "") }},
	{"unclosed links, one a line", func(n int) string { return repeatTo(n, "", "[a](\n", "") }},
	{"unclosed links [a](b", func(n int) string { return repeatTo(n, "", "[a](b", "") }},
	{"unclosed links [a](<b", func(n int) string { return repeatTo(n, "", "[a](<b", "") }},
	{"unclosed images ![a](", func(n int) string { return repeatTo(n, "", "![a](", "") }},
	{"link openers [", func(n int) string { return repeatTo(n, "", "[", "") }},
	{"link openers [a", func(n int) string { return repeatTo(n, "", "[a", "") }},
	{"link closers a]", func(n int) string { return repeatTo(n, "", "a]", "") }},
	{"nested brackets", func(n int) string { k := n / 2; return strings.Repeat("[", k-1) + "a" + strings.Repeat("]", k-1) }},
	{"[ (](", func(n int) string { return repeatTo(n, "", "[ (](", "") }},
	{"link openers and emphasis closers", func(n int) string { return repeatTo(n, "", "[ a_", "") }},
	{"block quotes > ", func(n int) string { return repeatTo(n, "", "> ", "a") }},
	{"block quotes >", func(n int) string { return repeatTo(n, "", ">", "*x*") }},
	{"block quotes under the limit", func(n int) string {
		return repeatTo(n, strings.Repeat("> ", maxNesting), "[a](", "")
	}},
	{"ordered lists 1. ", func(n int) string { return repeatTo(n, "", "1. ", "a") }},
	{"bullet lists - ", func(n int) string { return repeatTo(n, "", "- ", "a") }},
	{"lists under the limit, lazy lines", func(n int) string {
		return repeatTo(n, strings.Repeat("- ", maxNesting)+"a\n", "b\n", "")
	}},
	{"lists nested by indentation", func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n-2*i-4; i++ {
			b.WriteString(strings.Repeat("  ", i) + "- a\n")
		}
		return b.String()
	}},
	{"emphasis *", func(n int) string { return repeatTo(n, "", "*", "") }},
	{"emphasis openers _a ", func(n int) string { return repeatTo(n, "", "_a ", "") }},
	{"emphasis closers a_ ", func(n int) string { return repeatTo(n, "", "a_ ", "") }},
	{"mismatched emphasis *a_ ", func(n int) string { return repeatTo(n, "", "*a_ ", "") }},
	{"emphasis multiple of 3", func(n int) string { return repeatTo(n, "a**b", "c* ", "") }},
	{"nested strong emphasis", func(n int) string {
		k := n / 16
		return strings.Repeat("*a **a ", k) + "b" + strings.Repeat(" a** a*", k)
	}},
	{"less-than <", func(n int) string { return repeatTo(n, "", "<", "") }},
	{"unclosed HTML <a ", func(n int) string { return repeatTo(n, "", "<a ", "") }},
	{"unclosed comments", func(n int) string { return repeatTo(n, "</", "<!--", "") }},
	{"backticks `", func(n int) string { return repeatTo(n, "", "`", "") }},
	{"backtick runs of growing length", func(n int) string {
		var b strings.Builder
		for i := 1; b.Len()+i+1 < n; i++ {
			b.WriteString("e" + strings.Repeat("`", i))
		}
		return b.String()
	}},
	{"link reference definitions", func(n int) string { return repeatTo(n, "", "[a]: b\n", "") }},
	{"link reference definitions, titles", func(n int) string { return repeatTo(n, "", "[a]: b '\n", "") }},
	{"link reference definitions in a list", func(n int) string { return repeatTo(n, "", "- [a]: b\n", "") }},
	{"a long reference used often", func(n int) string {
		return repeatTo(n, "[a]: /"+strings.Repeat("x", n/2)+"\n\n", "[a]", "")
	}},
	{"table, many columns", func(n int) string {
		k := n / 5
		return strings.Repeat("|a", k) + "\n" + strings.Repeat("|-", k) + "\n" + strings.Repeat("|b", k/2)
	}},
	{"table, 1000 columns, many rows", func(n int) string {
		return repeatTo(n, strings.Repeat("|a", 1000)+"\n"+strings.Repeat("|-", 1000)+"\n", strings.Repeat("|b", 1000)+"\n", "")
	}},
	{"table, 100 columns, many rows", func(n int) string {
		return repeatTo(n, strings.Repeat("|a", 100)+"\n"+strings.Repeat("|-", 100)+"\n", strings.Repeat("|b", 100)+"\n", "")
	}},
	{"table, many rows of links", func(n int) string { return repeatTo(n, "|a|b|\n|-|-|\n", "|[a](|*b_|\n", "") }},
	{"headings", func(n int) string { return repeatTo(n, "", "# a\n", "") }},
	{"paragraphs", func(n int) string { return repeatTo(n, "", "a\n\n", "") }},
	{"list items", func(n int) string { return repeatTo(n, "", "- a\n", "") }},
	{"emphasis *a* ", func(n int) string { return repeatTo(n, "", "*a* ", "") }},
	{"links [a](b) ", func(n int) string { return repeatTo(n, "", "[a](b) ", "") }},
	{"HTML tags <b>", func(n int) string { return repeatTo(n, "", "<b>", "") }},
	{"HTML headings in an HTML block", func(n int) string { return repeatTo(n, "<div>\n", "<h1 id=a>a</h1>", "") }},
	{"quotes under the limit, each its own", func(n int) string {
		return repeatTo(n, "", strings.Repeat("> ", maxNesting)+"a\n\n", "")
	}},
	{"strikethrough ~", func(n int) string { return repeatTo(n, "", "~", "") }},
	{"entities &a", func(n int) string { return repeatTo(n, "", "&a", "") }},
	{"NUL bytes", func(n int) string { return repeatTo(n, "", "abc\x00de\x00", "") }},
	{"autolinks www.", func(n int) string { return repeatTo(n, "", "www.a.", "") }},
	{"quote then lazy links", func(n int) string { return repeatTo(n, "> <div>\n", "[a](", "") }},
	{"fence in a quote then links", func(n int) string { return repeatTo(n, "> ```\n", "[a](", "") }},
	{"fence in an item then lazy links", func(n int) string { return repeatTo(n, "- ```\n- x\n", "[a](", "") }},
	{"ordered items that cannot interrupt", func(n int) string { return repeatTo(n, "x\n", "2. [a](\n", "") }},
}

// renderPathological renders src and reports how long it took.
func renderPathological(tb testing.TB, r *docRenderer, src []byte) time.Duration {
	start := time.Now()
	if _, err := r.Render(src, "readme", nil); err != nil {
		tb.Fatalf("Render: %v", err)
	}
	return time.Since(start)
}

// largestAccepted is the size, at most n, of the largest document make
// makes that is still parsed as Markdown (by a binary search, taking the
// shape scan's verdict as growing with size), or 0.
func largestAccepted(make func(int) string, n int) int {
	if shapeProblem([]byte(make(n))) == "" {
		return n
	}
	lo, hi := 0, n // make(lo) accepted (or lo = 0), make(hi) refused
	for hi-lo > 64 {
		mid := (lo + hi) / 2
		if shapeProblem([]byte(make(mid))) == "" {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// BenchmarkRenderMarkdownPathological renders every pathological shape
// twice: at MaxDocumentBytes, and at the largest size the shape scan
// still lets goldmark parse (the worst case of the bound). It reports the
// worst time of all (worst-ms, goal < 1000); -v logs each.
func BenchmarkRenderMarkdownPathological(b *testing.B) {
	r := newDocRenderer()
	type doc struct {
		name string
		src  []byte
		t    time.Duration
	}
	var docs []*doc
	for _, p := range pathological {
		docs = append(docs, &doc{name: p.name + ", at the cap", src: []byte(p.make(MaxDocumentBytes))})
		if n := largestAccepted(p.make, MaxDocumentBytes); n > 0 && n < MaxDocumentBytes {
			docs = append(docs, &doc{name: p.name + ", largest parsed", src: []byte(p.make(n))})
		}
	}
	for b.Loop() {
		for _, d := range docs {
			d.t = max(d.t, renderPathological(b, r, d.src))
		}
	}
	worst := docs[0]
	for _, d := range docs {
		b.Logf("%-60s %8d bytes %v", d.name, len(d.src), d.t)
		if d.t > worst.t {
			worst = d
		}
	}
	b.ReportMetric(float64(worst.t.Microseconds())/1000, "worst-ms")
	b.Logf("worst: %s, %v", worst.name, worst.t)
}

// TestRenderMarkdownPathological: the two shapes of issue 9, at the size
// cap, render (here as plain text, with a note saying why), and every
// other pathological shape renders without error. Their time is the
// benchmark's and the fuzz target's to check, not a unit test's.
func TestRenderMarkdownPathological(t *testing.T) {
	r := newDocRenderer()
	for _, tc := range []struct {
		name, src, want string
	}{
		{"[a]( at the cap", repeatTo(MaxDocumentBytes, "", "[a](", ""), "too many unclosed or unmatched links"},
		{"> at the cap", repeatTo(MaxDocumentBytes, "", "> ", "a"), "nested block quotes or list items"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := r.Render([]byte(tc.src), "readme", nil)
			if err != nil {
				t.Fatal(err)
			}
			s := string(h)
			if !strings.HasPrefix(s, `<p class="doc-note">This readme is shown as plain text: `) || !strings.Contains(s, tc.want) {
				t.Errorf("no note saying why: %.300s", s)
			}
			if !strings.Contains(s, `<pre class="plain-doc">`+html.EscapeString(tc.src[:100])) {
				t.Errorf("the text is not shown: %.300s", s)
			}
		})
	}
}

// TestRenderMarkdownShapes: ordinary documents are still Markdown, and
// the plain text is escaped.
func TestRenderMarkdownShapes(t *testing.T) {
	r := newDocRenderer()
	list := strings.Repeat("- [link](https://example.com/x) and *emphasis* `code`\n", 2000)
	code := "```js\n" + strings.Repeat("f([a], (b) => <c>*d*_e_);\n", 5000) + "```\n"
	tbl := "<table>\n" + strings.Repeat("<tr><td><a href=\"https://example.com\">[x](y)</a></td></tr>\n", 3000) + "</table>\n"
	for _, tc := range []struct {
		name, src string
		plain     bool
	}{
		{"long list of links", list, false},
		{"long code block", code, false},
		{"long HTML table", tbl, false},
		{"quotes 32 deep", strings.Repeat("> ", maxNesting) + "a", false},
		{"quotes 33 deep", strings.Repeat("> ", maxNesting+1) + "<script>x</script>", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := r.Render([]byte(tc.src), "readme", nil)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Contains(string(h), `class="plain-doc"`)
			if got != tc.plain {
				t.Errorf("plain text = %v, want %v (%s)", got, tc.plain, shapeProblem([]byte(tc.src)))
			}
			if strings.Contains(string(h), "<script") {
				t.Errorf("unescaped: %.300s", h)
			}
		})
	}
}

// FuzzRenderMarkdownTime fails when a document under the size cap takes
// more than 2 s of CPU time to render (on Linux the rendering thread's
// CPU time, which a loaded machine does not inflate; elsewhere wall
// time). The goal is 1 s (see the benchmark); the bound is doubled
// because the fuzzer's coverage instrumentation slows the parser down.
// Each input is repeated up to the cap, so a shape the fuzzer finds is
// tested at full size.
func FuzzRenderMarkdownTime(f *testing.F) {
	for _, p := range pathological {
		f.Add([]byte(p.make(256)))
	}
	f.Add([]byte("# t\n\n- [a](b) *c* `d`\n\n> e\n\n|a|b|\n|-|-|\n|c|d|\n"))
	r := newDocRenderer()
	f.Fuzz(func(t *testing.T, unit []byte) {
		if len(unit) == 0 {
			return
		}
		src := bytes.Repeat(unit, MaxDocumentBytes/len(unit))
		var err error
		d := cpuTime(func() { _, err = r.Render(src, "readme", nil) })
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		if d > 2*time.Second {
			t.Fatalf("rendering %d bytes (%q repeated) took %v of CPU time", len(src), fmt.Sprintf("%.80s", unit), d)
		}
	})
}
