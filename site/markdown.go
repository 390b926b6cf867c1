package site

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"golang.org/x/net/html"
)

// MaxDocumentBytes is the largest README, CHANGELOG or licence text that is
// rendered; a larger one is named on the page but not rendered.
const MaxDocumentBytes = 1 << 20

// docRenderer turns untrusted Markdown into safe HTML: goldmark, then
// bluemonday's allow-list, then rewriteDoc for links, images and ids. It is
// safe for concurrent use.
type docRenderer struct {
	md     goldmark.Markdown
	policy *bluemonday.Policy
}

func newDocRenderer() *docRenderer {
	md := goldmark.New(
		goldmark.WithExtensions(
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
			extension.Strikethrough,
			extension.Linkify,
			extension.TaskList,
		),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
		// Raw HTML is passed through to the sanitizer, which decides.
		goldmark.WithRendererOptions(gmhtml.WithUnsafe()),
	)
	return &docRenderer{md: md, policy: sanitizerPolicy()}
}

var (
	reAlign  = regexp.MustCompile(`^(?i:left|center|right)$`)
	reNumber = regexp.MustCompile(`^[0-9]{1,4}$`)
	reLang   = regexp.MustCompile(`^language-[A-Za-z0-9_+-]{1,40}$`)
	// reID is compiled at first use: its Unicode classes repeated 100
	// times make a program of megabytes, which package initialization
	// would build on every start of the binary (the sandbox helper too).
	reID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\p{L}\p{N}_-]{1,100}$`) })
)

// sanitizerPolicy is the allow-list the package comment describes.
func sanitizerPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowURLSchemes("http", "https", "mailto")
	p.AllowRelativeURLs(true)
	p.RequireParseableURLs(true)
	p.AllowElements(
		"p", "br", "hr", "div", "span", "blockquote", "pre", "code",
		"em", "strong", "b", "i", "u", "s", "del", "ins", "sub", "sup",
		"kbd", "samp", "var", "mark", "small", "dfn", "cite", "q",
		"ul", "ol", "li", "dl", "dt", "dd",
		"table", "thead", "tbody", "tfoot", "tr", "caption",
		"details", "summary", "figure", "figcaption",
		"h1", "h2", "h3", "h4", "h5", "h6",
	)
	p.AllowAttrs("id").Matching(reID()).OnElements("h1", "h2", "h3", "h4", "h5", "h6")
	p.AllowAttrs("align").Matching(reAlign).OnElements("p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "img", "td", "th")
	p.AllowAttrs("colspan", "rowspan").Matching(reNumber).OnElements("td", "th")
	p.AllowElements("td", "th")
	p.AllowAttrs("start").Matching(reNumber).OnElements("ol")
	p.AllowAttrs("open").Matching(regexp.MustCompile(`^(|open)$`)).OnElements("details")
	p.AllowAttrs("title").Matching(bluemonday.Paragraph).OnElements("abbr", "a", "img")
	p.AllowElements("abbr")
	p.AllowAttrs("class").Matching(reLang).OnElements("code")
	p.AllowAttrs("href").OnElements("a")
	p.AllowAttrs("src").OnElements("img")
	p.AllowAttrs("alt").Matching(bluemonday.Paragraph).OnElements("img")
	p.AllowAttrs("width", "height").Matching(reNumber).OnElements("img")
	// Task-list checkboxes; rewriteDoc makes every input a disabled checkbox.
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").Matching(regexp.MustCompile(`^(|checked|disabled)$`)).OnElements("input")
	return p
}

// imageResolver maps a relative image reference of a document to the URL
// of its copy in the site (relative to the page), or "" when there is none.
type imageResolver func(ref string) string

// Render renders untrusted Markdown (with raw HTML) to safe HTML. what
// names the document ("readme"); it is put before every id the document
// brings ("readme-"), so that it cannot collide with (or clobber) the
// page's own names. A document past the limits of shapeProblem or
// maxLinkBytes is rendered as escaped plain text after a note saying why.
func (r *docRenderer) Render(src []byte, what string, img imageResolver) (template.HTML, error) {
	if why := shapeProblem(src); why != "" {
		return plainDocument(src, what, why), nil
	}
	doc := r.md.Parser().Parse(text.NewReader(src))
	if n := linkBytes(doc); n > maxLinkBytes {
		return plainDocument(src, what, fmt.Sprintf("its links would expand to more than %d bytes", maxLinkBytes)), nil
	}
	var raw bytes.Buffer
	if err := r.md.Renderer().Render(&raw, src, doc); err != nil {
		return "", fmt.Errorf("render the %s: %w", what, err)
	}
	clean := r.policy.SanitizeReader(&raw)
	return template.HTML(rewriteDoc(clean, what+"-", img)), nil
}

// rewrites are the elements rewriteDoc changes; it copies the others as
// the sanitizer wrote them.
var rewrites = map[string]bool{
	"a": true, "img": true, "input": true, "br": true, "hr": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
}

// rewriteDoc applies the link, image, id and checkbox rules to sanitized
// HTML. It only ever removes or narrows what the sanitizer let through.
func rewriteDoc(r io.Reader, idPrefix string, img imageResolver) string {
	z := html.NewTokenizer(r)
	w := &docRewriter{idPrefix: idPrefix, img: img}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			for _, kept := range w.anchors {
				if kept {
					w.b.WriteString("</a>")
				}
			}
			return w.b.String()
		case html.CommentToken, html.DoctypeToken:
			continue
		case html.TextToken:
			// The sanitizer's output: text is escaped already.
			w.b.Write(z.Raw())
		case html.EndTagToken:
			w.endTag(z)
		case html.StartTagToken, html.SelfClosingTagToken:
			w.startTag(z, tt)
		}
	}
}

// docRewriter is rewriteDoc's state: the output so far and the anchors
// open at this point.
type docRewriter struct {
	idPrefix string
	img      imageResolver
	b        strings.Builder
	anchors  []bool // for each open <a>: whether it was kept
}

// inKeptAnchor reports whether an anchor that was kept is open.
func (w *docRewriter) inKeptAnchor() bool {
	for _, k := range w.anchors {
		if k {
			return true
		}
	}
	return false
}

// endTag writes the end tag z is at, unless its element was dropped or
// is void.
func (w *docRewriter) endTag(z *html.Tokenizer) {
	name, _ := z.TagName()
	if !rewrites[string(name)] {
		w.b.Write(z.Raw())
		return
	}
	t := html.Token{Type: html.EndTagToken, Data: string(name)}
	if t.Data == "a" {
		if len(w.anchors) == 0 {
			return
		}
		kept := w.anchors[len(w.anchors)-1]
		w.anchors = w.anchors[:len(w.anchors)-1]
		if !kept {
			return
		}
	}
	if t.Data == "input" || t.Data == "img" || t.Data == "br" || t.Data == "hr" {
		return
	}
	w.b.WriteString(t.String())
}

// startTag writes the start tag z is at (of type tt) as the rules narrow
// it, or drops it.
func (w *docRewriter) startTag(z *html.Tokenizer, tt html.TokenType) {
	raw := z.Raw()
	name, more := z.TagName()
	if !rewrites[string(name)] {
		w.b.Write(raw)
		return
	}
	t := html.Token{Type: tt, Data: string(name)}
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		t.Attr = append(t.Attr, html.Attribute{Key: string(k), Val: string(v)})
	}
	switch t.Data {
	case "a":
		if !w.anchor(&t) {
			return
		}
	case "img":
		w.b.WriteString(rewriteImage(t, w.img, w.inKeptAnchor()))
		return
	case "input":
		if getAttr(t, "type") != "checkbox" {
			return
		}
		if hasAttr(t, "checked") {
			w.b.WriteString(`<input type="checkbox" checked="" disabled="">`)
		} else {
			w.b.WriteString(`<input type="checkbox" disabled="">`)
		}
		return
	case "h1", "h2", "h3", "h4", "h5", "h6":
		if id := getAttr(t, "id"); id != "" {
			t.Attr = []html.Attribute{{Key: "id", Val: w.idPrefix + id}}
			if a := getAttr(t, "align"); a != "" {
				t.Attr = append(t.Attr, html.Attribute{Key: "align", Val: a})
			}
		}
	}
	t.Type = html.StartTagToken
	if t.Data == "br" || t.Data == "hr" {
		t.Type = html.SelfClosingTagToken
	}
	w.b.WriteString(t.String())
}

// anchor narrows <a> t to a fragment within the document or a remote or
// mail link, and reports whether it is kept; a nested anchor, or one to
// anywhere else, is dropped (its text stays).
func (w *docRewriter) anchor(t *html.Token) bool {
	if w.inKeptAnchor() { // nested anchors: keep the text only
		w.anchors = append(w.anchors, false)
		return false
	}
	href, kind := classifyURL(getAttr(*t, "href"))
	switch kind {
	case urlFragment:
		t.Attr = []html.Attribute{{Key: "href", Val: "#" + w.idPrefix + href}}
	case urlRemote, urlMail:
		attrs := []html.Attribute{{Key: "href", Val: href}, {Key: "rel", Val: "nofollow noopener noreferrer"}}
		if title := getAttr(*t, "title"); title != "" {
			attrs = append(attrs, html.Attribute{Key: "title", Val: title})
		}
		t.Attr = attrs
	default:
		w.anchors = append(w.anchors, false)
		return false
	}
	w.anchors = append(w.anchors, true)
	return true
}

// rewriteImage returns the HTML that replaces an <img>: the image from the
// site's own copy, or a link to a remote image that is not loaded, or the
// alt text.
func rewriteImage(t html.Token, img imageResolver, inAnchor bool) string {
	alt := getAttr(t, "alt")
	ref, kind := classifyURL(getAttr(t, "src"))
	esc := html.EscapeString
	switch kind {
	case urlRelative:
		if img != nil {
			if src := img(ref); src != "" {
				s := `<img src="` + esc(src) + `" alt="` + esc(alt) + `"`
				for _, k := range []string{"width", "height", "align"} {
					if v := getAttr(t, k); v != "" {
						s += ` ` + k + `="` + esc(v) + `"`
					}
				}
				return s + ` loading="lazy">`
			}
		}
		if alt == "" {
			alt = path.Base(ref)
		}
		return `<span class="img-note">[image not in the package: ` + esc(alt) + `]</span>`
	case urlRemote:
		label := alt
		if label == "" {
			label = ref
		}
		if inAnchor {
			return `<span class="img-note">[remote image not loaded: ` + esc(label) + `]</span>`
		}
		return `<span class="img-note">[remote image not loaded: <a href="` + esc(ref) +
			`" rel="nofollow noopener noreferrer">` + esc(label) + `</a>]</span>`
	}
	if alt == "" {
		return ""
	}
	return `<span class="img-note">[image: ` + esc(alt) + `]</span>`
}

type urlKind int

const (
	urlOther    urlKind = iota // anything not below: dropped
	urlFragment                // "#x": the fragment, unescaped
	urlRemote                  // http or https: the URL
	urlMail                    // mailto: the URL
	urlRelative                // a relative path: the path, unescaped, without query or fragment
)

// classifyURL says what kind of URL s is and returns the part to use.
func classifyURL(s string) (string, urlKind) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", urlOther
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", urlOther
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return "", urlOther
		}
		return u.String(), urlRemote
	case "mailto":
		return u.String(), urlMail
	case "":
	default:
		return "", urlOther
	}
	if u.Host != "" { // "//host/path"
		u.Scheme = "https"
		return u.String(), urlRemote
	}
	if u.Path == "" && u.Opaque == "" {
		if u.Fragment != "" && reID().MatchString(u.Fragment) {
			return u.Fragment, urlFragment
		}
		return "", urlOther
	}
	if u.Opaque != "" || strings.Contains(u.Path, `\`) {
		return "", urlOther
	}
	return u.Path, urlRelative
}

func getAttr(t html.Token, key string) string {
	for _, a := range t.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(t html.Token, key string) bool {
	for _, a := range t.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}
