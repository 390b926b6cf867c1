package openvsxtest_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/airvsx/airvsx/index/control"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

func TestControlList(t *testing.T) {
	srv := openvsxtest.New(t, openvsxtest.Options{})
	get := func() (int, []byte) {
		t.Helper()
		resp, err := http.Get(srv.URL + openvsxtest.ControlPath)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, b
	}
	srv.SetControl([]byte(openvsxtest.ControlList))
	code, body := get()
	if code != http.StatusOK || string(body) != openvsxtest.ControlList {
		t.Fatalf("GET %s = %d %q", openvsxtest.ControlPath, code, body)
	}
	if _, err := control.Parse(body); err != nil {
		t.Fatalf("the fixture's list is not in the real shape: %v", err)
	}
	srv.Fault(openvsxtest.ControlPath, openvsxtest.Unavailable, 1)
	if code, _ := get(); code != http.StatusServiceUnavailable {
		t.Errorf("with a fault: %d, want 503", code)
	}
	if code, _ := get(); code != http.StatusOK {
		t.Errorf("after the fault: %d", code)
	}
}
