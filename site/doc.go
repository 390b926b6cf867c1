// Package site renders a registry's signed catalog into a static HTML
// catalog that works when its index.html is opened from file:// (a USB
// stick on an air-gapped machine) and the same from any static web server.
// It writes the pages of "airvsx site": their install instructions are
// airvsx command lines (Options.InstallTrust), and its banner names the
// flag a page was rendered with (--unverified).
//
// # Trust
//
// Render reads the catalog through the registry's TUF metadata and checks
// it against a trust anchor before it renders anything: Options.Root (a
// pinned root.json) or Options.Key (the signer's public key, trusted on
// first use of the registry's 1.root.json). Without either, or when the
// check fails, Render refuses with an error wrapping ErrNotVerified, unless
// Options.Unverified is set: then the catalog is read as well as it can be
// (through the registry's own root; failing that, by following the
// unverified metadata to the catalog and checking only its hash) and every
// page carries a banner that says the catalog is not verified and why.
// Every vsix, image and text file copied or rendered is read through the
// store's verify-on-read blobs, so a byte that differs from what the
// catalog pins fails the render.
//
// # Output
//
// The site is rendered into a new temporary directory beside Options.Out
// and then swapped into place in one rename (an exchange of the two
// directories where the kernel supports it), so a reader sees the old site
// or the new one, never a mix. Out must be absent, empty, or a site an
// earlier Render wrote (it holds the marker file SiteMarker); anything else
// is refused rather than replaced.
//
// A site this renderer wrote, with the same Downloads, whose StateFile is
// intact and which holds no file the state does not name, is instead
// rendered again in place: only the pages whose inputs changed (an
// extension's catalog entries and the pages it links; a list page's
// extensions) are written, each file replaced atomically, the pages and
// files no longer used are removed, and the state is written last (it is
// removed first, so an interrupted render is followed by a full one).
//
//	index.html                      home: the first FirstPage cards, search, filters, sort, summary
//	publishers.html                 every publisher
//	ext/<ns.name>.html              one page per extension (lower-case ID)
//	category/<slug>.html            one page per category
//	publisher/<ns>.html             one page per publisher (lower-case)
//	dl/<ns.name-version[@platform]>.vsix   every vsix, byte for byte (DownloadsCopy only)
//	img/<sha256>.<ext>              icons and README images (PNG, JPEG, GIF, WebP only)
//	assets/site.css, assets/site.js the one style sheet and the one script
//	assets/favicon.png              the icon browsers ask for
//	assets/search-index.js          the search index, a script (file:// cannot fetch JSON)
//	.airvsx-site                    the marker
//	.airvsx-site-state.json         what each page was rendered from (StateFile)
//
// The output is deterministic: the same catalog and registry give the same
// bytes in every file (no render time, no map order, no randomness), and
// an incremental render gives the bytes a full one gives.
//
// # Downloads
//
// DownloadsCopy copies every vsix into dl/. DownloadsLink copies none: a
// page links the package stored in the registry (Options.RegistryDir) by
// a relative URL, after the stored file was read and checked against the
// catalog, with a download attribute naming it ns.name-version.vsix. Over
// http Chromium saves it under that name (the link is same-origin when the
// server serves the directory holding the site and the registry); from
// file:// Chromium ignores the attribute (every file URL is an origin of
// its own) and saves the file under its stored name, the digest (with
// ".zip" for what it sniffs), so the page says which name to give it.
// DownloadsNone offers no package: pages name the registry.
//
// # Home page
//
// The home page holds only the first FirstPage cards, so its size and
// first paint do not grow with the registry. Its script, deferred, loads
// the search index after the page is shown (or on the first search) and
// builds the other cards from it; without script, every extension is
// reached through the category and publisher pages.
//
// # Pages
//
// Every page has a Content-Security-Policy meta tag (CSP): default-src
// 'none', scripts, styles and images only from the site's own files ('self'),
// no inline script or style, no base URI, no form action. Nothing on any
// page makes a request outside the site: no CDN, font, analytics or remote
// image. Pages have landmarks, a skip link, labelled controls, and a light
// and a dark theme following prefers-color-scheme.
//
// # READMEs are hostile
//
// READMEs and CHANGELOGs are rendered with goldmark (GFM: tables, task
// lists, autolinks, strikethrough, fenced code; raw HTML passed through)
// and then sanitized with bluemonday under an allow-list:
//
//   - only text-level and block elements for documents (headings,
//     paragraphs, lists, tables, code, quotes, details/summary, images,
//     links); no script, style, iframe, object, embed, form, input (except
//     disabled task-list checkboxes), svg, math, meta, base, link;
//   - no event attributes, no style or class attributes; id only on
//     headings, and prefixed "readme-" so it cannot clobber the page's own
//     names; fragment links are rewritten to match;
//   - link URLs only http, https, mailto or a fragment; other relative
//     links are unwrapped to their text (the files they name are not in the
//     site); outbound links get rel="nofollow noopener noreferrer";
//   - images: a relative image is resolved against the README's directory
//     inside the vsix and, when that file exists and is a PNG, JPEG, GIF or
//     WebP by its content, copied into img/ and shown; a remote image is
//     never loaded: it becomes a link to its URL; anything else becomes its
//     alt text.
//
// READMEs larger than MaxDocumentBytes are not rendered (the page says so).
// goldmark's time is superlinear in some shapes of input (unclosed links
// and emphasis, block quotes and lists nested deep, link reference
// definitions in bulk) and cannot be interrupted, so a document is first
// scanned in linear time for those shapes and for its number of
// elements; past the bounds (mdbound.go) it is shown as escaped plain
// text, after a note saying why. Any document up to MaxDocumentBytes
// renders in well under a second (BenchmarkRenderMarkdownPathological,
// FuzzRenderMarkdownTime).
//
// An icon or licence text larger than MaxDocumentBytes is left out, and
// the extension's page says it is unavailable and why; the rest of the
// site renders. A blob that does not match its digest fails the render.
package site
