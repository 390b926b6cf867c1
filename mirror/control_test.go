package mirror_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/mirror/openvsx"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// TestSyncControl: the list fetched from the fixture upstream (the real
// file's shape: a publisher-wide entry, a deprecated entry with its
// replacement) and an admin's own list are pinned in the signed catalog
// head, byte for byte, each with its origin; the same lists again sign
// nothing; a changed list signs a new serial; a malformed list, or a
// fetch that fails, stops the sync and changes nothing.
func TestSyncControl(t *testing.T) {
	e := newEnv(t, openvsxtest.Options{})
	client, err := openvsx.NewClient(openvsx.ClientOptions{BaseURL: e.srv.URL, Rate: 1000, Burst: 100, MaxRetries: -1,
		ControlURL: e.srv.URL + openvsxtest.ControlPath})
	if err != nil {
		t.Fatal(err)
	}
	pol := demoreg.Policy(t)
	admin := []byte(`{"malicious": ["in-house.leaky"]}`)
	now := demoreg.SyncNow1
	sync := func(files ...mirror.ControlFile) (*mirror.Report, error) {
		t.Helper()
		st := storetest.OpenDir(t, e.dir, dirstore.Options{Create: true})
		defer st.Close()
		now = now.Add(time.Minute)
		return mirror.Sync(t.Context(), mirror.Options{Client: client, Policy: pol, Store: st, Signer: e.signer,
			Now: func() time.Time { return now }, TempDir: t.TempDir(), ControlFiles: files})
	}
	ours := mirror.ControlFile{Origin: "file:ours", Source: "ours.json", Data: admin}

	e.srv.SetControl([]byte(openvsxtest.ControlList))
	rep, err := sync(ours)
	if err != nil {
		t.Fatal(err)
	}
	cat := e.catalog(t)
	want := []index.ControlRef{
		{Origin: "file:ours", Source: "ours.json", FetchedAt: now.UTC().Truncate(time.Second), Digest: index.DigestBytes(admin), Size: int64(len(admin))},
		{Origin: "upstream", Source: e.srv.URL + openvsxtest.ControlPath, FetchedAt: now.UTC().Truncate(time.Second),
			Digest: index.DigestBytes([]byte(openvsxtest.ControlList)), Size: int64(len(openvsxtest.ControlList))},
	}
	if diff := cmp.Diff(want, cat.Control); diff != "" {
		t.Fatalf("catalog control (-want +got):\n%s", diff)
	}
	for _, r := range want {
		got := filetest.ReadFile(t, e.dir+"/metadata/targets/"+strings.TrimPrefix(r.Digest, "sha256:")+".control.json")
		if index.DigestBytes(got) != r.Digest {
			t.Errorf("%s: the stored list is not its bytes", r.Origin)
		}
	}
	up, _ := control.NewSource("upstream", []byte(openvsxtest.ControlList))
	set := control.NewSet(up)
	if v := set.Verdict(index.MustParseID("Evil-Publisher.anything")); !v.Malicious || v.Entry != "evil-publisher" {
		t.Errorf("publisher-wide entry: %+v", v)
	}
	if v := set.Verdict(index.MustParseID("airvsx-demo.old-tool")); v.Deprecated == nil || v.Deprecated.Extension.ID != "airvsx-demo.new-tool" || !v.Refuses() {
		t.Errorf("deprecated entry: %+v", v)
	}
	if len(rep.Control) != 2 {
		t.Errorf("report: %+v", rep.Control)
	}

	// The same lists: nothing new, nothing written.
	before := filetest.Files(t, e.dir)
	rep, err = sync(ours)
	if err != nil || rep.Catalog == nil || !rep.Catalog.Unchanged {
		t.Fatalf("same lists: %+v, %v; want unchanged", rep.Catalog, err)
	}
	if diff := cmp.Diff(before, filetest.Files(t, e.dir)); diff != "" {
		t.Fatalf("same lists changed the registry:\n%s", diff)
	}

	// A malformed list, and one the upstream fails to serve: refused,
	// nothing written.
	for _, tc := range []struct {
		name string
		prep func()
		want error
	}{
		{"malformed upstream", func() { e.srv.SetControl([]byte(`{"malicious": "evil"}`)) }, control.ErrMalformed},
		{"unavailable", func() {
			e.srv.SetControl([]byte(openvsxtest.ControlList))
			e.srv.Fault(openvsxtest.ControlPath, openvsxtest.Unavailable, 1)
		}, nil},
	} {
		tc.prep()
		_, err := sync(ours)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: Sync = %v; want a refusal", tc.name, err)
		}
		if diff := cmp.Diff(before, filetest.Files(t, e.dir)); diff != "" {
			t.Errorf("%s: the registry changed:\n%s", tc.name, diff)
		}
	}
	if _, err := sync(mirror.ControlFile{Origin: "file:ours", Source: "ours.json", Data: []byte(`{}`)}); !errors.Is(err, control.ErrMalformed) {
		t.Errorf("a malformed admin list: %v", err)
	}

	// A changed list signs the next serial.
	e.srv.SetControl([]byte(`{"malicious": ["evil-publisher", "airvsx-demo.hello-command"]}`))
	rep, err = sync(ours)
	if err != nil || rep.Catalog == nil || rep.Catalog.Serial != 2 {
		t.Fatalf("changed list: %+v, %v; want serial 2", rep.Catalog, err)
	}
}
