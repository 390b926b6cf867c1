package serve

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzPath: a request path that cleanPath lets through and segments
// splits yields only segments a route may use: no dot segment, no
// separator, no control character, whatever the encoding.
func FuzzPath(f *testing.F) {
	for _, s := range []string{"/api/ns/name/1.0.0/file/x.vsix", "/%2e%2e/x", "/%252e%252e/", "/a%2fb", "/..%5c", "/%00", "/%c0%ae%c0%ae/", "/a//b", "/%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if !cleanPath(p) {
			return
		}
		segs, ok := segments(strings.TrimPrefix(p, "/"))
		if !ok {
			return
		}
		for _, s := range segs {
			if !cleanSegment(s) {
				t.Fatalf("segments(%q) gave %q", p, s)
			}
			if u, err := url.PathUnescape(s); err == nil && (u == ".." || u == ".") {
				// A segment that decodes once more to a dot segment was
				// refused by cleanPath.
				t.Fatalf("cleanPath(%q) let the dot segment %q through", p, s)
			}
		}
	})
}
