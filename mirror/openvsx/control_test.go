package openvsx

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// TestFetchControl: the control list is fetched from the one URL the
// admin gave, on another host than the upstream (as Open VSX's is on
// GitHub), and logged; without one nothing is fetched; that host is not
// a place the upstream's file URLs may send the client.
func TestFetchControl(t *testing.T) {
	up := openvsxtest.New(t, openvsxtest.Options{})
	list := `{"malicious": ["evil"]}`
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/extension-control/extensions.json" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(list))
	}))
	t.Cleanup(other.Close)

	plain, err := NewClient(ClientOptions{BaseURL: up.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.FetchControl(t.Context(), 1<<20); !errors.Is(err, ErrRefused) {
		t.Errorf("no ControlURL: %v; want ErrRefused", err)
	}
	c, err := NewClient(ClientOptions{BaseURL: up.URL, ControlURL: other.URL + "/extension-control/extensions.json", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.FetchControl(t.Context(), 1<<20)
	if err != nil || string(got) != list {
		t.Fatalf("FetchControl = %q, %v", got, err)
	}
	if eg := c.Egress(); len(eg) != 1 || eg[0].URL != other.URL+"/extension-control/extensions.json" {
		t.Errorf("egress log: %+v", eg)
	}
	if _, err := c.Fetch(t.Context(), other.URL+"/elsewhere.sha256", 1<<20); !errors.Is(err, ErrRefused) {
		t.Errorf("Fetch on the control list's host: %v; want ErrRefused", err)
	}
	if _, err := NewClient(ClientOptions{BaseURL: up.URL, ControlURL: "ftp://x/list.json"}); err == nil {
		t.Error("an ftp control URL is accepted")
	}
	if _, err := c.FetchControl(t.Context(), 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a list over the cap: %v; want ErrTooLarge", err)
	}
}
