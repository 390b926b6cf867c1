package site

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// Markdown is parsed by goldmark, which is quadratic (or worse) in the
// size of some shapes of input: a paragraph of "[a](" or "*a_ " repeated
// (every unclosed link or unmatched delimiter rescans the rest of the
// paragraph), link reference definitions repeated within a paragraph,
// and block quotes or lists nested thousands deep on one line. goldmark
// cannot be stopped once started, so a document is first scanned (in
// linear time) for those shapes, and one past the limits below is shown
// as plain text, with a note saying why. The limits are far above what
// real READMEs use; BenchmarkRenderMarkdownPathological and
// FuzzRenderMarkdownTime measure the result.
const (
	// maxNesting is the most block quote and list markers one line may
	// open: goldmark's work per line grows with the square of it.
	maxNesting = 16
	// maxInlineWork bounds the sum, over the runs of lines that are
	// parsed as one inline unit (a paragraph, a list item's first lines,
	// a table), of the unit's length times the number of bytes in it that
	// can start or end a link, emphasis, code span or raw HTML: goldmark's
	// inline parsing is at worst about that product (about 1 ns each).
	maxInlineWork = 150_000_000
	// maxLinkBytes bounds the bytes of link and image destinations and
	// titles the rendered document would hold: a reference definition is
	// copied into every link that uses it, so a 500 KB destination used
	// 100,000 times would make 50 GB of HTML.
	maxLinkBytes = 4 << 20
	// maxElements bounds an estimate of how many elements the document
	// makes, which is what rendering, sanitizing and rewriting take time
	// in proportion to (a few microseconds each): every line outside code
	// blocks counts 10, each container it is in 8 more, each byte that
	// can start inline markup 2, each table cell separator 4. A 1 MB
	// document of ordinary prose and lists counts about 300,000.
	maxElements = 600_000
)

// shapeProblem returns why src is not parsed as Markdown ("" when it
// is), by the limits above.
func shapeProblem(src []byte) string {
	var s shapeScan
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if why := s.line(line); why != "" {
			return why
		}
	}
	s.endRun()
	if s.work > maxInlineWork {
		return s.workProblem()
	}
	return ""
}

func (s *shapeScan) elementsProblem() string {
	return fmt.Sprintf("it would make too many elements to render in bounded time (about %d, the limit is %d)", s.elems, maxElements)
}

// shapeScan is the state of shapeProblem between lines. It errs on the
// side of counting: a line it is unsure about is counted as inline text.
type shapeScan struct {
	fence      byte // '`' or '~' while in a fenced code block, else 0
	fenceLen   int
	fenceDepth int  // the containers the fence is in
	raw        bool // the run is an HTML block: not inline parsed
	runDepth   int  // the containers the run started in
	runLen     int  // bytes in the current inline run
	runSpecial int  // special bytes in it
	work       int  // the sum for maxInlineWork so far
	elems      int  // the estimate for maxElements so far
}

func (s *shapeScan) workProblem() string {
	return fmt.Sprintf("its paragraphs hold too many unclosed or unmatched links, emphasis marks, code spans or HTML tags to parse in bounded time (work %d, the limit is %d)", s.work, maxInlineWork)
}

// line takes one line (without its newline).
func (s *shapeScan) line(line []byte) string {
	c := containerPrefix(line)
	indent := len(c.rest) - len(bytes.TrimLeft(c.rest, " "))
	t := bytes.TrimLeft(c.rest, " \t")
	if s.fence != 0 && c.depth >= s.fenceDepth && !c.list {
		if n := fenceRun(t, s.fence); n >= s.fenceLen && len(bytes.TrimSpace(t[n:])) == 0 {
			s.fence = 0
		}
		return ""
	}
	s.fence = 0
	if d := nesting(line, c); d > maxNesting {
		return fmt.Sprintf("a line opens %d nested block quotes or list items (the limit is %d)", d, maxNesting)
	}
	if len(t) == 0 {
		s.endRun()
		return ""
	}
	if indent <= 3 {
		if n := fenceRun(t, t[0]); n >= 3 && (t[0] == '~' || t[0] == '`' && bytes.IndexByte(t[n:], '`') < 0) {
			s.endRun()
			s.fence, s.fenceLen, s.fenceDepth = t[0], n, c.depth
			return ""
		}
	}
	html := indent <= 3 && htmlBlockStart(t)
	if s.runLen == 0 || c.interrupt || c.depth > s.runDepth || html || (indent <= 3 && atxHeading(t)) ||
		(s.raw && c.depth != s.runDepth) {
		s.endRun()
		s.raw, s.runDepth = html, c.depth
	}
	special := 0
	for _, c := range t {
		switch c {
		case '[', ']', '(', ')', '<', '>', '*', '_', '~', '`', '!', '&', '\\', '"', '\'':
			special++
		case '|':
			s.elems += 4
		}
	}
	if !s.raw {
		s.runLen += len(line) + 1
		s.runSpecial += special
		if s.work+s.runLen*s.runSpecial > maxInlineWork {
			return s.workProblem()
		}
	}
	s.elems += 10 + 8*nesting(line, c) + 2*special
	if s.elems > maxElements {
		return s.elementsProblem()
	}
	return ""
}

func (s *shapeScan) endRun() {
	s.work += s.runLen * s.runSpecial
	s.runLen, s.runSpecial, s.raw = 0, 0, false
}

