package termtext

import "testing"

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"Café ☕ 日本", "Café ☕ 日本"},
		{"a\nproblems: none\x1b[8m", `a\nproblems: none\x1b[8m`},
		{"tab\there", `tab\there`},
		{"cr\roverwrite", `cr\roverwrite`},
		{"del\x7f", `del\x7f`},
		{"c1\u009b31m", `c1\u009b31m`},
		{"rlo\u202eexe.txt", `rlo\u202eexe.txt`},
		{"isolate\u2066x\u2069", `isolate\u2066x\u2069`},
		{"zero\u200bwidth\ufeff", `zero\u200bwidth\ufeff`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzEscape: the result never holds a character Escape must escape, and
// text that needs no escaping comes back unchanged.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"plain", "a\nb\x1b[0m", "\u202e", "\xff\xfe", "日本\u200b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		if needsEscape(got) {
			t.Fatalf("Escape(%q) = %q still holds unsafe characters", s, got)
		}
		if !needsEscape(s) && got != s {
			t.Fatalf("Escape(%q) = %q; want it unchanged", s, got)
		}
	})
}
