package control_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
)

func fixture(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/extensions.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseFixture(t *testing.T) {
	l, err := control.Parse(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Malicious) != 3 || len(l.Deprecated) != 4 || len(l.Search) != 1 {
		t.Fatalf("parsed %+v", l)
	}
	if d := l.Deprecated["legacy.linter"]; d.Info == nil || !d.Info.DisallowInstall || d.Info.Extension.ID != "modern.linter" {
		t.Errorf("legacy.linter: %+v", d)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"empty", ``, "EOF"},
		{"not an object", `[]`, "cannot unmarshal"},
		{"no malicious", `{"deprecated": {}}`, "malicious is required"},
		{"malicious null", `{"malicious": null}`, "malicious is required"},
		{"unknown field", `{"malicious": [], "extra": 1}`, "unknown field"},
		{"unknown deprecation field", `{"malicious": [], "deprecated": {"a.b": {"why": "x"}}}`, "unknown field"},
		{"replacement without name", `{"malicious": [], "deprecated": {"a.b": {"extension": {"id": "c.d"}}}}`, "displayName are required"},
		{"deprecation a string", `{"malicious": [], "deprecated": {"a.b": "yes"}}`, "want true, false or an object"},
		{"malicious not strings", `{"malicious": [1]}`, "cannot unmarshal"},
		{"empty malicious entry", `{"malicious": [" "]}`, "malicious[0] is empty"},
		{"duplicate key", `{"malicious": [], "malicious": ["a.b"]}`, "twice"},
		{"duplicate nested key", `{"malicious": [], "deprecated": {"a.b": true, "a.b": false}}`, "twice"},
		{"deprecated twice ignoring case", `{"malicious": [], "deprecated": {"a.b": true, "A.B": false}}`, "twice"},
		{"trailing data", `{"malicious": []} {}`, "after the list"},
		{"migration without id", `{"malicious": [], "migrateToPreRelease": {"a.b": {"displayName": "x"}}}`, "required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := control.Parse([]byte(tc.data))
			if !errors.Is(err, control.ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse: %v; want ErrMalformed saying %q", err, tc.want)
			}
		})
	}
	big := make([]byte, control.MaxBytes+1)
	if _, err := control.Parse(big); !errors.Is(err, control.ErrMalformed) {
		t.Errorf("a list over MaxBytes: %v", err)
	}
}

