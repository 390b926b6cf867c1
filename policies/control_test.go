package policies_test

import (
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/policies"
)

func TestParseControl(t *testing.T) {
	const base = "version: 1\nextensions: [{id: a.b}]\n"
	p, err := policies.Parse("p.yaml", []byte(base+`control:
  url: https://example.org/extension-control/extensions.json
  files: [lists/ours.json]
  maxAge: 7d
  allow:
    - {id: Legacy.Linter, reason: "we still build with it"}
`))
	if err != nil {
		t.Fatal(err)
	}
	c := p.Control
	if c.URL != "https://example.org/extension-control/extensions.json" || c.MaxAge != 7*24*time.Hour || len(c.Files) != 1 {
		t.Fatalf("Control = %+v", c)
	}
	if policies.ControlOrigin(c.Files[0]) != "file:ours" {
		t.Errorf("origin %q", policies.ControlOrigin(c.Files[0]))
	}
	if a, ok := c.Allowed("legacy.LINTER"); !ok || a.Reason != "we still build with it" {
		t.Errorf("Allowed = %+v, %v", a, ok)
	}
	if _, ok := c.Allowed("other.ext"); ok {
		t.Error("an extension not overridden is allowed")
	}
	out, err := p.MarshalYAML()
	if err != nil {
		t.Fatal(err)
	}
	again, err := policies.Parse("again.yaml", out)
	if err != nil || again.Control.URL != c.URL || again.Control.MaxAge != c.MaxAge || len(again.Control.Allow) != 1 {
		t.Fatalf("round trip: %v\n%s", err, out)
	}
	plain, _ := policies.Parse("plain.yaml", []byte(base))
	if out, _ := plain.MarshalYAML(); strings.Contains(string(out), "control") {
		t.Errorf("a policy without control writes one:\n%s", out)
	}

	for _, tc := range []struct{ name, doc, want string }{
		{"http url", "control: {url: 'http://example.org/x.json'}", "http is allowed only for loopback"},
		{"pattern override", "control: {allow: [{id: 'a.*', reason: x}]}", "want one exact extension ID"},
		{"no reason", "control: {allow: [{id: a.b}]}", "reason: missing"},
		{"twice", "control: {allow: [{id: a.b, reason: x}, {id: A.B, reason: y}]}", "overridden twice"},
		{"same origin", "control: {files: [x/ours.json, y/ours.json]}", "a second list named file:ours"},
		{"bad file name", "control: {files: ['-x.json']}", "names the list's origin"},
		{"unknown field", "control: {urls: []}", "unknown field"},
		{"bad max age", "control: {maxAge: 7}", "control.maxAge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := policies.Parse("p.yaml", []byte(base+tc.doc+"\n"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse: %v; want %q", err, tc.want)
			}
		})
	}
}