// nesting estimates how deep in block quotes and lists line is: its
// markers, and for a list item indented further than containerPrefix
// looks, one level for every two columns of indentation (the least a
// nested list needs).
func nesting(line []byte, c containers) int {
	col, i := 0, 0
	for ; i < len(line) && (line[i] == ' ' || line[i] == '\t'); i++ {
		col++
		if line[i] == '\t' {
			col += 3
		}
	}
	if col <= 3 {
		return c.depth
	}
	n, _ := listMarker(line[i:])
	if n == 0 {
		return c.depth
	}
	return max(c.depth, 1+col/2+containerPrefix(line[i+n:]).depth)
}

// containers is what starts a line: block quote and list markers.
type containers struct {
	rest  []byte // the line after them
	depth int    // how many
	list  bool   // one was a list marker
	// interrupt: one was a block quote marker, or a list marker that can
	// interrupt a paragraph (a bullet or 1. with text after it).
	interrupt bool
}

// containerPrefix strips the block quote and list markers that start
// line.
func containerPrefix(line []byte) containers {
	var c containers
	for {
		i := 0
		for i < len(line) && i < 3 && line[i] == ' ' {
			i++
		}
		if i < len(line) && line[i] == '>' {
			line = line[i+1:]
			if len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
				line = line[1:]
			}
			c.depth++
			c.interrupt = true
			continue
		}
		if n, first := listMarker(line[i:]); n > 0 {
			line = line[i+n:]
			c.depth++
			c.list = true
			if first && len(bytes.TrimSpace(line)) > 0 {
				c.interrupt = true
			}
			continue
		}
		c.rest = line
		return c
	}
}

// listMarker is the length of the list marker (with the space after it)
// at the start of b, or 0; first says whether it can start a list that
// interrupts a paragraph (a bullet, or the number 1).
func listMarker(b []byte) (n int, first bool) {
	for n < len(b) && n < 9 && '0' <= b[n] && b[n] <= '9' {
		n++
	}
	switch {
	case n > 0 && n < len(b) && (b[n] == '.' || b[n] == ')'):
		first = string(b[:n]) == "1"
		n++
	case n == 0 && len(b) > 0 && (b[0] == '-' || b[0] == '+' || b[0] == '*'):
		n, first = 1, true
	default:
		return 0, false
	}
	if n == len(b) {
		return n, first
	}
	if b[n] == ' ' || b[n] == '\t' {
		return n + 1, first
	}
	return 0, false
}

// atxHeading says whether t (after its indentation) is an ATX heading.
func atxHeading(t []byte) bool {
	n := fenceRun(t, '#')
	return n >= 1 && n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t')
}

// fenceRun is how many c start b.
func fenceRun(b []byte, c byte) int {
	n := 0
	for n < len(b) && b[n] == c {
		n++
	}
	return n
}

// htmlBlockTags are the tags that start an HTML block that ends at a
// blank line (CommonMark's type 6), whose lines are not inline parsed.
var htmlBlockTags = map[string]bool{}

func init() {
	for _, t := range []string{"address", "article", "aside", "base", "basefont", "blockquote", "body",
		"caption", "center", "col", "colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt",
		"fieldset", "figcaption", "figure", "footer", "form", "frame", "frameset", "h1", "h2", "h3",
		"h4", "h5", "h6", "head", "header", "hr", "html", "iframe", "legend", "li", "link", "main",
		"menu", "menuitem", "nav", "noframes", "ol", "optgroup", "option", "p", "param", "search",
		"section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "title", "tr",
		"track", "ul"} {
		htmlBlockTags[t] = true
	}
}

// htmlBlockStart says whether t starts a type 6 HTML block.
func htmlBlockStart(t []byte) bool {
	if len(t) < 2 || t[0] != '<' {
		return false
	}
	t = bytes.TrimPrefix(t[1:], []byte("/"))
	n := 0
	for n < len(t) && n < 12 && (('a' <= t[n]|0x20 && t[n]|0x20 <= 'z') || ('0' <= t[n] && t[n] <= '9')) {
		n++
	}
	if n == 0 || !htmlBlockTags[string(bytes.ToLower(t[:n]))] {
		return false
	}
	return n == len(t) || t[n] == ' ' || t[n] == '\t' || t[n] == '>' || bytes.HasPrefix(t[n:], []byte("/>"))
}

// linkBytes is how many bytes of link and image destinations and titles
// rendering doc would write (after stopping at maxLinkBytes+1).
func linkBytes(doc ast.Node) int {
	n := 0
	_ = ast.Walk(doc, func(node ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := node.(type) {
		case *ast.Link:
			n += len(l.Destination) + len(l.Title)
		case *ast.Image:
			n += len(l.Destination) + len(l.Title)
		}
		if n > maxLinkBytes {
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return n
}

// plainDocument is src as escaped plain text, after a note saying that
// the document (what: "readme") is shown so and why.
func plainDocument(src []byte, what, why string) template.HTML {
	text := strings.ReplaceAll(string(bytes.ToValidUTF8(src, []byte("\uFFFD"))), "\x00", "\uFFFD")
	return template.HTML(`<p class="doc-note">This ` + html.EscapeString(what) +
		` is shown as plain text: ` + html.EscapeString(why) + `.</p>` +
		`<pre class="plain-doc">` + html.EscapeString(text) + `</pre>`)
}