func TestVerdict(t *testing.T) {
	up, err := control.NewSource(index.ControlUpstream, fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	admin, err := control.NewSource("file:ours", []byte(`{"malicious": ["inhouse.leaky"], "deprecated": {"old.theme": {"disallowInstall": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	set := control.NewSet(up, admin)
	for _, tc := range []struct {
		id         string
		malicious  bool
		deprecated bool
		refuses    bool
		entry      string
		origin     string
	}{
		{"evilcorp.anything", true, false, true, "evilcorp", "upstream"}, // a bare publisher covers all
		{"EvilCorp.Other", true, false, true, "evilcorp", "upstream"},    // ignoring case
		{"evilcorpx.thing", false, false, false, "", ""},                 // the publisher, not a prefix
		{"typosquat.PYHTON", true, false, true, "typosquat.pyhton", "upstream"},
		{"someone.stealer", true, false, true, "Someone.Stealer", "upstream"},
		{"typosquat.other", false, false, false, "", ""},                  // an ID entry is not its publisher
		{"legacy.linter", false, true, true, "legacy.linter", "upstream"}, // disallowInstall
		{"Old.Theme", false, true, false, "old.theme", "upstream"},        // true: deprecated, installable; first origin wins
		{"still.fine", false, false, false, "", ""},                       // false: ignored
		{"settings.only", false, true, false, "settings.only", "upstream"},
		{"inhouse.leaky", true, false, true, "inhouse.leaky", "file:ours"},
		{"clean.ext", false, false, false, "", ""},
	} {
		t.Run(tc.id, func(t *testing.T) {
			v := set.Verdict(index.MustParseID(tc.id))
			if v.Malicious != tc.malicious || (v.Deprecated != nil) != tc.deprecated || v.Refuses() != tc.refuses || v.Entry != tc.entry || v.Origin != tc.origin {
				t.Fatalf("Verdict = %+v (%s)", v, v)
			}
		})
	}
	if s := set.Verdict(index.MustParseID("legacy.linter")).String(); !strings.Contains(s, "replaced by modern.linter (Modern Linter)") {
		t.Errorf("String = %q", s)
	}
	var empty *control.Set
	if empty.Verdict(index.MustParseID("evilcorp.x")).Listed() || !empty.Empty() {
		t.Error("a nil set lists something")
	}
}

func TestBytes(t *testing.T) {
	data := fixture(t)
	up, _ := control.NewSource(index.ControlUpstream, data)
	one, err := control.NewSet(up).Bytes()
	if err != nil || string(one) != string(data) {
		t.Fatalf("one list: not its bytes (%v)", err)
	}
	admin, _ := control.NewSource("file:ours", []byte(`{"malicious": ["EVILCORP", "inhouse.leaky"]}`))
	merged, err := control.NewSet(up, admin).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	l, err := control.Parse(merged)
	if err != nil {
		t.Fatalf("merged list does not parse: %v\n%s", err, merged)
	}
	if strings.Join(l.Malicious, ",") != "evilcorp,typosquat.pyhton,Someone.Stealer,inhouse.leaky" || len(l.Deprecated) != 4 {
		t.Errorf("merged: %+v", l)
	}
}

func TestStaleAndOlder(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	a := index.ControlRef{Origin: "upstream", FetchedAt: now.Add(-48 * time.Hour)}
	b := index.ControlRef{Origin: "file:ours", FetchedAt: now.Add(-time.Hour)}
	if s := control.Stale([]index.ControlRef{a, b}, now, 24*time.Hour); len(s) != 1 || s[0].Origin != "upstream" {
		t.Errorf("Stale = %+v", s)
	}
	if s := control.Stale([]index.ControlRef{a}, now, 0); s != nil {
		t.Errorf("no bound: Stale = %+v", s)
	}
	newer := a
	newer.FetchedAt = now
	if _, _, ok := control.Older([]index.ControlRef{a}, []index.ControlRef{newer}); ok {
		t.Error("a newer list is older")
	}
	if was, _, ok := control.Older([]index.ControlRef{newer, b}, []index.ControlRef{a}); !ok || was.Origin != "upstream" {
		t.Error("an older list is not")
	}
}

func TestLoad(t *testing.T) {
	data := fixture(t)
	ref := index.ControlRef{Origin: index.ControlUpstream, Digest: index.DigestBytes(data), Size: int64(len(data))}
	set, err := control.Load(control.Pinned{Ref: ref, Data: data})
	if err != nil || !set.Verdict(index.MustParseID("evilcorp.x")).Malicious {
		t.Fatalf("Load = %v", err)
	}
	if b, _ := set.Bytes(); string(b) != string(data) {
		t.Error("Bytes is not the list's own bytes")
	}
	ref.Digest = index.DigestBytes([]byte("other"))
	if _, err := control.Load(control.Pinned{Ref: ref, Data: data}); err == nil {
		t.Error("a list that is not its ref's bytes loads")
	}
}

// TestParseExactFieldNames: a field name in another case is refused
// (encoding/json would take it; VS Code's JavaScript would not), at every
// level; IDs as keys keep any case.
func TestParseExactFieldNames(t *testing.T) {
	for _, doc := range []string{
		`{"Malicious": []}`,
		`{"malicious": [], "MALICIOUS": ["a.b"]}`,
		`{"malicious": [], "Deprecated": {}}`,
		`{"malicious": [], "deprecated": {"a.b": {"DisallowInstall": true}}}`,
		`{"malicious": [], "deprecated": {"a.b": {"extension": {"ID": "c.d", "displayName": "x"}}}}`,
		`{"malicious": [], "migrateToPreRelease": {"a.b": {"id": "c", "DisplayName": "x"}}}`,
		`{"malicious": [], "search": [{"Query": "x"}]}`,
	} {
		if _, err := control.Parse([]byte(doc)); !errors.Is(err, control.ErrMalformed) || !strings.Contains(err.Error(), "unknown field") {
			t.Errorf("Parse(%s) = %v; want an unknown field", doc, err)
		}
	}
	l, err := control.Parse([]byte(`{"malicious": ["A.B"], "learnMoreLinks": {"A.B": "https://x"}, "deprecated": {"Some.Ext": {"extension": {"id": "c.d", "displayName": "x"}}}, "search": [{"query": "q", "preferredResults": ["a.b"]}]}`))
	if err != nil || l.Deprecated["Some.Ext"].Info == nil || l.LearnMoreLinks["A.B"] == "" {
		t.Fatalf("IDs as keys keep their case: %+v, %v", l, err)
	}
}

// TestVerdictOpenVSXNames: an entry naming an extension whose name VS
// Code's identifier pattern does not accept ($ and ~ are Open VSX's) still
// covers that extension, and only it; it is no publisher.
func TestVerdictOpenVSXNames(t *testing.T) {
	src, err := control.NewSource("upstream", []byte(`{"malicious": ["pub.na$me"]}`))
	if err != nil {
		t.Fatal(err)
	}
	set := control.NewSet(src)
	if !set.Verdict(index.MustParseID("Pub.Na$me")).Malicious {
		t.Error("pub.na$me is not malicious")
	}
	if set.Verdict(index.MustParseID("pub.other")).Malicious {
		t.Error("pub.na$me covers its publisher")
	}
}
